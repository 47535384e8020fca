#!/usr/bin/env python3
"""Writes a large synthetic Kineto-shaped trace, for measuring torch-sync-trace.

Usage: bench/make_large_trace.py OUT --events N [--source TRACE]

Takes a real trace (default: the printing loop's trace of
runtime-verify/observations/loop_benchmark/trace_printing.json) and writes its
events over and over into OUT (a .json file, or .json.gz), each copy shifted in
time by the span of the source's events and with its ids (correlation, flow
ids, External id, Ev Idx) shifted past the previous copy's, until at least N
events are written. The metadata events ("M") and the profiler's own span
events are written once. The top-level keys of the source are kept, so the
result reads like one long profile of the same loop. Written event by event:
memory stays small whatever N is.
"""

import argparse
import gzip
import json
import os
import sys

DEFAULT_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "runtime-verify",
                              "observations", "loop_benchmark", "trace_printing.json")
ID_ARGS = ("correlation", "External id", "Ev Idx")


def parse_args(argv):
    """Reads the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the trace to write (.json or .json.gz)")
    parser.add_argument("--events", type=int, required=True, help="at least this many events")
    parser.add_argument("--source", default=DEFAULT_SOURCE, help="the trace whose events are repeated")
    return parser.parse_args(argv)


def split_events(events):
    """Returns (written once: metadata and profiler spans, repeated: every other event)."""
    once, repeated = [], []
    for event in events:
        if event.get("ph") == "M" or not isinstance(event.get("pid"), int):
            once.append(event)
        else:
            repeated.append(event)
    return once, repeated


def id_span(events):
    """The largest id (correlation, flow id, External id, Ev Idx) of the events, plus one."""
    largest = 0
    for event in events:
        if isinstance(event.get("id"), int):
            largest = max(largest, event["id"])
        for key in ID_ARGS:
            value = event.get("args", {}).get(key)
            if isinstance(value, int):
                largest = max(largest, value)
    return largest + 1


def time_span(events):
    """The span of the events in microseconds, plus a small pause between copies."""
    start = min(e["ts"] for e in events)
    end = max(e["ts"] + e.get("dur", 0) for e in events)
    return end - start + 50.0


def shifted(event, copy, dt, did):
    """A copy of the event moved by copy * dt microseconds, its ids by copy * did."""
    out = dict(event)
    out["ts"] = round(event["ts"] + copy * dt, 3)
    if isinstance(event.get("id"), int):
        out["id"] = event["id"] + copy * did
    if "args" in event:
        args = dict(event["args"])
        for key in ID_ARGS:
            if isinstance(args.get(key), int) and args[key] > 0:
                args[key] += copy * did
        out["args"] = args
    return out


def write_trace(out, header, once, repeated, wanted):
    """Writes header keys, the events (repeated until `wanted`), and returns the count."""
    dt, did = time_span(repeated), id_span(repeated)
    opener = gzip.open if out.endswith(".gz") else open
    written = 0
    with opener(out, "wt", encoding="utf-8") as f:
        f.write("{\n")
        for key, value in header.items():
            f.write("  %s: %s,\n" % (json.dumps(key), json.dumps(value)))
        f.write('  "traceEvents": [\n')
        for event in once:
            f.write(("" if written == 0 else ",\n") + json.dumps(event))
            written += 1
        copy = 0
        while written < wanted:
            for event in repeated:
                f.write(",\n" + json.dumps(shifted(event, copy, dt, did)))
            written += len(repeated)
            copy += 1
        f.write('\n  ],\n  "traceName": %s\n}\n' % json.dumps(out))
    return written, copy


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    with open(args.source, encoding="utf-8") as f:
        source = json.load(f)
    header = {k: v for k, v in source.items() if k not in ("traceEvents", "traceName")}
    once, repeated = split_events(source["traceEvents"])
    written, copies = write_trace(args.out, header, once, repeated, args.events)
    print("make_large_trace: %d events (%d copies of %d), %d bytes in %s"
          % (written, copies, len(repeated), os.path.getsize(args.out), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
