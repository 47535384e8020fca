#!/usr/bin/env bash
# runtime-verify/guard/run-gpu.sh OUT_DIR: builds the guard and its GPU suite against the CUDA build of
# LibTorch (in runtime-verify's build, beside the samples), runs them on the GPU, and writes to OUT_DIR:
#   guard_gpu_test.json  GoogleTest's JSON report of guard_gpu_test
#   guard_gpu_test.log   its output: each case's "guard-saw:" lines show the guard's real descriptions
#   guard_tests.log      guard_logic_test and guard_status_test on this machine
#   overhead.jsonl       guard_overhead: armed, linked but unarmed, and not linked, alternated, 7 repetitions each
#   metadata.json        GPU, driver, torch, date, commit
# runtime-verify/guard/results/ holds the committed copy.
#
# Needs an NVIDIA GPU, a CUDA build of PyTorch, CUPTI, cmake, ninja, and GoogleTest's sources
# (GTEST_SOURCE_DIR, default /usr/src/googletest, Debian's googletest package). Without a GPU it stops, 77.
set -u -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rv=$(dirname "$here")
root=$(dirname "$rv")
out=${1:?usage: run-gpu.sh OUT_DIR}
build=${RV_BUILD_DIR:-$rv/build}
gtest=${GTEST_SOURCE_DIR:-/usr/src/googletest}
python=${PYTHON:-}
if [[ -z $python ]]; then
  if [[ -x /opt/torch/.venv/bin/python3 ]]; then python=/opt/torch/.venv/bin/python3; else python=python3; fi
fi
nvidia-smi -L 2>/dev/null | grep -q '^GPU ' || { echo "run-gpu: no GPU; nothing run" >&2; exit 77; }
[[ -f $gtest/CMakeLists.txt ]] || { echo "run-gpu: no GoogleTest sources in $gtest (set GTEST_SOURCE_DIR)" >&2; exit 1; }
prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)') || exit 1
mkdir -p "$out" "$build"
generator=()
command -v ninja >/dev/null 2>&1 && [[ ! -f $build/CMakeCache.txt ]] && generator=(-G Ninja)
cmake -S "$rv" -B "$build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" -DTORCH_SYNC_GTEST_SOURCE_DIR="$gtest" \
  >"$build/guard-configure.log" 2>&1 || { tail -40 "$build/guard-configure.log" >&2; exit 1; }
grep -E "torch-sync|runtime-verify|GTest|GoogleTest" "$build/guard-configure.log" >&2
cmake --build "$build" -j "$(nproc)" --target guard_gpu_test guard_logic_test guard_status_test guard_overhead \
  guard_overhead_unlinked >"$build/guard-build.log" 2>&1 || { grep -B5 -A20 -m3 'error' "$build/guard-build.log" >&2; exit 1; }

status=0
tests=$build/guard/test
# Locations relative to the repository, in the guard's messages and (below) in GoogleTest's own report.
export TORCH_SYNC_SOURCE_ROOT=$root
{ "$tests/guard_logic_test" && "$tests/guard_status_test"; } >"$out/guard_tests.log" 2>&1 || status=1
timeout -k 10 300 "$tests/guard_gpu_test" --gtest_output="json:$out/guard_gpu_test.json" >"$out/guard_gpu_test.log" 2>&1 ||
  status=1
"$python" - "$root" "$out/guard_gpu_test.json" "$out/guard_gpu_test.log" "$out/guard_tests.log" <<'PY'
import sys
root, paths = sys.argv[1], sys.argv[2:]
for path in paths:  # the plain path, and JSON's escaped form of it
    text = open(path).read().replace(root + "/", "").replace(root.replace("/", "\\/") + "\\/", "")
    open(path, "w").write(text)
PY
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/guard_gpu_test.log" >&2

: >"$out/overhead.jsonl"
for repetition in 1 2 3 4 5 6 7; do
  "$tests/guard_overhead_unlinked" unarmed 1 >>"$out/overhead.jsonl" || status=1
  "$tests/guard_overhead" unarmed 1 >>"$out/overhead.jsonl" || status=1
  "$tests/guard_overhead" armed 1 >>"$out/overhead.jsonl" || status=1
done

"$python" - "$out" "$root" <<'PY'
import datetime, json, os, subprocess, sys
import torch
out, root = sys.argv[1:3]
def command(*args):
    try:
        return subprocess.run(args, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
json.dump({
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "torch": torch.__version__, "torch_cuda": torch.version.cuda, "gpu": torch.cuda.get_device_name(0),
    "driver": command("nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"),
    "commit": os.environ.get("RV_COMMIT") or command("git", "-C", root, "rev-parse", "HEAD"),
}, open(os.path.join(out, "metadata.json"), "w"), indent=2)
PY
exit $status
