#!/usr/bin/env python3
"""Checks that the checker's includes run down its layers (checker/README.md).

The layers, lowest first: support, facts, libtorch, project, analysis/device, analysis, checks, tool. A file
may include files of its own layer and of the layers below it, never above. In analysis/device, the device
inference's face (DeviceInference.h) is included by nothing of its own layer but DeviceInference.cpp: its
components see it through DeviceQueries.h. No class of the checker names a friend.

Usage: check-layers.py [CHECKER_DIR]   (default: the checker/ beside this script's folder)
Prints each violation as FILE:LINE: message and exits 1 when there is one.
"""

import os
import re
import sys

LAYERS = ["support", "facts", "libtorch", "project", "analysis/device", "analysis", "checks", "tool"]
FACE = "analysis/device/DeviceInference.h"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
FRIEND = re.compile(r"^\s*friend\s+(class|struct)\b")


def layer_of(rel):
    """The layer of a path relative to the checker folder (the deepest layer folder it is in), or None."""
    best = None
    for layer in LAYERS:
        if rel.startswith(layer + "/") and (best is None or len(layer) > len(best)):
            best = layer
    return best


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    checker = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(here), "checker")
    problems = []
    files = 0
    for root, _, names in os.walk(checker):
        for name in sorted(names):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, checker).replace(os.sep, "/")
            layer = layer_of(rel)
            if layer is None:
                continue  # unittests/, cuda/: not layers
            files += 1
            with open(path, encoding="utf-8") as f:
                lines = f.readlines()
            for number, text in enumerate(lines, 1):
                if FRIEND.match(text):
                    problems.append("%s:%d: a friend: expose what the other class needs instead" % (rel, number))
                m = INCLUDE.match(text)
                if not m:
                    continue
                target = m.group(1)
                if not os.path.isfile(os.path.join(checker, target)):
                    continue  # clang's, LLVM's or a generated file
                target_layer = layer_of(target)
                if target_layer is None:
                    continue
                if LAYERS.index(target_layer) > LAYERS.index(layer):
                    problems.append("%s:%d: '%s' is in layer %s, above this file's layer %s" % (
                        rel, number, target, target_layer, layer))
                if target == FACE and layer == "analysis/device" and not rel.startswith(
                        "analysis/device/DeviceInference."):
                    problems.append("%s:%d: a component of the device inference includes its face %s; "
                                    "use DeviceQueries.h" % (rel, number, FACE))
    for p in problems:
        print(p)
    print("check-layers: %d file(s), %d problem(s)" % (files, len(problems)), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
