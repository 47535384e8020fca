#!/usr/bin/env bash
# Measures what the torch-sync checks cost on one translation unit that includes <torch/torch.h>
# (bench/torch_tu.cpp, or --tu FILE), in both ways that builds include LibTorch's headers:
#   -I        plain include directories, as torch.utils.cpp_extension and setup.py builds pass them
#   -isystem  system include directories, as CMake's imported Torch target passes them
# For each style it runs, interleaved run by run:
#   parse   clang++-N -fsyntax-only                                      (the parse alone)
#   stock   clang-tidy-N -checks=-*,readability-braces-around-statements (a cheap stock check)
#   ours    clang-tidy-N -load libTorchSyncChecks.so -checks=-*,torch-sync-*
#   tool    torch-sync-tidy -checks=-*,torch-sync-*                      (when it was built)
#   base    clang-tidy-N -load BASELINE.so -checks=-*,torch-sync-*       (with --baseline-plugin)
# and reports, per command, the median and mean CPU time (user + system, from GNU time: wall time
# on a shared machine is noise) and the median peak memory (maximum resident set size), and the
# ratios ours/stock of both, against the targets: CPU at most 1.03 x stock, memory at most 1.05 x;
# and, from one more run with --enable-check-profile, the checks' own CPU time (matchers, callbacks).
# With --callgrind it also counts the instructions of one run of stock and ours in each style under
# valgrind's callgrind (deterministic; about 50 times slower than a plain run).
# Results also go to BUILD/benchmark.json. Needs the checker built first (scripts/build.sh N).
#
# Usage: scripts/benchmark.sh [--llvm N] [--build DIR] [--runs N] [--headers DIR] [--tu FILE]
#                             [--styles 'I isystem'] [--baseline-plugin SO] [--callgrind]
#   --llvm N        LLVM/Clang major release (default 22)
#   --build DIR     build directory holding checker/ (default build/llvm-N)
#   --runs N        timed runs per command and style (default 5), after one warm-up run each
#   --headers DIR   the LibTorch include root to parse (default: Debian's, /usr/include; for the
#                   2.x headers, the directory scripts/fetch-libtorch-headers.sh prints)
#   --tu FILE       the translation unit (default bench/torch_tu.cpp)
#   --styles LIST   the include styles to measure (default 'I isystem'); /usr/include is always a
#                   system directory, so with Debian's headers only torch/csrc/api/include changes
#   --baseline-plugin SO
#                   another build of the plugin (an earlier commit's) to time as 'base'
#   --callgrind     also count instructions with callgrind (valgrind)
set -euo pipefail

