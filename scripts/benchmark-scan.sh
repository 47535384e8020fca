#!/usr/bin/env bash
# Measures what a whole-project scan costs: scan-project.sh (both passes, the shared precompiled
# LibTorch headers built anew in every run, no result cache) against a stock clang-tidy over the
# same translation units with the same -j (run-clang-tidy-N with one cheap stock check,
# readability-braces-around-statements), and scan-project.sh as it was before both speed-ups
# (--no-pch --separate-facts-pass: LibTorch parsed in every unit, every unit analysed after the
# facts were collected), whose findings must be the same. Runs are interleaved; each command's CPU time (user + system
# of the command and all it ran, from GNU time: wall time on a shared machine is noise) and
# peak memory (the largest process's maximum resident set size) are reported as medians, with
# the ratio stock/ours. With --hook FILE it also times the pre-commit hook on one changed file:
# cold (no precompiled header yet: it is built) and warm (cached), and without one.
#
# Usage: scripts/benchmark-scan.sh -p COMPILE_DB [options] CHECKOUT OUTDIR
#   -p COMPILE_DB      the project's compile_commands.json (or its folder)
#   -j, --jobs N       translation units at a time (default 2)
#   --runs N           interleaved runs of ours and stock (default 3)
#   --runs-without N   runs of scan-project.sh --no-pch --separate-facts-pass (default 1)
#   --llvm N           LLVM release (default 22); the checker of build/llvm-N
#   --hook FILE        a source of the database (relative to CHECKOUT) to time the hook on
#   --label NAME       the project's name in the results (default: CHECKOUT's name)
# Writes OUTDIR/benchmark-scan.json and prints a summary; exits 1 when the findings with and
# without precompiled headers differ.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "benchmark-scan: $*" >&2; exit 2; }
db="" jobs=2 runs=3 runs_without=1 llvm=22 hook="" label="" positional=()
while [ $# -gt 0 ]; do
  case "$1" in
    -p) db=${2:?-p needs a value}; shift 2 ;;
    -j|--jobs) jobs=${2:?--jobs needs a value}; shift 2 ;;
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --runs-without) runs_without=${2:?--runs-without needs a value}; shift 2 ;;
    --llvm) llvm=${2:?--llvm needs a value}; shift 2 ;;
    --hook) hook=${2:?--hook needs a value}; shift 2 ;;
    --label) label=${2:?--label needs a value}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) positional+=("$1"); shift ;;
  esac
