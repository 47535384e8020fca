#!/usr/bin/env python3
"""Summarizes guard_overhead's output (run-gpu.sh's overhead.jsonl): per loop and mode, the median of the
repetitions' iterations per second and host CPU microseconds per iteration, and each mode's ratio to the
guard not linked at all (the baseline). Also the median time to arm a scope (the CUPTI subscription).

Usage: summarize_overhead.py [overhead.jsonl]   (default: ../results/overhead.jsonl)
"""
import json
import os
import statistics
import sys

path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "results", "overhead.jsonl")
rows = [json.loads(line) for line in open(path) if line.strip()]
print("| loop | mode | runs | iterations/s (median) | min-max | vs not linked | host CPU us/iteration (median) "
      "| arm ms (median) |")
print("|---|---|---|---|---|---|---|---|")
for loop in sorted({r["loop"] for r in rows}, reverse=True):
    base = statistics.median(r["iterations_per_second"] for r in rows
                             if r["loop"] == loop and r["mode"] == "not-linked")
    for mode in ("not-linked", "unarmed", "armed"):
        runs = [r for r in rows if r["loop"] == loop and r["mode"] == mode]
        if not runs:
            continue
        ips = [r["iterations_per_second"] for r in runs]
        median = statistics.median(ips)
        print(f"| {loop} | {mode} | {len(runs)} | {median:.1f} | {min(ips):.0f}-{max(ips):.0f} | "
              f"{(median / base - 1) * 100:+.2f} % | "
              f"{statistics.median(r['cpu_us_per_iteration'] for r in runs):.1f} | "
              f"{statistics.median(r.get('arm_ms', 0) for r in runs):.2f} |")
