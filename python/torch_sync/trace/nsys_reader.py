"""Reads the SQLite export of an Nsight Systems report into the TraceData that trace_reader makes of a Kineto
trace, so that the gaps, the attribution and the report work on it unchanged.

Takes: the path of a file made by `nsys export --type sqlite REPORT.nsys-rep` or `nsys profile --export sqlite`
(tables and columns: the SQLite schema reference of Nsight Systems' documentation; tables are created only
for data the report has).
Returns: read_nsys(path), a TraceData (reader "nsys-sqlite"); TraceError with one line for a file that is not
such an export or lacks what the analysis needs. What is read:
  - GPU activity: CUPTI_ACTIVITY_KIND_KERNEL (demangledName), _MEMCPY (named as Kineto names copies, "Memcpy
    DtoH (Device -> Pageable)", from copyKind, srcKind and dstKind through the file's ENUM_CUDA_MEMCPY_OPER
    and ENUM_CUDA_MEM_KIND tables, else the documented values), _MEMSET ("Memset (Device)", from memKind);
    device deviceId, stream streamId;
  - CUDA API calls: CUPTI_ACTIVITY_KIND_RUNTIME, runtime and driver calls both (eventClass 0 and 1, the
    documented TRACE_PROCESS_EVENT_CUDA_RUNTIME / _DRIVER), and a CUPTI_ACTIVITY_KIND_DRIVER table where one
    exists; names through StringIds, nsys's API version suffix of runtime calls dropped
    ("cudaMemcpyAsync_v3020" -> "cudaMemcpyAsync"); the thread from globalTid (pid = globalTid / 0x1000000 %
    0x1000000, tid = globalTid % 0x1000000, as the documentation decodes it);
  - the backtrace of each call that may wait: CUDA_CALLCHAINS through its callchainId (--cudabacktrace), else
    the backtrace of an OS runtime call inside it on its thread (OSRT_API, OSRT_CALLCHAINS: --trace=osrt);
    symbols and modules through StringIds;
  - NVTX ranges (NVTX_EVENTS, eventType 59 NvtxPushPopRange and 60 NvtxStartEndRange; text, else textId):
    each is an annotation (for --window); push/pop ranges are also the "ops" of their thread, whose nesting
    gives a call's op chain (PyTorch's emit_nvtx ranges name ATen operators; ", seq = N..." is dropped);
  - thread names (ThreadNames); the capture's start in Unix time (TARGET_INFO_SESSION_START_TIME.utcEpochNs,
    the events' times being nanoseconds from it) as baseTimeNanoseconds.
Times become microseconds, as in a Kineto trace. Correlation ids are per process: in an export of several
processes they are made unique as pid * 2**32 + correlationId.
"""

import bisect
import collections
import pathlib
import re
import sqlite3

from .attribution import may_block
from .native_stacks import CallStack, Frame, user_frame
from .trace_reader import Activity, Annotation, HostCall, TraceData, TraceError

SQLITE_MAGIC = b"SQLite format 3\x00"
READER = "nsys-sqlite"
GPU_TABLES = (("CUPTI_ACTIVITY_KIND_KERNEL", "kernel"), ("CUPTI_ACTIVITY_KIND_MEMCPY", "memcpy"),
              ("CUPTI_ACTIVITY_KIND_MEMSET", "memset"))
API_TABLES = ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER")
EVENT_CLASS_API = {0: "runtime", 1: "driver"}   # ENUM_NSYS_EVENT_CLASS
NVTX_RANGE_TYPES = {59: "push-pop", 60: "start-end"}   # ENUM_NSYS_EVENT_TYPE
# The documented enums, used where the file lacks its ENUM_ table.
MEMCPY_KINDS = {0: "Unknown", 1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA",
                8: "DtoD", 9: "HtoH", 10: "PtoP", 11: "UVM HtoD", 12: "UVM DtoH", 13: "UVM DtoD"}
MEMORY_KINDS = {0: "Pageable", 1: "Pinned", 2: "Device", 3: "Array", 4: "Managed", 5: "Device Static",
                6: "Managed Static", 7: "Unknown"}
API_VERSION_SUFFIX = re.compile(r"^(cuda\w*?)_v\d{4,5}$")
EMIT_NVTX_SUFFIX = re.compile(r", seq = \d+.*$")