die() { echo "benchmark: $*" >&2; exit 1; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
llvm=22 build="" runs=5 headers=/usr/include baseline="" tu=$root/bench/torch_tu.cpp styles="I isystem"
callgrind=0
while [ $# -gt 0 ]; do
  case "$1" in
    --llvm) llvm=${2:?--llvm needs a value}; shift 2 ;;
    --build) build=${2:?--build needs a value}; shift 2 ;;
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --headers) headers=${2:?--headers needs a value}; shift 2 ;;
    --tu) tu=${2:?--tu needs a value}; shift 2 ;;
    --styles) styles=${2:?--styles needs a value}; shift 2 ;;
    --baseline-plugin) baseline=${2:?--baseline-plugin needs a value}; shift 2 ;;
    --callgrind) callgrind=1; shift ;;
    --no-hyperfine) shift ;;  # accepted for old command lines: no hyperfine is used any more
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $llvm =~ ^[0-9]+$ ]] || die "--llvm wants a number, got '$llvm'"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number, got '$runs'"
for s in $styles; do case "$s" in I|isystem) ;; *) die "--styles wants 'I' and/or 'isystem', got '$s'" ;; esac; done
build=${build:-build/llvm-$llvm}
[[ $build = /* ]] || build=$root/$build

plugin=$build/checker/libTorchSyncChecks.so
tool=$build/checker/torch-sync-tidy
[ -f "$tu" ] || die "missing translation unit $tu"
for t in "clang++-$llvm" "clang-tidy-$llvm"; do
  command -v "$t" >/dev/null || die "$t not found; run scripts/install-deps.sh $llvm"
done
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time) not found; run scripts/install-deps.sh"
[ $callgrind = 0 ] || command -v valgrind >/dev/null || die "valgrind not found; run scripts/install-deps.sh"
[ -f "$plugin" ] || die "plugin $plugin not found; run the build script first (LLVM $llvm, build dir $build)"
clang-tidy-"$llvm" -load "$plugin" -checks='-*,torch-sync-*' -list-checks 2>&1 | grep -q torch-sync-item ||
  die "clang-tidy-$llvm -load $plugin registers no torch-sync-* check; rebuild it for LLVM $llvm"
[ -f "$headers/ATen/core/Tensor.h" ] || die "no LibTorch headers in '$headers' (ATen/core/Tensor.h)"
if [ -n "$baseline" ]; then
  [ -f "$baseline" ] || die "baseline plugin '$baseline' not found"
  clang-tidy-"$llvm" -load "$baseline" -checks='-*,torch-sync-*' -list-checks 2>&1 | grep -q torch-sync-item ||
    die "clang-tidy-$llvm -load $baseline registers no torch-sync-* check"
fi

q() { printf %q "$1"; }
# The include flags of a style. /usr/include is searched already, and naming it again with
# -isystem would break the C++ library's #include_next.
include_flags() {
  local opt=-I; [ "$1" = isystem ] && opt="-isystem "
  local flags="$opt$(q "$headers/torch/csrc/api/include")"
  [ "$(realpath "$headers")" = /usr/include ] || flags="$opt$(q "$headers") $flags"
  echo "$flags"
}

names=() cmds=() keys=()
for style in $styles; do
  inc=$(include_flags "$style") flags="-- -std=c++17 $inc"
  add() { names+=("$1"); keys+=("$style/$1"); cmds+=("$2"); }
  add parse "clang++-$llvm -fsyntax-only -std=c++17 $inc $(q "$tu")"
  add stock "clang-tidy-$llvm -checks='-*,readability-braces-around-statements' $(q "$tu") $flags"
  add ours "clang-tidy-$llvm -load $(q "$plugin") -checks='-*,torch-sync-*' $(q "$tu") $flags"
  [ -x "$tool" ] && add tool "$(q "$tool") -checks='-*,torch-sync-*' $(q "$tu") $flags"
  [ -n "$baseline" ] && add base "clang-tidy-$llvm -load $(q "$baseline") -checks='-*,torch-sync-*' $(q "$tu") $flags"
done

# One run: prints "CPU_SECONDS MAX_RSS_KB".
measure() {
  local out; out=$(mktemp)
  /usr/bin/time -o "$out" -f '%U %S %M' bash -c "$1" >/dev/null 2>&1 || { rm -f "$out"; return 1; }
  awk 'END { printf "%.3f %d\n", $1 + $2, $3 }' "$out"; rm -f "$out"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mean() { awk '{ s += $1 } END { printf "%.3f", s / NR }'; }

declare -A cpus rss
for i in "${!cmds[@]}"; do
  echo "benchmark: warm-up ${keys[$i]}: ${cmds[$i]}" >&2
  measure "${cmds[$i]}" >/dev/null || die "${keys[$i]} failed: ${cmds[$i]}"
done
for ((r = 1; r <= runs; r++)); do
  for i in "${!cmds[@]}"; do
    read -r c m < <(measure "${cmds[$i]}") || die "${keys[$i]} failed: ${cmds[$i]}"
    cpus[${keys[$i]}]+="$c "; rss[${keys[$i]}]+="$m "
    echo "  run $r/$runs ${keys[$i]}: CPU $c s, max RSS $m KB" >&2
  done
done

declare -A med_cpu mean_cpu med_rss instr
for k in "${keys[@]}"; do
  med_cpu[$k]=$(tr ' ' '\n' <<<"${cpus[$k]}" | grep . | median)
  mean_cpu[$k]=$(tr ' ' '\n' <<<"${cpus[$k]}" | grep . | mean)
  med_rss[$k]=$(tr ' ' '\n' <<<"${rss[$k]}" | grep . | median)
done
# The checks' own CPU time (matchers and callbacks), from one more run of each clang-tidy command
# with --enable-check-profile: the part of a run that is ours, free of the parse's noise.
declare -A checks_cpu
for i in "${!cmds[@]}"; do
  [ "${names[$i]}" = parse ] && continue
  profiled=${cmds[$i]/ -checks=/ --enable-check-profile -checks=}
  checks_cpu[${keys[$i]}]=$(bash -c "$profiled" 2>&1 >/dev/null |
    awk '$NF == "Total" && $0 ~ /%\)/ { v = $5 } END { print (v == "") ? "null" : v }')
done
if [ $callgrind = 1 ]; then
  for i in "${!cmds[@]}"; do
    case "${names[$i]}" in stock|ours) ;; *) continue ;; esac
    echo "benchmark: callgrind ${keys[$i]}" >&2
    log=$(mktemp)
    bash -c "valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file=$(q "$log") ${cmds[$i]}" \
      >/dev/null 2>&1 || die "${keys[$i]} failed under callgrind"
    instr[${keys[$i]}]=$(awk '/Collected :/ { print $NF }' "$log"); rm -f "$log"
  done
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { print (r <= t) ? "met" : "NOT met" }'; }
echo
echo "torch-sync benchmark: LLVM $llvm, $runs runs + 1 warm-up each, interleaved; TU ${tu#"$root"/}; headers $headers"
json_styles=""
for style in $styles; do
  echo "  -$style:"
  for n in parse stock ours tool base; do
    k=$style/$n; [ -n "${med_cpu[$k]:-}" ] || continue
    printf '    %-6s CPU median %8.3f s, mean %8.3f s; max RSS %8d KB%s%s\n' "$n" "${med_cpu[$k]}" \
      "${mean_cpu[$k]}" "${med_rss[$k]}" "${checks_cpu[$k]:+; checks ${checks_cpu[$k]} s}" \
      "${instr[$k]:+; ${instr[$k]} instructions}"
  done
  rc=$(ratio "${med_cpu[$style/ours]}" "${med_cpu[$style/stock]}")
  rm_=$(ratio "${med_rss[$style/ours]}" "${med_rss[$style/stock]}")
  echo "    ours/stock  CPU $rc (target 1.03: $(verdict "$rc" 1.03)), max RSS $rm_ (target 1.05: $(verdict "$rm_" 1.05))"
  ri=null
  if [ -n "${instr[$style/ours]:-}" ]; then
    ri=$(ratio "${instr[$style/ours]}" "${instr[$style/stock]}")
    echo "    ours/stock  instructions $ri (target 1.03: $(verdict "$ri" 1.03))"
  fi
  [ -n "${med_cpu[$style/tool]:-}" ] && echo "    tool/stock  CPU $(ratio "${med_cpu[$style/tool]}" "${med_cpu[$style/stock]}")"
  [ -n "${med_cpu[$style/base]:-}" ] && echo "    ours/base   CPU $(ratio "${med_cpu[$style/ours]}" "${med_cpu[$style/base]}")"
  cmd_json=""
  for n in parse stock ours tool base; do
    k=$style/$n; [ -n "${med_cpu[$k]:-}" ] || continue
    cmd_json+="${cmd_json:+, }\"$n\": {\"cpu_s_median\": ${med_cpu[$k]}, \"cpu_s_mean\": ${mean_cpu[$k]}, \"max_rss_kb_median\": ${med_rss[$k]}, \"checks_cpu_s\": ${checks_cpu[$k]:-null}, \"instructions\": ${instr[$k]:-null}, \"cpu_s_runs\": [$(tr ' ' '\n' <<<"${cpus[$k]}" | grep . | paste -sd,)]}"
  done
  json_styles+="${json_styles:+,\n}    \"$style\": {\"commands\": {$cmd_json}, \"ours_over_stock\": {\"cpu\": $rc, \"max_rss\": $rm_, \"instructions\": $ri}}"
done
json=$build/benchmark.json
printf '{\n  "llvm": %s,\n  "runs": %s,\n  "tu": "%s",\n  "headers": "%s",\n  "targets": {"cpu": 1.03, "max_rss": 1.05, "instructions": 1.03},\n  "styles": {\n%b\n  }\n}\n' \
  "$llvm" "$runs" "${tu#"$root"/}" "$headers" "$json_styles" > "$json"
python3 -m json.tool "$json" >/dev/null || die "wrote invalid JSON to $json"
echo "  results: $json"
