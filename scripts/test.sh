#!/usr/bin/env bash
# Sets up, builds and runs every test of torch-sync against each LLVM release
# that CI covers (22, the newest in Debian's archive, and 19), so that API drift
# between releases is caught. The lit tests run twice per release: against
# Debian's LibTorch 1.13 headers and against the LibTorch 2.x headers of the
# torch wheel, which scripts/fetch-libtorch-headers.sh fetches into a cache
# outside the tree. Exits non-zero if any build or test fails.
#
# Usage: scripts/test.sh [LLVM_MAJOR ...]      (default: 22 19)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(22 19)
build_root=${TORCH_SYNC_BUILD_ROOT:-$repo/build}

"$repo/scripts/install-deps.sh" "${versions[@]}"
TORCH_SYNC_LIBTORCH2_INCLUDE=$("$repo/scripts/fetch-libtorch-headers.sh")
export TORCH_SYNC_LIBTORCH2_INCLUDE
"$repo/scripts/build.sh" "${versions[@]}"

status=0
for v in "${versions[@]}"; do
  echo "test: LLVM $v"
  ctest --test-dir "$build_root/llvm-$v" --output-on-failure -j "$(nproc)" || status=1
done
exit $status
