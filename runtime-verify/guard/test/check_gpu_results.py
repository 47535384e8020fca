#!/usr/bin/env python3
"""guard/gpu-results: the committed GPU run of guard_gpu_test (../results/, made by ../run-gpu.sh) shows every
case the guard must handle, passed, on a named GPU and torch release; and the overhead on the minimal loop is
within its target. Runs in CI, without a GPU, like the suite's observations.

Usage: check_gpu_results.py RESULTS_DIR
"""
import json
import os
import statistics
import sys

results = sys.argv[1]
report = json.load(open(os.path.join(results, "guard_gpu_test.json")))
meta = json.load(open(os.path.join(results, "metadata.json")))
failures = []
for key in ("gpu", "torch", "driver", "date", "commit"):
    if not meta.get(key):
        failures.append(f"metadata.json names no {key}")

cases = {case["name"]: case for suite in report["testsuites"] for case in suite["testsuite"]}
# Each kind of sync the checker knows, its sync-free twin, threads, allowances, warm-up, the assertions'
# failure messages, and the fallback when CUPTI is held.
required = """ItemIsOneSyncAtTheUsersLine ReductionWithoutReadIsSyncFree PrintingACudaTensorSyncs
PrintingTheShapeIsSyncFree
CpuCopyIsOneSync NonBlockingCopyIntoPinnedMemoryIsSyncFree BlockingUploadFromPageableMemorySyncs
NonBlockingUploadFromPinnedMemoryIsSyncFree BooleanMaskIndexSyncs MaskedWhereIsSyncFree NonzeroIsOneSync
NonzeroStaticIsSyncFree UniqueDimSyncs SortIsSyncFree DeviceSynchronizeIsOneSync StreamSynchronizeIsOneSync
StreamQueryIsSyncFree EventSynchronizeIsOneSync EventQueryIsSyncFree CudaFreeIsOneSync StreamOrderedFreeIsSyncFree
CudaMemcpyToTheHostIsOneSyncWithItsBytes DeviceToDeviceMemcpyAsyncIsSyncFree AnotherThreadsSyncsAreNotCounted
TheGuardedThreadIsCountedWhileAnotherSyncs OtherThreadsRunUnaffectedWhileAScopeIsOpen AnAllowedSyncIsListedNotCounted
AnAllowanceEndsWithItsScope AScopeOpenedInsideAnAllowanceIsStrict AnAllowanceNeedsAReason
WarmUpRunsExcludeFirstCallSetUp FirstCallSetUpOnAFreshThreadIsWhatWarmUpExcludes
ExpectNoDeviceSyncFailsWithTheLineAndTheOperator AssertNoDeviceSyncIsFatal ScopedNoDeviceSyncReportsAtItsLine
WhenCuptiIsHeldItFallsBackToTheSyncDebugModeAndSaysSo""".split()
for name in required:
    case = cases.get(name)
    if case is None:
        failures.append(f"{name}: not in the committed run")
    elif case.get("result") != "COMPLETED" or case.get("failures"):
        failures.append(f"{name}: {case.get('result')} {case.get('failures', '')}")
if report.get("failures") or report.get("errors"):
    failures.append(f"the run had {report.get('failures')} failures and {report.get('errors')} errors")

rows = [json.loads(line) for line in open(os.path.join(results, "overhead.jsonl")) if line.strip()]


def median(loop, mode):
    values = [r["iterations_per_second"] for r in rows if r["loop"] == loop and r["mode"] == mode]
    return statistics.median(values) if values else None


base, armed = median("minimal_loop_healthy", "not-linked"), median("minimal_loop_healthy", "armed")
if base is None or armed is None:
    failures.append("overhead.jsonl lacks the minimal loop armed or not linked")
elif armed < base * 0.98:
    failures.append(f"armed minimal loop {armed:.1f} it/s is more than 2 % below not linked {base:.1f} it/s")

for failure in failures:
    print("check_gpu_results:", failure)
if failures:
    sys.exit(1)
print(f"check_gpu_results: {len(required)} required cases passed on {meta['gpu']} (torch {meta['torch']}, "
      f"{meta['date']}); minimal loop armed {armed:.1f} it/s vs not linked {base:.1f} it/s "
      f"({(armed / base - 1) * 100:+.2f} %)")
