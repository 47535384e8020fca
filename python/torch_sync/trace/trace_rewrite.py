"""Writes a copy of a trace with its blocking host calls on a track of their own.

Perfetto drops slices that overlap improperly on one track, and a blocking CUDA call often does
overlap the ATen ops around it that way; on a track of its own each wait shows, whole.
Takes: the TraceAnalysis of one trace (its waits) and the output path (.json, or .json.gz to
compress).
Returns: rewrite() writes the copy and returns the number of calls moved. The blocking calls of
each host thread (pid, tid) (and the ac2g flow events that start or end on them) move to a waits
track of their own: a new tid on the same pid, above the largest integer tid of that pid, named by
thread_name metadata "host waits of THREAD [torch-sync-trace]" (THREAD: the thread's name, else
its tid) and sorted right after the thread they came from; so the waits of several threads do not
overlap on one track. Every other event is copied unchanged, in order.
The copy is written event by event (the input streamed again), so memory stays bounded.
"""

import gzip
import json

from .trace_reader import hashable, integer_or_none, iter_events, thread_key, top_level_parts

TRACK_NAME = "host waits of %s [torch-sync-trace]"


def wait_keys(waits):
    """(correlations, (pid, tid, ts, name) keys) of the blocking calls."""
    correlations, keys = {}, {}
    for wait in waits:
        call = wait.call
        thread = (call.pid, call.tid)
        if call.correlation is not None:
            correlations[call.correlation] = thread
        keys[(call.pid, call.tid, call.start, call.name)] = thread
    return correlations, keys


def new_tids(data, waits):
    """(pid, tid) of a waiting thread -> the tid of its waits track."""
    tids, next_tid = {}, {}
    for wait in waits:
        thread = (wait.call.pid, wait.call.tid)
        if thread in tids:
            continue
        pid = thread[0]
        if pid not in next_tid:
            used = [tid for tid in data.tids_per_pid.get(pid, ()) if isinstance(tid, int)]
            next_tid[pid] = max(used) + 1 if used else 1
        tids[thread] = next_tid[pid]
        next_tid[pid] += 1
    return tids


def moved_copy(event, correlations, keys, tids):
    """The event as written: on its thread's waits track when it is a blocking call or its flow, else as is."""
    if not isinstance(event, dict):
        return event, False
    thread = None
    phase = event.get("ph")
    if phase == "X" and event.get("cat") in ("cuda_runtime", "cuda_driver"):
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        thread = correlations.get(integer_or_none(args.get("correlation")))
        if thread is None:
            thread = keys.get(thread_key(event) + (hashable(event.get("ts")), hashable(event.get("name"))))
    elif phase in ("s", "f") and event.get("cat") == "ac2g":
        thread = correlations.get(integer_or_none(event.get("id")))
    if thread is None or thread_key(event) != thread:
        return event, False
    moved = dict(event)
    moved["tid"] = tids[thread]
    return moved, True


def metadata_events(tids, data):
    """thread_name and thread_sort_index of each waits track."""
    events = []
    for (pid, origin), tid in tids.items():
        name = data.thread_names.get((pid, origin)) or "thread %s" % origin
        sort_index = origin + 1 if isinstance(origin, int) else tid
        events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                       "args": {"name": TRACK_NAME % name}})
        events.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid,
                       "args": {"sort_index": sort_index}})
    return events


def to_json(value):
    return json.dumps(value, separators=(", ", ": "), default=float)


def rewrite(result, out, compress=None):
    """Writes the copy to `out` (gzipped when `compress`, by default when `out` ends in .gz; see the
    module docstring); returns the number of calls moved."""
    data = result.data
    correlations, keys = wait_keys(result.waits)
    tids = new_tids(data, result.waits)
    header, tail = top_level_parts(data.path)
    compress = out.endswith(".gz") if compress is None else compress
    opener = gzip.open if compress else open
    moved_calls = 0
    with opener(out, "wt", encoding="utf-8") as f:
        f.write("{\n")
        for key, value in header.items():
            f.write("  %s: %s,\n" % (to_json(key), to_json(value)))
        f.write('  "traceEvents": [\n')
        first = True
        for event in iter_events(data.path):
            written, moved = moved_copy(event, correlations, keys, tids)
            if moved and written.get("ph") == "X":
                moved_calls += 1
            f.write(("" if first else ",\n") + to_json(written))
            first = False
        for event in metadata_events(tids, data):
            f.write(("" if first else ",\n") + to_json(event))
            first = False
        f.write("\n  ]")
        for key, value in tail.items():
            f.write(",\n  %s: %s" % (to_json(key), to_json(value)))
        f.write("\n}\n")
    return moved_calls
