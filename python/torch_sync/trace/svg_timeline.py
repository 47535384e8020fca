"""Draws the traces as an SVG picture that a person can read without a trace viewer.

Takes: the TraceAnalysis of each trace (analysis).
Returns: render(), the SVG text: one timeline per trace, stacked one above the other, each with
its label and figures, a row per GPU stream (kernels, copies and memsets), the gaps of at least
XX, and a time axis from the start of the window; a legend at the end.
All timelines share one scale, so that a longer window draws longer. Activities closer than half a
pixel are drawn as one rectangle; a row with more intervals than twice its width in pixels is drawn a
pixel column at a time (the kind that covers most of the column, its opacity the share covered): the
picture stays small however large the trace.
"""

import math
from xml.sax.saxutils import escape

from . import attribution

WIDTH = 1200
LEFT = 170
RIGHT = 20
PLOT = WIDTH - LEFT - RIGHT
ROW = 18
MARK = 7
KIND_COLOURS = {"kernel": "#4878d0", "memcpy": "#ee854a", "memset": "#6acc64"}
GAP_COLOURS = {attribution.HOST_WAIT: "#d62728", attribution.HOST_BUSY: "#8c8c8c",
               attribution.UNDECIDED: "#e8b400"}
WAIT_COLOUR = "#9467bd"
FONT = 'font-family="sans-serif" font-size="11"'
DETAILED_LIMIT = 2 * PLOT   # more intervals than this in a row: drawn a pixel column at a time


class Scale:
    """Trace us -> x pixels, from the window's start."""

    def __init__(self, origin, px_per_us):
        self.origin = origin
        self.px_per_us = px_per_us

    def x(self, time):
        return LEFT + (time - self.origin) * self.px_per_us


def pixel_runs(intervals, scale, limit_us):
    """Merges (start, end) intervals, clipped to [origin, origin + limit_us], into pixel runs."""
    runs = []
    low, high = scale.origin, scale.origin + limit_us
    for start, end in sorted(intervals):
        start, end = max(start, low), min(end, high)
        if end < start:
            continue
        x0, x1 = scale.x(start), scale.x(end)
        if runs and x0 - runs[-1][1] < 0.5:
            runs[-1][1] = max(runs[-1][1], x1)
        else:
            runs.append([x0, x1])
    return runs


def rects(runs, y, height, colour, min_width=0.6):
    """SVG rectangles of pixel runs."""
    return ['<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s"/>'
            % (x0, y, max(x1 - x0, min_width), height, colour) for x0, x1 in runs]


def text(x, y, content, anchor="start", weight=None):
    extra = ' font-weight="%s"' % weight if weight else ""
    return '<text x="%.1f" y="%.1f" %s text-anchor="%s"%s>%s</text>' % (x, y, FONT, anchor, extra, escape(content))


def tick_step(span_us, px_per_us):
    """A round tick step giving about 8 ticks, at least 70 pixels apart, and 2 ticks at least."""
    raw = min(max(span_us / 8.0, 70.0 / px_per_us), span_us / 2.0) if span_us > 0 else 1.0
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return factor * power
    return 10 * power


def axis(y, span_us, scale):
    """The time axis under a timeline."""
    end_x = scale.x(scale.origin + span_us)
    out = ['<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>' % (LEFT, y, end_x, y)]
    step = tick_step(span_us, scale.px_per_us)
    in_ms = span_us >= 2000
    tick = 0.0
    while tick <= span_us + 1e-9:
        x = scale.x(scale.origin + tick)
        label = ("%g ms" % round(tick / 1000.0, 6)) if in_ms else ("%g us" % round(tick, 6))
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>' % (x, y, x, y + 4))
        out.append(text(x, y + 15, label, "middle"))
        tick += step
    return out


def timeline(result, index, y, px_per_us, threshold_us):
    """(SVG lines, height) of one trace."""
    window = result.window.intervals
    origin, span = window[0][0], window[-1][1] - window[0][0]
    scale = Scale(origin, px_per_us)
    totals = result.totals()
    idle = totals["idle_us"]
    share = 100.0 * totals["idle_behind_waits_us"] / idle if idle else 0.0
    out = ['<g class="timeline" id="timeline-%d">' % index,
           '<title>%s</title>' % escape(result.label),
           text(10, y + 13, result.label, weight="bold"),
           text(LEFT, y + 13, "window %.1f us, GPU idle %.1f us (%.1f %%), %d gap%s >= %g us, %.1f %% of idle "
                "time behind host waits" % (result.window_us, idle,
                                            100.0 * idle / result.window_us if result.window_us else 0,
                                            len(result.gaps), "" if len(result.gaps) == 1 else "s",
                                            threshold_us, share))]
    y += 22
    for device, usage in sorted(result.usage.items(), key=lambda item: str(item[0])):
        for stream in usage.streams:
            out.extend(stream_row(result, device, stream, y, scale, span))
            y += ROW + MARK + 6
    for thread, calls in waits_by_thread(result).items():
        out.append(text(10, y + 12, "host %s waits" % thread))
        out.append(row_background(scale, span, y))
        if len(calls) <= DETAILED_LIMIT:
            out.extend(rects(pixel_runs(calls, scale, span), y + 2, ROW - 4, WAIT_COLOUR, 1.0))
        else:
            out.extend(binned_rects({"wait": calls}, {"wait": WAIT_COLOUR}, scale, span, y + 2, ROW - 4))
        y += ROW + 6
    out.extend(axis(y + 2, span, scale))
    out.append("</g>")
    return out, y + 30


