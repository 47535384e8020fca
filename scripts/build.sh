#!/usr/bin/env bash
# Installs the dependencies (Debian packages) and builds torch-sync against one
# or more LLVM releases, each in build/llvm-<N>: the TorchSyncChecks plugin for
# clang-tidy-<N> -load, and torch-sync-tidy.
#
# Usage: scripts/build.sh [LLVM_MAJOR ...]     (default: 22)
# Environment: TORCH_SYNC_BUILD_ROOT (default: <repo>/build)
#   TORCH_SYNC_LIBTORCH2_INCLUDE  the LibTorch 2.x headers the tests also run against
#     (scripts/fetch-libtorch-headers.sh prints them; scripts/test.sh sets it); unset,
#     a build directory keeps the one it was configured with
#   TORCH_SYNC_RELEASE_INDEPENDENT_TESTS  ON or OFF: register the tests marked
#     RELEASE-INDEPENDENT in this build (scripts/test.sh: the first release only); unset,
#     the build directory keeps its setting (ON for a new one)
#   TORCH_SYNC_OLDER_LIBTORCH_TESTS  ON or OFF: register the tests on the older header set
#     (Debian's libtorch-dev) in this build (scripts/test.sh: the first release only; the
#     others run the 2.x set); unset, the build directory keeps its setting (ON for a new one)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(22)
build_root=${TORCH_SYNC_BUILD_ROOT:-$repo/build}

"$repo/scripts/install-deps.sh" "${versions[@]}"

extra=()
[ -z "${TORCH_SYNC_LIBTORCH2_INCLUDE:-}" ] ||
  extra+=("-DTORCH_SYNC_LIBTORCH2_INCLUDE=$TORCH_SYNC_LIBTORCH2_INCLUDE")
[ -z "${TORCH_SYNC_RELEASE_INDEPENDENT_TESTS:-}" ] ||
  extra+=("-DTORCH_SYNC_RELEASE_INDEPENDENT_TESTS=$TORCH_SYNC_RELEASE_INDEPENDENT_TESTS")
[ -z "${TORCH_SYNC_OLDER_LIBTORCH_TESTS:-}" ] ||
  extra+=("-DTORCH_SYNC_OLDER_LIBTORCH_TESTS=$TORCH_SYNC_OLDER_LIBTORCH_TESTS")

for v in "${versions[@]}"; do
  build="$build_root/llvm-$v"
  echo "build: LLVM $v in $build"
  cmake -S "$repo" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="clang++-$v" \
    -DLLVM_DIR="/usr/lib/llvm-$v/lib/cmake/llvm" \
    -DClang_DIR="/usr/lib/llvm-$v/lib/cmake/clang" "${extra[@]}" >/dev/null
  cmake --build "$build"
done
