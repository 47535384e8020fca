#!/usr/bin/env bash
# Runs the torch-sync checks over a project's compilation database and writes the findings as
# a SARIF 2.1.0 log, for GitHub code scanning and other SARIF viewers. Sources are only read:
# clang-tidy runs with --export-fixes into a temporary folder (never --fix), and
# torch-sync-tidy-to-sarif (torch_sync.tidy_to_sarif) converts what it exported.
#
# Usage: torch-sync-sarif -p BUILD_DIR [options] [FILE...] [-- CLANG_TIDY_ARG...]
#        (in a torch-sync checkout: scripts/sarif.sh, the same options)
#
#   -p BUILD_DIR        the folder holding compile_commands.json (or the file itself)
#   FILE...             sources to analyse (default: every source of the compilation database
#                       below --srcroot)
#   -o, --output FILE   the SARIF log to write (default: torch-sync.sarif; '-' for stdout)
#   --srcroot DIR       the source root: locations are written relative to it, with the
#                       uriBaseId %SRCROOT% (default: the current folder)
#   --docs-url URL      base URL of torch-sync's docs/checks/ folder, for each rule's helpUri,
#                       e.g. https://github.com/OWNER/torch-sync/blob/main/docs/checks/
#   --tidy PROGRAM      the clang-tidy to run (default: $TORCH_SYNC_TIDY, else torch-sync-tidy
#                       on PATH, else torch-sync's own build/llvm-22/checker/torch-sync-tidy);
#                       a stock clang-tidy-N works with '-- -load=.../libTorchSyncChecks.so'
#   -j, --jobs N        files analysed at a time (default: the number of cores)
#   --baseline OLD      compare with the SARIF log OLD (e.g. the main branch's) through
#                       torch-sync-sarif-baseline: each result of the log written gets
#                       baselineState 'new' or 'unchanged', the new findings are printed on
#                       stderr, and the exit status is 1 when some finding is new
#   --absent            with --baseline, also add OLD's findings that are gone, as 'absent'
#   --no-cuda-compat    do not force-include checker/cuda/torch-sync-cuda-host.h (nvcc's host
#                       min/max) nor show clang the kernel launches written with spaced
#                       chevrons below --srcroot in token form (torch_sync.cuda_launch_syntax)
#   --shard K/N         analyse shard K of N of the files (sorted by path relative to --srcroot,
#                       every N-th from the K-th), for a CI matrix; torch-sync-sarif-merge joins
#                       the shards' logs into the log of one run (docs/ci.md)
#   --pch-dir DIR       where the precompiled LibTorch headers are kept (default
#                       ${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync/pch)
#   --no-pch            parse LibTorch's headers in every file: by default, the LibTorch header
#                       that the files start with is precompiled once per distinct compile
#                       command (torch_sync.torch_pch, as scan-project.sh does) and each file is
#                       analysed with it, with the same findings; files it cannot serve are
#                       analysed without one, and stderr says how many and why
#   -- ARG...           passed to every clang-tidy run, e.g. --config-file=F, -load=PLUGIN,
#                       --header-filter=REGEX; without a -checks/--checks argument the checks
#                       are '-*,torch-sync-*'. --fix, --fix-errors, --fix-notes and
#                       --export-fixes are refused. Findings in headers are those that
#                       clang-tidy's header filter admits: its default is '.*' from LLVM 22
#                       on and none before (LLVM 19: give --header-filter or set
#                       HeaderFilterRegex in .clang-tidy).
#
# clang's error limit is lifted (--extra-arg-before=-ferror-limit=0, which a -ferror-limit=N in
# the compile command or after '--' overrides), so that errors in a library header do not stop
# the analysis of the project's code in the same unit.
# clang-tidy's diagnostics are printed on stderr as usual. A file that did not parse (compiler
# errors: the checks saw only part of it) or that clang-tidy failed on gets an error-level
# notification in the log (toolExecutionNotifications, executionSuccessful false) and a line on
# stderr. Exit status: 0 when every file was analysed; 1 when clang-tidy failed on some file
# (a compiler error, or a finding promoted to an error by WarningsAsErrors) or, with
# --baseline, when some finding is new, the SARIF log being written all the same; 2 on a usage error or bad input (no compilation database, no
# clang-tidy, a conversion error, a baseline that is not a SARIF 2.1.0 log with torch-sync fingerprints: checked
# before the analysis; a comparison that fails after it, e.g. logs of different tools, still
# writes the log, without baselineState).
set -euo pipefail

