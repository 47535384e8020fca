#!/usr/bin/env bash
# Times one translation unit that includes <torch/torch.h> (bench/torch_tu.cpp) four ways:
#   parse   clang++-N -fsyntax-only                                  (baseline parse)
#   stock   clang-tidy-N -checks=-*,readability-braces-around-statements (cheap stock check)
#   ours    clang-tidy-N -load libTorchSyncChecks.so -checks=-*,torch-sync-*
#   tool    torch-sync-tidy -checks=-*,torch-sync-*                  (only if it was built)
#   base    clang-tidy-N -load BASELINE.so -checks=-*,torch-sync-*   (with --baseline-plugin)
# and prints each median wall time and mean CPU time (user + system: wall time on a shared
# machine is noise), the ratios stock/parse, ours/parse, ours/stock and ours/base on both,
# and the target ours <= 1.03 x stock. Results also go to $BUILD/benchmark.json.
#
# Uses hyperfine when present (installed with apt-get when missing and running as root);
# otherwise, or with --no-hyperfine, a plain bash loop timed with `date +%s.%N`.
# Each command gets 1 warm-up run, then RUNS timed runs. Needs the checker built first.
#
# Usage: scripts/benchmark.sh [--llvm N] [--build DIR] [--runs N] [--headers DIR]
#                             [--baseline-plugin SO] [--no-hyperfine]
#   --llvm N        LLVM/Clang major release (default 22)
#   --build DIR     build directory holding checker/ (default build/llvm-N)
#   --runs N        timed runs per command (default 7)
#   --headers DIR   the LibTorch include directory to parse (default: Debian's, /usr/include;
#                   for the 2.x headers, the directory scripts/fetch-libtorch-headers.sh prints)
#   --baseline-plugin SO
#                   another build of the plugin (an earlier commit's) to time as 'base'
#   --no-hyperfine  always use the bash loop
set -euo pipefail

die() { echo "benchmark: $*" >&2; exit 1; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
llvm=22 build="" runs=7 use_hf=1 headers=/usr/include baseline=""
while [ $# -gt 0 ]; do
  case "$1" in
    --llvm) llvm=${2:?--llvm needs a value}; shift 2 ;;
    --build) build=${2:?--build needs a value}; shift 2 ;;
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --no-hyperfine) use_hf=0; shift ;;
    --headers) headers=${2:?--headers needs a value}; shift 2 ;;
    --baseline-plugin) baseline=${2:?--baseline-plugin needs a value}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $llvm =~ ^[0-9]+$ ]] || die "--llvm wants a number, got '$llvm'"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number, got '$runs'"
