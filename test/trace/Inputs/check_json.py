"""Checks a torch-sync-trace JSON report against the schema of docs/trace.md and prints its key facts.

Usage: check_json.py REPORT
Exits 1 with a message when a documented field is missing or of the wrong type.
"""
import json
import sys

TRACE_FIELDS = {"label": str, "path": str, "reader": str, "schema_version": (int, type(None)),
                "base_time_ns": (int, type(None)), "window": dict, "devices": list, "busy_us": float,
                "idle_us": float, "idle_in_gaps_us": float, "idle_behind_waits_us": float,
                "idle_host_busy_us": float, "idle_undecided_us": float, "waits_share_of_idle": float,
                "gap_count": int, "wait_count": int, "stacks": dict, "lines": list, "op_chains": list,
                "host_busy": list, "gaps": list, "notes": list}
GAP_FIELDS = {"device": object, "stream": object, "start_us": float, "end_us": float, "offset_us": float,
              "duration_us": float, "device_idle_us": float, "category": str, "call": (dict, type(None)),
              "thread": (str, type(None)), "wait_thread": (str, type(None)), "op_chain": list, "op_chain_text": str,
              "top_op": (str, type(None)),
              "location": (str, type(None)), "function": (str, type(None)), "line_source": (str, type(None)),
              "findings": list, "previous_activity": str, "next_activity": str}
WINDOW_FIELDS = {"source": str, "name": (str, type(None)), "start_us": float, "end_us": float,
                 "intervals": int, "length_us": float}


def check(obj, fields, where):
    for name, kind in fields.items():
        if name not in obj:
            sys.exit("check_json: %s: missing %r" % (where, name))
        value = obj[name]
        if kind is float:
            kind = (int, float)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            sys.exit("check_json: %s: %r is %r" % (where, name, value))


def check_idle_counted_once(trace):
    """The gaps of a device do not overlap, and the categories add up to the idle time in gaps."""
    ends = {}
    for gap in sorted(trace["gaps"], key=lambda g: g["start_us"]):
        if gap["start_us"] < ends.get(str(gap["device"]), float("-inf")):
            sys.exit("check_json: overlapping gaps on device %s at %s" % (gap["device"], gap["start_us"]))
        ends[str(gap["device"])] = gap["end_us"]
    parts = trace["idle_behind_waits_us"] + trace["idle_host_busy_us"] + trace["idle_undecided_us"]
    if abs(parts - trace["idle_in_gaps_us"]) > 0.01 or trace["idle_in_gaps_us"] > trace["idle_us"] + 0.01:
        sys.exit("check_json: categories %.3f us, idle in gaps %.3f us, idle %.3f us"
                 % (parts, trace["idle_in_gaps_us"], trace["idle_us"]))


def main():
    report = json.load(open(sys.argv[1]))
    if report.get("format") != "torch-sync-trace-report" or report.get("version") != 1:
        sys.exit("check_json: format/version: %r %r" % (report.get("format"), report.get("version")))
    print("format %s version %d" % (report["format"], report["version"]))
    for trace in report["traces"]:
        check(trace, TRACE_FIELDS, trace.get("label", "?"))
        check(trace["window"], WINDOW_FIELDS, trace["label"] + " window")
        for gap in trace["gaps"]:
            check(gap, GAP_FIELDS, trace["label"] + " gap")
            if gap["category"] not in ("host-wait", "host-busy", "undecided"):
                sys.exit("check_json: category %r" % gap["category"])
            if (gap["call"] is None) != (gap["category"] == "host-busy"):
                sys.exit("check_json: a %s gap with call %r" % (gap["category"], gap["call"]))
            if gap["wait_thread"] not in ((None,) if gap["call"] is None else
                                          ("launching-thread", "other-thread", "launcher-unknown")):
                sys.exit("check_json: a %s gap with wait_thread %r" % (gap["category"], gap["wait_thread"]))
        check_idle_counted_once(trace)
        waits = [g for g in trace["gaps"] if g["category"] == "host-wait"]
        print("trace %s: gaps %d, behind waits %d, share %s" % (
            trace["label"], trace["gap_count"], len(waits),
            "high" if trace["waits_share_of_idle"] >= 0.8 else "low" if waits else "none"))
        if trace["lines"]:
            top = trace["lines"][0]
            print("  top line %s %s of idle, findings %s" % (
                top["location"], "most" if top["idle_us"] >= 0.8 * trace["idle_us"] else "little",
                ",".join(top["findings"]) or "-"))
        print("  stacks %s matched %d" % (trace["stacks"]["source"], trace["stacks"]["matched"]))
    if report["findings"] is not None:
        for finding in report["findings"]:
            print("finding %s %s:%d gaps %d" % (finding["rule"], finding["path"].rsplit("/", 1)[-1],
                                               finding["line"], finding["gaps"]))
        for miss in report["unexplained_waits"]:
            print("unexplained %s %s %s" % (miss["trace"], miss["location"], miss["call"]))
    print("schema ok")


main()