def is_sqlite(path):
    """Whether the file begins with SQLite's header (False when it cannot be read: the JSON reader says why)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def read_nsys(path):
    """The TraceData of an Nsight Systems SQLite export; raises TraceError."""
    try:
        uri = pathlib.Path(path).absolute().as_uri() + "?mode=ro&immutable=1"
        connection = sqlite3.connect(uri, uri=True)
    except (sqlite3.Error, ValueError) as error:
        raise TraceError("cannot open as SQLite: %s" % error)
    try:
        return NsysExport(connection, path).read()
    except sqlite3.Error as error:
        raise TraceError("not a readable SQLite database (%s)" % str(error).splitlines()[0])
    finally:
        connection.close()


def thread_of(global_tid):
    """(pid, tid) of a serialized global thread id."""
    return (global_tid // 0x1000000 % 0x1000000, global_tid % 0x1000000)


def pid_of(global_pid):
    return global_pid // 0x1000000 % 0x1000000


class NsysExport:
    """One export being read: its tables, strings and enums, and the TraceData built from them."""

    def __init__(self, connection, path):
        self.db = connection
        self.data = TraceData(path)
        self.data.reader = READER
        self.data.notes = []
        self.tables = {}
        self.strings = {}
        self.several_processes = False
        self.pending_stacks = {}   # index in host_calls -> (callchainId, globalTid, start, end)

    def read(self):
        self.tables = {name: self.columns(name) for (name,) in
                       self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "StringIds" not in self.tables:
            raise TraceError("an SQLite database, but not an Nsight Systems export (no StringIds table); make one "
                             "with `nsys export --type sqlite REPORT.nsys-rep`")
        self.require("StringIds", ("id", "value"))
        self.strings = dict(self.db.execute("SELECT id, value FROM StringIds"))
        self.read_metadata()
        gpu_tables = [(table, kind) for table, kind in GPU_TABLES if table in self.tables]
        if not gpu_tables:
            raise TraceError("Nsight Systems export without GPU activity (no CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY or "
                             "_MEMSET table): profile with --trace=cuda")
        api_tables = [table for table in API_TABLES if table in self.tables]
        if not api_tables:
            raise TraceError("Nsight Systems export without CUDA API calls (no CUPTI_ACTIVITY_KIND_RUNTIME table): "
                             "profile with --trace=cuda")
        self.several_processes = self.count_processes(api_tables) > 1
        for table, kind in gpu_tables:
            self.read_activities(table, kind)
        if not self.data.activities:
            raise TraceError("Nsight Systems export without GPU activity (its kernel, memcpy and memset tables are "
                             "empty)")
        for table in api_tables:
            self.read_api_calls(table)
        self.read_stacks()
        self.read_nvtx()
        self.read_thread_names()
        return self.data

    def columns(self, table):
        return {row[1] for row in self.db.execute("PRAGMA table_info(\"%s\")" % table.replace('"', '""'))}

    def require(self, table, columns):
        """Raises TraceError when the table lacks one of the columns."""
        missing = [column for column in columns if column not in self.tables[table]]
        if missing:
            raise TraceError("Nsight Systems export whose %s table lacks the column%s %s (export schema %s; this "
                             "tool reads the documented schema 3.x)"
                             % (table, "" if len(missing) == 1 else "s", ", ".join(missing),
                                self.data.top_level.get("nsysExportSchemaVersion", "unknown")))

    def optional(self, table, column):
        """The column's name when the table has it, else NULL (for a SELECT list)."""
        return '"%s"' % column if column in self.tables[table] else "NULL"

    def read_metadata(self):
        """The export's schema version and the capture's start in Unix time."""
        if "META_DATA_EXPORT" in self.tables:
            for name, value in self.db.execute("SELECT name, value FROM META_DATA_EXPORT"):
                if name == "EXPORT_SCHEMA_VERSION":
                    self.data.top_level["nsysExportSchemaVersion"] = value
        if "TARGET_INFO_SESSION_START_TIME" in self.tables and "utcEpochNs" in self.tables[
                "TARGET_INFO_SESSION_START_TIME"]:
            row = self.db.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()
            if row and isinstance(row[0], int):
                self.data.top_level["baseTimeNanoseconds"] = row[0]

    def count_processes(self, api_tables):
        pids = set()
        for table in api_tables:
            self.require(table, ("start", "end", "globalTid", "correlationId", "nameId"))
            pids.update(pid for (pid,) in self.db.execute(
                "SELECT DISTINCT globalTid / 16777216 %% 16777216 FROM %s WHERE globalTid IS NOT NULL" % table))
        return len(pids)

    def correlation(self, pid, correlation_id):
        """The correlation key: the id, made unique over processes when the export has several."""
        if correlation_id is None:
            return None
        return pid * 2 ** 32 + correlation_id if self.several_processes else correlation_id

    def enum(self, table, documented):
        """{value: label} of an ENUM_ table of the file, else the documented values."""
        if table in self.tables and {"id", "label"} <= self.tables[table]:
            labels = dict(self.db.execute("SELECT id, label FROM %s" % table))
            if table == "ENUM_CUDA_MEMCPY_OPER":   # Kineto's short names, not "Device-to-Host"
                names = dict(self.db.execute("SELECT id, name FROM %s" % table))
                labels = {key: short_copy_kind(names.get(key)) or documented.get(key) or label
                          for key, label in labels.items()}
            return labels
        return documented

    def read_activities(self, table, kind):
        """The kernels, copies or memsets of one table as Activity tuples."""
        self.require(table, ("start", "end", "deviceId", "streamId", "correlationId", "globalPid"))
        if kind == "kernel":
            self.require(table, ("demangledName",))
            extra = "demangledName, NULL, NULL"
        elif kind == "memcpy":
            self.require(table, ("copyKind",))
            extra = "copyKind, %s, %s" % (self.optional(table, "srcKind"), self.optional(table, "dstKind"))
        else:
            extra = "%s, NULL, NULL" % self.optional(table, "memKind")
        copy_kinds = self.enum("ENUM_CUDA_MEMCPY_OPER", MEMCPY_KINDS)
        memory_kinds = self.enum("ENUM_CUDA_MEM_KIND", MEMORY_KINDS)
        counts = self.data.counts
        for start, end, device, stream, correlation_id, global_pid, a, b, c in self.db.execute(
                "SELECT start, end, deviceId, streamId, correlationId, globalPid, %s FROM %s" % (extra, table)):
            counts["events"] += 1
            if not isinstance(start, int) or not isinstance(end, int) or end < start:
                counts["events_without_time"] += 1
                continue
            if kind == "kernel":
                name = self.strings.get(a, "?")
            elif kind == "memcpy":
                name = "Memcpy %s (%s -> %s)" % (copy_kinds.get(a, "Unknown"), memory_kinds.get(b, "Unknown"),
                                                 memory_kinds.get(c, "Unknown"))
            else:
                name = "Memset (%s)" % memory_kinds.get(a, "Unknown")
            pid = pid_of(global_pid) if isinstance(global_pid, int) else 0
            correlation = self.correlation(pid, correlation_id)
            if correlation is None:
                counts["activities_without_correlation"] += 1
            self.data.activities.append(Activity(start / 1000.0, end / 1000.0, device, stream, kind, name, correlation))

    def read_api_calls(self, table):
        """The CUDA runtime and driver calls: all counted per thread and mapped by correlation; those that may
        wait kept as HostCall tuples (their stacks read after)."""
        data = self.data
        for start, end, global_tid, correlation_id, name_id, event_class, callchain in self.db.execute(
                "SELECT start, end, globalTid, correlationId, nameId, %s, %s FROM %s"
                % (self.optional(table, "eventClass"), self.optional(table, "callchainId"), table)):
            data.counts["events"] += 1
            if not isinstance(start, int) or not isinstance(end, int) or not isinstance(global_tid, int):
                data.counts["events_without_time"] += 1
                continue
            thread = data.threads.setdefault(thread_of(global_tid), thread_of(global_tid))
            data.tids_per_pid[thread[0]].add(thread[1])
            data.host_api_calls_per_thread[thread] += 1
            correlation = self.correlation(thread[0], correlation_id)
            if correlation is not None:
                data.launchers[correlation] = thread
            name = api_name(self.strings.get(name_id, "?"))
            if not may_block(name):
                continue
            if correlation is None:
                data.counts["host_calls_without_correlation"] += 1
            api = "driver" if table.endswith("DRIVER") else EVENT_CLASS_API.get(event_class, "runtime")
            call = HostCall(start / 1000.0, end / 1000.0, thread[0], thread[1], name, correlation, api)
            data.host_calls.append(call)
            self.pending_stacks[len(data.host_calls) - 1] = (callchain, global_tid, start, end)

    def read_stacks(self):
        """The backtrace of each kept call: its own (CUDA_CALLCHAINS), else an OS runtime call's inside it."""
        pending = self.pending_stacks
        own = self.callchains("CUDA_CALLCHAINS", {chain for chain, _, _, _ in pending.values() if chain is not None})
        missing = {index: item for index, item in pending.items() if item[0] not in own}
        nested = self.osrt_stacks(missing)
        counts = self.data.counts
        for index, (chain, global_tid, start, end) in pending.items():
            stack = None
            if chain in own:
                stack = CallStack(own[chain], "cuda-backtrace")
            elif index in nested:
                stack = CallStack(nested[index], "osrt-backtrace")
            if stack is not None:
                self.data.host_calls[index] = self.data.host_calls[index]._replace(stack=stack)
                counts["calls_with_" + stack.source] += 1
            else:
                counts["calls_without_backtrace"] += 1

    def callchains(self, table, ids):
        """{callchain id: (Frame, ...) innermost first} of the ids wanted."""
        if not ids or table not in self.tables:
            return {}
        self.require(table, ("id", "symbol", "module", "stackDepth"))
        frames = collections.defaultdict(list)
        for chain, depth, symbol, module, ip, unresolved in self.db.execute(
                "SELECT id, stackDepth, symbol, module, %s, %s FROM %s ORDER BY id, stackDepth"
                % (self.optional(table, "originalIP"), self.optional(table, "unresolved"), table)):
            if chain in ids:
                frames[chain].append(Frame(self.strings.get(symbol), self.strings.get(module),
                                           ip if isinstance(ip, int) else None, bool(unresolved)))
        return {chain: tuple(found) for chain, found in frames.items()}

    def osrt_stacks(self, missing):
        """{index of a kept call: frames} of an OS runtime call with a backtrace inside it, on its thread: the
        longest whose backtrace has a user frame, else the longest (a backtrace may be cut short)."""
        if not missing or "OSRT_API" not in self.tables:
            return {}
        self.require("OSRT_API", ("start", "end", "globalTid", "callchainId"))
        wanted = collections.defaultdict(list)   # globalTid -> [(start, end, index)], sorted
        for index, (_, global_tid, start, end) in missing.items():
            wanted[global_tid].append((start, end, index))
        starts = {}
        for global_tid, calls in wanted.items():
            calls.sort()
            starts[global_tid] = [call[0] for call in calls]
        candidates = collections.defaultdict(list)
        for global_tid, start, end, chain in self.db.execute(
                "SELECT globalTid, start, end, callchainId FROM OSRT_API WHERE callchainId IS NOT NULL"):
            if global_tid not in wanted or not isinstance(start, int) or not isinstance(end, int):
                continue
            position = bisect.bisect_right(starts[global_tid], start) - 1
            for call_start, call_end, index in wanted[global_tid][max(position - 3, 0):position + 1]:
                if end <= call_end:   # (a runtime call and the driver call inside it may both be kept)
                    candidates[index].append((end - start, chain))
        chains = self.callchains("OSRT_CALLCHAINS", {chain for found in candidates.values() for _, chain in found})
        stacks = {}
        for index, found in candidates.items():
            found = sorted((item for item in found if item[1] in chains), key=lambda item: -item[0])
            with_user = [chain for _, chain in found if user_frame(CallStack(chains[chain], "osrt-backtrace"))]
            if with_user or found:
                stacks[index] = chains[(with_user or [found[0][1]])[0]]
        return stacks

    def read_nvtx(self):
        """NVTX ranges: annotations, and the push/pop ranges as the ops of their thread."""
        if "NVTX_EVENTS" not in self.tables:
            return
        self.require("NVTX_EVENTS", ("start", "end", "eventType", "globalTid"))
        unended = 0
        for start, end, event_type, text, text_id, global_tid in self.db.execute(
                "SELECT start, end, eventType, %s, %s, globalTid FROM NVTX_EVENTS WHERE eventType IN (59, 60)"
                % (self.optional("NVTX_EVENTS", "text"), self.optional("NVTX_EVENTS", "textId"))):
            self.data.counts["events"] += 1
            if not isinstance(start, int) or not isinstance(end, int) or end < start:
                unended += 1
                continue
            name = text if isinstance(text, str) else self.strings.get(text_id, "(unnamed NVTX range)")
            self.data.annotations.append(Annotation(name, start / 1000.0, end / 1000.0, "user_annotation"))
            if NVTX_RANGE_TYPES[event_type] == "push-pop" and isinstance(global_tid, int):
                thread = thread_of(global_tid)
                self.data.cpu_ops[thread].append(start / 1000.0, end / 1000.0, EMIT_NVTX_SUFFIX.sub("", name))
        if unended:
            self.data.notes.append("%d NVTX range%s without an end skipped" % (unended, "" if unended == 1 else "s"))

    def read_thread_names(self):
        if "ThreadNames" not in self.tables or not {"nameId", "globalTid"} <= self.tables["ThreadNames"]:
            return
        for name_id, global_tid in self.db.execute("SELECT nameId, globalTid FROM ThreadNames"):
            if isinstance(global_tid, int):
                self.data.thread_names[thread_of(global_tid)] = str(self.strings.get(name_id, "")).strip()


def api_name(name):
    """A CUDA API call's name without nsys's version suffix of runtime calls ("cudaMemcpyAsync_v3020")."""
    match = API_VERSION_SUFFIX.match(name)
    return match.group(1) if match else name


def short_copy_kind(enum_name):
    """ "CUDA_MEMCPY_KIND_DTOH" -> "DtoH" (Kineto's names); None for another name."""
    if not isinstance(enum_name, str) or not enum_name.startswith("CUDA_MEMCPY_KIND_"):
        return None
    kind = enum_name[len("CUDA_MEMCPY_KIND_"):]
    prefix = ""
    if kind.startswith("UVM_"):
        prefix, kind = "UVM ", kind[4:]
    match = re.match(r"^([A-Z])TO([A-Z])$", kind)
    return prefix + ("%sto%s" % match.groups() if match else kind.title())
