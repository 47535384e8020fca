"""Writes the results: the text summary, the per-gap table and the JSON report.

Takes: the TraceAnalysis of each trace (analysis) and the findings join (analysis.join_findings).
Returns: text (summary_text, gaps_table) and the JSON document (json_report), whose schema is
documented in docs/trace.md: {"format": "torch-sync-trace-report", "version": 1, ...}.
"""

from . import attribution

REPORT_FORMAT = "torch-sync-trace-report"
REPORT_VERSION = 1


def count(number, noun):
    """ "1 gap", "2 gaps"."""
    return "%d %s%s" % (number, noun, "" if number == 1 else "s")


def percent(part, whole):
    return 100.0 * part / whole if whole else 0.0


def window_text(result):
    """The window in words."""
    window = result.window
    if window.source == "gpu-activity":
        what = "the span of GPU activity"
    else:
        what = "%s %r (%d interval%s)" % (window.source, window.name, len(window.intervals),
                                          "" if len(window.intervals) == 1 else "s")
    return "%s, %.1f us" % (what, result.window_us)


def summary_text(analyses, ranked_findings, unexplained, options, top, findings_given):
    """The text summary of every trace, then the findings join."""
    out = []
    for result in analyses:
        out.extend(trace_summary(result, options, top))
        out.append("")
    if findings_given:
        out.extend(findings_summary(ranked_findings, unexplained, top))
    return "\n".join(out).rstrip("\n") + "\n"


def trace_summary(result, options, top):
    """The lines of one trace's summary."""
    totals = result.totals()
    idle = totals["idle_us"]
    waits = [g for g in result.gaps if g["category"] == attribution.HOST_WAIT]
    busy_gaps = [g for g in result.gaps if g["category"] == attribution.HOST_BUSY]
    out = ["%s (%s)" % (result.label, result.path),
           "  window: %s" % window_text(result)]
    for device, usage in sorted(result.usage.items(), key=lambda item: str(item[0])):
        out.append("  GPU %s: busy %.1f us (%.1f %%), idle %.1f us (%.1f %%), %d stream%s"
                   % (device, usage.busy_us, percent(usage.busy_us, usage.window_us), usage.idle_us,
                      percent(usage.idle_us, usage.window_us), len(usage.streams),
                      "" if len(usage.streams) == 1 else "s"))
    out.append("  idle in %s >= %g us: %.1f us (%.1f %% of idle time)"
               % (count(len(result.gaps), "gap"), options.threshold_us, totals["idle_in_gaps_us"],
                  percent(totals["idle_in_gaps_us"], idle)))
    out.append("  behind host waits: %.1f us in %s (%.1f %% of idle time)"
               % (totals["idle_behind_waits_us"], count(len(waits), "gap"),
                  percent(totals["idle_behind_waits_us"], idle)))
    busy_idle = totals["idle_host_busy_us"]
    out.append("  host busy / launch-bound: %.1f us in %s (%.1f %% of idle time)"
               % (busy_idle, count(len(busy_gaps), "gap"), percent(busy_idle, idle)))
    undecided = [g for g in result.gaps if g["category"] == attribution.UNDECIDED]
    if undecided:
        undecided_idle = totals["idle_undecided_us"]
        out.append("  undecided (a copy or memset without its GPU activity in progress): %.1f us in %s "
                   "(%.1f %% of idle time)"
                   % (undecided_idle, count(len(undecided), "gap"), percent(undecided_idle, idle)))
    out.extend(section("top lines by GPU idle time caused", result.by_line(), top, line_text))
    out.extend(section("top waits by call and op chain", result.by_chain(), top, chain_text))
    out.extend(section("host busy / launch-bound gaps by top-level op in progress", result.by_busy_op(), top,
                       lambda key, entry: key))
    for note in result.notes:
        out.append("  note: %s" % note)
    return out


def section(title, groups, top, describe):
    """A titled list of groups, largest first, at most `top`."""
    if not groups:
        return []
    out = ["  %s:" % title]
    for key, entry in groups[:top]:
        out.append("    %9.1f us  %4d gap%s  %s" % (entry["idle_us"], entry["gaps"],
                                                    " " if entry["gaps"] == 1 else "s", describe(key, entry)))
    if len(groups) > top:
        out.append("    ... %d more" % (len(groups) - top))
    return out


def line_text(location, entry):
    """A line group: location, function, findings, call."""
    example = entry["example"]
    text = location
    if example["function"]:
        text += " in %s" % example["function"]
    text += " (%s)" % ", ".join(name for name, _ in entry["calls"].most_common())
    if example["findings"]:
        text += " [%s]" % ", ".join(example["findings"])
    return text


def chain_text(key, entry):
    return "%s: %s" % (key, entry["example"]["call"]["reason"])


def findings_summary(ranked, unexplained, top):
    """The findings ranked by the idle time they cost, and the unexplained waits."""
    out = ["findings ranked by the GPU idle time they cost:"]
    costly = [(finding, cost) for finding, cost in ranked if cost["gaps"]]
    for finding, cost in costly:
        out.append("  %9.1f us  %4d gaps  %s:%d [%s] %s" % (cost["idle_us"], cost["gaps"], finding.shown,
                                                           finding.line, finding.rule, finding.message))
    if not costly:
        out.append("  (none matched a wait)")
    out.append("  %d other finding%s matched no wait" % (len(ranked) - len(costly),
                                                          "" if len(ranked) - len(costly) == 1 else "s"))
    out.append("waits no finding explains (checker misses):")
    for item in unexplained[:top]:
        out.append("  %9.1f us  %4d gaps  %s: %s under %s" % (item["idle_us"], item["gaps"], item["trace"],
                                                              item["location"] or unknown_line(item),
                                                              item["op_chain"] + " / " + item["call"]))
    if not unexplained:
        out.append("  (none)")
    elif len(unexplained) > top:
        out.append("  ... %d more" % (len(unexplained) - top))
    return out


