#!/usr/bin/env bash
# Sets up, builds and runs every test of torch-sync against each LLVM release
# that CI covers (22, the newest in Debian's archive, and 19), so that API drift
# between releases is caught. The first release's build runs every lit test on the
# LibTorch 2.x headers of the torch wheel (which scripts/fetch-libtorch-headers.sh
# fetches into a cache outside the tree), or once on the mock headers where a test
# names those, and the tests where the header version matters (OLDER-LIBTORCH) on
# Debian's LibTorch 1.13 too; the other releases run the smoke set (SMOKE: what
# depends on the clang release) on the 2.x headers. CONTRIBUTING.md says which test
# runs where. Exits non-zero if any build or test fails.
#
# Usage: scripts/test.sh [LLVM_MAJOR ...]      (default: 22 19)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(22 19)
build_root=${TORCH_SYNC_BUILD_ROOT:-$repo/build}

# Each stage's wall time, for the CI budget (90 minutes on 2 cores; aim: 25).
# CPU seconds (user + system) of this shell's finished children so far, from bash's 'times' (run in
# this shell, not a subshell, whose children are its own).
times_file=$(mktemp)
trap 'rm -f "$times_file"' EXIT
children_cpu() {  # sets cpu
  times >"$times_file"
  cpu=$(tail -n 1 "$times_file" |
    awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] } printf "%.0f", t }')
}
stage_start=$SECONDS
children_cpu
stage_cpu=$cpu
stage_done() {
  children_cpu
  echo "test: stage '$1' took $((SECONDS - stage_start)) s, $((cpu - stage_cpu)) s of CPU (total $SECONDS s, $cpu s of CPU)"
  stage_start=$SECONDS
  stage_cpu=$cpu
}

"$repo/scripts/install-deps.sh" "${versions[@]}"
stage_done "install dependencies"
TORCH_SYNC_LIBTORCH2_INCLUDE=$("$repo/scripts/fetch-libtorch-headers.sh")
export TORCH_SYNC_LIBTORCH2_INCLUDE
stage_done "fetch LibTorch 2.x headers"
# The tests whose behaviour does not depend on the LLVM release (marked RELEASE-INDEPENDENT) and the
# older header set run in the first release's build only; the others register the smoke set only
# (TORCH_SYNC_SMOKE_TESTS_ONLY, set on the configured build directory: build.sh does not pass it).
first=1
for v in "${versions[@]}"; do
  on=$([ $first = 1 ] && echo ON || echo OFF)
  smoke=$([ $first = 1 ] && echo OFF || echo ON)
  TORCH_SYNC_RELEASE_INDEPENDENT_TESTS=$on TORCH_SYNC_OLDER_LIBTORCH_TESTS=$on "$repo/scripts/build.sh" "$v"
  cmake "$build_root/llvm-$v" -DTORCH_SYNC_SMOKE_TESTS_ONLY=$smoke >/dev/null
  echo "test: LLVM $v: $(ctest --test-dir "$build_root/llvm-$v" -N | sed -n 's/^Total Tests: //p') tests registered" \
       "($([ $first = 1 ] && echo "every test; on LibTorch 1.13 those marked OLDER-LIBTORCH" || echo "the smoke set"))"
  first=0
  stage_done "build LLVM $v"
done

status=0
# The project's own code: Python against .flake8, C++ against checker/.clang-format and
# runtime-verify/.clang-format (the files git tracks; test inputs and samples, whose lines the
# tests name, are not formatted), then clang-tidy.
cd "$repo"
if git ls-files '*.py' scripts/torch-sync-trace | xargs flake8 &&
   git ls-files 'checker/*.cpp' 'checker/*.h' 'runtime-verify/*.cpp' 'runtime-verify/*.h' 'runtime-verify/*.cu' |
     xargs "clang-format-${versions[0]}" --dry-run --Werror; then
  echo "test: lint: flake8 and clang-format-${versions[0]} found nothing"
else
  echo "test: FAILED: lint (above): run flake8, and clang-format-${versions[0]} -i on the files it names" >&2
  status=1
