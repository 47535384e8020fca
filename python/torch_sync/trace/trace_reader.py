"""Reads a Chrome/Kineto JSON trace (.json or .json.gz) into compact tuples; read_trace() hands a file that
begins with SQLite's header to nsys_reader, which makes the same TraceData of an Nsight Systems export.

Takes: the path of a trace written by LibTorch's (Kineto) profiler.
Returns: a TraceData holding only what the analysis needs, as tuples:
  - activities: GPU work (kernel, gpu_memcpy, gpu_memset events) as Activity tuples;
  - host_calls: the CUDA runtime and driver calls that may block the host, as HostCall tuples
    (the others are only counted, per thread);
  - launchers: correlation id -> the host thread (pid, tid) of every runtime/driver call that has
    one, so that a GPU activity's launching thread is known;
  - cpu_ops: per host thread (pid, tid), an OpColumns (the ops' starts, ends and names in arrays,
    about 20 bytes an op; the rare "Call stack" arguments aside);
  - python_functions: per host thread, (start, end, name) tuples;
  - annotations: user_annotation / gpu_user_annotation intervals;
  - the top-level keys (schemaVersion, baseTimeNanoseconds, deviceProperties, ...) and counts of
    what was skipped.
Times are the trace's own: microseconds ("ts", "dur"); the absolute Unix time of a trace time in
nanoseconds is baseTimeNanoseconds + ts * 1000.

The file is parsed streaming with ijson when it is importable (memory then grows with the kept
tuples, not with the file): a first pass reads the top-level keys before "traceEvents", a second
pass the events, and a third (tail) pass, only when needed, the top-level keys after the events.
Without ijson, or with TORCH_SYNC_TRACE_NO_IJSON=1 in the environment, the stdlib json module
reads the whole document at once, and one note on stderr says that memory is not bounded.
Both readers refuse NaN, Infinity and -Infinity (not JSON). Every failure to read is raised as
TraceError with a one-line message. Traces of the older Kineto format, before schemaVersion (event
categories "Kernel", "Memcpy", "Memset", "Runtime", "Operator"), are refused with a TraceError that
says so: they are not supported.
"""

import array
import collections
import decimal
import gzip
import json
import math
import os
import sys
import zlib

from .attribution import may_block

SUPPORTED_SCHEMA_VERSIONS = (1,)
GPU_ACTIVITY_CATEGORIES = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
HOST_API_CATEGORIES = {"cuda_runtime": "runtime", "cuda_driver": "driver"}
LEGACY_CATEGORIES = ("Kernel", "Memcpy", "Memset", "Runtime", "Operator")

Activity = collections.namedtuple("Activity", "start end device stream kind name correlation")
# stack: the call's own backtrace (native_stacks.CallStack), which Nsight Systems exports may have; None in
# Kineto traces.
HostCall = collections.namedtuple("HostCall", "start end pid tid name correlation api stack", defaults=(None,))
Annotation = collections.namedtuple("Annotation", "name start end category")


class TraceError(Exception):
    """A trace that cannot be read; the message is one line, without the file name."""


class OpColumns:
    """The cpu_op events of one thread, column by column: op i is (starts[i], ends[i],
    names[name_ids[i]], stacks.get(i))."""

    def __init__(self):
        self.starts = array.array("d")
        self.ends = array.array("d")
        self.name_ids = array.array("I")
        self.stacks = {}

    def __len__(self):
        return len(self.starts)

    def append(self, start, end, name, stack=None):
        if stack is not None:
            self.stacks[len(self.starts)] = stack
        self.starts.append(start)
        self.ends.append(end)
        self.name_ids.append(name_id(name))

    def op(self, index):
        """Op `index` as a (start, end, name, stack) tuple."""
        return (self.starts[index], self.ends[index], NAMES[self.name_ids[index]], self.stacks.get(index))

    def sort(self):
        """Orders the ops by start, the longer first among equal starts (the nesting order)."""
        if self.in_order():
            return
        order = list(range(len(self.starts)))
        order.sort(key=self.ends.__getitem__, reverse=True)   # two stable passes: start, then -end
        order.sort(key=self.starts.__getitem__)
        self.starts = array.array("d", (self.starts[i] for i in order))
        self.ends = array.array("d", (self.ends[i] for i in order))
        self.name_ids = array.array("I", (self.name_ids[i] for i in order))
        if self.stacks:
            position = {old: new for new, old in enumerate(order)}
            self.stacks = {position[old]: stack for old, stack in self.stacks.items()}

    def in_order(self):
        """Whether the ops are in the nesting order already (Kineto writes them so)."""
        starts, ends = self.starts, self.ends
        for i in range(1, len(starts)):
            if starts[i] < starts[i - 1] or (starts[i] == starts[i - 1] and ends[i] > ends[i - 1]):
                return False
        return True