def unknown_line(item):
    """ "(line unknown)", with the function where a backtrace named it (Nsight Systems exports)."""
    return "(line unknown, in %s)" % item["function"] if item.get("function") else "(line unknown)"


def gaps_table(analyses):
    """One row per gap of every trace."""
    out = []
    for result in analyses:
        out.append("%s: %s" % (result.label, count(len(result.gaps), "gap")))
        out.append("  %10s %9s %9s %-8s %-9s %-22s %-50s %s"
                   % ("offset_us", "dur_us", "idle_us", "stream", "category", "call", "op chain", "line [findings]"))
        for gap in result.gaps:
            call = gap["call"]["name"] if gap["call"] else "-"
            if gap["wait_thread"] == attribution.OTHER_THREAD:
                call += "*"
            line = gap["location"] or ("in %s" % gap["function"] if gap["function"] else "-")
            if gap["findings"]:
                line += " [%s]" % ", ".join(gap["findings"])
            out.append("  %10.1f %9.1f %9.1f %-8s %-9s %-22s %-50s %s"
                       % (gap["offset_us"], gap["duration_us"], gap["device_idle_us"],
                          "%s/%s" % (gap["device"], gap["stream"]), gap["category"], call,
                          gap["op_chain_text"], line))
        out.append("")
    return "\n".join(out)


def json_report(analyses, ranked_findings, unexplained, options, findings_given):
    """The machine-readable report (schema in docs/trace.md)."""
    return {
        "format": REPORT_FORMAT, "version": REPORT_VERSION,
        "threshold_us": options.threshold_us, "tolerance_us": options.tolerance_us,
        "async_margin_us": options.margin_us,
        "traces": [trace_json(result) for result in analyses],
        "findings": [finding_json(finding, cost) for finding, cost in ranked_findings] if findings_given else None,
        "unexplained_waits": unexplained if findings_given else None,
    }


def trace_json(result):
    """One trace of the JSON report."""
    totals = result.totals()
    idle = totals["idle_us"]
    return {
        "label": result.label, "path": result.path, "reader": result.data.reader,
        "schema_version": result.data.schema_version, "base_time_ns": result.data.base_time_ns,
        "window": {"source": result.window.source, "name": result.window.name,
                   "start_us": result.window.intervals[0][0], "end_us": result.window.intervals[-1][1],
                   "intervals": len(result.window.intervals), "length_us": round(result.window_us, 3)},
        "devices": [{"device": u.device, "streams": u.streams, "busy_us": round(u.busy_us, 3),
                     "idle_us": round(u.idle_us, 3), "idle_percent": round(percent(u.idle_us, u.window_us), 3)}
                    for u in result.usage.values()],
        "busy_us": round(totals["busy_us"], 3), "idle_us": round(idle, 3),
        "idle_in_gaps_us": round(totals["idle_in_gaps_us"], 3),
        "idle_behind_waits_us": round(totals["idle_behind_waits_us"], 3),
        "idle_host_busy_us": round(totals["idle_host_busy_us"], 3),
        "idle_undecided_us": round(totals["idle_undecided_us"], 3),
        "waits_share_of_idle": round(totals["idle_behind_waits_us"] / idle, 6) if idle else 0.0,
        "gap_count": len(result.gaps),
        "wait_count": len(result.waits),
        "stacks": {"source": result.source_lines.source, "matched": result.source_lines.matched,
                   "from_trace": result.source_lines.from_trace,
                   "from_call_stacks": result.source_lines.from_call_stacks,
                   "unmatched_trace_ops": result.source_lines.unmatched_trace_ops,
                   "unused_stack_ops": result.source_lines.unused_stack_ops},
        "lines": [group_json(key, entry, "location") for key, entry in result.by_line()],
        "op_chains": [group_json(key, entry, "key") for key, entry in result.by_chain()],
        "host_busy": [group_json(key, entry, "top_op") for key, entry in result.by_busy_op()],
        "gaps": result.gaps,   # GapRecord objects: json_default() turns each into its dict as it is written
        "notes": result.notes,
    }


def json_default(value):
    """json.dump's hook for the GapRecord objects of the report."""
    if hasattr(value, "as_json"):
        return value.as_json()
    raise TypeError("cannot write %r as JSON" % type(value).__name__)


def group_json(key, entry, key_name):
    example = entry["example"]
    group = {key_name: key, "idle_us": round(entry["idle_us"], 3), "gaps": entry["gaps"]}
    if example["call"]:
        group.update({"call": example["call"]["name"], "calls": [name for name, _ in entry["calls"].most_common()],
                      "reason": example["call"]["reason"],
                      "op_chain": example["op_chain_text"], "function": example["function"],
                      "findings": example["findings"]})
    return group


def finding_json(finding, cost):
    return {"rule": finding.rule, "message": finding.message, "path": finding.shown,
            "resolved_path": finding.path, "line": finding.line,
            "idle_us": round(cost["idle_us"], 3), "gaps": cost["gaps"], "traces": cost["traces"]}
