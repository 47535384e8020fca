#!/usr/bin/env bash
# Times one translation unit that includes <torch/torch.h> (bench/torch_tu.cpp) four ways:
#   parse   clang++-N -fsyntax-only                                  (baseline parse)
#   stock   clang-tidy-N -checks=-*,readability-braces-around-statements (cheap stock check)
#   ours    clang-tidy-N -load libTorchSyncChecks.so -checks=-*,torch-sync-*
#   tool    torch-sync-tidy -checks=-*,torch-sync-*                  (only if it was built)
# and prints each median wall time, the ratios stock/parse, ours/parse, ours/stock and
# the target ours <= 1.03 x stock. Results also go to $BUILD/benchmark.json.
#
# Uses hyperfine when present (installed with apt-get when missing and running as root);
# otherwise, or with --no-hyperfine, a plain bash loop timed with `date +%s.%N`.
# Each command gets 1 warm-up run, then RUNS timed runs. Needs the checker built first.
#
# Usage: scripts/benchmark.sh [--llvm N] [--build DIR] [--runs N] [--no-hyperfine]
#   --llvm N        LLVM/Clang major release (default 22)
#   --build DIR     build directory holding checker/ (default build/llvm-N)
#   --runs N        timed runs per command (default 7)
#   --no-hyperfine  always use the bash loop
set -euo pipefail

die() { echo "benchmark: $*" >&2; exit 1; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
llvm=22 build="" runs=7 use_hf=1
while [ $# -gt 0 ]; do
  case "$1" in
    --llvm) llvm=${2:?--llvm needs a value}; shift 2 ;;
    --build) build=${2:?--build needs a value}; shift 2 ;;
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --no-hyperfine) use_hf=0; shift ;;
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

tu_q=$(printf %q "$tu") plugin_q=$(printf %q "$plugin") tool_q=$(printf %q "$tool")
flags="-- -std=c++17 -I/usr/include/torch/csrc/api/include"
names=(parse stock ours)
cmds=("clang++-$llvm -fsyntax-only -std=c++17 -I/usr/include/torch/csrc/api/include $tu_q"
      "clang-tidy-$llvm -checks='-*,readability-braces-around-statements' $tu_q $flags"
      "clang-tidy-$llvm -load $plugin_q -checks='-*,torch-sync-*' $tu_q $flags")
if [ -x "$tool" ]; then names+=(tool); cmds+=("$tool_q -checks='-*,torch-sync-*' $tu_q $flags"); fi

if [ $use_hf = 1 ] && ! command -v hyperfine >/dev/null && [ "$(id -u)" -eq 0 ]; then
  echo "benchmark: installing hyperfine" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends hyperfine \
    >/dev/null 2>&1 || echo "benchmark: hyperfine install failed; using a bash loop" >&2
fi
command -v hyperfine >/dev/null || use_hf=0

declare -A median
if [ $use_hf = 1 ]; then
  method=hyperfine
  csv=$(mktemp); trap 'rm -f "$csv"' EXIT
  hf=(hyperfine --warmup 1 --runs "$runs" --export-csv "$csv")
  for i in "${!names[@]}"; do hf+=(-n "${names[$i]}" "${cmds[$i]}"); done
  "${hf[@]}" >&2
  while IFS=, read -r name _ _ med _; do median[$name]=$med; done < <(tail -n +2 "$csv")
else
  method=bash-loop
  for i in "${!names[@]}"; do
    echo "benchmark: ${names[$i]}: ${cmds[$i]}" >&2
    eval "${cmds[$i]}" >/dev/null 2>&1 || die "${names[$i]} failed: ${cmds[$i]}"
    times=()
    for ((r = 0; r < runs; r++)); do
      t0=$(date +%s.%N)
      eval "${cmds[$i]}" >/dev/null 2>&1 || die "${names[$i]} failed: ${cmds[$i]}"
      t1=$(date +%s.%N)
      times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')")
      echo "  run $((r + 1))/$runs: ${times[-1]} s" >&2
    done
    median[${names[$i]}]=$(printf '%s\n' "${times[@]}" | sort -g |
      awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  done
fi

ratio() { awk -v a="${median[$1]}" -v b="${median[$2]}" 'BEGIN { printf "%.3f", a / b }'; }
r_stock=$(ratio stock parse) r_ours=$(ratio ours parse) r_os=$(ratio ours stock)
met=$(awk -v r="$r_os" 'BEGIN { print (r <= 1.03) ? "true" : "false" }')

echo
echo "torch-sync benchmark: LLVM $llvm, $runs runs + 1 warm-up each ($method), TU bench/torch_tu.cpp"
for n in "${names[@]}"; do printf '  %-6s median %8.3f s\n' "$n" "${median[$n]}"; done
echo "  stock/parse  $r_stock"
echo "  ours/parse   $r_ours"
echo "  ours/stock   $r_os   (target: ours <= 1.03 x stock-check run: $([ "$met" = true ] && echo met || echo NOT met))"
[ -n "${median[tool]:-}" ] && echo "  tool/stock   $(ratio tool stock)"

json=$build/benchmark.json
{
  printf '{\n  "llvm": %s,\n  "runs": %s,\n  "method": "%s",\n  "tu": "bench/torch_tu.cpp",\n' \
    "$llvm" "$runs" "$method"
  printf '  "median_s": {'
  sep=""; for n in "${names[@]}"; do printf '%s"%s": %s' "$sep" "$n" "${median[$n]}"; sep=", "; done
  printf '},\n  "ratios": {"stock_over_parse": %s, "ours_over_parse": %s, "ours_over_stock": %s},\n' \
    "$r_stock" "$r_ours" "$r_os"
  printf '  "target_ours_over_stock": 1.03,\n  "target_met": %s\n}\n' "$met"
} > "$json"
echo "  results: $json"
