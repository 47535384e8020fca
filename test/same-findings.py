#!/usr/bin/env python3
"""same-findings.py TIDY_OUTPUT REPORT_JSON: whether the warnings that clang-tidy printed
(TIDY_OUTPUT, 'FILE:LINE:COL: warning: MESSAGE [CHECK]' lines, as scripts/run-samples.sh
prints them) and the findings of a scan-project.sh report (REPORT_JSON) are the same set of
(file, line, column, check, message). Prints the count when they are; exits 1 and prints each
difference when they are not, 2 when an input cannot be read."""
import json
import os
import re
import sys

WARNING = re.compile(r"^(.+?):(\d+):(\d+): warning: (.*) \[([A-Za-z0-9_.,-]+)\]$")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        with open(sys.argv[1], encoding="utf-8", errors="replace") as fh:
            printed = {(os.path.realpath(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(5), m.group(4))
                       for m in map(WARNING.match, fh.read().splitlines()) if m}
        with open(sys.argv[2], encoding="utf-8") as fh:
            report = json.load(fh)
        root = report["checkout"]
        scanned = {(os.path.realpath(os.path.join(root, f["file"])), f["line"], f["col"], f["check"], f["message"])
                   for f in report["findings"]}
    except (OSError, ValueError, KeyError) as e:
        print("same-findings: error: %s" % e, file=sys.stderr)
        return 2
    if printed == scanned:
        print("same findings: %d" % len(printed))
        return 0
    for label, diff in (("only in %s" % sys.argv[1], printed - scanned),
                        ("only in %s" % sys.argv[2], scanned - printed)):
        for d in sorted(diff):
            print("%s: %s:%d:%d: [%s] %s" % ((label,) + d[:4] + (d[4],)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
