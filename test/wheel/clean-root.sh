#!/usr/bin/env bash
# The wheel where nothing else is installed: makes a minimal Debian 12 root with debootstrap (python3,
# python3-venv, git and the C++ standard library's headers; no LLVM and no compiler), installs
# the torch-sync wheel there into a fresh virtual environment, and runs, as a user would
# (inside-root.sh): torch-sync-tidy --version, torch-sync-tidy on a sample that includes <torch/torch.h>
# and on a small CMake project's compilation database, torch-sync-sarif and torch-sync-scan on that
# project, torch-sync-trace on a committed profiler trace,
# torch-sync-clangd over LSP on one file, and the
# pre-commit hook with the real pre-commit, which installs the wheel into the hook's own environment.
# pre-commit comes from PyPI (downloaded here, installed there without an index): Debian's pre-commit
# package depends on nodeenv, which depends on a C++ compiler.
# clean-root.checks says what each must print (FileCheck); any difference fails the run.
#
# Usage: test/wheel/clean-root.sh WHEEL [WORK_DIR]
#   WHEEL     the wheel (scripts/build-wheel.sh)
#   WORK_DIR  where the root and the outputs go (default: a temporary folder, removed after a pass);
#             a root made by an earlier run there is reused
# Environment: TORCH_SYNC_LIBTORCH2_INCLUDE  LibTorch 2.x headers (default: scripts/fetch-libtorch-headers.sh)
#   TORCH_SYNC_DEBIAN_MIRROR  the Debian mirror for debootstrap (default: http://deb.debian.org/debian)
#   FILECHECK  FileCheck (default: /usr/lib/llvm-22/bin/FileCheck)
# Needs root (debootstrap, chroot, mounting /proc and /dev in the root).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "clean-root: error: $*" >&2; exit 2; }
[ $# -ge 1 ] && [ -f "$1" ] || die "usage: test/wheel/clean-root.sh WHEEL [WORK_DIR]"
wheel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot)"
filecheck=${FILECHECK:-/usr/lib/llvm-22/bin/FileCheck}
[ -x "$filecheck" ] || die "no FileCheck at $filecheck"
include=${TORCH_SYNC_LIBTORCH2_INCLUDE:-$("$repo/scripts/fetch-libtorch-headers.sh")}
[ -f "$include/torch/csrc/api/include/torch/torch.h" ] || die "no LibTorch 2.x headers in '$include'"

if [ $# -ge 2 ]; then work=$(mkdir -p "$2" && cd "$2" && pwd); keep=1; else work=$(mktemp -d); keep=0; fi
root=$work/root

# The root: made once per WORK_DIR (about two minutes from Debian's mirror).
if [ ! -x "$root/usr/bin/git" ]; then
  rm -rf "$root"
  echo "clean-root: debootstrap bookworm into $root"
  debootstrap --variant=minbase --include=python3,python3-venv,libstdc++-12-dev,git \
    bookworm "$root" "${TORCH_SYNC_DEBIAN_MIRROR:-http://deb.debian.org/debian}" > "$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; die "debootstrap failed (log: $work/debootstrap.log)"; }
fi

# What the tools run on, at the paths the compile commands name inside the root.
rm -rf "$root/work" "$root/out" "$root/wheels" "$root/venv" "$root/tools" "$root/root/.cache"
mkdir -p "$root/work/sample" "$root/work/editor/xdg" "$root/out" "$root/wheels" "$root/opt/libtorch"
cp "$wheel" "$root/wheels/"
# With them, the wheel's dependency (PyYAML) and what pip needs to build pre-commit's placeholder package
# for a local hook (setuptools, wheel).
[ -d "$work/deps" ] || python3 -m pip download -q -d "$work/deps" pre-commit pyyaml setuptools wheel ||
  die "cannot download pre-commit's and PyYAML's wheels from PyPI"
cp -r "$work/deps" "$root/wheels/deps"
[ -d "$root/opt/libtorch/include/torch" ] || cp -a "$include" "$root/opt/libtorch/include"
cp "$repo/samples/metrics.cpp" "$root/work/sample/"
mkdir -p "$root/work/trace"
cp "$repo"/runtime-verify/observations/loop_benchmark/{trace,stacks}_printing.json "$root/work/trace/"
cp "$here/inside-root.sh" "$here/Inputs/hook-project/threshold-fixed.cpp" \
  "$here/Inputs/hook-project/threshold-sync.h" "$root/work/"
# The CMake project is configured here (the root has no CMake and no compiler) for its compilation database.
cp -r "$here/Inputs/cmake-project" "$root/work/cmake-project"
cmake -S "$root/work/cmake-project" -B "$root/work/cmake-project/build" -DTORCH_INCLUDE=/opt/libtorch/include \
  > "$work/cmake.log" 2>&1 || { cat "$work/cmake.log" >&2; die "cmake failed"; }
sed -i "s|$root/work|/work|g" "$root/work/cmake-project/build/compile_commands.json"
# The editor's project: the .clangd of docs/editors.md and a compile_commands.json.
cp "$repo/test/tool/Inputs/clangd/loose.clangd" "$root/work/editor/.clangd"
cp "$repo/test/tool/Inputs/clangd/item.cpp" "$root/work/editor/t.cpp"
sed -e "s|@DIR@|/work/editor|g" -e "s|@FLAGS@|-std=c++17 -isystem /opt/libtorch/include|g" \
  "$repo/test/tool/Inputs/clangd/compile_commands.json.in" > "$root/work/editor/compile_commands.json"
# The pre-commit project: a git repository with the docs' .pre-commit-config.yaml.
mkdir -p "$root/work/hook-project/build"
cp "$here/Inputs/hook-project/threshold.cpp" "$here/Inputs/hook-project/threshold.h" "$root/work/hook-project/"
cp "$here/Inputs/hook-project/pre-commit-config.yaml" "$root/work/hook-project/.pre-commit-config.yaml"
sed -e "s|@DIR@|/work/hook-project|g" -e "s|@TORCH_INCLUDE@|/opt/libtorch/include|g" \
  "$here/Inputs/hook-project/compile_commands.json.in" > "$root/work/hook-project/build/compile_commands.json"
git -C "$root/work/hook-project" init -q

mounted=()
cleanup() {
  for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
  [ "$keep" = 1 ] || [ "${passed:-0}" != 1 ] || rm -rf "$work"
}
trap cleanup EXIT
mount -t proc proc "$root/proc" || die "cannot mount /proc in the root"
mounted+=("$root/proc")
mount --bind /dev "$root/dev" || die "cannot mount /dev in the root"
mounted+=("$root/dev")

chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin /bin/bash /work/inside-root.sh

status=0
for part in root version ldd sample cmake sarif scan trace lsp pre-commit-sync pre-commit-fixed pre-commit-header; do
  prefix=$(echo "$part" | tr 'a-z-' 'A-Z_')
  if ! "$filecheck" --input-file="$root/out/$part.txt" --check-prefix="$prefix" "$here/clean-root.checks"; then
    echo "clean-root: $part: unexpected output ($root/out/$part.txt):" >&2
    cat "$root/out/$part.txt" >&2
    status=1
  fi
done
[ $status = 0 ] || { keep=1; echo "clean-root: FAILED (root and outputs kept in $work)" >&2; exit 1; }
passed=1
echo "clean-root: PASS: $(basename "$wheel") in a Debian root with no LLVM and no compiler"
