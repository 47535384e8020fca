#!/usr/bin/env bash
# runtime-verify/fused-benchmark.sh OUT_DIR: on a GPU machine, builds and runs what docs/fused-kernels.md
# reports, in a few minutes:
#   OUT_DIR/observations/fused_compaction.json and metadata.json: the GPU suite (run.sh) on
#     samples/fused_compaction.cu, the syncs it observed, to compare with the checker (compare.py);
#   OUT_DIR/fused_benchmark/fused_benchmark.json and fused_benchmark.tsv: fused_benchmark.cu, the loop's
#     iterations per second and GPU idle fraction per form, size and keep fraction;
#   OUT_DIR/fused_benchmark/traces.tar.gz: its Chrome traces (trace_<form>.json, one repetition per form);
#   OUT_DIR/fused-benchmark.log: what each step printed.
# Last it builds loop_benchmark, which shares benchmark_timing.h with fused_benchmark (built, not run).
# Needs what run.sh needs (an NVIDIA GPU, a CUDA build of PyTorch, CUPTI, cmake, ninja, nvcc); without a GPU it
# stops at once, exit status 77. Exit status 0 when every step succeeded, 1 otherwise (the others still run).
#
# Environment: PYTHON and RV_BUILD_DIR as for run.sh (default build folder: runtime-verify/build);
# FUSED_ITERATIONS and FUSED_REPETITIONS (default 100 and 7), passed to fused_benchmark; RV_TIMEOUT (seconds
# per sample run, default 120); FUSED_TIMEOUT (seconds for the benchmark, default 240).
set -u -o pipefail

(($# == 1)) || { echo "usage: runtime-verify/fused-benchmark.sh OUT_DIR" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$1" || exit 1
out=$(cd "$1" && pwd)
build=${RV_BUILD_DIR:-$here/build}
log=$out/fused-benchmark.log

preflight_name=fused-benchmark preflight_needs="this benchmark"
# shellcheck source=gpu-preflight.sh
source "$here/gpu-preflight.sh"

step() { echo "fused-benchmark: $*"; }

main() {
  failed=0

  # Configure and build the sample and the benchmark in one go; run.sh then finds the sample built.
  step "configuring and building in $build"
  if ! cmake -S "$here" -B "$build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" ||
    ! cmake --build "$build" -j "$(nproc)" --target fused_compaction fused_benchmark; then
    step "build failed"
    return 1
  fi

  step "the GPU suite on samples/fused_compaction.cu"
  if RV_BUILD_DIR=$build RV_OUT_DIR=$out/observations RV_TIMEOUT=${RV_TIMEOUT:-120} \
    "$here/run.sh" fused_compaction; then
    step "run.sh: ok"
  else
    step "run.sh: failed (status $?); the sample's output:"
    cat "$build/logs/fused_compaction.stdout" "$build/logs/fused_compaction.stderr" 2>/dev/null | tail -n 40
    failed=1
  fi
  cat "$build/logs/fused_compaction.stdout" 2>/dev/null
  # The lines where the host waited (the checker should report exactly the rule_* lines and main's copy).
  "$python" - "$out/observations/fused_compaction.json" <<'EOF' || failed=1
import json, sys
data = json.load(open(sys.argv[1]))
lines = {}
for event in data.get("events", []):
    if event.get("blocks_host") is True and event.get("file"):
        lines.setdefault((event["file"], event["line"]), set()).add(event["signal"] + ":" + event["api"])
print("fused-benchmark: run status %s; syncs observed on %d line(s):" % (data.get("run", {}).get("status"), len(lines)))
for (path, line), what in sorted(lines.items()):
    print("  %s:%d  %s" % (path, line, ", ".join(sorted(what))))
EOF

  step "the benchmark"
  mkdir -p "$out/fused_benchmark"
  rm -f "$out"/fused_benchmark/trace_*.json
  timeout -k 10 "${FUSED_TIMEOUT:-240}" "$build/fused_benchmark" "$out/fused_benchmark" \
    "${FUSED_ITERATIONS:-100}" "${FUSED_REPETITIONS:-7}"
  status=$?
  ((status == 0)) || { step "fused_benchmark: failed (status $status)"; failed=1; }
  # The traces in one archive, named relative to the output folder.
  traces=("$out"/fused_benchmark/trace_*.json)
  if [[ -e ${traces[0]} ]]; then
    tar -C "$out/fused_benchmark" -czf "$out/fused_benchmark/traces.tar.gz" "${traces[@]##*/}" &&
      rm -f "${traces[@]}"
  fi

  # Last, so that it delays no result: the loop benchmark shares benchmark_timing.h; it must still build.
  step "building loop_benchmark"
  mkdir -p "$build/logs"
  if cmake --build "$build" -j "$(nproc)" --target loop_benchmark >"$build/logs/loop_benchmark.build.log" 2>&1; then
    step "loop_benchmark: built"
  else
    step "loop_benchmark: did not build:"
    tail -n 40 "$build/logs/loop_benchmark.build.log"
    failed=1
  fi

  step "results in $out"
  find "$out" -type f | sort
  return $failed
}

# Everything goes to the log as well as to the terminal.
main 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
