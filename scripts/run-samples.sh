#!/usr/bin/env bash
# Sets up and builds torch-sync (LLVM 22), then runs the torch-sync checks on
# the LibTorch programs in samples/ (or on the files given) and prints the
# diagnostics. Exits 0 when the analysis ran, whatever it found; non-zero when
# a file could not be analysed.
#
# Usage: scripts/run-samples.sh [FILE ...]
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_root=${TORCH_SYNC_BUILD_ROOT:-$repo/build}
"$repo/scripts/build.sh" 22 >/dev/null

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(find "$repo/samples" -name '*.cpp' | sort)
fi
[ ${#files[@]} -gt 0 ] || { echo "run-samples: no source files" >&2; exit 1; }

tidy="$build_root/llvm-22/checker/torch-sync-tidy"
flags=(-std=c++17 -isystem /usr/include/torch/csrc/api/include)
echo "run-samples: torch-sync-tidy on ${#files[@]} file(s)" >&2
printf '%s\n' "${files[@]}" |
  xargs -P "$(nproc)" -I{} "$tidy" --quiet -checks='-*,torch-sync-*' {} -- "${flags[@]}"
