#!/usr/bin/env bash
# runtime-verify/trace-report.sh [--headers DIR] [--tidy PROGRAM]: torch-sync-trace's reports on the committed
# traces (run.sh --traces made them on the GPU), joined with torch-sync's findings. Needs no GPU.
#   1. torch-sync's findings on the traced samples (minimal_loop, training_loop_logging, metrics), as a SARIF
#      log with paths relative to the repository (scripts/sarif.sh), against the LibTorch headers DIR (default:
#      the 2.x headers of scripts/fetch-libtorch-headers.sh, those of the CUDA build the traces come from);
#   2. scripts/torch-sync-trace on the minimal loop's three traces (observations/loop_benchmark/) and on the
#      traced samples (observations/traces/), each with its operator stacks and the findings.
# Writes observations/trace-report/, per group (loop: the minimal loop; samples: the traced samples)
# <group>.txt (the summary; for the loop also the table of gaps), <group>.json (samples.json.gz: a thousand
# gaps) and <group>.svg (the timelines, one above the other).
# --tidy names the clang-tidy with the torch-sync checks (default: build/llvm-22/checker/torch-sync-tidy).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
headers="" tidy=$root/build/llvm-22/checker/torch-sync-tidy
while (($# > 0)); do
  case "$1" in
    --headers) headers=${2:?--headers needs a directory}; shift 2 ;;
    --tidy) tidy=${2:?--tidy needs a program}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "trace-report: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n $headers ]] || headers=$("$root/scripts/fetch-libtorch-headers.sh")
[[ -d $headers/torch/csrc/api/include ]] || { echo "trace-report: no LibTorch headers in '$headers'" >&2; exit 2; }
[[ -x $tidy ]] || { echo "trace-report: no torch-sync-tidy at '$tidy' (scripts/build.sh 22, or --tidy)" >&2; exit 2; }

out=$here/observations/trace-report
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A compilation database of the three samples, with the flags of a CUDA build of LibTorch.
files=(samples/minimal_loop.cpp samples/training_loop_logging.cpp samples/metrics.cpp)
{
  echo "["
  for i in "${!files[@]}"; do
    ((i > 0)) && echo ","
    printf '{"directory": "%s", "file": "%s", "arguments": ["clang++", "-std=c++17", "-isystem", "%s", "-isystem", "%s", "-c", "%s"]}' \
      "$root" "${files[$i]}" "$headers" "$headers/torch/csrc/api/include" "${files[$i]}"
  done
  echo "]"
} >"$work/compile_commands.json"
(cd "$root" && scripts/sarif.sh -p "$work" --tidy "$tidy" --srcroot "$root" -o "$work/findings.sarif" \
  "${files[@]}" 2>"$work/tidy.log") ||
  { cat "$work/tidy.log" >&2; echo "trace-report: the checker failed" >&2; exit 1; }
# The log's source root without this machine's folder: its paths then stay relative to the repository.
python3 - "$work/findings.sarif" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
for run in log["runs"]:
    for base in run.get("originalUriBaseIds", {}).values():
        base.pop("uri", None)
json.dump(log, open(sys.argv[1], "w"))
PY

# Paths relative to the repository, so that the reports name no machine's folders.
cd "$root"
report=runtime-verify/observations/trace-report
trace_tool=(scripts/torch-sync-trace --findings "$work/findings.sarif")
lb=runtime-verify/observations/loop_benchmark
"${trace_tool[@]}" --gaps --label healthy --label printing --label repaired \
  --stacks "$lb/stacks_healthy.json" --stacks "$lb/stacks_printing.json" --stacks "$lb/stacks_repaired.json" \
  --json "$report/loop.json" --svg "$report/loop.svg" \
  "$lb/trace_healthy.json" "$lb/trace_printing.json" "$lb/trace_repaired.json" >"$report/loop.txt"
tr=runtime-verify/observations/traces
"${trace_tool[@]}" --label training_loop_logging --label metrics \
  --stacks "$tr/training_loop_logging.stacks.json.gz" --stacks "$tr/metrics.stacks.json.gz" \
  --json "$report/samples.json" --svg "$report/samples.svg" \
  "$tr/training_loop_logging.json.gz" "$tr/metrics.json.gz" >"$report/samples.txt"
gzip -9 -n -f "$report/samples.json"
echo "trace-report: wrote $out" >&2
