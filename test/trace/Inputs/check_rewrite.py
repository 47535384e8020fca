"""Compares a trace with its torch-sync-trace --rewrite copy.

Usage: check_rewrite.py ORIGINAL REWRITTEN
Prints each waits track (its name) with the calls moved onto it by name, and how many events were moved
or kept: every event of the original must be in the copy, in order, either unchanged or the same event
moved to the waits track of its own thread (same pid). Exits 1 (with a message) when the copy is not
valid JSON, a waits track's tid was already used, slices overlap on a waits track, or an event changed
otherwise.
"""
import collections
import gzip
import json
import re
import sys

TRACK = re.compile(r"^host waits of (.*) \[torch-sync-trace\]$")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def waits_tracks(rewritten):
    """(pid, tid) -> name of every waits track."""
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in rewritten["traceEvents"]
            if e.get("ph") == "M" and e.get("name") == "thread_name" and TRACK.match(str(e["args"].get("name")))}


def check_no_overlap(slices, name):
    end = float("-inf")
    for start, duration in sorted(slices):
        if start < end:
            sys.exit("check_rewrite: overlapping slices on %s" % name)
        end = start + duration


def main():
    original, rewritten = load(sys.argv[1]), load(sys.argv[2])
    tracks = waits_tracks(rewritten)
    print("waits tracks %d" % len(tracks))
    used = {(e.get("pid"), e.get("tid")) for e in original["traceEvents"]}
    for track, name in sorted(tracks.items(), key=lambda item: str(item[0])):
        if track in used:
            sys.exit("check_rewrite: the waits track's tid was already used")
        slices = [e for e in rewritten["traceEvents"] if (e.get("pid"), e.get("tid")) == track and e.get("ph") == "X"]
        check_no_overlap([(e["ts"], e["dur"]) for e in slices], name)
        print("track %s" % name)
        for call, count in sorted(collections.Counter(e["name"] for e in slices).items()):
            print("moved %s %d" % (call, count))
    copy_events = [e for e in rewritten["traceEvents"]
                   if not (e.get("ph") == "M" and (e.get("pid"), e.get("tid")) in tracks)]
    if len(copy_events) != len(original["traceEvents"]):
        sys.exit("check_rewrite: %d events, the original has %d" % (len(copy_events), len(original["traceEvents"])))
    moved_events = unchanged = 0
    for before, after in zip(original["traceEvents"], copy_events):
        if before == after:
            unchanged += 1
        elif (after.get("pid"), after.get("tid")) in tracks and dict(before, tid=after["tid"]) == after:
            moved_events += 1
        else:
            sys.exit("check_rewrite: event changed: %r -> %r" % (before, after))
    print("events moved %d, unchanged %d, of %d" % (moved_events, unchanged, len(original["traceEvents"])))
    print("top-level keys %s" % ("same" if list(original) == list(rewritten) and all(
        original[k] == rewritten[k] for k in original if k != "traceEvents") else "differ"))


main()
