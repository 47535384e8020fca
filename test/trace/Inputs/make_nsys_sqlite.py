#!/usr/bin/env python3
"""Writes a small SQLite file in the shape of an Nsight Systems export, for nsys-sqlite.test.

Usage:
  make_nsys_sqlite.py OUT --app BINARY --source SOURCE   the scenario below; BINARY is SOURCE (nsys_app.cpp)
                                                          built with -g
  make_nsys_sqlite.py OUT --bad not-nsys|no-runtime|no-gpu-activity|no-correlation-column
                                                          an SQLite file the tool must refuse

No Nsight Systems report could be made for the tests (nsys cannot export on the GPU machine, and none is
installed here), so the tables are made here with the columns, types and enum values of the SQLite schema
reference of Nsight Systems' documentation (schema 3.28.1; the OSRT tables as nsys 2026.1, schema 3.24.14,
writes them), and filled with only the rows a scenario needs. Timestamps are ns from the capture's start.

The scenario (process 4242; thread 4242 "main" drives device 0, thread 4250 "loader" device 1):
  device 0, stream 7, thread main, inside the NVTX push/pop range "train_step" (0-1000 us):
    20-200 us kernel A; 25-30 us cudaMemcpyAsync to pinned memory (200-205 us, Memcpy DtoH Device -> Pinned:
    no wait) inside the ranges "aten::item, seq = 12" > "aten::_local_scalar_dense, seq = 13" (emit_nvtx's
    names); 30-300 us cudaStreamSynchronize, with its own backtrace (CUDA_CALLCHAINS) through libcudart,
    libc10_cuda and libtorch_cuda to waitForLoss(int) at the NSYS-WAIT-LINE of SOURCE, then main;
    350-500 us kernel B (launched at 305 us): a 145 us gap behind the synchronize;
    495-498 us cudaMemsetAsync, 500-505 us its memset (no wait); 620-700 us kernel C (launched at 600 us):
    a 115 us gap, the host busy;
    695-900 us a synchronous cudaMemcpy, its copy 700-730 us (DtoH, Device -> Pageable), without a backtrace
    of its own but with an ioctl inside it (720-890 us, OSRT_API) whose backtrace (OSRT_CALLCHAINS) reaches
    copyOut(int) at the NSYS-COPY-LINE; 950-1000 us kernel D (launched at 905 us): a 220 us gap behind it;
  device 1, stream 13, thread loader:
    110-310 us kernel E; 310-600 us a synchronous cudaMemcpy (copy 310-320 us, DtoH Device -> Pageable)
    whose backtrace reaches loadBatch(int) of /opt/trainer/bin/trainer, a module not on this machine (its
    function only, no line); 650-700 us kernel F (launched at 605 us): a 330 us gap behind the copy.
The frames' addresses are the binary's, loaded at 0x555555554000: the address of each marked line (found
with nm and addr2line) plus one, as a return address is.
"""

import argparse
import os
import re
import sqlite3
import subprocess
import sys

LOAD_ADDRESS = 0x555555554000
PID, MAIN_TID, LOADER_TID = 4242, 4242, 4250
SESSION_START_UTC_NS = 1790000000000000000


def global_tid(pid, tid):
    """A serialized global thread id, as the documentation decodes it (tid = % 0x1000000, pid = / 0x1000000 %
    0x1000000); the high bits hold the VM id."""
    return (1 << 48) | (pid << 24) | tid


def global_pid(pid):
    return (1 << 48) | (pid << 24)


# The documented tables (columns, types, constraints) this scenario fills.
SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT,
    systemClockNs INTEGER, sessionStartCntVctNs INTEGER);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_NSYS_EVENT_CLASS (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
    globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER,
    dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
    migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER, copyCount INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
    globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
    globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
    launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
    gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
    blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
    localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
    sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER, qmdBulkReleaseDone INTEGER,
    qmdPreexitDone INTEGER, qmdLastCtaDone INTEGER, graphId INTEGER, clusterX INTEGER, clusterY INTEGER,
    clusterZ INTEGER, clusterSchedulingPolicy INTEGER, maxPotentialClusterSize INTEGER, maxActiveClusters INTEGER,
    sharedMemoryRequestedPercentage INTEGER, tensorSizeMinusOneElements TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
    globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
    callchainId INTEGER);
CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,
    unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER NOT NULL, PRIMARY KEY (id, stackDepth));
CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,
    nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, nestingLevel INTEGER, callchainId INTEGER NOT NULL,
    argumentsId INTEGER NOT NULL);
