#!/usr/bin/env bash
# Sets up and builds torch-sync (LLVM 22), then runs the torch-sync checks on
# the LibTorch programs in samples/ (or on the files given) and prints the
# diagnostics. The sources are parsed against the LibTorch 2.x headers of a
# CUDA build (the torch wheel's, which scripts/fetch-libtorch-headers.sh
# fetches into a cache outside the tree) and the CUDA toolkit's headers, so
# that sources calling the CUDA runtime (c10/cuda, ATen/cuda) and CUDA sources
# (*.cu, parsed host side only) are analysed too.
#
# Usage: scripts/run-samples.sh [FILE ...]
# Environment: CUDA_PATH  the CUDA toolkit (default: /usr/local/cuda)
# Exit status: 0 when every file was analysed, whatever it found; 1 when a file
# could not be analysed (its errors are printed), or the CUDA toolkit that a
# CUDA source needs is missing.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_root=${TORCH_SYNC_BUILD_ROOT:-$repo/build}
"$repo/scripts/build.sh" 22 >/dev/null
torch_include=$("$repo/scripts/fetch-libtorch-headers.sh")
cuda_path=${CUDA_PATH:-/usr/local/cuda}

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(find "$repo/samples" -name '*.cpp' -o -name '*.cu' | sort)
fi
[ ${#files[@]} -gt 0 ] || { echo "run-samples: no source files" >&2; exit 1; }

cxx_flags=(-std=c++17 -isystem "$torch_include" -isystem "$torch_include/torch/csrc/api/include")
cuda_flags=()
if [ -f "$cuda_path/include/cuda_runtime_api.h" ]; then
  cxx_flags+=(-isystem "$cuda_path/include")
  # Parsed host side only: no device compilation, no CUDA libraries. The
  # toolkit may be newer than clang knows; CUDA 13 keeps thrust and cub in
  # include/cccl. The defines are those LibTorch's CMake and
  # torch.utils.cpp_extension pass to nvcc (c10::Half's operators would
  # otherwise be ambiguous with CUDA's).
  cuda_flags=(-x cuda --cuda-host-only "--cuda-path=$cuda_path" -nocudalib -Wno-unknown-cuda-version
    -isystem "$cuda_path/include/cccl"
    -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__
    -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__)
else
  for f in "${files[@]}"; do
    if [[ $f == *.cu ]] || grep -qE '#include *[<"](c10/cuda|ATen/cuda|cuda_runtime|cuda\.h)' "$f"; then
      echo "run-samples: error: $f uses CUDA, and there is no CUDA toolkit at $cuda_path" \
        "(no include/cuda_runtime_api.h); install it or set CUDA_PATH" >&2
      exit 1
    fi
  done
fi

tidy="$build_root/llvm-22/checker/torch-sync-tidy"
echo "run-samples: torch-sync-tidy on ${#files[@]} file(s), LibTorch headers $torch_include" >&2
# The compile commands, kept in a compilation database (build/run-samples/), which the other
# tools take as they are (scripts/test.sh runs scan-project.sh on it).
db_dir="$build_root/run-samples"
mkdir -p "$db_dir"
python3 - "$db_dir/compile_commands.json" "${#cxx_flags[@]}" "${cxx_flags[@]}" "${#cuda_flags[@]}" \
    "${cuda_flags[@]}" "${files[@]}" <<'PYTHON'
import json, os, sys
out, rest = sys.argv[1], sys.argv[2:]
n = int(rest[0]); cxx = rest[1:1 + n]; rest = rest[1 + n:]
n = int(rest[0]); cuda = rest[1:1 + n]; files = rest[1 + n:]
with open(out, "w") as fh:
    json.dump([{"directory": os.getcwd(), "file": os.path.abspath(f),
                "arguments": ["clang++-22"] + (cuda if f.endswith(".cu") else []) + cxx
                             + ["-c", os.path.abspath(f)]} for f in files], fh, indent=1)
PYTHON
# One torch-sync-tidy per file, as many at a time as there are cores; a file
# that does not parse makes its run exit non-zero, and so this script.
status=0
printf '%s\0' "${files[@]}" |
  xargs -0 -P "$(nproc)" -I{} "$tidy" --quiet -checks='-*,torch-sync-*' -p "$db_dir" {} || status=1
[ $status -eq 0 ] || echo "run-samples: error: some files could not be analysed (see above)" >&2
exit $status
