"""Finds the user's source line of the host ops that waited.

Takes: the stacks files given with --stacks (written by the C++ runtime recorder), or the stacks
that a trace itself carries (Python traces made with with_stack=True: "python_function" events, or
a cpu_op's "Call stack"/"stack" argument).
Returns:
  - load_stacks(path): a StacksFile (its source_root and its StackOp entries); StacksError with a
    one-line message for a file that is not one;
  - SourceLines: for each top-level ATen op of a trace, its SourceLine (location "path:line",
    function, where it came from), and the counts of the stacks join; and, for a waiting call that
    carries its own backtrace (Nsight Systems exports), the SourceLine of its user frame
    (native_stacks), whose location is None where only the function is known.

The stacks file:
  {"format": "torch-sync-op-stacks", "version": 1, "clock": "unix_ns", "source_root": "/abs/path",
   "ops": [{"name": "aten::to", "tid": 2457, "start_ns": ..., "end_ns": ..., "location":
            "samples/minimal_loop.cpp:85", "function": "printingLoop(...)"}, ...]}
Each entry is a top-level ATen op (none encloses it on its thread) with the user's innermost frame
("location" is "" when its stack has none: the op then has no line); "dropped_operators" (optional)
counts the ops the recorder could not keep. A file may be gzipped (.json.gz). A
trace's top-level cpu_op is joined to the entry of the same name and tid, in order, whose start
is nearest to the op's absolute start (baseTimeNanoseconds + ts * 1000), within 100 us.
"""

import bisect
import collections
import gzip
import json
import re
import zlib

from .attribution import nesting

STACKS_FORMAT = "torch-sync-op-stacks"
STACKS_VERSION = 1
JOIN_WINDOW_NS = 100000

StackOp = collections.namedtuple("StackOp", "name tid start_ns end_ns location function")
StacksFile = collections.namedtuple("StacksFile", "path source_root ops dropped_operators")
SourceLine = collections.namedtuple("SourceLine", "location function source source_root")

PYTHON_FRAME = re.compile(r"^(?P<path>.+)\((?P<line>\d+)\): (?P<function>.*)$")
LIBRARY_FRAME = re.compile(r"(site-packages|dist-packages)/torch/|^<built-in|^torch/|/torch/nn/modules/")


class StacksError(Exception):
    """A --stacks file that cannot be used; the message is one line."""


