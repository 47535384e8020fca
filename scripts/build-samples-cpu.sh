#!/usr/bin/env bash
# Builds every sample in samples/ against Debian's CPU LibTorch (1.13) and runs each on the CPU, with a
# timeout: the samples must compile against 1.13 and run without a GPU (their device falls back to the CPU).
# Prints one line per sample; exits 1 when a sample does not build or does not end with status 0.
#
# Usage: scripts/build-samples-cpu.sh [SAMPLE...]     (names as built: metrics, rules_item, ...)
# Environment: TORCH_SYNC_BUILD_ROOT (default <repo>/build), SAMPLE_TIMEOUT (seconds, default 120)
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TORCH_SYNC_BUILD_ROOT:-$repo/build}/samples-cpu
timeout_s=${SAMPLE_TIMEOUT:-120}
"$repo/scripts/install-deps.sh" >/dev/null || exit 1

cmake -S "$repo/samples" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log" >&2; echo "build-samples-cpu: configuration failed" >&2; exit 1; }
targets=()
(($# > 0)) && targets=(--target "$@")
cmake --build "$build" "${targets[@]}" || { echo "build-samples-cpu: build failed" >&2; exit 1; }

failed=0
names=("$@")
if ((${#names[@]} == 0)); then
  for exe in "$build"/bin/*; do names+=("$(basename "$exe")"); done
fi
for name in "${names[@]}"; do
  start=$(date +%s%N)
  timeout -k 10 "$timeout_s" "$build/bin/$name" >"$build/$name.log" 2>&1
  rc=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  if ((rc == 0)); then
    echo "build-samples-cpu: $name: ok (${ms} ms)"
  else
    echo "build-samples-cpu: $name: exit $rc (${ms} ms; log: $build/$name.log)"
    failed=1
  fi
done
exit $failed
