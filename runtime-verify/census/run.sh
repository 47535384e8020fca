#!/usr/bin/env bash
# runtime-verify/census/run.sh OUT_DIR [census.py options]: build the CUPTI counter and the C++ frontend census,
# then measure every ATen overload (census.py) and the C++ frontend and CUDA API functions (frontend_census),
# writing OUT_DIR/aten.jsonl, OUT_DIR/frontend.jsonl and OUT_DIR/census.log. Needs the GPU machine (a CUDA
# build of torch, CUPTI); without a GPU it stops at once with exit status 77.
# Environment: PYTHON (default /opt/torch/.venv/bin/python3, else python3), RV_BUILD_DIR (default
# runtime-verify/build), CENSUS_WORKERS (default 4).
set -u -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rv=$(dirname "$here")
out=${1:?usage: run.sh OUT_DIR [census.py options]}
shift
mkdir -p "$out"
build=${RV_BUILD_DIR:-$rv/build}
python=${PYTHON:-}
if [[ -z $python ]]; then
  if [[ -x /opt/torch/.venv/bin/python3 ]]; then python=/opt/torch/.venv/bin/python3; else python=python3; fi
fi
nvidia-smi -L 2>/dev/null | grep -q '^GPU ' || { echo "census: no GPU; nothing run" >&2; exit 77; }
prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)') || exit 1
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
[[ -f $build/CMakeCache.txt ]] && generator=()
cmake -S "$rv" -B "$build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" >"$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log" >&2; exit 1; }
cmake --build "$build" -j "$(nproc)" --target cupti_counter frontend_census >"$out/build.log" 2>&1 ||
  { tail -60 "$out/build.log" >&2; exit 1; }
start=$(date +%s)
"$build/census/frontend_census" "$out/frontend.jsonl" 2>"$out/frontend.log"
echo "census: frontend_census exit $? after $(( $(date +%s) - start )) s" | tee -a "$out/census.log" >&2
start=$(date +%s)
PYTHONUNBUFFERED=1 "$python" "$here/census.py" --lib "$build/census/libcupti_counter.so" --out "$out/aten.jsonl" \
  --workers "${CENSUS_WORKERS:-4}" "$@" 2>&1 | tail -50 >>"$out/census.log"
echo "census: census.py exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s" | tee -a "$out/census.log" >&2