CREATE TABLE OSRT_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,
    kernelMode INTEGER, thumbCode INTEGER, unresolved INTEGER, specialEntry INTEGER, originalIP INTEGER,
    unwindMethod INTEGER, stackDepth INTEGER NOT NULL, PRIMARY KEY (id, stackDepth));
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
    category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
    domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
    int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT,
    eventId INTEGER NOT NULL PRIMARY KEY);
"""

# The documented enum values (ENUM_CUDA_MEMCPY_OPER, ENUM_CUDA_MEM_KIND; the event types and classes used).
MEMCPY_OPER = [(0, "UNKNOWN", "Unknown"), (1, "HTOD", "Host-to-Device"), (2, "DTOH", "Device-to-Host"),
               (3, "HTOA", "Host-to-Array"), (4, "ATOH", "Array-to-Host"), (5, "ATOA", "Array-to-Array"),
               (6, "ATOD", "Array-to-Device"), (7, "DTOA", "Device-to-Array"), (8, "DTOD", "Device-to-Device"),
               (9, "HTOH", "Host-to-Host"), (10, "PTOP", "Peer-to-Peer"), (11, "UVM_HTOD", "Unified Host-to-Device"),
               (12, "UVM_DTOH", "Unified Device-to-Host"), (13, "UVM_DTOD", "Unified Device-to-Device")]
MEM_KIND = [(0, "PAGEABLE", "Pageable"), (1, "PINNED", "Pinned"), (2, "DEVICE", "Device"), (3, "ARRAY", "Array"),
            (4, "MANAGED", "Managed"), (5, "DEVICE_STATIC", "Device Static"), (6, "MANAGED_STATIC", "Managed Static"),
            (7, "UNKNOWN", "Unknown")]
DTOH, PAGEABLE, PINNED, DEVICE = 2, 0, 1, 2
NVTX_PUSH_POP, NVTX_START_END = 59, 60
RUNTIME, DRIVER = 0, 1
US = 1000


class Export:
    """The database being written, with its string table."""

    def __init__(self, path):
        if os.path.exists(path):
            os.remove(path)
        self.db = sqlite3.connect(path)
        self.ids = {}

    def string(self, value):
        if value not in self.ids:
            self.ids[value] = len(self.ids) + 1
            self.db.execute("INSERT INTO StringIds VALUES (?, ?)", (self.ids[value], value))
        return self.ids[value]

    def insert(self, table, values):
        self.db.execute("INSERT INTO %s VALUES (%s)" % (table, ", ".join("?" * len(values))), values)

    def kernel(self, start_us, end_us, device, stream, correlation, name):
        self.insert("CUPTI_ACTIVITY_KIND_KERNEL",
                    (start_us * US, end_us * US, device, 1, None, stream, correlation, global_pid(PID),
                     self.string(name), self.string(name.split("(")[0]), None, 1, 0, 32, 1, 1, 1, 128, 1, 1, 0, 0,
                     0, 0, correlation, 0, None, 0, None, None, None, None, 0, 0, 0, 0, 0, 0, 0, "[]"))

    def memcpy(self, start_us, end_us, device, stream, correlation, kind, source, destination):
        self.insert("CUPTI_ACTIVITY_KIND_MEMCPY",
                    (start_us * US, end_us * US, device, 1, None, stream, correlation, global_pid(PID), 4, kind,
                     None, source, destination, device, 1, device, 1, None, None, None, 1))

    def api(self, start_us, end_us, tid, correlation, name, callchain=None, event_class=RUNTIME):
        self.insert("CUPTI_ACTIVITY_KIND_RUNTIME", (int(start_us * US), int(end_us * US), event_class,
                                                    global_tid(PID, tid), correlation, self.string(name), 0,
                                                    callchain))

    def callchain(self, table, chain, frames):
        """frames: (symbol, module, ip or None), innermost first."""
        for depth, (symbol, module, ip) in enumerate(frames):
            unresolved = 1 if symbol.startswith("0x") else 0
            if table == "CUDA_CALLCHAINS":
                values = (chain, self.string(symbol), self.string(module), unresolved, ip, depth)
            else:
                values = (chain, self.string(symbol), self.string(module), 0, 0, unresolved, 0, ip, 1, depth)
            self.insert(table, values)

    def nvtx(self, start_us, end_us, text, event_type=NVTX_PUSH_POP, tid=MAIN_TID):
        event_id = self.db.execute("SELECT COUNT(*) FROM NVTX_EVENTS").fetchone()[0] + 1
        self.insert("NVTX_EVENTS", (start_us * US, None if end_us is None else end_us * US, event_type, None, None,
                                    None, text, global_tid(PID, tid), None, None, 0, None, None, None, None, None,
                                    None, None, None, None, event_id))


def line_address(binary, source, marker):
    """The function (as nm -C names it) and the first address of the source line holding `marker`."""
    with open(source, encoding="utf-8") as f:
        line = next(number for number, text in enumerate(f, 1) if marker in text)
    symbols = []
    for text in subprocess.run(["nm", "-C", "-S", "--defined-only", binary], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        match = re.match(r"^([0-9a-f]+) ([0-9a-f]+) [tT] (.+)$", text)
        if match:
            symbols.append((int(match.group(1), 16), int(match.group(2), 16), match.group(3)))
    for start, size, name in symbols:
        addresses = ["0x%x" % address for address in range(start, start + size)]
        places = subprocess.run(["addr2line", "-e", binary] + addresses, capture_output=True, text=True,
                                check=True).stdout.splitlines()
        for address, place in zip(addresses, places):
            place = re.sub(r" \(discriminator \d+\)$", "", place)
            if place.endswith(":%d" % line) and os.path.basename(place.rsplit(":", 1)[0]) == os.path.basename(source):
                return name, int(address, 16)
    sys.exit("make_nsys_sqlite: no address of %s:%d in %s" % (source, line, binary))


def symbol_address(binary, symbol):
    """An address inside a function (its start plus 4)."""
    for text in subprocess.run(["nm", "-C", "--defined-only", binary], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        parts = text.split(" ", 2)
        if len(parts) == 3 and parts[2] == symbol:
            return int(parts[0], 16) + 4
    sys.exit("make_nsys_sqlite: no symbol %s in %s" % (symbol, binary))


def scenario(out, binary, source):
    export = Export(out)
    export.db.executescript(SCHEMA)
    export.db.executemany("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)",
                          [(i, "CUDA_MEMCPY_KIND_" + name, label) for i, name, label in MEMCPY_OPER])
    export.db.executemany("INSERT INTO ENUM_CUDA_MEM_KIND VALUES (?, ?, ?)",
                          [(i, "CUDA_MEMOPR_MEMORY_KIND_" + name, label) for i, name, label in MEM_KIND])
    export.db.executemany("INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (?, ?, ?)",
                          [(34, "NvtxMark", "NvtxMark"), (59, "NvtxPushPopRange", "NvtxPushPopRange"),
                           (60, "NvtxStartEndRange", "NvtxStartEndRange")])
    export.db.executemany("INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES (?, ?, ?)",
                          [(0, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "CUDA runtime"),
                           (1, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "CUDA driver"),
                           (27, "TRACE_PROCESS_EVENT_OS_RUNTIME", "OS runtime libraries")])
    export.db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)",
                          [("EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"), ("EXPORT_SCHEMA_VERSION", "3.28.1")])
    export.insert("TARGET_INFO_SESSION_START_TIME", (SESSION_START_UTC_NS, "2026-09-21T12:53:20", "", 0, None))
    for tid, name in ((MAIN_TID, "main"), (LOADER_TID, "loader")):
        export.insert("ThreadNames", (export.string(name), 0, global_tid(PID, tid)))

    app = os.path.abspath(binary)
    wait_function, wait_address = line_address(binary, source, "NSYS-WAIT-LINE")
    copy_function, copy_address = line_address(binary, source, "NSYS-COPY-LINE")
    main_ip = LOAD_ADDRESS + symbol_address(binary, "main") + 1
    libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
    cudart = "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13"
    torch_lib = "/usr/lib/python3/dist-packages/torch/lib/"

    # Device 0, thread main.
    export.nvtx(0, 1000, "train_step")
    export.nvtx(20, 400, "aten::item, seq = 12")
    export.nvtx(22, 398, "aten::_local_scalar_dense, seq = 13")
    export.nvtx(0, 1000, "epoch 0", event_type=NVTX_START_END)
    export.api(10, 15, MAIN_TID, 1, "cudaLaunchKernel_v7000")
    export.kernel(20, 200, 0, 7, 1, "void at::native::vectorized_elementwise_kernel<4>(int, float*)")
    export.api(25, 30, MAIN_TID, 2, "cudaMemcpyAsync_v3020")
    export.memcpy(200, 205, 0, 7, 2, DTOH, DEVICE, PINNED)
    export.api(30, 300, MAIN_TID, 3, "cudaStreamSynchronize_v3020", callchain=1)
    export.callchain("CUDA_CALLCHAINS", 1, [
        ("cudaStreamSynchronize", cudart, 0x7f0000012345),
        ("c10::cuda::stream_synchronize(CUstream_st*)", torch_lib + "libc10_cuda.so", 0x7f1000001234),
        ("at::native::_local_scalar_dense_cuda(at::Tensor const&)", torch_lib + "libtorch_cuda.so", 0x7f2000005678),
        (wait_function, app, LOAD_ADDRESS + wait_address + 1),
        ("main", app, main_ip),
        ("__libc_start_main", libc, 0x7f3000000100)])
    export.api(305, 310, MAIN_TID, 4, "cudaLaunchKernel_v7000")
    export.kernel(350, 500, 0, 7, 4, "ampere_sgemm_128x64_nn")
    export.api(495, 498, MAIN_TID, 8, "cudaMemsetAsync_v3020")
    export.insert("CUPTI_ACTIVITY_KIND_MEMSET", (500 * US, 505 * US, 0, 1, None, 7, 8, global_pid(PID), 0, 64, None,
                                                 DEVICE))
    export.api(600, 605, MAIN_TID, 5, "cudaLaunchKernel_v7000")
    export.kernel(620, 700, 0, 7, 5, "void at::native::reduce_kernel<512, 1>(float*)")
    export.api(695, 900, MAIN_TID, 6, "cudaMemcpy_v3020")
    export.memcpy(700, 730, 0, 7, 6, DTOH, DEVICE, PAGEABLE)
    export.insert("OSRT_API", (720 * US, 890 * US, 27, global_tid(PID, MAIN_TID), export.string("ioctl"), 0, 0, 2, 0))
    export.callchain("OSRT_CALLCHAINS", 2, [
        ("__GI___ioctl", libc, 0x7f3000000200),
        ("0x7f4000000300", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", 0x7f4000000300),
        ("cudaMemcpy", cudart, 0x7f0000020000),
        (copy_function, app, LOAD_ADDRESS + copy_address + 1),
        ("main", app, main_ip + 8),
        ("__libc_start_main", libc, 0x7f3000000100)])
    export.api(905, 910, MAIN_TID, 7, "cudaLaunchKernel_v7000")
    export.kernel(950, 1000, 0, 7, 7, "void at::native::vectorized_elementwise_kernel<4>(int, float*)")

    # Device 1, thread loader.
    export.api(100, 105, LOADER_TID, 11, "cuLaunchKernel", event_class=DRIVER)
    export.kernel(110, 310, 1, 13, 11, "void decode_kernel(unsigned char const*, float*)")
    export.api(310, 600, LOADER_TID, 12, "cudaMemcpy_v3020", callchain=3)
    export.memcpy(310, 320, 1, 13, 12, DTOH, DEVICE, PAGEABLE)
    export.callchain("CUDA_CALLCHAINS", 3, [
        ("cudaMemcpy", cudart, 0x7f0000020000),
        ("loadBatch(int)", "/opt/trainer/bin/trainer", 0x555500001234),
        ("0x7f5000000000", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", 0x7f5000000000)])
    export.api(605, 610, LOADER_TID, 13, "cuLaunchKernel", event_class=DRIVER)
    export.kernel(650, 700, 1, 13, 13, "void decode_kernel(unsigned char const*, float*)")
    export.db.commit()
    export.db.close()


def bad(out, kind):
    """An SQLite file that is not a usable export."""
    export = Export(out)
    if kind == "not-nsys":
        export.db.execute("CREATE TABLE songs (id INTEGER PRIMARY KEY, title TEXT)")
        export.db.execute("INSERT INTO songs VALUES (1, 'not a profile')")
    elif kind in ("no-runtime", "no-gpu-activity", "no-correlation-column"):
        export.db.executescript(SCHEMA)
        export.db.execute("DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME")
        if kind == "no-gpu-activity":
            for table in ("KERNEL", "MEMCPY", "MEMSET"):
                export.db.execute("DROP TABLE CUPTI_ACTIVITY_KIND_%s" % table)
        if kind == "no-correlation-column":
            export.db.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT "
                              "NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL)")
        if kind != "no-gpu-activity":
            export.kernel(0, 10, 0, 7, 1, "k()")
    export.db.commit()
    export.db.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--app")
    parser.add_argument("--source")
    parser.add_argument("--bad", choices=("not-nsys", "no-runtime", "no-gpu-activity", "no-correlation-column"))
    args = parser.parse_args()
    if args.bad:
        bad(args.out, args.bad)
    elif args.app and args.source:
        scenario(args.out, args.app, args.source)
    else:
        parser.error("give --app and --source, or --bad")


if __name__ == "__main__":
    main()