fi
# clang-tidy on the project's own C++ as the first build compiles it (checker/.clang-tidy,
# runtime-verify/.clang-tidy: LLVM's checks and naming; the unit tests, whose names GoogleTest's
# macros make, are left out).
own_sources=$(python3 -c 'import json, os, sys
root = os.path.realpath(sys.argv[2]) + "/"
for e in json.load(open(sys.argv[1])):
    f = os.path.realpath(os.path.join(e["directory"], e["file"]))
    if f.startswith(root) and f[len(root):].split("/")[0] in ("checker", "runtime-verify") \
            and "/unittests/" not in f:
        print(f)' "$build_root/llvm-${versions[0]}/compile_commands.json" "$repo" | sort -u)
if [ -n "$own_sources" ] && echo "$own_sources" |
     xargs -P "$(nproc)" -n 4 "clang-tidy-${versions[0]}" -p "$build_root/llvm-${versions[0]}" --quiet; then
  echo "test: lint: clang-tidy-${versions[0]} found nothing in $(echo "$own_sources" | wc -l) sources"
else
  echo "test: FAILED: lint: clang-tidy-${versions[0]} on the project's own C++ (above)" >&2
  status=1
fi
stage_done "lint"
for v in "${versions[@]}"; do
  echo "test: LLVM $v"
  ctest --test-dir "$build_root/llvm-$v" --output-on-failure -j "$(nproc)" || status=1
  stage_done "ctest LLVM $v"
done
# The README's first command, on the samples: it must analyse every one of them.
if [[ " ${versions[*]} " == *" 22 "* ]]; then
  echo "test: scripts/run-samples.sh"
  if "$repo/scripts/run-samples.sh" > "$build_root/run-samples.out"; then
    echo "test: run-samples.sh analysed every sample ($(grep -c 'warning:' "$build_root/run-samples.out") findings)"
  else
    echo "test: FAILED: scripts/run-samples.sh exited non-zero" >&2
    status=1
  fi
  stage_done "run-samples"
  # The same samples through scan-project.sh with the shared precompiled LibTorch headers: the
  # findings must be those of the run without them, above.
  echo "test: the samples with precompiled LibTorch headers (scan-project.sh)"
  rm -rf "$build_root/samples-pch"
  if "$repo/scripts/scan-project.sh" -p "$build_root/run-samples" --no-project-facts --no-cache \
       --pch-dir "$build_root/samples-pch/pch" "$repo/samples" "$build_root/samples-pch/scan" \
       2> "$build_root/samples-pch.log" &&
     python3 "$repo/test/same-findings.py" "$build_root/run-samples.out" "$build_root/samples-pch/scan/report.json"; then
    grep 'precompiled LibTorch headers:' "$build_root/samples-pch.log" || true
  else
    echo "test: FAILED: the samples' findings with precompiled LibTorch headers differ from those without (see above and $build_root/samples-pch.log)" >&2
    status=1
  fi
  stage_done "samples with precompiled headers"
  # The wheel (pyproject.toml), built once and installed where nothing else is: test/wheel/clean-root.sh
  # runs torch-sync-tidy, torch-sync-clangd over LSP and the pre-commit hook from it in a debootstrapped
  # Debian root with no LLVM and no compiler (it needs root for debootstrap and chroot).
  echo "test: the wheel (scripts/build-wheel.sh, test/wheel/clean-root.sh)"
  sudo=$([ "$(id -u)" = 0 ] || echo sudo)
  if "$repo/scripts/build-wheel.sh" "$build_root/wheelhouse" > "$build_root/build-wheel.log" 2>&1; then
    grep '^build-wheel:' "$build_root/build-wheel.log"
    stage_done "build the wheel"
    if ! $sudo "$repo/test/wheel/clean-root.sh" "$(ls "$build_root"/wheelhouse/torch_sync-*.whl)" \
         "$build_root/clean-root"; then
      echo "test: FAILED: the wheel in a clean root (above)" >&2
      status=1
    fi
    stage_done "the wheel in a clean root"
  else
    tail -40 "$build_root/build-wheel.log" >&2
    echo "test: FAILED: scripts/build-wheel.sh (log: $build_root/build-wheel.log)" >&2
    status=1
  fi
fi
exit $status