NAMES = []
NAME_IDS = {}


def name_id(name):
    """The index of a name in NAMES, added on first use."""
    index = NAME_IDS.get(name)
    if index is None:
        index = NAME_IDS[name] = len(NAMES)
        NAMES.append(name)
    return index


class TraceData:
    """What the analysis keeps of one trace (see the module docstring)."""

    def __init__(self, path):
        self.path = path
        self.top_level = {}
        self.activities = []
        self.host_calls = []
        self.launchers = {}   # correlation id -> (pid, tid) of its runtime/driver call
        self.threads = {}     # one shared (pid, tid) tuple per thread
        self.legacy_categories = collections.Counter()
        self.cpu_ops = collections.defaultdict(OpColumns)     # (pid, tid) -> OpColumns
        self.python_functions = collections.defaultdict(list)  # (pid, tid) -> [(start, end, name)]
        self.annotations = []
        self.host_api_calls_per_thread = collections.Counter()
        self.thread_names = {}
        self.tids_per_pid = collections.defaultdict(set)  # every pid's tids of X events
        self.counts = collections.Counter()
        self.reader = None
        self.notes = []   # what the reader could not read, in words (for the report's notes)

    @property
    def schema_version(self):
        return self.top_level.get("schemaVersion")

    @property
    def base_time_ns(self):
        value = self.top_level.get("baseTimeNanoseconds")
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        value = number(value)
        return None if value is None else int(value)

    def absolute_ns(self, ts_us):
        """The Unix time in ns of a trace time, or None without baseTimeNanoseconds."""
        base = self.base_time_ns
        return None if base is None else base + int(round(ts_us * 1000.0))


_note_printed = [False]


def ijson_module():
    """The ijson module, or None when it is missing or disabled (one note on stderr)."""
    reason = None
    if os.environ.get("TORCH_SYNC_TRACE_NO_IJSON"):
        reason = "TORCH_SYNC_TRACE_NO_IJSON is set"
    else:
        try:
            import ijson  # noqa: F401 (optional dependency)
            return ijson
        except ImportError:
            reason = "ijson is not installed (Debian: python3-ijson)"
    if not _note_printed[0]:
        _note_printed[0] = True
        print("torch-sync-trace: note: %s; reading traces with the json module, whose memory is not "
              "bounded: a large trace may need several times its size in memory" % reason, file=sys.stderr)
    return None


def open_binary(path):
    """Opens a trace for reading bytes, decompressing a .gz file."""
    try:
        if path.endswith(".gz"):
            return gzip.open(path, "rb")
        return open(path, "rb")
    except OSError as error:
        raise TraceError("cannot open: %s" % (error.strerror or error))


def read_errors(ijson):
    """The exception types that mean a file could not be read or parsed."""
    errors = (ValueError, OSError, EOFError, zlib.error, UnicodeDecodeError, StopIteration)
    if ijson is not None:
        errors += (ijson.JSONError,)
    return errors


def describe_parse_error(error):
    """A one-line description of a read or parse failure."""
    detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if isinstance(error, (EOFError, zlib.error)) or type(error).__name__ == "BadGzipFile":
        return "truncated or corrupt gzip file (%s)" % detail
    if isinstance(error, OSError) and not isinstance(error, ValueError):
        return "cannot read: %s" % (error.strerror or detail)
    return "not valid JSON, truncated or malformed (%s)" % detail


def read_trace(path):
    """Reads the trace at `path` into a TraceData; raises TraceError. A file that begins with SQLite's header is
    read as the SQLite export of an Nsight Systems report (nsys_reader)."""
    from . import nsys_reader   # imports this module
    if nsys_reader.is_sqlite(path):
        return nsys_reader.read_nsys(path)
    ijson = ijson_module()
    data = TraceData(path)
    try:
        refuse_empty(path)
        if ijson is not None:
            data.reader = "ijson"
            read_with_ijson(ijson, path, data)
        else:
            data.reader = "json"
            read_with_json(path, data)
    except TraceError:
        raise
    except read_errors(ijson) as error:
        raise TraceError(describe_parse_error(error))
    check_schema(data)
    refuse_legacy_format(data)
    return data


def refuse_legacy_format(data):
    """Raises TraceError for a trace of the older Kineto format (no activity of today's categories)."""
    if data.legacy_categories and not data.activities:
        raise TraceError("older Kineto trace format (categories %s): not supported; record the trace with "
                         "a profiler that writes schemaVersion 1 (cat kernel, gpu_memcpy, cuda_runtime, ...)"
                         % ", ".join(sorted(data.legacy_categories)))


