"""The minimal loop (samples/minimal_loop.cpp) in Python, profiled with call stacks.

A trace of a Python program made with torch.profiler's with_stack=True carries each operator's Python stack,
which torch-sync-trace reads for the source line without an operator-stacks file. This writes
<outdir>/python_printing.json: ten iterations of two 2048 x 2048 products and a printed 0-dim CUDA tensor
(print(step)), the printing loop's pattern. Needs a CUDA device; usage: python3 python_trace_loop.py OUTDIR.
"""
import io
import os
import sys
import contextlib

import torch


def printing_loop(weights, activations, step, iterations):
    """The sync pattern: print the device counter each iteration."""
    for _ in range(iterations):
        for _ in range(2):
            activations = torch.tanh(activations @ weights)
        step += 1
        print(step)
    return activations


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: python_trace_loop.py OUTDIR")
    if not torch.cuda.is_available():
        sys.exit("python_trace_loop: no CUDA device is visible")
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    weights = torch.randn(2048, 2048, device="cuda") / 2048 ** 0.5
    activations = torch.randn(2048, 2048, device="cuda")
    step = torch.zeros((), dtype=torch.long, device="cuda")
    with contextlib.redirect_stdout(io.StringIO()):
        activations = printing_loop(weights, activations, step, 10)  # warm-up
        torch.cuda.synchronize()
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=activities, with_stack=True) as profile:
            printing_loop(weights, activations, step, 10)
            torch.cuda.synchronize()
    profile.export_chrome_trace(os.path.join(outdir, "python_printing.json"))


if __name__ == "__main__":
    main()
