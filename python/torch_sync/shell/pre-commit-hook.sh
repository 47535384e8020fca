#!/usr/bin/env bash
# The entry of the 'torch-sync' pre-commit hook (.pre-commit-hooks.yaml): runs torch-sync-tidy
# on the C++ and CUDA sources among the files it is given, and on the sources that include the
# headers among them, and fails when the torch-sync checks report anything. Only reads the
# files (no fix-its are applied).
#
# Usage: torch-sync-pre-commit [-p BUILD_DIR] [--tidy PROGRAM] [--scan-deps PROGRAM]
#                              [CLANG_TIDY_OPTION...] FILE...
#        (in a torch-sync checkout: scripts/pre-commit-hook.sh, the same options)
#
#   FILE...            files to check: sources (.cpp .cc .cxx .c++ .cu) are analysed; for
#                      headers (.h .hh .hpp .hxx .h++ .cuh .inl .ipp .tpp), the sources of the
#                      compilation database that include them are analysed, with a header
#                      filter that reports findings in those headers too (a header that no
#                      source includes is named on stderr and passes, unless some source of
#                      the database failed to scan: then it is not checked, and fails); other
#                      files are skipped
#   -p BUILD_DIR       the folder of the project's compile_commands.json (default: build/ if it
#                      holds one, else the current folder)
#   --tidy PROGRAM     the clang-tidy to run (default: $TORCH_SYNC_TIDY, else torch-sync-tidy on
#                      PATH); a stock clang-tidy-N works with -load=.../libTorchSyncChecks.so
#   --scan-deps PROGRAM
#                      the clang-scan-deps that finds the sources including a header (default:
#                      $TORCH_SYNC_SCAN_DEPS, else the wheel's torch-sync-scan-deps, else
#                      clang-scan-deps on PATH, else the newest
#                      clang-scan-deps-N on PATH; Debian ships it in clang-N (22) or
#                      clang-tools-N (19 and older)); needed only when headers are given
#   --pch-dir DIR      where the precompiled LibTorch headers are kept (default
#                      ${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync/pch; cache it in CI)
#   --no-pch           parse LibTorch's headers in every source: by default, the LibTorch header
#                      that a source starts with is precompiled once per distinct compile command
#                      and kept (torch_sync/torch_pch.py), so that the next commits' runs parse only
#                      the project's code; the findings are the same
#   other options      starting with '-' are passed to clang-tidy (e.g. --config-file=F,
#                      -load=PLUGIN, --header-filter=REGEX), after --extra-arg-before=-ferror-limit=0
#                      (clang's error limit lifted, so that errors in a library header do not stop
#                      the analysis of the changed code; a -ferror-limit=N in the compile command
#                      or given here wins); without a -checks/--checks option
#                      the checks are '-*,torch-sync-*'. The findings are those in the
#                      changed files: the header filter is the changed headers (none when no
#                      header changed, whatever clang-tidy's release defaults to), and REGEX
#                      too if --header-filter=REGEX is given (it replaces a config file's
#                      HeaderFilterRegex for that run)
#
# Exit status (pre-commit's convention): 0 when no finding, 1 when a check reported something,
# clang-tidy failed on a file (e.g. a compiler error), or a given header could not be checked
# because the sources that might include it failed to scan, 2 on a usage or setup error (no
# compilation database, no clang-tidy, no clang-scan-deps when a header is given).
set -uo pipefail

# package, python, checkout, prelude: this package's folder, the Python that runs its modules, the checkout
# it sits in, the CUDA host prelude (package.sh).
. "$(dirname "${BASH_SOURCE[0]}")/package.sh"
die() { echo "torch-sync pre-commit: error: $*" >&2; exit 2; }

