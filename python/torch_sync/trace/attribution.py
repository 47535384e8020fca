"""Attributes each GPU idle gap to the host call that was waiting, or to a busy host.

Takes: the TraceData of a trace (trace_reader) and its Gap tuples (gap_finder).
Returns:
  - may_block(name): whether a CUDA runtime/driver call of that name may block the host (the
    reader keeps only those calls);
  - find_waits(): the Wait tuples: the host calls that did block, each with the reason;
  - OpIndex: the nesting of the cpu_op events of each host thread, for the ATen op chain around
    a call ("aten::to > aten::_to_copy > aten::copy_", outermost first) and the top-level op;
  - attribute_gaps(): one Attribution per gap, in one of three explicit categories:
      "host-wait": a blocking call was in progress when the GPU went idle (call start <= gap start
                   <= call end + tolerance), on the thread that launched the activity after the
                   gap (by its correlation id), else on another thread for the gap's device or
                   for no known device (wait_thread says which);
      "host-busy": no blocking call was: the host was busy or launch-bound; the top-level op in
                   progress on the launching thread (else on the main host thread, the one with
                   the most CUDA API calls) is named when there is one;
      "undecided": no blocking call was, but a copy or memset whose GPU activity the trace
                   lacks (no correlation) was: whether it waited cannot be told, so the gap is
                   attributed to neither.
"""

import bisect
import collections
import re

# The facts' one list of waiting CUDA calls (checker/facts/sync-facts.yaml, cuda_waits), generated into
# torch_sync/cuda_waits.py.
from .. import cuda_waits

# Kinds of wait after which the host waited whatever the call's activity: synchronizes, frees (their
# stream-ordered *Async forms aside) and unregistrations.
ALWAYS_WAITS = {"device": "synchronize", "stream": "synchronize", "event": "synchronize",
                "free": "free (waits for the device)", "unregister": "unregistration (waits for the device)"}
# Synchronous memsets: measured not to wait on device memory; one whose activity involves host memory
# is counted as a wait, as a synchronous copy's is.
SYNC_MEMSETS = {"cudaMemset", "cudaMemset2D", "cudaMemset3D", "cuMemsetD8", "cuMemsetD16", "cuMemsetD32",
                "cuMemsetD2D8", "cuMemsetD2D16", "cuMemsetD2D32"}
# cudaStreamQuery, cudaEventQuery, cuStreamQuery and cuEventQuery only ask: they never block.

Wait = collections.namedtuple("Wait", "call reason device")
Attribution = collections.namedtuple("Attribution", "gap category wait chain top_op thread wait_thread")
MEMORY_KINDS = re.compile(r"\(([^()]*)\)\s*$")

HOST_WAIT = "host-wait"
# Which thread's wait a gap is charged to (Attribution.wait_thread, "wait_thread" in the JSON report).
LAUNCHING_THREAD = "launching-thread"
OTHER_THREAD = "other-thread"
LAUNCHER_UNKNOWN = "launcher-unknown"
HOST_BUSY = "host-busy"
UNDECIDED = "undecided"


base_name = cuda_waits.base_name


def always_wait_reason(name):
    """Why a call of this name waited whatever its activity (a synchronize, a free, an unregistration), or
    None when it may not have."""
    kind = cuda_waits.wait_kind(name)
    if kind == "free" and cuda_waits.is_async(name):
        return None  # stream-ordered: returns at once
    return ALWAYS_WAITS.get(kind)


def is_copy(name):
    """Whether a call of this name is a copy (cudaMemcpy*, cuMemcpy*)."""
    return cuda_waits.wait_kind(name) == "copy"


def may_block(name):
    """Whether a call of this name can block the host (kept by the reader)."""
    return always_wait_reason(name) is not None or is_copy(name) or base_name(name) in SYNC_MEMSETS


def copy_activities(activities):
    """correlation -> the memcpy/memset activity of an asynchronous call."""
    return {a.correlation: a for a in activities if a.kind != "kernel" and a.correlation is not None}


