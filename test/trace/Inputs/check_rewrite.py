"""Compares a trace with its torch-sync-trace --rewrite copy.

Usage: check_rewrite.py ORIGINAL REWRITTEN
Prints the waits track, the calls moved onto it by name, and how many events were moved or kept: every
event of the original must be in the copy, in order, either unchanged or the same event on the waits
track. Exits 1 (with a message) when the copy is not valid JSON or an event changed otherwise.
"""
import collections
import gzip
import json
import sys

TRACK = "host waits (torch-sync-trace)"


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def main():
    original, rewritten = load(sys.argv[1]), load(sys.argv[2])
    tracks = [(e["pid"], e["tid"]) for e in rewritten["traceEvents"]
              if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == TRACK]
    print("waits tracks %d" % len(tracks))
    track = tracks[0]
    if any((e.get("pid"), e.get("tid")) == track for e in original["traceEvents"]):
        sys.exit("check_rewrite: the waits track's tid was already used")
    moved = collections.Counter(e["name"] for e in rewritten["traceEvents"]
                                if (e.get("pid"), e.get("tid")) == track and e.get("ph") == "X")
    for name, count in sorted(moved.items()):
        print("moved %s %d" % (name, count))
    copy_events = [e for e in rewritten["traceEvents"]
                   if not (e.get("ph") == "M" and (e.get("pid"), e.get("tid")) == track)]
    if len(copy_events) != len(original["traceEvents"]):
        sys.exit("check_rewrite: %d events, the original has %d" % (len(copy_events), len(original["traceEvents"])))
    moved_events = unchanged = 0
    for before, after in zip(original["traceEvents"], copy_events):
        if before == after:
            unchanged += 1
        elif dict(before, tid=track[1]) == after and before.get("pid") == track[0]:
            moved_events += 1
        else:
            sys.exit("check_rewrite: event changed: %r -> %r" % (before, after))
    print("events moved %d, unchanged %d, of %d" % (moved_events, unchanged, len(original["traceEvents"])))
    print("top-level keys %s" % ("same" if list(original) == list(rewritten) and all(
        original[k] == rewritten[k] for k in original if k != "traceEvents") else "differ"))


main()
