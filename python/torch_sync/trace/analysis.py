"""Runs the analysis of one trace and of the findings over all traces.

Takes: a TraceData (trace_reader), the options (threshold, window name, tolerance, margin), the
loaded stacks files (source_lines) and findings (findings_join).
Returns: a TraceAnalysis per trace: the window, the per-device usage, one GapRecord (read like a
dict; the JSON report writes it as one) per gap of at least the threshold with its attribution,
source line and findings, the waits, the aggregates by line, by op chain and by busy op, and notes saying what
could not be attributed; and, over all traces, join_findings(): the findings ranked by the GPU idle
time they cost and the waits no finding explains.
"""

import collections
import os

from . import attribution, gap_finder
from .findings_join import findings_at
from .nsys_reader import READER as NSYS_READER
from .source_lines import SourceLines


class AnalysisError(Exception):
    """A trace that holds nothing to analyse (no GPU activity, a --window it lacks)."""


class Options:
    """The analysis settings of the command line."""

    def __init__(self, threshold_us=5.0, window=None, tolerance_us=2.0, margin_us=20.0):
        self.threshold_us = threshold_us
        self.window = window
        self.tolerance_us = tolerance_us
        self.margin_us = margin_us


class TraceAnalysis:
    """What the report, the picture and the rewrite need of one trace."""

    def __init__(self, label, data):
        self.label = label
        self.path = data.path
        self.data = data
        self.window = None
        self.usage = {}
        self.gaps = []
        self.waits = []
        self.notes = []
        self.source_lines = None

    @property
    def window_us(self):
        return gap_finder.total_length(self.window.intervals)

    def totals(self):
        """Busy, idle, idle in gaps and idle behind waits over all devices (us). The gaps of a device
        are disjoint and each has one category, so each instant of idle time counts once."""
        busy = sum(u.busy_us for u in self.usage.values())
        idle = sum(u.idle_us for u in self.usage.values())
        gap_idle = self.idle_of(lambda gap: True)
        wait_idle = self.idle_of(lambda gap: gap["category"] == attribution.HOST_WAIT)
        busy_gap_idle = self.idle_of(lambda gap: gap["category"] == attribution.HOST_BUSY)
        undecided_idle = self.idle_of(lambda gap: gap["category"] == attribution.UNDECIDED)
        return {"busy_us": busy, "idle_us": idle, "idle_in_gaps_us": gap_idle, "idle_behind_waits_us": wait_idle,
                "idle_host_busy_us": busy_gap_idle, "idle_undecided_us": undecided_idle}

    def idle_of(self, keep):
        """The device idle time (inside the window) of the kept gaps."""
        return sum(gap["device_idle_us"] for gap in self.gaps if keep(gap))

    def by_line(self):
        """Waits grouped by source line: [(location, record)] by idle time, largest first."""
        return self.group(lambda g: g["category"] == attribution.HOST_WAIT and g["location"],
                          lambda g: g["location"])

    def by_chain(self):
        """Waits grouped by call and op chain."""
        return self.group(lambda g: g["category"] == attribution.HOST_WAIT,
                          lambda g: "%s under %s" % (g["call"]["name"], g["op_chain_text"]))

    def by_busy_op(self):
        """Host-busy gaps grouped by the top-level op in progress."""
        return self.group(lambda g: g["category"] == attribution.HOST_BUSY,
                          lambda g: g["top_op"] or "(no ATen op in progress)")

    def group(self, keep, key):
        """Gap records grouped: [(key, {"idle_us", "gaps", "example", "calls"})], largest idle first;
        "example" is the group's first gap, "calls" the idle time per waiting call's name."""
        groups = collections.OrderedDict()
        for gap in self.gaps:
            if not keep(gap):
                continue
            entry = groups.setdefault(key(gap), {"idle_us": 0.0, "gaps": 0, "example": gap,
                                                 "calls": collections.Counter()})
            entry["idle_us"] += gap["device_idle_us"]
            entry["gaps"] += 1
            if gap["call"]:
                entry["calls"][gap["call"]["name"]] += gap["device_idle_us"]
        return sorted(groups.items(), key=lambda item: -item[1]["idle_us"])


def analyse(label, data, options, stacks_files, findings):
    """The TraceAnalysis of one trace; AnalysisError when there is nothing to analyse."""
    if not data.activities:
        if data.counts["events"] == 0:
            raise AnalysisError("the trace has no events (\"traceEvents\" is empty)")
        raise AnalysisError("no GPU activity (kernel, gpu_memcpy or gpu_memset events): was the profiler "
                            "run with the CUDA activity?")
    result = TraceAnalysis(label, data)
    try:
        result.window = gap_finder.resolve_window(data.activities, data.annotations, options.window)
    except gap_finder.WindowError as error:
        raise AnalysisError(str(error))
    result.usage = gap_finder.device_usage(data.activities, result.window)
    gaps = gap_finder.find_gaps(data.activities, result.window, options.threshold_us)
    result.waits, undecided = attribution.find_waits(data, options.margin_us, options.tolerance_us)
    op_index = attribution.OpIndex(data.cpu_ops)
    busy_thread = attribution.main_thread(data)
    attributions = attribution.attribute_gaps(gaps, result.waits, undecided, op_index, busy_thread,
                                              options.tolerance_us, data.launchers)
    result.source_lines = SourceLines(data, op_index, stacks_files)
    start = result.window.intervals[0][0]
    calls_seen, findings_at_line = {}, FindingsAtLine(findings)
    result.gaps = [gap_record(a, start, result.source_lines, findings_at_line, calls_seen) for a in attributions]
    result.notes = notes_of(data, result, len(undecided), stacks_files, findings)
    return result


