#!/usr/bin/env bash
# Runs the torch-sync checks over every translation unit of a LibTorch project and writes a
# report (report.md, report.json) into OUTDIR: translation units analysed, those that failed
# to parse, crashed (clang-tidy killed by a signal or printing a stack dump) or timed out,
# findings per check and per file, and every finding (file:line:col, check, message, notes).
# Never writes into the checkout (only into --build-dir when you pass one, and the cache); exits 0 when
# every translation unit was analysed, 1 when some failed (the report is written all the
# same), 2 on a usage error.
#
# Usage: scripts/scan-project.sh [options] CHECKOUT OUTDIR
#
# The compilation database, the first that applies:
#   -p, --compile-db PATH    compile_commands.json, or a folder holding one
#   --build-dir DIR          a build folder: its compile_commands.json if it has one, otherwise
#                            CMake is configured into DIR (the only place written besides OUTDIR)
#   --generate-db            skip CMake: generate the database from flags (below)
#   (default)                configure CMake (-DCMAKE_EXPORT_COMPILE_COMMANDS=ON, clang++-N,
#                            Torch_DIR of Debian's libtorch-dev, FetchContent disconnected) into
#                            OUTDIR/cmake-build: the checkout's top CMakeLists.txt, or each
#                            --cmake-source folder, or else every top-level CMake project below
#                            the checkout (a CMakeLists.txt with no CMakeLists.txt above it). A
#                            project that does not configure gets a database generated from flags
#                            for the sources below its folder, and the report says so. Debian's
#                            LibTorch is a CPU build: the CUDA translation units of such a database
#                            (see below) and the .cu sources it left out get generated flags with
#                            --cuda-torch-include, the project's -I/-D kept; without a CUDA
#                            LibTorch the report and stderr say that they are parsed as CPU code.
#   --cmake-source DIR       a CMake source folder, relative to CHECKOUT (repeatable)
#   --cmake-arg ARG          an extra configure argument, e.g. -DWITH_CUDA=OFF (repeatable)
#
# A generated database compiles each source with clang++-N -std=STD -DNDEBUG (a release build:
# assert() and TORCH_INTERNAL_ASSERT_DEBUG_ONLY compiled out), -I its own folder and
# the include/ folders beside it and its parents up to the checkout, the -I/-D given, and
# LibTorch from --torch-include; .cu sources host-only as CUDA (-x cuda --cuda-host-only
# --cuda-path=CUDA -nocudalib), and .cu sources or sources that include CUDA headers
# (c10/cuda, ATen/cuda, cuda_runtime, thrust, cub, ...), themselves or through the project's
# headers (#include "..." and <...> found in the unit's include folders), with
# --cuda-torch-include and CUDA's headers. These are the flags of a setup.py
# (torch.utils.cpp_extension) build:
#   --sources GLOB           sources, relative to CHECKOUT, ** allowed (repeatable; default:
#                            every *.cpp *.cc *.cxx *.cu outside build/, third_party/, extern/, .*)
#   -I DIR                   include folder, relative to CHECKOUT or absolute (repeatable)
#   -D NAME[=VALUE]          macro definition (repeatable), e.g. -D WITH_CUDA
#   --std STD                language standard (default c++17)
#   --flags 'FLAGS'          further compiler flags
#   --torch-extension NAME[=GLOB]
#                            a Python extension: -DTORCH_EXTENSION_NAME=NAME
#                            -DTORCH_API_INCLUDE_EXTENSION_H, Python's include folder and
#                            pybind11's (pip's pybind11, else Debian's pybind11-dev in
#                            /usr/include); an error names the package when one is missing.
#                            Repeatable, for a project of several extensions: a source gets the
#                            first NAME whose GLOB (relative to CHECKOUT, e.g. 'csrc/sparse/*')
#                            matches it or that has no GLOB, else the first NAME
#   --torch-include DIR      LibTorch's include root (default /usr/include, Debian's
#                            libtorch-dev); DIR and DIR/torch/csrc/api/include are added
#   --cuda-torch-include DIR LibTorch include root for CUDA translation units, e.g. an unpacked
#                            CUDA build of LibTorch (Debian's CPU package has no c10/cuda,
#                            ATen/cuda); default: --torch-include
#   --cuda-path DIR          CUDA toolkit (default /usr/local/cuda)
#
# The analysis:
#   --tool plugin|tidy       clang-tidy-N -load libTorchSyncChecks.so (default) or torch-sync-tidy
#   --tidy-binary PATH       a prebuilt torch-sync-tidy (implies --tool tidy)
#   --checker-build DIR      torch-sync's build folder (default $TORCH_SYNC_BUILD_ROOT/llvm-N,
#                            else <repo>/build/llvm-N): DIR/checker must hold the file --tool
#                            needs (libTorchSyncChecks.so, or torch-sync-tidy); when it does not,
#                            the script stops and names the command that builds it
#   --build-checker          build it instead (scripts/build.sh N, into --checker-build)
#   --llvm N                 LLVM major release (default 22)
#   --checks GLOBS           checks to run (default '-*,torch-sync-*')
#   --check-option KEY=VAL   a CheckOptions entry, e.g. ReportUnknownDevice=false (repeatable)
#   --extra-arg ARG          passed to clang-tidy as --extra-arg (repeatable)
#   -j, --jobs N             translation units at a time (default: the number of cores)
#   --nice N                 run clang-tidy and clang++ under nice -n N (default 0)
#   --filter REGEX           only translation units whose path (relative to CHECKOUT) matches
#   --exclude REGEX          leave out translation units whose path matches (repeatable)
#   --timeout S              seconds allowed to one translation unit (default 900)
#   --label NAME             the project's name in the report (default: CHECKOUT's name)
#   --revision REV           the revision named in the report (default: git's HEAD, if any)
#
# Project facts (docs/project-facts.md): before the analysis, torch-sync-project-facts runs over
# every translation unit of the database (not those of --exclude; --filter selects only what is
# analysed) and scripts/merge-project-facts.py joins its fragments into OUTDIR/facts/
# project-facts.json, which the analysis reads (ProjectFactsFile): the device inference then
# sees the devices that the whole project passes to each function. Units that do not parse or
# are left out are named in a notice; when no facts can be written the analysis runs without.
#   --no-project-facts       analyse each translation unit alone
#   (by default each unit to analyse is analysed in the same run that collects its facts, without
#   them, its questions to the facts recorded; once they are merged, only the units whose
#   questions they answer are analysed again: the findings are those of a scan that analyses
#   every unit after the facts, in about half the time)
#   --separate-facts-pass    collect the facts first, then analyse every unit with them
#   --project-facts-file F   use the facts file F (merged by merge-project-facts.py from the
#                            fragments of --project-facts-only runs) instead of collecting them
#   --project-facts-only     run only the facts pass, over the translation units of this scan
#                            (of its --shard): its fragments are left in OUTDIR/facts/fragments
#                            for merge-project-facts.py; exits 1 when some unit gave none
#
# Sharding, for a CI matrix over a large project (docs/ci.md):
#   --shard K/N              analyse shard K of N: the translation units (after --filter and
#                            --exclude) sorted by path relative to CHECKOUT, every N-th from the
#                            K-th, so that the same paths give the same shards on every machine.
#                            The project facts pass still covers every unit, unless
#                            --project-facts-file gives them. 'scripts/scan_report.py
#                            merge-reports --out DIR SHARD_OUTDIR...' joins the shards' reports.
#
# CUDA sources as nvcc parses them: CUDA translation units (.cu, -x cuda) get the host prelude
# checker/cuda/torch-sync-cuda-host.h force-included (the host min/max overloads of nvcc's
# headers), and kernel launches written with spaces inside the chevrons ('k<< <g, b >> >(x)')
# anywhere below the checkout are shown to clang in token form through a file system overlay
# (scripts/cuda_launch_syntax.py, clang-tidy --vfsoverlay; lines, columns and file names kept;
# the sources unchanged). The report says what was done.
#   --no-cuda-compat         neither
#
# The cache (scripts/tidy_cache.py): an unchanged translation unit's result (diagnostics, exit
# status) is replayed; the key covers the tool's files (binary, plugin, LLVM libraries), the
# effective configuration, the flags and every file the preprocessor reads:
#   --cache-dir DIR          default ${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync/scan
#   --cache-max-mb N         size bound, least recently used entries evicted (default 512)
#   --cache-mode MODE        direct (default: the files read, re-hashed) or preprocessed
#                            (clang++ -E of each unit, hashed; slower)
#   --no-cache               neither read nor write it
#
# Precompiled LibTorch headers (scripts/torch_pch.py): the LibTorch header that the units start
# with is precompiled once per distinct compile command (by clang++-N, templates instantiated)
# and each unit is analysed with it (-include-pch), in both passes: a <torch/torch.h> unit then
# costs about a tenth of its parse (CUDA units get headers of their own, built as CUDA). Units it
# cannot serve (a #define or code before LibTorch's first #include, an #if there that reads a
# LibTorch macro, a prefix header of their own, the only unit of its command when the units are
# parsed once) are analysed without one, and the report counts them and says why; a header that
# clang rejects when a unit runs is dropped for that unit. The findings are those of a run without.
#   --pch-dir DIR            default CACHE-DIR/pch with --cache-dir, else
#                            ${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync/pch (the 4 most
#                            recently used are kept, 100-150 MB each)
#   --no-pch                 parse LibTorch's headers in every unit
# Both passes go through the cache: a collection's fragment is kept with its result, and the
# analysis's key covers the facts' content.
#
# Speed:
#   --compare-syntax-only    after the scan, time the whole scan against clang++-N -fsyntax-only
#                            over the same translation units, with the same flags (those of the
#                            database, as clang-tidy adjusts them) and the same -j, alternating
#                            the two; the medians and their ratio go into the report
#   --runs N                 timed runs of each for --compare-syntax-only (default 3)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
helper=$repo/scripts/scan_report.py
die() { echo "scan-project: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
need() { [ $# -ge 2 ] && [ -n "$2" ] || die "option $1 needs a value (see --help)"; }

compile_db="" build_dir="" generate=0 tool="" checker_build="" tidy_binary="" build_checker=0
cache_dir="" cache_max_mb=512 cache_mode=direct no_cache=0 llvm=22 checks='-*,torch-sync-*'
jobs=$(nproc) nice=0 filter="" timeout=900 label="" revision="" compare=0 runs=3 std=c++17 flags=""
torch_include=/usr/include cuda_torch_include="" cuda_path=/usr/local/cuda torch_extension=()
project_facts=1 cuda_compat=1 pch=1 pch_dir="" shard="" facts_file="" facts_only=0 separate=0
cmake_sources=() cmake_args=() sources=() includes=() defines=() check_options=() extra_args=()
excludes=() positional=()
while [ $# -gt 0 ]; do
  case "$1" in
    -p|--compile-db) need "$@"; compile_db=$2; shift 2 ;;
    --build-dir) need "$@"; build_dir=$2; shift 2 ;;
    --generate-db) generate=1; shift ;;
    --cmake-source) need "$@"; cmake_sources+=("$2"); shift 2 ;;
    --cmake-arg) need "$@"; cmake_args+=("$2"); shift 2 ;;
    --sources) need "$@"; sources+=("$2"); shift 2 ;;
    -I) need "$@"; includes+=("$2"); shift 2 ;;
    -I?*) includes+=("${1#-I}"); shift ;;
    -D) need "$@"; defines+=("$2"); shift 2 ;;
    -D?*) defines+=("${1#-D}"); shift ;;
    --std) need "$@"; std=$2; shift 2 ;;
    --flags) need "$@"; flags=$2; shift 2 ;;
    --torch-extension) need "$@"; torch_extension+=("$2"); shift 2 ;;
    --torch-include) need "$@"; torch_include=$2; shift 2 ;;
    --cuda-torch-include) need "$@"; cuda_torch_include=$2; shift 2 ;;
    --cuda-path) need "$@"; cuda_path=$2; shift 2 ;;
    --tool) need "$@"; tool=$2; shift 2 ;;
    --checker-build) need "$@"; checker_build=$2; shift 2 ;;
    --tidy-binary) need "$@"; tidy_binary=$2; shift 2 ;;
    --build-checker) build_checker=1; shift ;;
    --cache-dir) need "$@"; cache_dir=$2; shift 2 ;;
    --cache-max-mb) need "$@"; cache_max_mb=$2; shift 2 ;;
    --cache-mode) need "$@"; cache_mode=$2; shift 2 ;;
    --no-cache) no_cache=1; shift ;;
    --no-project-facts) project_facts=0; shift ;;
    --project-facts-file) need "$@"; facts_file=$2; shift 2 ;;
    --project-facts-only) facts_only=1; shift ;;
    --separate-facts-pass) separate=1; shift ;;
    --shard) need "$@"; shard=$2; shift 2 ;;
    --no-cuda-compat) cuda_compat=0; shift ;;
    --pch-dir) need "$@"; pch_dir=$2; shift 2 ;;
    --no-pch) pch=0; shift ;;
    --llvm) need "$@"; llvm=$2; shift 2 ;;
    --checks) need "$@"; checks=$2; shift 2 ;;
    --check-option) need "$@"; check_options+=("$2"); shift 2 ;;
    --extra-arg) need "$@"; extra_args+=("$2"); shift 2 ;;
    -j|--jobs) need "$@"; jobs=$2; shift 2 ;;
    -j?*) jobs=${1#-j}; shift ;;
    --nice) need "$@"; nice=$2; shift 2 ;;
    --filter) need "$@"; filter=$2; shift 2 ;;
    --exclude) need "$@"; excludes+=("$2"); shift 2 ;;
    --timeout) need "$@"; timeout=$2; shift 2 ;;
    --label) need "$@"; label=$2; shift 2 ;;
    --revision) need "$@"; revision=$2; shift 2 ;;
    --compare-syntax-only) compare=1; shift ;;
    --runs) need "$@"; runs=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; positional+=("$@"); break ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) positional+=("$1"); shift ;;
  esac