done
[ ${#positional[@]} -eq 2 ] || die "expected CHECKOUT and OUTDIR (see --help)"
checkout=$(cd "${positional[0]}" && pwd -P) out=${positional[1]}
[ -n "$db" ] || die "-p COMPILE_DB is required"
[ -d "$db" ] && db=$db/compile_commands.json
[ -f "$db" ] || die "no compilation database at '$db'"
db=$(cd "$(dirname "$db")" && pwd -P)/$(basename "$db")
for n in "$jobs" "$runs" "$runs_without" "$llvm"; do [[ $n =~ ^[0-9]+$ ]] || die "'$n' is not a number"; done
tidy=$repo/build/llvm-$llvm/checker/torch-sync-tidy
[ -x "$tidy" ] || die "no $tidy; build it first (scripts/build.sh $llvm)"
command -v "run-clang-tidy-$llvm" >/dev/null || die "run-clang-tidy-$llvm not found (Debian: clang-tidy-$llvm)"
[ -x /usr/bin/time ] || die "GNU time is missing (Debian: time)"
mkdir -p "$out" && out=$(cd "$out" && pwd -P)
label=${label:-$(basename "$checkout")}
times=$out/times.tsv
: >"$times"

mapfile -t units < <(python3 -c '
import json, os, sys
seen = []
for e in json.load(open(sys.argv[1])):
    f = os.path.normpath(os.path.join(e["directory"], e["file"]))
    if f not in seen:
        seen.append(f)
print("\n".join(seen))' "$db")
echo "benchmark-scan: $label, ${#units[@]} translation units, -j $jobs, $runs run(s)" >&2

timed() {  # timed NAME RUN COMMAND...: one line "NAME RUN CPU_SECONDS PEAK_KB EXIT" in times.tsv
  local name=$1 run=$2 rc=0
  shift 2
  /usr/bin/time -o "$out/time.txt" -f '%U %S %M' "$@" >"$out/$name.$run.out" 2>&1 || rc=$?
  local cpu peak
  # GNU time writes "Command exited with non-zero status N" before the figures.
  cpu=$(tail -n 1 "$out/time.txt" | awk '{ printf "%.2f", $1 + $2 }')
  peak=$(tail -n 1 "$out/time.txt" | awk '{ print $3 }')
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$run" "$cpu" "$peak" "$rc" >>"$times"
  echo "benchmark-scan: $name run $run: $cpu s of CPU, peak $((peak / 1024)) MB, exit $rc" >&2
}

scan=("$repo/scripts/scan-project.sh" -p "$db" -j "$jobs" --llvm "$llvm" --tool tidy --no-cache)

for ((r = 1; r <= runs; r++)); do
  timed stock "$r" "run-clang-tidy-$llvm" -p "$(dirname "$db")" -j "$jobs" -quiet \
    -clang-tidy-binary "$(command -v "clang-tidy-$llvm")" -checks='-*,readability-braces-around-statements' \
    "${units[@]}"
  rm -rf "$out/pch"
  timed ours "$r" "${scan[@]}" --pch-dir "$out/pch" "$checkout" "$out/ours"
  if [ "$r" -le "$runs_without" ]; then
    timed without "$r" "${scan[@]}" --no-pch --separate-facts-pass "$checkout" "$out/without"
  fi
done

if [ -n "$hook" ]; then
  (cd "$checkout" && rm -rf "$out/hook-pch" &&
    timed hook-cold 1 "$repo/scripts/pre-commit-hook.sh" --tidy="$tidy" -p "$(dirname "$db")" --pch-dir "$out/hook-pch" "$hook" &&
    timed hook-warm 1 "$repo/scripts/pre-commit-hook.sh" --tidy="$tidy" -p "$(dirname "$db")" --pch-dir "$out/hook-pch" "$hook" &&
    timed hook-without 1 "$repo/scripts/pre-commit-hook.sh" --tidy="$tidy" -p "$(dirname "$db")" --no-pch "$hook") || true
fi

python3 - "$out" "$label" "${#units[@]}" "$jobs" <<'PYTHON'
import json, statistics, sys
out, label, n, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = [l.rstrip("\n").split("\t") for l in open(out + "/times.tsv") if l.strip()]
by = {}
for name, run, cpu, peak, rc in rows:
    by.setdefault(name, []).append((float(cpu), int(peak), int(rc)))
med = {k: {"cpu_seconds": [c for c, _, _ in v], "median_cpu_seconds": round(statistics.median(c for c, _, _ in v), 2),
           "median_peak_mb": round(statistics.median(p for _, p, _ in v) / 1024), "exit": [r for _, _, r in v]}
       for k, v in by.items()}
def findings(d):
    r = json.load(open("%s/%s/report.json" % (out, d)))
    return sorted(json.dumps(f, sort_keys=True) for f in r["findings"]), r
a, ra = findings("ours")
b, rb = findings("without") if "without" in by else (a, None)  # --runs-without 0: nothing to compare
result = {"project": label, "translation_units": n, "jobs": jobs, "commands": med,
          "stock_over_ours_cpu": round(med["stock"]["median_cpu_seconds"] / med["ours"]["median_cpu_seconds"], 2),
          "findings": len(a), "same_findings_without_pch": a == b if rb is not None else None,
          "precompiled_headers": {k: ra["precompiled_headers"][k] for k in ("built", "build_cpu_seconds", "with", "without")}}
json.dump(result, open(out + "/benchmark-scan.json", "w"), indent=1)
print("%s: %d translation units, -j %d" % (label, n, jobs))
for k, v in med.items():
    print("  %-12s median %.1f s of CPU (runs: %s), peak %d MB" % (k, v["median_cpu_seconds"],
          ", ".join("%.1f" % c for c in v["cpu_seconds"]), v["median_peak_mb"]))
print("  stock / ours: %.2f x the CPU" % result["stock_over_ours_cpu"])
if rb is not None:
    print("  findings: %d, %s without precompiled headers" % (len(a), "the same" if a == b else "DIFFERENT from those"))
sys.exit(0 if a == b else 1)
PYTHON