def count(number, noun, plural=None):
    """ "1 gap", "2 gaps"."""
    return "%d %s" % (number, noun if number == 1 else plural or noun + "s")


def thread_text(thread):
    return "%s/%s" % thread if thread else None


GAP_FIELDS = ("device", "stream", "start_us", "end_us", "offset_us", "duration_us", "device_idle_us", "category",
              "call", "thread", "wait_thread", "op_chain", "op_chain_text", "top_op", "location", "function",
              "line_source", "source_root", "findings", "previous_activity", "next_activity")


class GapRecord:
    """One attributed gap, read like a dict (gap["category"]); slots keep a large trace's gaps small."""

    __slots__ = GAP_FIELDS

    def __init__(self, **values):
        for name in GAP_FIELDS:
            setattr(self, name, values.get(name))

    def __getitem__(self, name):
        return getattr(self, name)

    def items(self):
        return ((name, getattr(self, name)) for name in GAP_FIELDS)

    def as_json(self):
        """The JSON report's dict of the gap (made when it is written, one at a time)."""
        return {name: value for name, value in self.items() if name != "source_root"}


class FindingsAtLine:
    """findings_at() with its answers kept, one per line."""

    def __init__(self, findings):
        self.findings = findings
        self.answers = {}

    def rules(self, location, source_root):
        key = (location, source_root)
        if key not in self.answers:
            self.answers[key] = [f.rule for f in findings_at(self.findings, location, source_root)]
        return self.answers[key]


_shared = {}


def shared(value):
    """One object per equal value (op chains, texts) across the gaps."""
    key = tuple(value) if isinstance(value, list) else value
    return _shared.setdefault(key, value)


def call_record(wait, calls_seen):
    """The "call" dict of a wait, made once per wait."""
    key = id(wait.call)
    if key not in calls_seen:
        call = wait.call
        calls_seen[key] = {"name": call.name, "api": call.api,
                           "reason": wait.reason or "unknown: its GPU activity is not in the trace",
                           "start_us": round(call.start, 3), "end_us": round(call.end, 3),
                           "duration_us": round(call.end - call.start, 3), "correlation": call.correlation}
    return calls_seen[key]


def gap_record(attributed, window_start, source_lines, findings_at_line, calls_seen):
    """The GapRecord of one attributed gap (the JSON report's "gaps" entries)."""
    gap = attributed.gap
    line = source_lines.line_of(attributed.thread, attributed.top_op)
    if line is None and attributed.wait is not None:
        line = source_lines.line_of_call(attributed.wait.call)
    record = GapRecord(
        device=gap.device, stream=gap.stream,
        start_us=round(gap.start, 3), end_us=round(gap.end, 3), offset_us=round(gap.start - window_start, 3),
        duration_us=round(gap.end - gap.start, 3), device_idle_us=round(gap.device_idle_us, 3),
        category=attributed.category,
        call=call_record(attributed.wait, calls_seen) if attributed.wait is not None else None,
        thread=shared(thread_text(attributed.thread)), wait_thread=attributed.wait_thread,
        op_chain=shared([op[2] for op in attributed.chain]),
        op_chain_text=shared(attribution.chain_text(attributed.chain)),
        top_op=attributed.top_op[2] if attributed.top_op else None,
        location=line.location if line else None, function=line.function if line else None,
        line_source=line.source if line else None, source_root=line.source_root if line else None,
        findings=[], previous_activity=gap.before.name, next_activity=gap.after.name)
    if line and line.location and attributed.category == attribution.HOST_WAIT:
        record.findings = findings_at_line.rules(line.location, line.source_root)
    return record