def load_stacks(path):
    """Reads and checks a stacks file (see the module docstring)."""
    try:
        with (gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else
              open(path, encoding="utf-8")) as f:
            document = json.load(f)
    except (EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise StacksError("truncated or corrupt gzip file (%s)" % error)
    except OSError as error:
        raise StacksError("cannot read: %s" % (error.strerror or error))
    except (ValueError, UnicodeDecodeError) as error:
        raise StacksError("not valid JSON (%s)" % str(error).splitlines()[0])
    if not isinstance(document, dict) or document.get("format") != STACKS_FORMAT:
        raise StacksError("not a stacks file: \"format\" must be %r" % STACKS_FORMAT)
    if document.get("version") != STACKS_VERSION:
        raise StacksError("unknown version %r (this tool reads version %d)"
                          % (document.get("version"), STACKS_VERSION))
    if document.get("clock") != "unix_ns":
        raise StacksError("unknown clock %r (this tool reads \"unix_ns\")" % document.get("clock"))
    if not isinstance(document.get("ops"), list):
        raise StacksError("\"ops\" is missing or not an array")
    ops = [stack_op(entry, index) for index, entry in enumerate(document["ops"])]
    source_root = document.get("source_root")
    dropped = document.get("dropped_operators")
    return StacksFile(path, source_root if isinstance(source_root, str) else None, ops,
                      dropped if isinstance(dropped, int) and not isinstance(dropped, bool) else 0)


def stack_op(entry, index):
    """One checked StackOp of the "ops" array."""
    def field(name, kinds):
        value = entry.get(name) if isinstance(entry, dict) else None
        if not isinstance(value, kinds) or isinstance(value, bool):
            raise StacksError("ops[%d]: \"%s\" is missing or of the wrong type" % (index, name))
        return value
    name, tid = field("name", str), field("tid", int)
    start_ns, end_ns = field("start_ns", int), field("end_ns", int)
    location = field("location", str)
    function = entry.get("function") if isinstance(entry.get("function"), str) else None
    if end_ns < start_ns:
        raise StacksError("ops[%d]: end_ns is before start_ns" % index)
    return StackOp(name, tid, start_ns, end_ns, location, function)


class SourceLines:
    """The source line of each top-level op of one trace, and how the join went."""

    def __init__(self, data, op_index, stacks_files):
        self.lines = {}           # (thread, start, name) -> SourceLine
        self.matched = 0
        self.unmatched_trace_ops = 0
        self.unused_stack_ops = 0
        self.without_location = 0
        self.dropped_operators = sum(stacks.dropped_operators for stacks in stacks_files)
        self.problem = None
        if stacks_files:
            self.join_stacks_files(data, op_index, stacks_files)
        self.from_files = len(self.lines)
        self.read_trace_stacks(data, op_index)
        self.from_trace = len(self.lines) - self.from_files
        self.call_lines = {}       # id of a CallStack -> SourceLine or None
        self.from_call_stacks = 0  # waiting calls whose own backtrace gave a line
        self.function_only = 0     # ... gave a function but no line
        self.symbolizer = None

    @property
    def source(self):
        """Where the lines came from: "stacks-file", "trace-stacks", "call-stacks" joined by "+", or "none"."""
        kinds = [name for name, count in (("stacks-file", self.from_files), ("trace-stacks", self.from_trace),
                                          ("call-stacks", self.from_call_stacks)) if count]
        return "+".join(kinds) if kinds else "none"

    def line_of(self, thread, op):
        """The SourceLine of a top-level op tuple, or None."""
        if op is None:
            return None
        return self.lines.get((thread, op[0], op[2]))

    def line_of_call(self, call):
        """The SourceLine of a host call's own backtrace (HostCall.stack: Nsight Systems exports), from its
        innermost user frame (native_stacks), or None; a line without location names the function only."""
        stack = getattr(call, "stack", None)
        if stack is None:
            return None
        key = id(stack)
        if key not in self.call_lines:
            if self.symbolizer is None:
                from .native_stacks import Symbolizer   # imports this module
                self.symbolizer = Symbolizer()
            line = self.call_lines[key] = self.symbolizer.line(stack)
            if line is not None and line.location:
                self.from_call_stacks += 1
            elif line is not None:
                self.function_only += 1
        return self.call_lines[key]

    def join_stacks_files(self, data, op_index, stacks_files):
        """Joins the trace's top-level ops to the entries of the stacks files."""
        if data.base_time_ns is None:
            self.problem = "the trace has no baseTimeNanoseconds: its times cannot be joined to the stacks file"
            return
        entries = collections.defaultdict(list)
        for stacks in stacks_files:
            for op in stacks.ops:
                entries[(op.name, op.tid)].append((op.start_ns, op, stacks.source_root))
        for group in entries.values():
            group.sort(key=lambda item: item[0])
        used = 0
        for thread in op_index.threads():
            by_name = collections.defaultdict(list)
            for op in op_index.top_level_ops(thread):
                by_name[op[2]].append(op)
            for name, ops in by_name.items():
                used += self.join_group(data, thread, ops, entries.get((name, thread[1]), []))
        self.unused_stack_ops = sum(len(group) for group in entries.values()) - used

    def join_group(self, data, thread, ops, group):
        """Joins ops of one name and thread to stack entries in order; returns how many were used."""
        starts = [item[0] for item in group]
        cursor, used = 0, 0
        for op in ops:
            at = data.absolute_ns(op[0])
            index = nearest(starts, at, cursor)
            if index is None:
                self.unmatched_trace_ops += 1
                continue
            _, entry, source_root = group[index]
            if entry.location:
                self.lines[(thread, op[0], op[2])] = SourceLine(entry.location, entry.function, "stacks-file",
                                                                 source_root)
            else:
                self.without_location += 1
            self.matched += 1
            used += 1
            cursor = index + 1
        return used

    def read_trace_stacks(self, data, op_index):
        """Lines from the trace itself (python_function events or a cpu_op's stack argument), for the
        top-level ops that the stacks files gave none."""
        functions = {thread: PythonFrames(events) for thread, events in data.python_functions.items()}
        for thread in op_index.threads():
            for op in op_index.top_level_ops(thread):
                if (thread, op[0], op[2]) in self.lines:
                    continue
                line = frame_from_stack_arg(op[3])
                if line is None and thread in functions:
                    line = functions[thread].user_frame_at(op[0], op[1])
                if line is not None:
                    self.lines[(thread, op[0], op[2])] = line


def nearest(starts, at, cursor):
    """The index >= cursor of the start nearest to `at` within JOIN_WINDOW_NS, or None."""
    low = bisect.bisect_left(starts, at - JOIN_WINDOW_NS, lo=cursor)
    high = bisect.bisect_right(starts, at + JOIN_WINDOW_NS, lo=low)
    if low >= high:
        return None
    return min(range(low, high), key=lambda index: abs(starts[index] - at))


def parse_python_frame(text):
    """A SourceLine of a "path(line): function" frame, or None for a library frame."""
    match = PYTHON_FRAME.match(text.strip())
    if not match or LIBRARY_FRAME.search(match.group("path")):
        return None
    return SourceLine("%s:%s" % (match.group("path"), match.group("line")), match.group("function"),
                      "trace-stacks", None)


def frame_from_stack_arg(stack):
    """The first user frame of a "Call stack" argument (frames separated by ';', innermost first)."""
    if not stack:
        return None
    for frame in stack.split(";"):
        line = parse_python_frame(frame)
        if line is not None:
            return line
    return None


class PythonFrames:
    """The python_function events of one thread, nested by time, for the user frame around an op."""

    def __init__(self, events):
        self.events = sorted(events, key=lambda event: (event[0], -event[1]))
        self.starts = [event[0] for event in self.events]
        self.parents = nesting(self.starts, [event[1] for event in self.events])

    def user_frame_at(self, start, end):
        """The innermost python_function containing [start, end] that is a user frame, or None."""
        index = bisect.bisect_right(self.starts, start) - 1
        while index is not None and index >= 0:
            event_start, event_end, name = self.events[index]
            if event_start <= start and end <= event_end + 1e-3:
                line = parse_python_frame(name)
                if line is not None:
                    return line
            index = self.parents[index]
        return None


def split_location(location):
    """("path", line) of "path:line" or "path:line:column"; line None when there is none."""
    parts = location.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0], int(parts[1])
    if len(parts) >= 2 and parts[-1].isdigit():
        return location.rsplit(":", 1)[0], int(parts[-1])
    return location, None