# package, python, checkout, prelude: this package's folder, the Python that runs its modules, the checkout
# it sits in, the CUDA host prelude (package.sh).
. "$(dirname "${BASH_SOURCE[0]}")/package.sh"
die() { echo "sarif: error: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
need() { [ $# -ge 2 ] && [ -n "$2" ] || die "option $1 needs a value (see --help)"; }

build="" output=torch-sync.sarif srcroot=. docs_url="" tidy=${TORCH_SYNC_TIDY:-} jobs=$(nproc)
baseline="" absent=0 cuda_compat=1 pch=1 pch_dir="" shard=""
files=() tidy_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -p) need "$@"; build=$2; shift 2 ;;
    -p=*) build=${1#-p=}; shift ;;
    -o|--output) need "$@"; output=$2; shift 2 ;;
    --output=*) output=${1#--output=}; shift ;;
    --srcroot) need "$@"; srcroot=$2; shift 2 ;;
    --srcroot=*) srcroot=${1#--srcroot=}; shift ;;
    --docs-url) need "$@"; docs_url=$2; shift 2 ;;
    --docs-url=*) docs_url=${1#--docs-url=}; shift ;;
    --tidy) need "$@"; tidy=$2; shift 2 ;;
    --tidy=*) tidy=${1#--tidy=}; shift ;;
    -j|--jobs) need "$@"; jobs=$2; shift 2 ;;
    -j?*) jobs=${1#-j}; shift ;;
    --jobs=*) jobs=${1#--jobs=}; shift ;;
    --baseline) need "$@"; baseline=$2; shift 2 ;;
    --baseline=*) baseline=${1#--baseline=}; shift ;;
    --absent) absent=1; shift ;;
    --no-cuda-compat) cuda_compat=0; shift ;;
    --pch-dir) need "$@"; pch_dir=$2; shift 2 ;;
    --pch-dir=*) pch_dir=${1#--pch-dir=}; shift ;;
    --no-pch) pch=0; shift ;;
    --shard) need "$@"; shard=$2; shift 2 ;;
    --shard=*) shard=${1#--shard=}; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; tidy_args=("$@"); break ;;
    -*) die "unknown option '$1' (see --help); clang-tidy's own options go after '--'" ;;
    *) files+=("$1"); shift ;;
  esac
done

[ -n "$build" ] || die "-p BUILD_DIR is required: the folder of the project's compile_commands.json"
db=$build
[ -d "$db" ] && db=$db/compile_commands.json
[ -f "$db" ] || die "no compilation database (compile_commands.json) at '$build'; generate one (CMake: -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)"
build=$(cd "$(dirname "$db")" && pwd)
[ -d "$srcroot" ] || die "--srcroot '$srcroot' is not a folder"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs wants a positive number, got '$jobs'"
command -v "$python" >/dev/null || die "$python not found"
[ -z "$baseline" ] || [ -f "$baseline" ] || die "--baseline '$baseline': no such file"
[ $absent = 0 ] || [ -n "$baseline" ] || die "--absent needs --baseline OLD"
if [ -n "$shard" ]; then
  [[ $shard =~ ^([0-9]+)/([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -ge 1 ] &&
    [ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ] || die "--shard wants K/N with 1 <= K <= N (e.g. 2/4), got '$shard'"
fi

have_checks=0
for a in "${tidy_args[@]}"; do
  case "$a" in
    -fix|--fix|-fix=*|--fix=*|-fix-errors*|--fix-errors*|-fix-notes*|--fix-notes*)
      die "'$a' would edit the sources; sarif.sh only reads them" ;;
    -export-fixes*|--export-fixes*) die "'$a': sarif.sh exports the fixes itself" ;;
    -checks=*|--checks=*|-checks|--checks) have_checks=1 ;;
  esac