def notes_of(data, result, unmatched_async, stacks_files, findings):
    """What could not be read or attributed, in words."""
    notes = list(data.notes)
    counts = data.counts
    if counts["no_schema_version"]:
        notes.append("the trace has no schemaVersion: read as a Kineto trace of version 1")
    if counts["activities_without_correlation"]:
        notes.append("%s without a correlation id: the call that launched or made it is unknown (it still "
                     "counts as busy time)" % count(counts["activities_without_correlation"], "GPU activity",
                                                     "GPU activities"))
    if counts["host_calls_without_correlation"]:
        notes.append("%s without a correlation id" % count(counts["host_calls_without_correlation"],
                                                           "CUDA copy or synchronize call"))
    if unmatched_async:
        undecided_gaps = [g for g in result.gaps if g["category"] == attribution.UNDECIDED]
        notes.append("%s without a matching GPU activity (by correlation): whether it waited cannot be told; "
                     "%s (%.1f us) that began during one left undecided"
                     % (count(unmatched_async, "copy or memset call"),
                        count(len(undecided_gaps), "gap"), sum(g["device_idle_us"] for g in undecided_gaps)))
    other_thread = [g for g in result.gaps if g["wait_thread"] == attribution.OTHER_THREAD]
    if other_thread:
        notes.append("%s (%.1f us) charged to a wait on another thread than the one that launched the work "
                     "after the gap, none on that thread being in progress (\"*\" in the gap table)"
                     % (count(len(other_thread), "gap"), sum(g["device_idle_us"] for g in other_thread)))
    if counts["events_without_time"]:
        notes.append("%s without a numeric ts or dur skipped" % count(counts["events_without_time"], "event"))
    if counts["non_object_events"]:
        notes.append("%s of traceEvents that are not objects skipped" % count(counts["non_object_events"], "entry",
                                                                               "entries"))
    lines = result.source_lines
    if lines.problem:
        notes.append(lines.problem)
    if lines.from_trace:
        notes.append("%s their line from the trace's own stacks" % count(lines.from_trace, "top-level op has",
                                                                             "top-level ops have"))
    if stacks_files and not lines.problem:
        notes.append("stacks join: %s of the trace matched a stack entry (%d of them without a user frame), "
                     "%d matched none; %s matched no op of this trace"
                     % (count(lines.matched, "top-level op"), lines.without_location, lines.unmatched_trace_ops,
                        count(lines.unused_stack_ops, "stack entry", "stack entries")))
        if lines.dropped_operators:
            notes.append("the stacks files say the recorder dropped %d operators: their lines are unknown"
                         % lines.dropped_operators)
    notes.extend(backtrace_notes(data, lines))
    if not lines.lines and not lines.from_call_stacks:
        if stacks_files:
            notes.append("source lines unknown: the stacks files matched no operator of this trace; waits are "
                         "attributed to the ATen op chain only")
        elif data.reader == NSYS_READER:
            notes.append("source lines unknown: no wait's backtrace gave a line (profile with --cudabacktrace=all "
                         "and --trace=osrt; the binaries, built with -g, must be on this machine); waits are "
                         "attributed to the NVTX ranges around them only")
        else:
            notes.append("source lines unknown: C++ Kineto traces carry no stacks (give --stacks FILE from the "
                         "runtime recorder); waits are attributed to the ATen op chain only")
        if findings:
            notes.append("the findings cannot be matched to this trace without source lines")
    return notes


def backtrace_notes(data, lines):
    """What the backtraces of an Nsight Systems export gave (nothing for a Kineto trace)."""
    counts = data.counts
    kept = counts["calls_with_cuda-backtrace"] + counts["calls_with_osrt-backtrace"] + counts["calls_without_backtrace"]
    if data.reader != NSYS_READER or not kept:
        return []
    notes = ["backtraces: %d of the %s that may wait have their own (--cudabacktrace), %d that of an OS runtime "
             "call inside them (--trace=osrt), %d none"
             % (counts["calls_with_cuda-backtrace"], count(kept, "CUDA call"), counts["calls_with_osrt-backtrace"],
                counts["calls_without_backtrace"])]
    if lines.function_only:
        problems = lines.symbolizer.problems if lines.symbolizer else {}
        notes.append("%s a user frame but no line, only its function%s"
                     % (count(lines.function_only, "waiting call's backtrace has", "waiting calls' backtraces have"),
                        " (%s)" % "; ".join("%s: %d" % item for item in sorted(problems.items())) if problems else ""))
    return notes


def join_findings(analyses, findings):
    """(findings ranked by idle time they cost, waits no finding explains), over all traces."""
    cost = collections.OrderedDict()
    for finding in findings:
        cost[finding] = {"idle_us": 0.0, "gaps": 0, "traces": []}
    unexplained = []
    for result in analyses:
        for key, entry in wait_groups(result):
            example = entry["example"]
            matched = []
            if example["location"]:
                matched = findings_at(findings, example["location"], example["source_root"])
            for finding in matched:
                cost[finding]["idle_us"] += entry["idle_us"]
                cost[finding]["gaps"] += entry["gaps"]
                if result.label not in cost[finding]["traces"]:
                    cost[finding]["traces"].append(result.label)
            if not matched:
                unexplained.append({"trace": result.label, "location": example["location"],
                                    "function": example["function"],
                                    "call": example["call"]["name"], "op_chain": example["op_chain_text"],
                                    "idle_us": round(entry["idle_us"], 3), "gaps": entry["gaps"]})
    ranked = sorted(cost.items(), key=lambda item: -item[1]["idle_us"])
    unexplained.sort(key=lambda item: -item["idle_us"])
    return ranked, unexplained


def wait_groups(result):
    """Waits grouped by line where it is known, else by call and op chain."""
    return result.group(lambda g: g["category"] == attribution.HOST_WAIT,
                        lambda g: g["location"] or "%s under %s" % (g["call"]["name"], g["op_chain_text"]))


def default_label(path):
    return os.path.basename(path)