build="" tidy=${TORCH_SYNC_TIDY:-} scan_deps=${TORCH_SYNC_SCAN_DEPS:-} header_filter="" pch=1 pch_dir=""
args=() files=() unchecked=() have_checks=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -p|--build-path) [ $# -ge 2 ] || die "$1 needs a folder"; build=$2; shift 2 ;;
    -p=*|--build-path=*) build=${1#*=}; shift ;;
    --tidy) [ $# -ge 2 ] || die "--tidy needs a program"; tidy=$2; shift 2 ;;
    --tidy=*) tidy=${1#--tidy=}; shift ;;
    --scan-deps) [ $# -ge 2 ] || die "--scan-deps needs a program"; scan_deps=$2; shift 2 ;;
    --scan-deps=*) scan_deps=${1#--scan-deps=}; shift ;;
    --pch-dir) [ $# -ge 2 ] || die "--pch-dir needs a folder"; pch_dir=$2; shift 2 ;;
    --pch-dir=*) pch_dir=${1#--pch-dir=}; shift ;;
    --no-pch) pch=0; shift ;;
    -fix|--fix|-fix=*|--fix=*|-fix-errors*|--fix-errors*|-fix-notes*|--fix-notes*)
      die "'$1' would edit the files; the hook only checks them" ;;
    -checks=*|--checks=*) have_checks=1; args+=("$1"); shift ;;
    -checks|--checks) die "give the checks as $1=GLOBS" ;;
    -header-filter=*|--header-filter=*) header_filter=${1#*=}; shift ;;
    -header-filter|--header-filter) die "give the header filter as $1=REGEX" ;;
    --) shift; files+=("$@"); break ;;
    -*) args+=("$1"); shift ;;
    *) files+=("$1"); shift ;;
  esac
done
[ $have_checks = 1 ] || args=(--checks='-*,torch-sync-*' "${args[@]}")

sources=() headers=()
for f in "${files[@]}"; do
  case "$f" in
    *.cpp|*.cc|*.cxx|*.c++|*.cu) sources+=("$f") ;;
    *.h|*.hh|*.hpp|*.hxx|*.h++|*.cuh|*.inl|*.ipp|*.tpp) headers+=("$f") ;;
  esac