def find_waits(data, margin_us, tolerance_us):
    """(the Wait tuples sorted by start, the copies and memsets without a matched activity as Wait
    tuples with reason None: whether they blocked cannot be told)."""
    copies = copy_activities(data.activities)
    waits, unmatched = [], []
    for call in data.host_calls:
        name = base_name(call.name)
        reason = always_wait_reason(name)
        if reason:
            waits.append(Wait(call, reason, None))
            continue
        if not is_copy(name) and name not in SYNC_MEMSETS:
            continue
        activity = copies.get(call.correlation)
        if activity is None:
            unmatched.append(Wait(call, None, None))
            continue
        if name in SYNC_MEMSETS:
            reason = sync_wait_reason("synchronous memset", activity)
        elif not cuda_waits.is_async(name):
            reason = sync_wait_reason("synchronous copy", activity)
        else:
            reason = async_copy_wait_reason(call, activity, margin_us, tolerance_us)
        if reason:
            waits.append(Wait(call, reason, activity.device))
    waits.sort(key=lambda wait: wait.call.start)
    unmatched.sort(key=lambda wait: wait.call.start)
    return waits, unmatched


def device_memory_only(activity):
    """Whether a copy or memset stays in device memory ("Memcpy DtoD (Device -> Device)",
    "Memset (Device)"): the memory kinds in its name's last parentheses are all Device."""
    found = MEMORY_KINDS.search(activity.name)
    if found:
        return all(part.strip().lower() == "device" for part in found.group(1).split("->"))
    return "DtoD" in activity.name or "PtoP" in activity.name


def memory_kinds(activity):
    """The memory kinds of a copy's activity, source then destination ("Memcpy DtoH (Device -> Pageable)":
    ["device", "pageable"]), or [] when its name does not say."""
    found = MEMORY_KINDS.search(activity.name)
    return [part.strip().lower() for part in found.group(1).split("->")] if found else []


def host_memory_only(activity):
    """Whether a copy stays in host memory (HtoH), which the host does not wait for the device to do."""
    kinds = memory_kinds(activity)
    if kinds:
        return all(kind in ("pageable", "pinned") for kind in kinds)
    return "HtoH" in activity.name


def sync_wait_reason(what, activity):
    """Why a synchronous copy or memset blocked (host memory involved), or None (device memory only, or a
    copy within host memory)."""
    if device_memory_only(activity) or (what == "synchronous copy" and host_memory_only(activity)):
        return None
    return "%s (%s)" % (what, activity.name)


def async_copy_wait_reason(call, activity, margin_us, tolerance_us):
    """Why an asynchronous copy blocked, or None when it did not. One into pageable memory waits (the
    facts' cuda_waits table: measured); one from it did not on the GPU measured, unless it outlasted its
    copy (below)."""
    kinds = memory_kinds(activity)
    if (len(kinds) == 2 and kinds[1] == "pageable" and kinds[0] != "pageable") or (
            not kinds and "pageable" in activity.name.lower() and "DtoH" in activity.name):
        return "copy into pageable memory (%s)" % activity.name
    call_us, copy_us = call.end - call.start, activity.end - activity.start
    if call_us > copy_us + margin_us and call.end >= activity.end - tolerance_us:
        return "asynchronous copy that returned only after its copy (%.1f us call, %.1f us copy)" % (
            call_us, copy_us)
    return None


class OpIndex:
    """The cpu_op events of each host thread (trace_reader.OpColumns), nested by time."""

    def __init__(self, cpu_ops):
        self.ops = {}
        self.parents = {}
        for thread, ops in cpu_ops.items():
            ops.sort()
            self.ops[thread] = ops
            self.parents[thread] = nesting(ops.starts, ops.ends)

    def threads(self):
        return list(self.ops)

    def innermost(self, thread, start, end):
        """The index of the innermost op of `thread` containing [start, end], or None."""
        ops = self.ops.get(thread)
        if not ops:
            return None
        index = bisect.bisect_right(ops.starts, start) - 1
        parents = self.parents[thread]
        while index is not None and index >= 0:
            if ops.starts[index] <= start and end <= ops.ends[index] + 1e-3:
                return index
            index = parents[index]
        return None

    def chain(self, thread, start, end):
        """The ops containing [start, end], outermost first, as (start, end, name, stack) tuples."""
        index = self.innermost(thread, start, end)
        chain = []
        while index is not None:
            chain.append(self.ops[thread].op(index))
            index = self.parents[thread][index]
        chain.reverse()
        return chain

    def top_level_ops(self, thread):
        """The ops of the thread that no other op of it contains, as tuples, in order."""
        ops = self.ops[thread]
        return [ops.op(index) for index, parent in enumerate(self.parents[thread]) if parent is None]