done
[ $have_checks = 1 ] || tidy_args=(--checks='-*,torch-sync-*' "${tidy_args[@]}")
# clang's error limit (20) lifted: at it a unit stops and its templates are no longer instantiated,
# so errors in a library header would take findings in the project's code with them. First, so
# that a limit in the compile command or in the arguments after '--' still wins.
tidy_args=(--extra-arg-before=-ferror-limit=0 "${tidy_args[@]}")

if [ -z "$tidy" ]; then
  if command -v torch-sync-tidy >/dev/null; then
    tidy=torch-sync-tidy
  elif [ -n "${TORCH_SYNC_BUILD_ROOT:-}$checkout" ]; then
    tidy=${TORCH_SYNC_BUILD_ROOT:-$checkout/build}/llvm-22/checker/torch-sync-tidy
  else
    tidy=torch-sync-tidy
  fi
fi
if ! command -v "$tidy" >/dev/null; then
  die "clang-tidy program '$tidy' not found; build torch-sync (scripts/build.sh) and pass --tidy PATH or set TORCH_SYNC_TIDY"
fi
# A bad baseline fails before the analysis, not after it.
if [ -n "$baseline" ]; then
  "$python" -m torch_sync.sarif_baseline --baseline "$baseline" --check-baseline-only || exit 2
fi