def refuse_empty(path):
    """Raises TraceError for a file that holds nothing but white space."""
    with open_binary(path) as f:
        while True:
            chunk = f.read(65536)
            if not chunk:
                raise TraceError("empty file")
            if chunk.strip():
                return


def refuse_constant(name):
    """json's parse_constant hook: NaN and Infinity are not JSON (ijson refuses them too)."""
    raise ValueError("%s is not a JSON value" % name)


def load_json(path):
    """The whole document through the json module, NaN and Infinity refused."""
    with open_binary(path) as f:
        return json.load(f, parse_constant=refuse_constant)


def read_with_json(path, data):
    """Fallback: the whole document through the json module."""
    document = load_json(path)
    if not isinstance(document, dict):
        raise TraceError("not a Chrome/Kineto trace: the top level is not a JSON object")
    if "traceEvents" not in document:
        raise TraceError("not a Chrome/Kineto trace: no \"traceEvents\" key")
    events = document.pop("traceEvents")
    if not isinstance(events, list):
        raise TraceError("not a Chrome/Kineto trace: \"traceEvents\" is not an array")
    data.top_level = document
    for event in events:
        add_event(data, event)


def read_with_ijson(ijson, path, data):
    """Streaming: header pass, events pass, and a tail pass when the header lacks keys."""
    data.top_level = read_header(ijson, path)
    with open_binary(path) as f:
        for event in ijson.items(f, "traceEvents.item", use_float=True):
            add_event(data, event)
    if "schemaVersion" not in data.top_level or "baseTimeNanoseconds" not in data.top_level:
        for key, value in read_tail(ijson, path).items():
            data.top_level.setdefault(key, value)


def build_value(ijson, first_event, first_value, tokens):
    """Builds one JSON value from parse tokens, starting at (first_event, first_value)."""
    builder = ijson.ObjectBuilder()
    builder.event(first_event, first_value)
    depth = 1 if first_event in ("start_map", "start_array") else 0
    while depth:
        _, event, value = next(tokens)
        builder.event(event, value)
        if event in ("start_map", "start_array"):
            depth += 1
        elif event in ("end_map", "end_array"):
            depth -= 1
    return builder.value


def read_header(ijson, path):
    """The top-level keys before "traceEvents" (whose value must be an array)."""
    header = {}
    with open_binary(path) as f:
        tokens = ijson.parse(f, use_float=True)
        try:
            prefix, event, value = next(tokens)
        except StopIteration:
            raise TraceError("empty file")
        if event != "start_map":
            raise TraceError("not a Chrome/Kineto trace: the top level is not a JSON object")
        for prefix, event, value in tokens:
            if prefix == "" and event == "end_map":
                raise TraceError("not a Chrome/Kineto trace: no \"traceEvents\" key")
            if prefix == "" and event == "map_key":
                key = value
                _, first_event, first_value = next(tokens)
                if key == "traceEvents":
                    if first_event != "start_array":
                        raise TraceError("not a Chrome/Kineto trace: \"traceEvents\" is not an array")
                    return header
                header[key] = build_value(ijson, first_event, first_value, tokens)
    raise TraceError("truncated or malformed JSON (the document ends before \"traceEvents\")")


def read_tail(ijson, path):
    """The top-level keys after "traceEvents" (a pass over every token: slower)."""
    tail = {}
    with open_binary(path) as f:
        tokens = ijson.parse(f, use_float=True)
        seen_events = False
        for prefix, event, value in tokens:
            if prefix == "" and event == "map_key":
                if value == "traceEvents":
                    seen_events = True
                elif seen_events:
                    _, first_event, first_value = next(tokens)
                    tail[value] = build_value(ijson, first_event, first_value, tokens)
    return tail


def check_schema(data):
    """Refuses a schemaVersion this reader does not know; notes a missing one."""
    version = data.schema_version
    if version is None:
        data.counts["no_schema_version"] = 1
        return
    if version not in SUPPORTED_SCHEMA_VERSIONS:
        raise TraceError("unknown schemaVersion %r (this tool reads Kineto traces of schemaVersion %s)"
                         % (version, ", ".join(str(v) for v in SUPPORTED_SCHEMA_VERSIONS)))