def nesting(starts, ends):
    """Each interval's parent index (None at top level), for intervals sorted by (start, -end)."""
    parents, open_ops = [], []
    for index, (start, end) in enumerate(zip(starts, ends)):
        while open_ops and ends[open_ops[-1]] < start:
            open_ops.pop()
        while open_ops and ends[open_ops[-1]] < end - 1e-3:
            open_ops.pop()   # an op that overlaps without containing: not a parent
        parents.append(open_ops[-1] if open_ops else None)
        open_ops.append(index)
    return parents


def chain_text(chain):
    """ "aten::to > aten::_to_copy > aten::copy_": consecutive repeats (redispatches) shown once."""
    names = []
    for op in chain:
        if not names or names[-1] != op[2]:
            names.append(op[2])
    return " > ".join(names) if names else "(no ATen op)"


def main_thread(data):
    """The host thread with the most CUDA API calls (None without any)."""
    if data.host_api_calls_per_thread:
        return data.host_api_calls_per_thread.most_common(1)[0][0]
    threads = sorted(data.cpu_ops, key=lambda thread: -len(data.cpu_ops[thread]))
    return threads[0] if threads else None


def attribute_gaps(gaps, waits, undecided, op_index, busy_thread, tolerance_us, launchers):
    """Yields one Attribution per gap, in the gaps' order (see the module docstring). `launchers`
    maps a correlation id to the host thread of its runtime call (trace_reader's TraceData)."""
    finder, undecided_finder = WaitFinder(waits, tolerance_us), WaitFinder(undecided, tolerance_us)
    for gap in gaps:
        launcher = launchers.get(gap.after.correlation)
        wait, wait_thread = finder.find(gap.start, launcher, gap.device)
        category = HOST_WAIT
        if wait is None:
            (wait, wait_thread), category = undecided_finder.find(gap.start, launcher, gap.device), UNDECIDED
        if wait is not None:
            thread = (wait.call.pid, wait.call.tid)
            chain = op_index.chain(thread, wait.call.start, wait.call.end)
            yield Attribution(gap, category, wait, chain, chain[0] if chain else None, thread, wait_thread)
        else:
            thread = launcher if launcher is not None else busy_thread
            chain = op_index.chain(thread, gap.start, gap.start) if thread is not None else []
            yield Attribution(gap, HOST_BUSY, None, chain, chain[0] if chain else None, thread, None)


class WaitFinder:
    """Finds the wait in progress at a gap's start: on the thread that launched the work after the
    gap first (a wait for the gap's device or of no known device preferred, else one for another
    device: the thread could not launch meanwhile); as a fallback on any thread, a wait for the
    gap's device or of no known device only."""

    def __init__(self, waits, tolerance_us):
        self.any_thread = ThreadWaits(waits, tolerance_us)
        per_thread = collections.defaultdict(list)
        for wait in waits:
            per_thread[(wait.call.pid, wait.call.tid)].append(wait)
        self.per_thread = {thread: ThreadWaits(found, tolerance_us) for thread, found in per_thread.items()}

    def find(self, time, launcher, device):
        """(the wait, LAUNCHING_THREAD / OTHER_THREAD / LAUNCHER_UNKNOWN), or (None, None)."""
        def on_device(wait):
            return wait.device is None or wait.device == device
        if launcher is not None and launcher in self.per_thread:
            own = self.per_thread[launcher]
            wait = own.in_progress_at(time, on_device) or own.in_progress_at(time, lambda wait: True)
            if wait is not None:   # the launching thread was blocked, for this device preferably
                return wait, LAUNCHING_THREAD
        wait = self.any_thread.in_progress_at(time, on_device)
        if wait is None:
            return None, None
        if launcher is None:
            return wait, LAUNCHER_UNKNOWN
        return wait, LAUNCHING_THREAD if (wait.call.pid, wait.call.tid) == launcher else OTHER_THREAD


class ThreadWaits:
    """Finds the blocking call in progress at a time, over waits sorted by start."""

    def __init__(self, waits, tolerance_us):
        self.waits = waits
        self.starts = [wait.call.start for wait in waits]
        self.latest_end = []   # the latest end among waits[0..i]
        latest = float("-inf")
        for wait in waits:
            latest = max(latest, wait.call.end)
            self.latest_end.append(latest)
        self.tolerance_us = tolerance_us

    def in_progress_at(self, time, accept):
        """The latest-started accepted wait with start <= time <= end + tolerance, or None."""
        index = bisect.bisect_right(self.starts, time) - 1
        while index >= 0 and self.latest_end[index] + self.tolerance_us >= time:
            wait = self.waits[index]
            if wait.call.end + self.tolerance_us >= time and accept(wait):
                return wait
            index -= 1
        return None