if [ ${#files[@]} -eq 0 ]; then
  list=$("$python" - "$db" "$srcroot" <<'EOF'
import json, os, sys
db, root = sys.argv[1], os.path.realpath(sys.argv[2])
try:
    entries = json.load(open(db, encoding="utf-8"))
except (OSError, ValueError) as e:
    sys.exit("sarif: error: cannot read the compilation database '%s': %s" % (db, e))
if not isinstance(entries, list):
    sys.exit("sarif: error: '%s' is not a compilation database (a JSON list)" % db)
seen = set()
for e in entries:
    if not isinstance(e, dict) or "file" not in e:
        continue
    f = os.path.join(e.get("directory", ""), e["file"])
    real = os.path.realpath(f)
    if real in seen or os.path.relpath(real, root).startswith(os.pardir):
        continue
    seen.add(real)
    print(f)
EOF
  ) || exit 2
  [ -z "$list" ] || mapfile -t files <<<"$list"
  [ ${#files[@]} -gt 0 ] || die "the compilation database '$db' names no source below '$srcroot'"
fi

if [ -n "$shard" ]; then
  # As scan-project.sh shards: sorted by path relative to the source root, every N-th from the K-th.
  total=${#files[@]}
  mapfile -t files < <("$python" -c '
import os, sys
root, (k, n), files = os.path.realpath(sys.argv[1]), map(int, sys.argv[2].split("/")), sys.argv[3:]
ordered = sorted(files, key=lambda f: os.path.relpath(os.path.realpath(f), root))
print("\n".join(f for i, f in enumerate(ordered) if i % n == k - 1))' "$srcroot" "$shard" "${files[@]}")
  [ -n "${files[0]:-}" ] || files=()
  echo "sarif: shard $shard: ${#files[@]} of $total file(s)" >&2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/fixes" "$tmp/out"

# CUDA sources as nvcc parses them (as scan-project.sh does): the host prelude (empty outside
# clang's CUDA mode) and the kernel launches with spaced chevrons below --srcroot, read in token
# form through an overlay. Skipped where the arguments bring their own --vfsoverlay.
if [ $cuda_compat = 1 ]; then
  [ ! -f "$prelude" ] || tidy_args+=("--extra-arg=-include$prelude")
  if [[ " ${tidy_args[*]} " != *" --vfsoverlay"* && " ${tidy_args[*]} " != *" -vfsoverlay"* ]]; then
    overlay=$("$python" -m torch_sync.cuda_launch_syntax --out "$tmp/cuda-launch" "$srcroot") || exit 2
    [ -z "$overlay" ] || tidy_args+=("--vfsoverlay=$overlay")
  fi
fi

# Shared precompiled LibTorch headers: one per distinct compile command, cached by content;
# pchs[i] is files[i]'s (empty when it is analysed without one).
pchs=()
if [ $pch = 1 ]; then
  plan=(plan -p "$db" --tool "$tidy" --root "$srcroot" --jobs "$jobs" --label sarif)
  [ -z "$pch_dir" ] || plan+=(--dir "$pch_dir")
  for ((k = 0; k < ${#tidy_args[@]}; k++)); do
    case "${tidy_args[$k]}" in
      --extra-arg=*|-extra-arg=*) plan+=(--extra-arg="${tidy_args[$k]#*=}") ;;
      --extra-arg-before=*|-extra-arg-before=*) plan+=(--extra-arg-before="${tidy_args[$k]#*=}") ;;
      --extra-arg|-extra-arg) plan+=(--extra-arg="${tidy_args[$((k + 1))]:-}"); k=$((k + 1)) ;;
      --extra-arg-before|-extra-arg-before) plan+=(--extra-arg-before="${tidy_args[$((k + 1))]:-}"); k=$((k + 1)) ;;
    esac
  done
  mapfile -t pchs < <("$python" -m torch_sync.torch_pch "${plan[@]}" -- "${files[@]}" | cut -f1)
fi

run_one() {  # run_one INDEX FILE
  local rc=0 with=()
  [ -z "${pchs[$1]:-}" ] || with=("--extra-arg=-include-pch" "--extra-arg=${pchs[$1]}")
  "$tidy" "${tidy_args[@]}" "${with[@]}" -p "$build" --export-fixes="$tmp/fixes/$1.yaml" "$2" \
    >"$tmp/out/$1.txt" 2>&1 || rc=$?
  # A precompiled header that clang rejects (a file it read changed since the plan): the file
  # is analysed again without it.
  if [ "$rc" != 0 ] && [ ${#with[@]} -gt 0 ] && "$python" -m torch_sync.torch_pch rejected "$tmp/out/$1.txt"; then
    rc=0
    rm -f "$tmp/fixes/$1.yaml"
    "$tidy" "${tidy_args[@]}" -p "$build" --export-fixes="$tmp/fixes/$1.yaml" "$2" \
      >"$tmp/out/$1.txt" 2>&1 || rc=$?
    echo "sarif: clang rejected the precompiled LibTorch headers for $2; analysed without them" >>"$tmp/out/$1.txt"
  fi
  echo "$rc" >"$tmp/out/$1.rc"
}
echo "sarif: $(basename "$tidy") on ${#files[@]} file(s)" >&2
for i in "${!files[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_one "$i" "${files[$i]}" &
done
wait

failed=() unexported=()
for i in "${!files[@]}"; do
  cat "$tmp/out/$i.txt" >&2
  rc=$(cat "$tmp/out/$i.rc")
  [ "$rc" = 0 ] || failed+=("${files[$i]} (exit $rc)")
  # A unit that failed without exporting anything (a crash) still gets its notification.
  [ "$rc" = 0 ] || [ -s "$tmp/fixes/$i.yaml" ] || unexported+=(--failed-unit "$rc" "${files[$i]}")
done

# With --baseline, the log is converted into the output file (a temporary one for stdout) and
# then marked in place, so that a failed comparison leaves the unmarked log written.
converted=$output
[ -z "$baseline" ] || [ "$output" != - ] || converted=$tmp/log.sarif
convert=("$python" -m torch_sync.tidy_to_sarif "$tmp/fixes" --srcroot "$srcroot" -o "$converted" "${unexported[@]}")
[ -n "$docs_url" ] && convert+=(--docs-url "$docs_url")
"${convert[@]}" || exit 2

new_findings=0
if [ -n "$baseline" ]; then
  compare=("$python" -m torch_sync.sarif_baseline --baseline "$baseline" "$converted")
  [ $absent = 0 ] || compare+=(--absent)
  rc=0
  if [ "$output" = - ]; then
    "${compare[@]}" -o - || rc=$?
  else
    "${compare[@]}" -o "$output" >&2 || rc=$?
  fi
  case $rc in
    0) ;;
    1) new_findings=1 ;;
    *) # The analysis is not lost: the log, without baselineState, is written all the same.
       if [ "$output" = - ]; then
         cat "$converted"
         echo "sarif: error: the comparison with the baseline '$baseline' failed; the log written on stdout is not marked" >&2
       else
         echo "sarif: error: the comparison with the baseline '$baseline' failed; '$output' is written without baselineState" >&2
       fi
       exit 2 ;;
  esac
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "sarif: clang-tidy failed on ${#failed[@]} file(s):" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
[ $new_findings = 0 ] || exit 1
