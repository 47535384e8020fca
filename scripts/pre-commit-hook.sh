#!/usr/bin/env bash
# The entry of the 'torch-sync' pre-commit hook (.pre-commit-hooks.yaml): runs torch-sync-tidy
# on the C++ and CUDA sources among the files it is given and fails when the torch-sync checks
# report anything. Only reads the files (no fix-its are applied).
#
# Usage: scripts/pre-commit-hook.sh [-p BUILD_DIR] [--tidy PROGRAM] [CLANG_TIDY_OPTION...] FILE...
#
#   FILE...            files to check; sources (.cpp .cc .cxx .c++ .cu) are analysed, anything
#                      else (headers included: they are analysed through the sources that
#                      include them) is skipped
#   -p BUILD_DIR       the folder of the project's compile_commands.json (default: build/ if it
#                      holds one, else the current folder)
#   --tidy PROGRAM     the clang-tidy to run (default: $TORCH_SYNC_TIDY, else torch-sync-tidy on
#                      PATH); a stock clang-tidy-N works with -load=.../libTorchSyncChecks.so
#   other options      starting with '-' are passed to clang-tidy (e.g. --config-file=F,
#                      -load=PLUGIN, --header-filter=REGEX); without a -checks/--checks option
#                      the checks are '-*,torch-sync-*'
#
# Exit status (pre-commit's convention): 0 when no finding, 1 when a check reported something
# or clang-tidy failed on a file (e.g. a compiler error), 2 on a usage or setup error (no
# compilation database, no clang-tidy).
set -uo pipefail

die() { echo "torch-sync pre-commit: error: $*" >&2; exit 2; }

build="" tidy=${TORCH_SYNC_TIDY:-} args=() files=() have_checks=0
while [ $# -gt 0 ]; do
  case "$1" in
    -p|--build-path) [ $# -ge 2 ] || die "$1 needs a folder"; build=$2; shift 2 ;;
    -p=*|--build-path=*) build=${1#*=}; shift ;;
    --tidy) [ $# -ge 2 ] || die "--tidy needs a program"; tidy=$2; shift 2 ;;
    --tidy=*) tidy=${1#--tidy=}; shift ;;
    -fix|--fix|-fix=*|--fix=*|-fix-errors*|--fix-errors*|-fix-notes*|--fix-notes*)
      die "'$1' would edit the files; the hook only checks them" ;;
    -checks=*|--checks=*) have_checks=1; args+=("$1"); shift ;;
    -checks|--checks) die "give the checks as $1=GLOBS" ;;
    --) shift; files+=("$@"); break ;;
    -*) args+=("$1"); shift ;;
    *) files+=("$1"); shift ;;
  esac
done
[ $have_checks = 1 ] || args=(--checks='-*,torch-sync-*' "${args[@]}")

sources=()
for f in "${files[@]}"; do
  case "$f" in
    *.cpp|*.cc|*.cxx|*.c++|*.cu) sources+=("$f") ;;
  esac
done
[ ${#sources[@]} -gt 0 ] || exit 0

if [ -z "$build" ]; then
  if [ -f build/compile_commands.json ]; then build=build; else build=.; fi
fi
[ -f "$build/compile_commands.json" ] ||
  die "no compilation database: '$build/compile_commands.json' does not exist. Configure the project with CMake's -DCMAKE_EXPORT_COMPILE_COMMANDS=ON and give its build folder to the hook (args: [-p, BUILD_DIR])"

if [ -z "$tidy" ]; then
  command -v torch-sync-tidy >/dev/null ||
    die "torch-sync-tidy not found on PATH; build torch-sync (scripts/build.sh) and install it (cmake --install build/llvm-22), or give its path with args: [--tidy=PATH] or TORCH_SYNC_TIDY"
  tidy=torch-sync-tidy
fi
command -v "$tidy" >/dev/null || die "clang-tidy program '$tidy' not found"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$tidy" --quiet "${args[@]}" -p "$build" "${sources[@]}" >"$out" 2>&1
rc=$?
cat "$out"
findings=$(grep -cE '^.+:[0-9]+:[0-9]+: (warning|error): .* \[[A-Za-z0-9_.,-]+\]$' "$out")
if [ "$rc" -ne 0 ] || [ "$findings" -gt 0 ]; then
  echo "torch-sync: ${findings} finding(s) in ${#sources[@]} file(s)$([ "$rc" -ne 0 ] && echo "; clang-tidy exited with $rc")" >&2
  exit 1
fi
exit 0
