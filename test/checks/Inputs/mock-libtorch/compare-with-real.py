#!/usr/bin/env python3
"""Runs each %check_torch_sync RUN line of check tests on the mock LibTorch headers and on real
ones, and prints the difference between clang-tidy's diagnostics (warnings and notes; a header's
path reduced to its file name). A test on the mock must give the same on both: run this after
converting a test or adding a declaration to the mock. Exit status 1 when any run differs.

  compare-with-real.py --plugin BUILD/checker/libTorchSyncChecks.so \\
      --libtorch-include LIBTORCH_2X_INCLUDE [--tidy clang-tidy-22] [--cuda-include DIR] TEST...

A RUN line's %if libtorch-2.x branches are taken (the mock is LibTorch 2.11's API); its
--fix and --fix-notes are left out (only diagnostics are compared)."""

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys

MOCK = os.path.dirname(os.path.abspath(__file__))


def run_lines(path):
    lines, current = [], ""
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*(//|#)?\s*RUN:\s?(.*)$", line)
            if not m:
                continue
            body = m.group(2)
            if body.endswith("\\"):
                current += body[:-1] + " "
            else:
                lines.append(current + body)
                current = ""
    return [l for l in lines if "%check_torch_sync" in l]


def diagnostics(output):
    return [re.sub(r"^\S*/([^/:]+):(\d+):(\d+):", r"\1:\2:\3:", l) for l in output.splitlines()
            if re.search(r"\b(warning|note|error):", l)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--libtorch-include", required=True,
                        help="the real headers: a folder with ATen/ and torch/csrc/api/include/")
    parser.add_argument("--tidy", default="clang-tidy-22")
    parser.add_argument("--cuda-include", default="/usr/local/cuda/include")
    parser.add_argument("tests", nargs="+")
    args = parser.parse_args()
    real = ["-std=c++17", "-isystem", args.libtorch_include,
            "-isystem", os.path.join(args.libtorch_include, "torch", "csrc", "api", "include")]
    mock = ["-std=c++17", "-isystem", MOCK, "-isystem", os.path.join(MOCK, "torch", "csrc", "api", "include")]
    same = True
    for test in args.tests:
        path = os.path.abspath(test)
        for line in run_lines(path):
            line = re.sub(r"%if libtorch-(1\.x|1\.13) %\{[^%]*%\}( %else %\{([^%]*)%\})?",
                          lambda m: m.group(3) or "", line)
            line = re.sub(r"%if libtorch-(2\.x|2\.11) %\{([^%]*)%\}( %else %\{[^%]*%\})?",
                          lambda m: m.group(2), line)
            own, compiler = line.split(" -- ", 1)
            own_args = shlex.split(own.replace("%check_torch_sync", "").replace("%s", path))
            checks, tidy_args = "-*,torch-sync-*", []
            for a in own_args:
                if a.startswith("--checks="):
                    checks = a.split("=", 1)[1]
                elif a.startswith("--config="):
                    tidy_args.append("-config=" + a.split("=", 1)[1])
                elif a.startswith("--tidy-arg="):
                    tidy_args.append(a.split("=", 1)[1])
            compiler = compiler.replace("%S", os.path.dirname(path))
            compiler = compiler.replace("%cuda_flags", "-isystem " + shlex.quote(args.cuda_include))
            results = []
            for flags in (real, mock):
                command = []
                for a in shlex.split(compiler):
                    command += flags if a in ("%libtorch_flags", "%mock_libtorch_flags") else [a]
                p = subprocess.run([args.tidy, "-load=" + args.plugin, path, "-checks=" + checks,
                                    *tidy_args, "--", *command],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                results.append(diagnostics(p.stdout))
            name = os.path.basename(path)
            if results[0] == results[1]:
                print("same: %s (%d lines): %s" % (name, len(results[0]), line))
            else:
                same = False
                print("DIFFERENT: %s: %s" % (name, line))
                sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(
                    results[0], results[1], "real", "mock", lineterm="", n=1))
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
