#!/usr/bin/env bash
# guard/package: installs the guard from BUILD_DIR into a prefix under WORK_DIR, builds the user project in
# PROJECT_DIR against it with find_package(TorchSync), and runs its test. Without a GPU that test must skip
# with the guard's reason: then, the package having been built, installed and linked, this exits 77 (CTest's
# SKIP_RETURN_CODE: reported as skipped, never as passed).
# Usage: package_test.sh BUILD_DIR WORK_DIR PROJECT_DIR CMAKE
set -euo pipefail
build=$1 work=$2 project=$3 cmake=$4
rm -rf "$work"
"$cmake" --install "$build" --prefix "$work/prefix" >/dev/null
"$cmake" -S "$project" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work.configure.log" 2>&1 ||
  { cat "$work.configure.log"; echo "package_test: the user project did not configure against the package"; exit 1; }
"$cmake" --build "$work/build" >"$work.build.log" 2>&1 ||
  { cat "$work.build.log"; echo "package_test: the user project did not build"; exit 1; }
status=0
output=$("$work/build/uses_guard" 2>&1) || status=$?
echo "$output"
if ((status != 0)); then
  echo "package_test: the user's test failed (status $status)"
  exit 1
fi
if grep -q '\[  PASSED  \] 1 test' <<<"$output"; then
  echo "package_test: built, installed and linked; the guarded test passed on this GPU"
elif grep -q 'cannot see device syncs' <<<"$output" && grep -q '\[  SKIPPED \] 1 test' <<<"$output"; then
  echo "package_test: built, installed and linked; the guarded test skipped with the guard's reason"
  exit 77
else
  echo "package_test: the user's test neither passed nor skipped with a reason"
  exit 1
fi