def row_background(scale, span, y):
    """The light box of a row, as long as the window."""
    return '<rect x="%d" y="%.1f" width="%.1f" height="%d" fill="#fafafa" stroke="#ddd"/>' % (
        LEFT, y, scale.x(scale.origin + span) - LEFT, ROW)


def stream_row(result, device, stream, y, scale, span):
    """A GPU stream: its activities by kind, and its device's gaps marked under it."""
    out = [text(10, y + 12, "GPU %s stream %s" % (device, stream)), row_background(scale, span, y)]
    activities = [a for a in result.data.activities if a.device == device and a.stream == stream]
    by_kind = {kind: [(a.start, a.end) for a in activities if a.kind == kind] for kind in KIND_COLOURS}
    if len(activities) <= DETAILED_LIMIT:
        for kind, colour in KIND_COLOURS.items():
            out.extend(rects(pixel_runs(by_kind[kind], scale, span), y + 1, ROW - 2, colour,
                             0.6 if kind == "kernel" else 1.0))
    else:
        out.extend(binned_rects(by_kind, KIND_COLOURS, scale, span, y + 1, ROW - 2))
    gaps = {category: [(g["start_us"], g["end_us"]) for g in result.gaps   # the device's gaps, on each stream
                       if g["device"] == device and g["category"] == category]
            for category in GAP_COLOURS}
    if sum(len(intervals) for intervals in gaps.values()) <= DETAILED_LIMIT:
        for category, colour in GAP_COLOURS.items():
            out.extend(rects(pixel_runs(gaps[category], scale, span), y + ROW + 2, MARK, colour, 1.2))
    else:
        out.extend(binned_rects(gaps, GAP_COLOURS, scale, span, y + ROW + 2, MARK))
    return out


def column_times(intervals_by_key, scale, span):
    """Per pixel column, the time (us) each key's intervals cover in it."""
    columns = max(int(math.ceil(span * scale.px_per_us)), 1)
    us_per_column = 1.0 / scale.px_per_us
    times = [dict() for _ in range(columns)]
    for key, intervals in intervals_by_key.items():
        for start, end in intervals:
            start, end = max(start, scale.origin), min(end, scale.origin + span)
            first = int((start - scale.origin) / us_per_column)
            last = min(int((end - scale.origin) / us_per_column), columns - 1)
            for column in range(first, last + 1):
                low = scale.origin + column * us_per_column
                covered = min(end, low + us_per_column) - max(start, low)
                if covered > 0:
                    times[column][key] = times[column].get(key, 0.0) + covered
    return times, us_per_column


def binned_rects(intervals_by_key, colours, scale, span, y, height):
    """A dense row drawn a pixel column at a time: the colour of the key that covers most of the column,
    its opacity the share of the column covered (in quarters); equal neighbours merged into one rectangle."""
    times, us_per_column = column_times(intervals_by_key, scale, span)
    runs = []
    for column, covered in enumerate(times):
        if not covered:
            continue
        key = max(covered, key=covered.get)
        level = min(4, max(1, int(round(4.0 * sum(covered.values()) / us_per_column))))
        if runs and runs[-1][0] == key and runs[-1][1] == level and runs[-1][3] == column:
            runs[-1][3] = column + 1
        else:
            runs.append([key, level, column, column + 1])
    return ['<rect x="%.2f" y="%.1f" width="%d" height="%.1f" fill="%s" fill-opacity="%.2f"/>'
            % (LEFT + first, y, last - first, height, colours[key], level / 4.0) for key, level, first, last in runs]


def waits_by_thread(result):
    """"pid/tid" -> the (start, end) of its blocking calls."""
    threads = {}
    for wait in result.waits:
        threads.setdefault("%s/%s" % (wait.call.pid, wait.call.tid), []).append((wait.call.start, wait.call.end))
    return threads


def legend(y):
    """The legend, in one row."""
    items = [("kernel", KIND_COLOURS["kernel"]), ("memory copy", KIND_COLOURS["memcpy"]),
             ("memset", KIND_COLOURS["memset"]), ("gap behind a host wait", GAP_COLOURS[attribution.HOST_WAIT]),
             ("gap, host busy / launch-bound", GAP_COLOURS[attribution.HOST_BUSY]),
             ("gap, undecided", GAP_COLOURS[attribution.UNDECIDED]),
             ("blocking host call", WAIT_COLOUR)]
    out = ['<g class="legend">']
    x = 10
    for label, colour in items:
        out.append('<rect x="%d" y="%.1f" width="12" height="12" fill="%s"/>' % (x, y, colour))
        out.append(text(x + 16, y + 10, label))
        x += 30 + 6.2 * len(label)
    out.append("</g>")
    return out


def render(analyses, options):
    """The SVG document of the traces."""
    longest = max(r.window.intervals[-1][1] - r.window.intervals[0][0] for r in analyses) or 1.0
    px_per_us = PLOT / longest
    body, y = [], 30
    for index, result in enumerate(analyses):
        lines, y = timeline(result, index, y, px_per_us, options.threshold_us)
        body.extend(lines)
    body.extend(legend(y))
    height = y + 30
    head = ['<?xml version="1.0" encoding="UTF-8"?>',
            '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">'
            % (WIDTH, height, WIDTH, height),
            '<title>%s</title>' % escape("torch-sync-trace: GPU idle gaps (threshold %g us)" % options.threshold_us),
            '<rect width="100%" height="100%" fill="white"/>',
            text(10, 18, "GPU activity, idle gaps >= %g us and blocking host calls; time from the start of each "
                 "window" % options.threshold_us, weight="bold")]
    return "\n".join(head + body + ["</svg>"]) + "\n"
