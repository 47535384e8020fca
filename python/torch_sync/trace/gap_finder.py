"""Finds the GPU's idle gaps and its busy and idle time inside a window.

Takes: the Activity tuples of a trace (trace_reader), its annotations, a threshold in us and an
optional annotation name.
Returns:
  - resolve_window(): a Window, the intervals (trace us) over which the GPU is measured: the span
    of all GPU activity, or the union of the intervals of the user_annotation events of a name;
  - device_usage(): per device, a DeviceUsage (busy and idle us over the window, the idle
    intervals);
  - find_gaps(): per device, the Gap tuples: the times between two consecutive activities of the
    device (any stream) during which none of its streams runs, whose idle time inside the window is
    at least the threshold. A gap keeps its real start and end (where the device went idle and
    resumed, maybe outside the window): the attribution looks at its start; device_idle_us is the
    part inside the window. Gaps of one device are disjoint, so each instant of device idle time is
    in at most one gap; stream is the stream of the activity that ended the gap.
Interval helpers (merge, total length, IntervalSet for overlap queries) are here too.
"""

import bisect
import collections

Window = collections.namedtuple("Window", "source name intervals")
DeviceUsage = collections.namedtuple("DeviceUsage", "device window_us busy_us idle_us idle_intervals streams")
Gap = collections.namedtuple("Gap", "device stream start end device_idle_us before after")


class WindowError(Exception):
    """A --window that names no annotation of the trace."""


def merge_intervals(intervals):
    """The union of (start, end) intervals, as sorted disjoint intervals."""
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1][1] = end
        else:
            merged.append([start, end])
    return [tuple(interval) for interval in merged]


def total_length(intervals):
    """The summed length of disjoint intervals."""
    return sum(end - start for start, end in intervals)


class IntervalSet:
    """Sorted disjoint intervals with their starts, for repeated intersection queries."""

    def __init__(self, intervals):
        self.intervals = merge_intervals(intervals)
        self.starts = [start for start, _ in self.intervals]

    def length(self):
        return total_length(self.intervals)

    def overlap(self, start, end):
        """The length of [start, end] inside the set."""
        index = max(bisect.bisect_right(self.starts, start) - 1, 0)
        length = 0.0
        while index < len(self.intervals) and self.intervals[index][0] < end:
            low, high = max(start, self.intervals[index][0]), min(end, self.intervals[index][1])
            if high > low:
                length += high - low
            index += 1
        return length


def resolve_window(activities, annotations, name=None):
    """The Window: all GPU activity by default, else the annotation `name` (host side first)."""
    if name is None:
        start = min(activity.start for activity in activities)
        end = max(activity.end for activity in activities)
        return Window("gpu-activity", None, [(start, end)])
    for category in ("user_annotation", "gpu_user_annotation"):
        intervals = [(a.start, a.end) for a in annotations if a.name == name and a.category == category]
        if intervals:
            return Window(category, name, merge_intervals(intervals))
    known = sorted({a.name for a in annotations})
    raise WindowError("no user_annotation named %r (annotations in this trace: %s)"
                      % (name, ", ".join(known) if known else "none"))


def device_usage(activities, window):
    """Per device: the DeviceUsage over the window (busy = union of all its streams' activities)."""
    window_set = IntervalSet(window.intervals)
    per_device = collections.defaultdict(list)
    streams = collections.defaultdict(set)
    for activity in activities:
        per_device[activity.device].append((activity.start, activity.end))
        streams[activity.device].add(activity.stream)
    usage = {}
    for device, intervals in per_device.items():
        busy = clip_to(merge_intervals(intervals), window_set)
        idle = complement(busy, window_set.intervals)
        usage[device] = DeviceUsage(device, window_set.length(), total_length(busy), total_length(idle),
                                    IntervalSet(idle), sorted(streams[device], key=str))
    return usage


def clip_to(sorted_disjoint, window_set):
    """The intersection of sorted disjoint intervals with the window's intervals."""
    a, b = sorted_disjoint, window_set.intervals
    i = j = 0
    clipped = []
    while i < len(a) and j < len(b):
        low, high = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if high > low:
            clipped.append((low, high))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return clipped


def complement(busy, window_intervals):
    """The parts of the window's intervals not covered by the (sorted disjoint) busy intervals."""
    idle = []
    first = 0
    for low, high in window_intervals:
        while first < len(busy) and busy[first][1] <= low:
            first += 1
        cursor, index = low, first
        while index < len(busy) and busy[index][0] < high:
            if busy[index][0] > cursor:
                idle.append((cursor, busy[index][0]))
            cursor = max(cursor, busy[index][1])
            index += 1
        if cursor < high:
            idle.append((cursor, high))
    return idle


def find_gaps(activities, window, threshold_us):
    """The Gap tuples of every device, sorted by start (see the module docstring)."""
    window = IntervalSet(window.intervals)
    per_device = collections.defaultdict(list)
    for activity in activities:
        per_device[activity.device].append(activity)
    gaps = []
    for device, device_activities in per_device.items():
        device_activities.sort(key=lambda activity: (activity.start, activity.end))
        gaps.extend(device_gaps(device, device_activities, window, threshold_us))
    gaps.sort(key=lambda gap: (gap.start, str(gap.device)))
    return gaps


def device_gaps(device, device_activities, window, threshold_us):
    """The gaps of one device: from the end of all its work so far to the next activity's start."""
    found = []
    busy_until, previous = device_activities[0].end, device_activities[0]
    for activity in device_activities[1:]:
        if activity.start > busy_until:
            idle_us = window.overlap(busy_until, activity.start)
            if idle_us > 0 and idle_us >= threshold_us:
                found.append(Gap(device, activity.stream, busy_until, activity.start, idle_us, previous, activity))
        if activity.end > busy_until:
            busy_until, previous = activity.end, activity
    return found