done
[ ${#sources[@]} -gt 0 ] || [ ${#headers[@]} -gt 0 ] || exit 0

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

# Headers: the sources of the compilation database that include them, found by clang-scan-deps
# (every entry preprocessed with its own flags; nothing is cached), are analysed, and the
# header filter covers the headers. The Python part prints those sources, one a line, then
# the --header-filter option, and --unchecked=HEADER for each header that no scanned source
# includes while some sources failed to scan.
if [ ${#headers[@]} -gt 0 ]; then
  if [ -z "$scan_deps" ]; then
    # The wheel's torch-sync-scan-deps (the same Clang as its torch-sync-tidy) first.
    if command -v torch-sync-scan-deps >/dev/null; then
      scan_deps=torch-sync-scan-deps
    elif command -v clang-scan-deps >/dev/null; then
      scan_deps=clang-scan-deps
    else
      scan_deps=$(compgen -c clang-scan-deps- | grep -E '^clang-scan-deps-[0-9]+$' |
        sort -t- -k4,4n | tail -1)
    fi
    [ -n "$scan_deps" ] ||
      die "a header is among the files, and clang-scan-deps (which finds the sources that include it) is not on PATH; install it (Debian: clang-scan-deps-N is in the package clang-N (22) or clang-tools-N (19 and older)), or give it with args: [--scan-deps=PATH] or TORCH_SYNC_SCAN_DEPS"
  fi
  command -v "$scan_deps" >/dev/null || die "clang-scan-deps program '$scan_deps' not found"
  command -v "$python" >/dev/null || die "$python not found (it reads the compilation database)"
  includers=$("$python" - "$scan_deps" "$build/compile_commands.json" "$header_filter" \
    "${headers[@]}" <<'PYTHON'
import json, os, re, subprocess, sys

scan, db, user_filter, headers = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
me = "torch-sync pre-commit"
try:
    with open(db, encoding="utf-8") as f:
        entries = json.load(f)
except (OSError, ValueError) as e:
    sys.exit("%s: error: cannot read the compilation database '%s': %s" % (me, db, e))
if not isinstance(entries, list):
    sys.exit("%s: error: '%s' is not a compilation database (a JSON list)" % (me, db))
sources = {}
for e in entries:
    if isinstance(e, dict) and isinstance(e.get("file"), str):
        path = os.path.join(e.get("directory") or "", e["file"])
        sources.setdefault(os.path.realpath(path), path)

wanted = {os.path.realpath(h): h for h in headers}
found = {h: ([h] if h in sources else []) for h in wanted}  # a header may be an entry itself
try:
    proc = subprocess.run([scan, "-compilation-database=" + db, "-format=make"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          errors="replace")
except OSError as e:
    sys.exit("%s: error: cannot run '%s': %s" % (me, scan, e))
scanned = set()
# Make rules "TARGET: SOURCE DEP...", continued with backslash-newline; in a name, clang
# writes a space as '\ ', '#' as '\#' and '$' as '$$'.
for rule in proc.stdout.replace("\\\n", " ").splitlines():
    m = re.match(r"(?:\\.|[^\\:])*:(?:\s+|$)(.*)$", rule)
    if not m:
        continue
    deps = [re.sub(r"\\(.)", r"\1", t).replace("$$", "$")
            for t in re.findall(r"(?:\\.|[^\s\\])+", m.group(1))]
    if not deps:
        continue
    source = os.path.realpath(deps[0])
    scanned.add(source)
    for d in deps[1:]:
        real = os.path.realpath(d)
        if real in found and source not in found[real]:
            found[real].append(source)
missed = sorted(p for p in sources if p not in scanned)
if missed:
    sys.stderr.write(proc.stderr)
    print("%s: warning: %s could not be scanned for includes; the headers they include are "
          "not checked through them" % (me, ", ".join(sources[p] for p in missed)),
          file=sys.stderr)


def escape(text):  # for clang-tidy's header filter, an extended regular expression
    return re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", text)


patterns = []
for real, given in sorted(wanted.items()):
    if not found[real] and missed:
        # One of the sources that failed to scan may include it: unknown, so not a pass.
        print("%s: error: %s is not checked: no source that could be scanned includes it, "
              "and %d source(s) of %s failed to scan (above); fix them or their compile "
              "commands" % (me, given, len(missed), db), file=sys.stderr)
        print("--unchecked=" + given)
        continue
    if not found[real]:
        print("%s: %s is included by no source of the compilation database %s; not checked"
              % (me, given, db), file=sys.stderr)
        continue
    # Matched against the header's path as clang spells it (absolute, or relative to the
    # entry's folder): its path below the current folder (the repository's root), at the end.
    rel = os.path.relpath(real)
    if rel.startswith(os.pardir):
        rel = real
    patterns.append("(^|/)" + escape(rel.replace(os.sep, "/")) + "$")
    for source in found[real]:
        print(sources.get(source, source))
if patterns:
    print("--header-filter=" + "|".join(([user_filter] if user_filter else []) + patterns))
PYTHON
  ) || exit 2
  if [ -n "$includers" ]; then
    while IFS= read -r line; do
      case "$line" in
        --header-filter=*) header_filter=${line#--header-filter=} ;;
        --unchecked=*) unchecked+=("${line#--unchecked=}") ;;
        *) sources+=("$line") ;;
      esac
    done <<<"$includers"
  fi
  if [ ${#sources[@]} -eq 0 ]; then
    [ ${#unchecked[@]} -eq 0 ] && exit 0
    echo "torch-sync: ${#unchecked[@]} header(s) not checked (sources failed to scan): ${unchecked[*]}" >&2
    exit 1
  fi
fi
# No changed header and no filter given: findings in the changed sources only (clang-tidy 22's
# default filter is '.*', which would report the unchanged headers they include; 19's is none).
args+=("--header-filter=${header_filter:-^\$}")
# clang's error limit (20) lifted: at it a unit stops and its templates are no longer instantiated,
# so errors in a library header would take findings in the changed code with them. First, so that
# a limit in the compile command or in the hook's args still wins.
args=(--extra-arg-before=-ferror-limit=0 "${args[@]}")

# A source that is given and also includes a given header is analysed once.
if [ ${#headers[@]} -gt 0 ]; then
  declare -A seen=()
  unique=()
  for f in "${sources[@]}"; do
    real=$(realpath -m -- "$f")
    [ -z "${seen[$real]:-}" ] || continue
    seen[$real]=1
    unique+=("$f")
  done
  sources=("${unique[@]}")
fi

out=$(mktemp)
compat=$(mktemp -d)
trap 'rm -rf "$out" "$out.part" "$compat"' EXIT
# CUDA sources as nvcc parses them (as scan-project.sh does): the host prelude (empty outside
# clang's CUDA mode) and, when a CUDA source is analysed, the kernel launches with spaced
# chevrons below the current folder read in token form through an overlay.
[ ! -f "$prelude" ] || args+=("--extra-arg=-include$prelude")
if printf '%s\n' "${sources[@]}" | grep -q '\.cu$' && [[ " ${args[*]} " != *" --vfsoverlay"* && " ${args[*]} " != *" -vfsoverlay"* ]]; then
  overlay=$("$python" -m torch_sync.cuda_launch_syntax --out "$compat" .) || exit 2
  [ -z "$overlay" ] || args+=("--vfsoverlay=$overlay")
fi
# Shared precompiled LibTorch headers (torch_sync/torch_pch.py): built for a compile command even
# when one source uses it (it serves the next commits), kept in --pch-dir. The sources are
# analysed in groups of the same header, one clang-tidy each; a group whose header clang
# rejects is analysed again without it.
declare -A group=()
if [ $pch = 1 ] && command -v "$python" >/dev/null; then
  plan=(plan -p "$build" --tool "$tidy" --min-units 1 --quiet --label "torch-sync pre-commit")
  [ -z "$pch_dir" ] || plan+=(--dir "$pch_dir")
  for ((k = 0; k < ${#args[@]}; k++)); do
    case "${args[$k]}" in
      --extra-arg=*|-extra-arg=*) plan+=(--extra-arg="${args[$k]#*=}") ;;
      --extra-arg-before=*|-extra-arg-before=*) plan+=(--extra-arg-before="${args[$k]#*=}") ;;
    esac
  done
  # Each line: the header (empty for none), a tab, the source. ('@': bash's keys cannot be empty.)
  if planned=$("$python" -m torch_sync.torch_pch "${plan[@]}" -- "${sources[@]}") &&
     [ "$(grep -c $'\t' <<<"$planned")" -eq ${#sources[@]} ]; then
    while IFS= read -r line; do
      group["@${line%%$'\t'*}"]+="${line#*$'\t'}"$'\n'
    done <<<"$planned"
  else
    echo "torch-sync pre-commit: warning: no precompiled LibTorch headers (torch_sync.torch_pch failed); analysing without them" >&2
    group["@"]=$(printf '%s\n' "${sources[@]}")
  fi
else
  group["@"]=$(printf '%s\n' "${sources[@]}")
fi
rc=0
for key in "${!group[@]}"; do
  header=${key#@}
  mapfile -t members < <(printf '%s' "${group[$key]}" | sed '/^$/d')
  [ ${#members[@]} -gt 0 ] || continue
  with=()
  [ -z "$header" ] || with=("--extra-arg=-include-pch" "--extra-arg=$header")
  "$tidy" --quiet "${args[@]}" "${with[@]}" -p "$build" "${members[@]}" >"$out.part" 2>&1
  part=$?
  if [ $part -ne 0 ] && [ -n "$header" ] && "$python" -m torch_sync.torch_pch rejected "$out.part"; then
    "$tidy" --quiet "${args[@]}" -p "$build" "${members[@]}" >"$out.part" 2>&1
    part=$?
    echo "torch-sync: clang rejected the precompiled LibTorch headers; analysed without them" >>"$out.part"
  fi
  cat "$out.part" >>"$out"
  [ $part -eq 0 ] || rc=$part
done
rm -f "$out.part"
cat "$out"
# A finding in a header that several sources include is printed for each: counted once.
# Compiler errors ([clang-diagnostic-*]) are not findings: clang-tidy names each source that
# had them ("Error while processing FILE."), and the checks saw only part of those.
findings=$(grep -E '^.+:[0-9]+:[0-9]+: (warning|error): .* \[[A-Za-z0-9_.,-]+\]$' "$out" |
  grep -v '\[clang-diagnostic-[A-Za-z0-9_.,-]*\]$' | sort -u | wc -l)
incomplete=$(sed -n 's/^Error while processing \(.*\)\.$/\1/p' "$out" | sort -u)
if [ "$rc" -ne 0 ] || [ "$findings" -gt 0 ]; then
  echo "torch-sync: ${findings} finding(s) in ${#sources[@]} file(s)$([ "$rc" -ne 0 ] && echo "; clang-tidy exited with $rc")" >&2
fi
if [ -n "$incomplete" ]; then
  echo "torch-sync: $(wc -l <<<"$incomplete") file(s) did not parse, so their findings may be incomplete: $(paste -sd' ' <<<"$incomplete")" >&2
  if grep -q 'too many errors emitted, stopping now' "$out"; then
    echo "torch-sync: clang stopped at the error limit that a compile command sets (-ferror-limit): the rest of that file was not analysed" >&2
  fi
fi
if [ ${#unchecked[@]} -gt 0 ]; then
  echo "torch-sync: ${#unchecked[@]} header(s) not checked (sources failed to scan): ${unchecked[*]}" >&2
fi
if [ "$rc" -ne 0 ] || [ "$findings" -gt 0 ] || [ ${#unchecked[@]} -gt 0 ]; then
  exit 1
fi
exit 0
