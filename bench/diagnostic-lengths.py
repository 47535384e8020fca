#!/usr/bin/env python3
"""Lengths of the torch-sync warnings that the lit suite's check tests produced.

Reads the clang-tidy outputs the test runner keeps (<build>/test/<set>/checks/Output/
*.tidy-output.txt, written by test/check_torch_sync.py) and prints the number of distinct
warnings (test file, message text without the location and the [check] name), their median and
maximum length in characters, how many exceed 120, and the longest ones.

Usage: bench/diagnostic-lengths.py [--longest N] OUTPUT_DIR...
  e.g. bench/diagnostic-lengths.py build/llvm-22/test/libtorch-2.11/checks
"""
import argparse
import glob
import os
import re
import statistics
import sys

WARNING = re.compile(r":\d+:\d+: warning: (.*?) \[(torch-sync-[a-z-]+)[,\]]")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", metavar="OUTPUT_DIR")
    parser.add_argument("--longest", type=int, default=5)
    args = parser.parse_args()
    warnings = set()
    for d in args.dirs:
        for path in glob.glob(os.path.join(d, "**", "*tidy-output.txt"), recursive=True):
            test = os.path.basename(path).split(".tmp")[0]
            with open(path, errors="replace") as f:
                for line in f:
                    m = WARNING.search(line)
                    if m:
                        warnings.add((test, m.group(1)))
    if not warnings:
        sys.exit("diagnostic-lengths: no torch-sync warnings in the runner's outputs under %s "
                 "(run the check tests first)" % ", ".join(args.dirs))
    lengths = sorted(len(text) for _, text in warnings)
    print("warnings %d, median %g, max %d characters, %d over 120"
          % (len(lengths), statistics.median(lengths), lengths[-1], sum(n > 120 for n in lengths)))
    for test, text in sorted(warnings, key=lambda w: -len(w[1]))[:args.longest]:
        print("%4d %s: %s" % (len(text), test, text))


if __name__ == "__main__":
    main()