def number(value):
    """The value as a finite float when it is a JSON number (ijson may give Decimal), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float, decimal.Decimal)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def integer_or_none(value):
    """The value as an int when it is an integral number, else None."""
    as_float = number(value)
    if as_float is None or as_float != int(as_float):
        return None
    return int(as_float)


def hashable(value):
    """An id as given when it can key a dict (ints, strings), else its text."""
    return value if isinstance(value, (int, float, str, type(None))) else json.dumps(value, default=str)


def thread_key(event):
    """(pid, tid) of a host event, as given (ints or strings)."""
    return (hashable(event.get("pid")), hashable(event.get("tid")))


_names = {}


def intern_name(name):
    """One shared string object per distinct event name."""
    name = name if isinstance(name, str) else str(name)
    return _names.setdefault(name, name)


def add_event(data, event):
    """Keeps what is needed of one trace event."""
    data.counts["events"] += 1
    if not isinstance(event, dict):
        data.counts["non_object_events"] += 1
        return
    phase = event.get("ph")
    if phase == "M":
        add_metadata(data, event)
        return
    if phase != "X":
        return
    pid, tid = thread_key(event)
    data.tids_per_pid[pid].add(tid)
    category = event.get("cat")
    if not isinstance(category, str):
        return
    if category in LEGACY_CATEGORIES:
        data.legacy_categories[category] += 1
        return
    start, duration = number(event.get("ts")), number(event.get("dur"))
    if category not in GPU_ACTIVITY_CATEGORIES and category not in HOST_API_CATEGORIES and \
            category not in ("cpu_op", "python_function", "user_annotation", "gpu_user_annotation"):
        return
    if start is None or duration is None or duration < 0:
        data.counts["events_without_time"] += 1
        return
    end = start + duration
    args = event.get("args") if isinstance(event.get("args"), dict) else {}
    name = intern_name(event.get("name", "?"))
    if category in GPU_ACTIVITY_CATEGORIES:
        add_activity(data, event, args, category, name, start, end)
    elif category in HOST_API_CATEGORIES:
        add_host_call(data, event, args, category, name, start, end)
    elif category == "cpu_op":
        data.cpu_ops[thread_key(event)].append(start, end, name, stack_of(args))
    elif category == "python_function":
        data.python_functions[thread_key(event)].append((start, end, name))
    else:
        data.annotations.append(Annotation(name, start, end, category))


def add_activity(data, event, args, category, name, start, end):
    """A GPU activity; pid is the device, tid (or args.stream) the stream."""
    correlation = integer_or_none(args.get("correlation"))
    if correlation is None:
        data.counts["activities_without_correlation"] += 1
    device = hashable(event.get("pid") if args.get("device") is None else args.get("device"))
    stream = hashable(args.get("stream", event.get("tid")))
    data.activities.append(Activity(start, end, device, stream, GPU_ACTIVITY_CATEGORIES[category],
                                    name, correlation))


def add_host_call(data, event, args, category, name, start, end):
    """A CUDA runtime/driver call: kept when it may block, else only counted."""
    key = data.threads.setdefault(thread_key(event), thread_key(event))
    data.host_api_calls_per_thread[key] += 1
    correlation = integer_or_none(args.get("correlation"))
    if correlation is not None:
        data.launchers[correlation] = key
    if not may_block(name):
        return
    if correlation is None:
        data.counts["host_calls_without_correlation"] += 1
    data.host_calls.append(HostCall(start, end, key[0], key[1], name, correlation,
                                    HOST_API_CATEGORIES[category]))


def stack_of(args):
    """The "Call stack" / "stack" argument of a cpu_op (Python traces), or None."""
    stack = args.get("Call stack", args.get("stack"))
    if isinstance(stack, list):
        stack = ";".join(str(frame) for frame in stack)
    return stack if isinstance(stack, str) and stack else None


def add_metadata(data, event):
    """thread_name metadata, for labels."""
    if event.get("name") == "thread_name" and isinstance(event.get("args"), dict):
        data.thread_names[thread_key(event)] = str(event["args"].get("name", "")).strip()


def iter_events(path):
    """Yields the trace's events one by one (streaming with ijson), for the rewrite."""
    ijson = ijson_module()
    try:
        if ijson is None:
            document = load_json(path)
            yield from document.get("traceEvents", [])
            return
        with open_binary(path) as f:
            yield from ijson.items(f, "traceEvents.item", use_float=True)
    except read_errors(ijson) as error:
        raise TraceError(describe_parse_error(error))


def top_level_parts(path):
    """(keys before traceEvents, keys after it), for the rewrite."""
    ijson = ijson_module()
    try:
        if ijson is None:
            document = load_json(path)
            keys = list(document)
            split = keys.index("traceEvents")
            return ({k: document[k] for k in keys[:split]}, {k: document[k] for k in keys[split + 1:]})
        return read_header(ijson, path), read_tail(ijson, path)
    except read_errors(ijson) as error:
        raise TraceError(describe_parse_error(error))
