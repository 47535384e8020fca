#!/usr/bin/env bash
# runtime-verify/recorder/test/check-crashes.sh: the recorder writes what it saw before a run crashed.
#
# Builds recorder_crash_test (samples/crash_after_sync.cpp here) in run.sh's build folder, runs it once per way
# of ending (a normal exit as the control; std::terminate from a static destructor, before or after the
# recorder's exit handler, and from main; abort(); a segmentation fault), and checks each run's observations:
# the one sync on the line marked "// SYNC", "ended" as the ending makes it ({"how": "terminate"}, or
# {"how": "signal", "signal": "SIGABRT"|"SIGSEGV"}; none after a normal exit), and the exit status that the
# ending gives without the recorder (134 for std::terminate and abort(), 139 for the fault, 0).
#
# Needs what run.sh needs (an NVIDIA GPU, a CUDA build of PyTorch, CUPTI, cmake, addr2line); without a GPU it
# exits 77 before building anything. Exit status 0 when every check holds, 1 when one fails (each named on
# stderr). Environment: PYTHON and RV_BUILD_DIR as for run.sh.
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rv=$(dirname "$(dirname "$here")")
build=${RV_BUILD_DIR:-$rv/build}

preflight_name=check-crashes preflight_needs="this test"
# shellcheck source=../../gpu-preflight.sh
source "$rv/gpu-preflight.sh"
mkdir -p "$build/logs"
cmake -S "$rv" -B "$build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" >"$build/logs/configure.log" 2>&1 ||
  { cat "$build/logs/configure.log" >&2; echo "check-crashes: configuration failed" >&2; exit 1; }
cmake --build "$build" -j "$(nproc)" --target recorder_crash_test || { echo "check-crashes: build failed" >&2; exit 1; }

out=$build/logs/recorder-crashes
rm -rf "$out"
mkdir -p "$out"
for mode in exit static-destructor early-static-destructor throw abort segv; do
  # The source root is this folder: the recorder attributes the sync to samples/crash_after_sync.cpp.
  TORCH_SYNC_OBSERVATIONS=$out/$mode.json TORCH_SYNC_SOURCE_ROOT=$here \
    timeout -k 10 120 "$build/recorder_crash_test" "$mode" >"$out/$mode.log" 2>&1
  printf '%s\t%s\n' "$mode" "$?" >>"$out/status.tsv"
done

"$python" - "$here/samples/crash_after_sync.cpp" "$out" <<'PY'
import json, os, sys
source, out = sys.argv[1:3]
sync_line = next(n for n, l in enumerate(open(source), 1) if "// SYNC" in l)
terminate = {"how": "terminate"}
expected = {  # mode: (exit status, "ended")
    "exit": (0, None),
    "static-destructor": (134, terminate),
    "early-static-destructor": (134, terminate),
    "throw": (134, terminate),
    "abort": (134, {"how": "signal", "signal": "SIGABRT"}),
    "segv": (139, {"how": "signal", "signal": "SIGSEGV"}),
}
failures = []
for line in open(os.path.join(out, "status.tsv")):
    mode, rc = line.split()
    want_rc, want_ended = expected[mode]
    problems = []
    if int(rc) != want_rc:
        problems.append("exit status %s, expected %d" % (rc, want_rc))
    try:
        data = json.load(open(os.path.join(out, mode + ".json")))
    except (OSError, ValueError) as e:
        problems.append("no observations (%s)" % e)
        data = None
    if data is not None:
        if data.get("ended") != want_ended:
            problems.append("ended %r, expected %r" % (data.get("ended"), want_ended))
        syncs = [e for e in data.get("events", []) if e.get("blocks_host") is True
                 and e.get("file") == "samples/crash_after_sync.cpp" and e.get("line") == sync_line]
        if not syncs:
            problems.append("no sync recorded on samples/crash_after_sync.cpp:%d" % sync_line)
    print("check-crashes: %s: %s" % (mode, "; ".join(problems) or "ok"), file=sys.stderr)
    if problems:
        failures.append(mode)
sys.exit(1 if failures else 0)
PY