done
[ ${#positional[@]} -eq 2 ] || die "expected CHECKOUT and OUTDIR, got ${#positional[@]} argument(s) (see --help)"
checkout=${positional[0]} outdir=${positional[1]}
[ -e "$checkout" ] || die "checkout '$checkout' does not exist"
[ -d "$checkout" ] || die "checkout '$checkout' is not a folder"
checkout=$(cd "$checkout" && pwd -P)
[[ $llvm =~ ^[0-9]+$ ]] || die "--llvm wants a number, got '$llvm'"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs wants a positive number, got '$jobs'"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number, got '$runs'"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout wants a positive number of seconds, got '$timeout'"
[[ $nice =~ ^[0-9]+$ ]] || die "--nice wants a number from 0 to 19, got '$nice'"
if [ -n "$tidy_binary" ]; then
  [ "$tool" != plugin ] || die "--tidy-binary names a torch-sync-tidy; it excludes --tool plugin"
  tool=tidy
fi
tool=${tool:-plugin}
case "$tool" in plugin|tidy) ;; *) die "--tool wants 'plugin' or 'tidy', got '$tool'" ;; esac
[[ $cache_max_mb =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--cache-max-mb wants a number of megabytes, got '$cache_max_mb'"
case "$cache_mode" in direct|preprocessed) ;; *) die "--cache-mode wants 'direct' or 'preprocessed', got '$cache_mode'" ;; esac
for o in "${check_options[@]}"; do [[ $o == ?*=* ]] || die "--check-option wants KEY=VALUE, got '$o'"; done
[ -n "$compile_db" ] && [ $generate = 1 ] && die "--compile-db and --generate-db exclude each other"
if [ -n "$shard" ]; then
  [[ $shard =~ ^([0-9]+)/([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -ge 1 ] &&
    [ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ] || die "--shard wants K/N with 1 <= K <= N (e.g. 2/4), got '$shard'"
fi
if [ -n "$facts_file" ]; then
  [ $project_facts = 1 ] || die "--project-facts-file and --no-project-facts exclude each other"
  [ $facts_only = 0 ] || die "--project-facts-file and --project-facts-only exclude each other"
  [ -f "$facts_file" ] || die "--project-facts-file '$facts_file': no such file"
  facts_file=$(cd "$(dirname "$facts_file")" && pwd -P)/$(basename "$facts_file")
fi
[ $facts_only = 0 ] || [ $project_facts = 1 ] || die "--project-facts-only and --no-project-facts exclude each other"
cuda_torch_include=${cuda_torch_include:-$torch_include}
for d in "$torch_include" "$cuda_torch_include"; do
  [ -d "$d/torch/csrc/api/include" ] || die "'$d' is not a LibTorch include root (no torch/csrc/api/include)"
done
command -v python3 >/dev/null || die "python3 not found"
command -v "clang++-$llvm" >/dev/null || die "clang++-$llvm not found; run scripts/install-deps.sh $llvm"

mkdir -p "$outdir" || die "cannot create OUTDIR '$outdir'"
outdir=$(cd "$outdir" && pwd -P)
case "$outdir/" in "$checkout"/*) die "OUTDIR '$outdir' is inside the checkout; choose a folder outside it" ;; esac
rm -rf "$outdir/db" "$outdir/logs" "$outdir/facts" "$outdir/report.md" "$outdir/report.json"
mkdir -p "$outdir/db"

# The checker: only the file that --tool needs.
if [ -n "$tidy_binary" ]; then
  [ -e "$tidy_binary" ] || die "--tidy-binary '$tidy_binary' does not exist"
  [ -f "$tidy_binary" ] && [ -x "$tidy_binary" ] || die "--tidy-binary '$tidy_binary' is not an executable file"
  tidy_bin=$(cd "$(dirname "$tidy_binary")" && pwd -P)/$(basename "$tidy_binary")
else
  checker_build=${checker_build:-${TORCH_SYNC_BUILD_ROOT:-$repo/build}/llvm-$llvm}
  [[ $checker_build = /* ]] || checker_build=$PWD/$checker_build
  plugin=$checker_build/checker/libTorchSyncChecks.so
  tidy_bin=$checker_build/checker/torch-sync-tidy
  if [ "$tool" = plugin ]; then wanted=$plugin; else wanted=$tidy_bin; fi
  if [ ! -f "$wanted" ]; then
    if [ $build_checker = 1 ]; then
      echo "scan-project: building torch-sync (LLVM $llvm) into $checker_build (--build-checker)" >&2
      TORCH_SYNC_BUILD_ROOT=$(dirname "$checker_build") "$repo/scripts/build.sh" "$llvm" >&2 ||
        die "building torch-sync failed (scripts/build.sh $llvm)"
      [ -f "$wanted" ] || die "scripts/build.sh $llvm did not make $wanted"
    else
      msg="no $(basename "$wanted") in $checker_build/checker (--tool $tool). Build it with"
      msg="$msg 'scripts/build.sh $llvm' in the torch-sync checkout"
      [ "$checker_build" = "$repo/build/llvm-$llvm" ] ||
        msg="$msg (TORCH_SYNC_BUILD_ROOT=$(dirname "$checker_build") scripts/build.sh $llvm)"
      die "$msg, or pass --build-checker to build it now, --checker-build DIR for another build folder, or --tidy-binary PATH for a prebuilt torch-sync-tidy"
    fi
  fi
fi
if [ "$tool" = plugin ]; then
  command -v "clang-tidy-$llvm" >/dev/null || die "clang-tidy-$llvm not found; run scripts/install-deps.sh $llvm"
  tool_cmd="clang-tidy-$llvm -load $(printf %q "$plugin")"
else
  tool_cmd=$(printf %q "$tidy_bin")
fi
# shellcheck disable=SC2086
eval "$tool_cmd" -checks='-*,torch-sync-*' -list-checks 2>/dev/null | grep -q torch-sync-item ||
  die "$tool_cmd registers no torch-sync check; rebuild it (scripts/build.sh $llvm)"

notices=() notices_file=$outdir/db/notices.txt
python_include=""
for e in "${torch_extension[@]}"; do
  [[ ${e%%=*} =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "--torch-extension wants NAME or NAME=GLOB with NAME an identifier, got '$e'"
done
if [ ${#torch_extension[@]} -gt 0 ]; then
  # torch/extension.h includes <Python.h> and <pybind11/pybind11.h>: Python's include folder,
  # and pybind11's (Debian's pybind11-dev puts it in /usr/include, already searched; a pip
  # pybind11 says where its headers are).
  python_include=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  [ -f "$python_include/Python.h" ] ||
    die "--torch-extension: no Python.h in $python_include; install Python's headers (Debian: apt-get install python3-dev)"
  pybind11_include=$(python3 -c 'import pybind11; print(pybind11.get_include())' 2>/dev/null || true)
  if [ -z "$pybind11_include" ] || [ ! -f "$pybind11_include/pybind11/pybind11.h" ]; then
    pybind11_include=""
    found=0
    while IFS= read -r d; do [ -f "$d/pybind11/pybind11.h" ] && found=1; done < <(
      "clang++-$llvm" -x c++ -E -v /dev/null 2>&1 >/dev/null | sed -n 's/^ \(\/[^ ]*\).*/\1/p'
      echo "$torch_include"; echo "$cuda_torch_include"; echo "$python_include"
      for d in "${includes[@]}"; do [[ $d = /* ]] && echo "$d" || echo "$checkout/$d"; done)
    [ $found = 1 ] ||
      die "--torch-extension: pybind11's headers were not found (torch/extension.h includes <pybind11/pybind11.h>); install them (Debian: apt-get install pybind11-dev, or pip install pybind11)"
  fi
fi
gendb() {  # gendb OUT ROOT_SUBDIR [cudafix | ARG...]: generate (with ARG... more flags), or fix the CUDA units of a CMake database
  local args=(gendb --root "$checkout" --out "$1" --under "$2")
  [ "${3:-}" = cudafix ] && args=(cudafix --root "$checkout" --db "$1")
  args+=(--std "$std" --flags="$flags"
    --compiler "clang++-$llvm" --torch-include "$torch_include" --notices "$notices_file"
    --cuda-torch-include "$cuda_torch_include" --cuda-path "$cuda_path")
  local s
  if [ ${#sources[@]} -gt 0 ] && [ "${3:-}" != cudafix ]; then
    for s in "${sources[@]}"; do args+=(--sources "$s"); done
  fi
  for s in "${excludes[@]}"; do args+=(--exclude "$s"); done
  for s in "${includes[@]}"; do args+=(--include "$s"); done
  for s in "${defines[@]}"; do args+=(--define "$s"); done
  [ -n "${pybind11_include:-}" ] && args+=(--include "$pybind11_include")
  for s in "${torch_extension[@]}"; do args+=(--torch-extension "$s"); done
  [ ${#torch_extension[@]} -eq 0 ] || args+=(--python-include "$python_include")
  [ "${3:-}" = cudafix ] || args+=("${@:3}")
  python3 "$helper" "${args[@]}"
}

traced_flags() {  # traced_flags SRC BUILD: --include/--define for what a failed configure step set
  local src=$1 bld=$2 kind value torch_dir
  torch_dir=$(ls -d /usr/lib/*/cmake/Torch 2>/dev/null | head -n 1 || true)
  mkdir -p "$bld"
  local cfg=(cmake -S "$src" -B "$bld" -DCMAKE_CXX_COMPILER="clang++-$llvm" -DCMAKE_C_COMPILER="clang-$llvm"
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON -DFETCHCONTENT_BASE_DIR="$bld/_deps"
    --trace-expand --trace-format=json-v1 --trace-redirect="$bld/trace.json")
  [ -n "$torch_dir" ] && cfg+=(-DTorch_DIR="$torch_dir")
  timeout 600 "${cfg[@]}" "${cmake_args[@]}" >"$bld/trace-configure.log" 2>&1 || true
  while IFS=$'\t' read -r kind value; do
    case "$kind" in -I) echo "--include"; echo "$value" ;; -D) echo "--define"; echo "$value" ;; esac
  done < <(python3 "$helper" cmake-trace-flags --root "$checkout" "$bld/trace.json")
  rm -f "$bld/trace.json"
}

configure() {  # configure SRC BUILD: 0 when BUILD/compile_commands.json was produced
  local src=$1 bld=$2 torch_dir
  [ -f "$src/CMakeLists.txt" ] || return 1
  command -v cmake >/dev/null || { echo "scan-project: cmake not found" >&2; return 1; }
  torch_dir=$(ls -d /usr/lib/*/cmake/Torch 2>/dev/null | head -n 1 || true)
  mkdir -p "$bld"
  local cfg=(cmake -S "$src" -B "$bld" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
    -DCMAKE_CXX_COMPILER="clang++-$llvm" -DCMAKE_C_COMPILER="clang-$llvm"
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON -DFETCHCONTENT_BASE_DIR="$bld/_deps")
  [ -n "$torch_dir" ] && cfg+=(-DTorch_DIR="$torch_dir")
  cfg+=("${cmake_args[@]}")
  echo "scan-project: configuring $src" >&2
  printf '%q ' "${cfg[@]}" >"$bld/configure.log"; echo >>"$bld/configure.log"
  timeout 600 "${cfg[@]}" >>"$bld/configure.log" 2>&1 && [ -f "$bld/compile_commands.json" ]
}

db=$outdir/db/compile_commands.json
if [ -n "$compile_db" ]; then
  [ -d "$compile_db" ] && compile_db=$compile_db/compile_commands.json
  [ -f "$compile_db" ] || die "no compilation database at '$compile_db'"
  cp "$compile_db" "$db"; origin="given: $(cd "$(dirname "$compile_db")" && pwd -P)/$(basename "$compile_db")"
elif [ -n "$build_dir" ] && [ -f "$build_dir/compile_commands.json" ]; then
  cp "$build_dir/compile_commands.json" "$db"; origin="given: $build_dir/compile_commands.json"
elif [ $generate = 1 ]; then
  gendb "$db" . || die "could not generate a compilation database for $checkout"
  origin="generated from flags (--generate-db)"
else
  marker=$outdir/db/.configure-start; touch "$marker"; sleep 1
  if [ -n "$build_dir" ]; then
    mkdir -p "$build_dir" && build_dir=$(cd "$build_dir" && pwd -P)
    configure "$checkout" "$build_dir" ||
      die "CMake could not configure $checkout into $build_dir (see $build_dir/configure.log); pass --generate-db to generate the database from flags"
    cp "$build_dir/compile_commands.json" "$db"; origin="CMake, configured into $build_dir"
    gendb "$db" . cudafix
  else
    projects=()
    if [ ${#cmake_sources[@]} -gt 0 ]; then
      for s in "${cmake_sources[@]}"; do
        [ -f "$checkout/$s/CMakeLists.txt" ] || die "--cmake-source '$s' has no CMakeLists.txt under $checkout"
        projects+=("$s")
      done
    elif [ -f "$checkout/CMakeLists.txt" ]; then
      projects=(.)
    else
      while IFS= read -r f; do
        d=$(dirname "$f"); up=$(dirname "$d") top=1
        while [ "$up" != . ]; do [ -f "$checkout/$up/CMakeLists.txt" ] && top=0; up=$(dirname "$up"); done
        [ $top = 1 ] && projects+=("$d")
      done < <(cd "$checkout" && find . -name CMakeLists.txt -not -path '*/.*/*' -not -path './build*' | sed 's|^\./||' | sort)
    fi
    [ ${#projects[@]} -gt 0 ] ||
      die "$checkout has no CMakeLists.txt and no --compile-db was given; pass --generate-db to generate the database from flags"
    parts=() i=0 n_cmake=0 n_gen=0
    for p in "${projects[@]}"; do
      i=$((i + 1)); bld=$outdir/cmake-build/$i-$(echo "$p" | tr '/' '_')
      rm -rf "$bld"
      if configure "$checkout/$p" "$bld"; then
        parts+=("$bld/compile_commands.json"); n_cmake=$((n_cmake + 1))
      else
        # What the configure step set before it failed (an optional subfolder that is an empty
        # submodule, say): its include folders and macros, read from CMake's own trace.
        mapfile -t known < <(traced_flags "$checkout/$p" "$bld/traced")
        notices+=("CMake could not configure \`$p\` (log: \`${bld#"$outdir"/}/configure.log\`): its sources got a database generated from flags, with the $(( ${#known[@]} / 2 )) include folder(s) and macro(s) that CMake had set before it failed")
        echo "scan-project: CMake could not configure $p (see $bld/configure.log); generating its database from flags, with the $(( ${#known[@]} / 2 )) include folder(s) and macro(s) it had set" >&2
        gendb "$bld/generated.json" "$p" "${known[@]}" && parts+=("$bld/generated.json") && n_gen=$((n_gen + 1)) ||
          notices+=("no database for \`$p\`")
      fi
    done
    [ ${#parts[@]} -gt 0 ] || die "no compilation database could be configured or generated for $checkout"
    python3 "$helper" merge --out "$db" "${parts[@]}"
    gendb "$db" . cudafix
    origin="CMake ($n_cmake project(s) configured under $outdir/cmake-build)"
    [ $n_gen = 0 ] || origin="$origin; generated from flags for $n_gen project(s) that did not configure"
  fi
  written=$(find "$checkout" -newer "$marker" ${build_dir:+-not -path "$build_dir/*"} -print 2>/dev/null | head -n 20 || true)
  if [ -n "$written" ]; then
    notices+=("CMake's configure step wrote into the checkout: $(echo "$written" | tr '\n' ' ')")
    echo "scan-project: warning: CMake's configure step wrote into the checkout:" >&2; echo "$written" >&2
  fi
fi

if [ -f "$notices_file" ]; then
  while IFS= read -r s; do [ -n "$s" ] && notices+=("$s"); done <"$notices_file"
fi
if [ -z "$revision" ] && git -C "$checkout" rev-parse --git-dir >/dev/null 2>&1; then
  revision=$(git -C "$checkout" rev-parse HEAD 2>/dev/null || true)
fi
scan=(scan --root "$checkout" --db "$db" --db-origin "$origin" --out "$outdir" --tool "$tool_cmd"
  --checks="$checks" --jobs "$jobs" --nice "$nice" --timeout "$timeout" --filter="$filter"
  --label "$label" --revision "$revision" --clangxx "clang++-$llvm" --runs "$runs" --report-missing)
for s in "${check_options[@]}"; do scan+=("--check-option=$s"); done
for s in "${extra_args[@]}"; do scan+=("--extra-arg=$s"); done
for s in "${excludes[@]}"; do scan+=(--exclude "$s"); done
for s in "${notices[@]}"; do scan+=(--notice "$s"); done
[ $compare = 1 ] && scan+=(--compare-syntax-only)
[ $project_facts = 1 ] || scan+=(--no-project-facts)
[ -z "$facts_file" ] || scan+=(--project-facts-file "$facts_file")
[ $facts_only = 0 ] || scan+=(--project-facts-only)
[ $separate = 0 ] || scan+=(--separate-facts-pass)
[ -z "$shard" ] || scan+=(--shard "$shard")
[ $cuda_compat = 1 ] || scan+=(--no-cuda-compat)
if [ $pch = 0 ]; then scan+=(--no-pch)
elif [ -n "$pch_dir" ]; then scan+=(--pch-dir "$pch_dir")
elif [ -n "$cache_dir" ]; then scan+=(--pch-dir "$cache_dir/pch")
fi
if [ $no_cache = 1 ]; then scan+=(--no-cache)
else scan+=(--cache-dir "${cache_dir:-${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync/scan}" --cache-max-mb "$cache_max_mb"
  --cache-mode "$cache_mode")
fi
exec python3 "$helper" "${scan[@]}"