build=${build:-build/llvm-$llvm}
[[ $build = /* ]] || build=$root/$build

tu=$root/bench/torch_tu.cpp
plugin=$build/checker/libTorchSyncChecks.so
tool=$build/checker/torch-sync-tidy
[ -f "$tu" ] || die "missing $tu"
for t in "clang++-$llvm" "clang-tidy-$llvm"; do
  command -v "$t" >/dev/null || die "$t not found; run scripts/install-deps.sh $llvm"
done
[ -f "$plugin" ] || die "plugin $plugin not found; run the build script first (LLVM $llvm, build dir $build)"
clang-tidy-"$llvm" -load "$plugin" -checks='-*,torch-sync-*' -list-checks 2>&1 | grep -q torch-sync-item ||
  die "clang-tidy-$llvm -load $plugin registers no torch-sync-* check; rebuild it for LLVM $llvm"

[ -f "$headers/ATen/core/Tensor.h" ] || die "no LibTorch headers in '$headers' (ATen/core/Tensor.h)"
if [ -n "$baseline" ]; then
  [ -f "$baseline" ] || die "baseline plugin '$baseline' not found"
  clang-tidy-"$llvm" -load "$baseline" -checks='-*,torch-sync-*' -list-checks 2>&1 | grep -q torch-sync-item ||
    die "clang-tidy-$llvm -load $baseline registers no torch-sync-* check"
fi

tu_q=$(printf %q "$tu") plugin_q=$(printf %q "$plugin") tool_q=$(printf %q "$tool")
# Plain include directories (-I), as torch.utils.cpp_extension builds pass them: the checks' matchers
# then also run over LibTorch's headers, the costlier case. /usr/include is searched already.
inc="-I$(printf %q "$headers/torch/csrc/api/include")"
[ "$(realpath "$headers")" = /usr/include ] || inc="-I$(printf %q "$headers") $inc"
flags="-- -std=c++17 $inc"
names=(parse stock ours)
cmds=("clang++-$llvm -fsyntax-only -std=c++17 $inc $tu_q"
      "clang-tidy-$llvm -checks='-*,readability-braces-around-statements' $tu_q $flags"
      "clang-tidy-$llvm -load $plugin_q -checks='-*,torch-sync-*' $tu_q $flags")
if [ -x "$tool" ]; then names+=(tool); cmds+=("$tool_q -checks='-*,torch-sync-*' $tu_q $flags"); fi
if [ -n "$baseline" ]; then
  names+=(base); cmds+=("clang-tidy-$llvm -load $(printf %q "$baseline") -checks='-*,torch-sync-*' $tu_q $flags")
fi

if [ $use_hf = 1 ] && ! command -v hyperfine >/dev/null && [ "$(id -u)" -eq 0 ]; then
  echo "benchmark: installing hyperfine" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends hyperfine \
    >/dev/null 2>&1 || echo "benchmark: hyperfine install failed; using a bash loop" >&2
fi
command -v hyperfine >/dev/null || use_hf=0

declare -A median cpu
if [ $use_hf = 1 ]; then
  method=hyperfine
  csv=$(mktemp); trap 'rm -f "$csv"' EXIT
  hf=(hyperfine --warmup 1 --runs "$runs" --export-csv "$csv")
  for i in "${!names[@]}"; do hf+=(-n "${names[$i]}" "${cmds[$i]}"); done
  "${hf[@]}" >&2
  while IFS=, read -r name _ _ med user system _; do
    median[$name]=$med
    cpu[$name]=$(awk -v u="$user" -v s="$system" 'BEGIN { printf "%.4f", u + s }')
  done < <(tail -n +2 "$csv")
else
  method=bash-loop
  for i in "${!names[@]}"; do
    echo "benchmark: ${names[$i]}: ${cmds[$i]}" >&2
    eval "${cmds[$i]}" >/dev/null 2>&1 || die "${names[$i]} failed: ${cmds[$i]}"
    times=() cpus=()
    for ((r = 0; r < runs; r++)); do
      t0=$(date +%s.%N)
      c0=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
      eval "${cmds[$i]}" >/dev/null 2>&1 || die "${names[$i]} failed: ${cmds[$i]}"
      # The children's user and system clock ticks of this shell (fields 16 and 17 of its stat).
      c1=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
      t1=$(date +%s.%N)
      times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')")
      cpus+=("$(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.4f", (b - a) / hz }')")
      echo "  run $((r + 1))/$runs: ${times[-1]} s, CPU ${cpus[-1]} s" >&2
    done
    cpu[${names[$i]}]=$(printf '%s\n' "${cpus[@]}" | awk '{ s += $1 } END { printf "%.4f", s / NR }')
    median[${names[$i]}]=$(printf '%s\n' "${times[@]}" | sort -g |
      awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  done
fi

ratio() { awk -v a="${median[$1]}" -v b="${median[$2]}" 'BEGIN { printf "%.3f", a / b }'; }
cpu_ratio() { awk -v a="${cpu[$1]}" -v b="${cpu[$2]}" 'BEGIN { printf "%.3f", a / b }'; }
r_stock=$(ratio stock parse) r_ours=$(ratio ours parse) r_os=$(ratio ours stock)
met=$(awk -v r="$r_os" 'BEGIN { print (r <= 1.03) ? "true" : "false" }')

echo
echo "torch-sync benchmark: LLVM $llvm, $runs runs + 1 warm-up each ($method), TU bench/torch_tu.cpp, headers $headers"
for n in "${names[@]}"; do printf '  %-6s median %8.3f s wall, mean %8.3f s CPU\n' "$n" "${median[$n]}" "${cpu[$n]}"; done
echo "  ratios       wall    CPU"
echo "  stock/parse  $r_stock   $(cpu_ratio stock parse)"
echo "  ours/parse   $r_ours   $(cpu_ratio ours parse)"
echo "  ours/stock   $r_os   $(cpu_ratio ours stock)   (target: ours <= 1.03 x stock-check run: $([ "$met" = true ] && echo met || echo NOT met), wall)"
[ -n "${median[tool]:-}" ] && echo "  tool/stock   $(ratio tool stock)   $(cpu_ratio tool stock)"
[ -n "${median[base]:-}" ] && echo "  ours/base    $(ratio ours base)   $(cpu_ratio ours base)   (this build against the baseline plugin)"

json=$build/benchmark.json
{
  printf '{\n  "llvm": %s,\n  "runs": %s,\n  "method": "%s",\n  "tu": "bench/torch_tu.cpp",\n' \
    "$llvm" "$runs" "$method"
  printf '  "median_s": {'
  sep=""; for n in "${names[@]}"; do printf '%s"%s": %s' "$sep" "$n" "${median[$n]}"; sep=", "; done
  printf '},\n  "mean_cpu_s": {'
  sep=""; for n in "${names[@]}"; do printf '%s"%s": %s' "$sep" "$n" "${cpu[$n]}"; sep=", "; done
  printf '},\n  "headers": "%s",\n' "$headers"
  printf '  "ratios": {"stock_over_parse": %s, "ours_over_parse": %s, "ours_over_stock": %s},\n' \
    "$r_stock" "$r_ours" "$r_os"
  printf '  "target_ours_over_stock": 1.03,\n  "target_met": %s\n}\n' "$met"
} > "$json"
echo "  results: $json"
