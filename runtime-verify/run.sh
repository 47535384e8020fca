#!/usr/bin/env bash
# runtime-verify/run.sh [SAMPLE...]: build the samples with the sync recorder, run each on the GPU, and write
# runtime-verify/observations/<sample>.json plus observations/metadata.json.
# runtime-verify/run.sh --traces: only the profiler traces for torch-sync-trace: the loop benchmark
# (observations/loop_benchmark/) and the traced samples (observations/traces/<sample>.json and
# <sample>.stacks.json, from the trace_<sample> programs: recorder/trace_session.cpp), and the printing loop in
# Python with its call stacks (observations/traces/python_printing.json, python_trace_loop.py).
#
# Needs an NVIDIA GPU, a CUDA build of PyTorch (its LibTorch CMake package), CUPTI, cmake, ninja, addr2line.
# Without a GPU it stops at once, exit status 77 ("skipped").
#
# Environment: PYTHON (the python3 that holds torch; default /opt/torch/.venv/bin/python3, else python3),
# RV_BUILD_DIR (default runtime-verify/build), RV_OUT_DIR (default runtime-verify/observations),
# RV_TIMEOUT (seconds per sample, default 180), RV_HOST_WAIT_RUNS (how many times the host-wait pass runs per
# sample, default 1: each run's exit status is kept, and the first run's measurements are merged).
set -u -o pipefail

traces_only=0
if [[ ${1:-} == --traces ]]; then
  traces_only=1
  shift
  (($# == 0)) || { echo "runtime-verify: --traces takes no sample names" >&2; exit 2; }
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${RV_BUILD_DIR:-$here/build}
out=${RV_OUT_DIR:-$here/observations}
timeout_s=${RV_TIMEOUT:-180}
host_wait_runs=${RV_HOST_WAIT_RUNS:-1}

preflight_name=runtime-verify preflight_needs="this suite"
# shellcheck source=gpu-preflight.sh
source "$here/gpu-preflight.sh"
echo "runtime-verify: configuring in $build" >&2
mkdir -p "$build/logs"
cmake -S "$here" -B "$build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" >"$build/logs/configure.log" 2>&1 ||
  { cat "$build/logs/configure.log" >&2; echo "runtime-verify: configuration failed" >&2; exit 1; }
grep 'runtime-verify:' "$build/logs/configure.log" >&2
# Only the samples asked for (and the recorder), or everything.
targets=()
(($# > 0)) && targets=(--target "$@")
((traces_only)) && targets=(--target traced_samples)
cmake --build "$build" -j "$(nproc)" "${targets[@]}" || { echo "runtime-verify: build failed" >&2; exit 1; }
# The loop benchmark is built apart (EXCLUDE_FROM_ALL): a failure there must not stop the samples.
if (($# == 0)); then
  cmake --build "$build" -j "$(nproc)" --target loop_benchmark ||
    echo "runtime-verify: loop_benchmark did not build; the samples go on" >&2
fi

if ((traces_only)); then
  samples=()
elif (($# > 0)); then
  samples=("$@")
else
  # Every program the project built: samples/*.cpp and *.cu by name, samples/rules/<check>.cpp as rules_<check>.
  samples=()
  for exe in "$build"/samples/*; do [[ -x $exe ]] && samples+=("$(basename "$exe")"); done
fi

# Kineto and the recorders name files by their absolute paths: keep them relative to the repository (the
# source root as ".", the output folder as runtime-verify/observations/).
relativize_paths() {
  sed -i -e "s|$root/||g" -e "s|$out/|runtime-verify/observations/|g" -e "s|\"$root\"|\".\"|g" "$@"
}

mkdir -p "$out" "$build/logs"
status_file=$build/logs/status.tsv
: >"$status_file"
failed=0
for name in "${samples[@]}"; do
  exe=$build/samples/$name
  json=$out/$name.json
  rm -f "$json"
  if [[ ! -x $exe ]]; then
    echo "runtime-verify: $name: no such sample program ($exe)" >&2
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" missing "" "" "" >>"$status_file"
    failed=1
    continue
  fi
  start=$(date +%s%N)
  TORCH_SYNC_OBSERVATIONS=$json TORCH_SYNC_SOURCE_ROOT=$root \
    timeout -k 10 "$timeout_s" "$exe" >"$build/logs/$name.stdout" 2>"$build/logs/$name.stderr"
  rc=$?
  # Second pass: the host-wait test (a GPU sleep queued before each copy, free, allocation or synchronize).
  # Its events are merged into the JSON below; its own status is kept apart.
  host_wait_rc=""
  for ((run = 1; run <= host_wait_runs; ++run)); do
    suffix=host_wait
    ((run > 1)) && suffix=host_wait.$run
    TORCH_SYNC_HOST_WAIT=1 TORCH_SYNC_OBSERVATIONS=$build/logs/$name.$suffix.json TORCH_SYNC_SOURCE_ROOT=$root \
      timeout -k 10 "$timeout_s" "$exe" >"$build/logs/$name.$suffix.stdout" 2>"$build/logs/$name.$suffix.stderr"
    host_wait_rc+="${host_wait_rc:+,}$?"
  done
  milliseconds=$((($(date +%s%N) - start) / 1000000))
  if ((rc == 124 || rc == 137)); then
    status=hang
  elif ((rc > 128)); then
    status="crash (signal $((rc - 128)))"
  elif ((rc != 0)); then
    status="exit $rc"
  else
    status=ok
  fi
  [[ $status == ok ]] || failed=1
  echo "runtime-verify: $name: $status" >&2
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$status" "$rc" "$milliseconds" "$host_wait_rc" >>"$status_file"
done

# The loop benchmark (only when every sample was asked for): iterations per second and GPU idle fraction of the
# talk's minimal loop, healthy / printing / repaired, with Chrome traces.
if (($# == 0)) && [[ -x $build/loop_benchmark ]]; then
  mkdir -p "$out/loop_benchmark"
  if timeout -k 10 "$timeout_s" "$build/loop_benchmark" "$out/loop_benchmark" >"$build/logs/loop_benchmark.stdout" \
    2>"$build/logs/loop_benchmark.stderr"; then
    echo "runtime-verify: loop_benchmark: ok" >&2
    relativize_paths "$out"/loop_benchmark/*.json
  else
    echo "runtime-verify: loop_benchmark: failed (status $?; see $build/logs/loop_benchmark.stderr)" >&2
    failed=1
  fi
fi

# The traced samples (with --traces): each whole run under the profiler, with its operators' stacks.
if ((traces_only)); then
  mkdir -p "$out/traces"
  for exe in "$build"/traced/trace_*; do
    [[ -x $exe ]] || continue
    name=$(basename "$exe")
    name=${name#trace_}
    rm -f "$out/traces/$name.json" "$out/traces/$name.stacks.json"
    if TORCH_SYNC_TRACE=$out/traces/$name TORCH_SYNC_SOURCE_ROOT=$root timeout -k 10 "$timeout_s" "$exe" \
      >"$build/logs/trace_$name.stdout" 2>"$build/logs/trace_$name.stderr"; then
      echo "runtime-verify: trace_$name: ok" >&2
      relativize_paths "$out/traces/$name.json" "$out/traces/$name.stacks.json"
      # Gzipped, as committed (torch-sync-trace reads .json.gz); box_filtering's are too large and ignored.
      gzip -9 -n -f "$out/traces/$name.json" "$out/traces/$name.stacks.json"
    else
      echo "runtime-verify: trace_$name: failed (status $?; see $build/logs/trace_$name.stderr)" >&2
      failed=1
    fi
  done
  # The printing loop in Python, whose trace carries the Python stacks (with_stack=True).
  if timeout -k 10 "$timeout_s" "$python" "$here/python_trace_loop.py" "$out/traces" \
    >"$build/logs/python_trace_loop.stdout" 2>"$build/logs/python_trace_loop.stderr"; then
    echo "runtime-verify: python_trace_loop: ok" >&2
    relativize_paths "$out/traces/python_printing.json"
    gzip -9 -n -f "$out/traces/python_printing.json"
  else
    echo "runtime-verify: python_trace_loop: failed (status $?; see $build/logs/python_trace_loop.stderr)" >&2
    failed=1
  fi
  echo "runtime-verify: traces in $out" >&2
  exit $failed
fi

# Per-sample run status into each JSON (a stub where the program wrote none; a crashed run's observations up to
# the crash, marked "ended", are kept as they are), and the metadata file.
"$python" - "$out" "$build" "$status_file" "$root" <<'EOF'
import datetime, json, os, platform, re, subprocess, sys
out, build, status_file, root = sys.argv[1:5]
import torch

runs = []
for line in open(status_file):
    name, status, rc, milliseconds, host_wait_rc = line.rstrip("\n").split("\t")
    stderr_path = os.path.join(build, "logs", name + ".stderr")
    stderr = open(stderr_path, errors="replace").read() if os.path.exists(stderr_path) else ""
    run = {
        "status": status,
        "exit_code": int(rc) if rc else None,
        "seconds": round(int(milliseconds) / 1000, 2) if milliseconds else None,
        # Sync debug mode warnings from threads other than the main one reach c10's default handler,
        # which prints them: they are counted here, without a source line.
        "sdm_warnings_in_stderr": stderr.count("called a synchronizing CUDA operation"),
        # The first host-wait run's status, and every run's when RV_HOST_WAIT_RUNS asked for several.
        "host_wait_exit_code": int(host_wait_rc.split(",")[0]) if host_wait_rc else None,
    }
    if host_wait_rc and "," in host_wait_rc:
        run["host_wait_exit_codes"] = [int(c) for c in host_wait_rc.split(",")]
    runs.append((name, run))
    path = os.path.join(out, name + ".json")
    try:
        data = json.load(open(path))
    except (OSError, ValueError):
        data = {"format": 1, "sample": name, "events": [], "note": "the program wrote no observations"}
    # A run that crashed after the recorder started: its observations up to the crash, marked "ended" by the
    # recorder; compare.py compares them (the crash stays a failure: run.status).
    if data.get("ended"):
        print("runtime-verify: %s: observations up to the crash (%s)" % (
            name, data["ended"].get("signal") or data["ended"].get("how")), file=sys.stderr)
    data["run"] = run
    # The recorder names the source root by its path on the machine that ran it; the committed observations
    # name it by the commit it was checked out at (RV_COMMIT), which is what makes them reproducible.
    if os.environ.get("RV_COMMIT"):
        data["source_root"] = "git:" + os.environ["RV_COMMIT"]
    # The host-wait pass's measurements join the first pass's events.
    try:
        probe = json.load(open(os.path.join(build, "logs", name + ".host_wait.json")))
        data["events"] += [e for e in probe.get("events", []) if e.get("signal") == "host_wait"]
        data.setdefault("signals", {})["host_wait"] = probe.get("signals", {}).get("host_wait", "off")
    except (OSError, ValueError):
        data.setdefault("signals", {})["host_wait"] = "no output"
    with open(path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")

def command(*args):
    try:
        return subprocess.run(args, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None

cache = {}
try:
    for line in open(os.path.join(build, "CMakeCache.txt")):
        m = re.match(r"^(CUPTI_LIBRARY|CMAKE_CXX_COMPILER):[A-Z]+=(.*)$", line.strip())
        if m:
            cache[m.group(1)] = m.group(2)
except OSError:
    pass
compiler = cache.get("CMAKE_CXX_COMPILER")
meta = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "torch": torch.__version__,
    "torch_cuda": torch.version.cuda,
    "gpu": torch.cuda.get_device_name(0),
    "driver": command("nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"),
    "nvcc": (re.findall(r"release ([0-9.]+)", command("nvcc", "--version") or "") or [None])[0],
    "cupti_library": cache.get("CUPTI_LIBRARY"),
    "compiler": (command(compiler, "--version") or "").splitlines()[0] if compiler else None,
    "host": platform.platform(),
    # RV_COMMIT names the harness commit where the tree was copied without its .git.
    "commit": os.environ.get("RV_COMMIT") or command("git", "-C", root, "rev-parse", "HEAD"),
    "samples": {name: run["status"] for name, run in runs},
}
with open(os.path.join(out, "metadata.json"), "w") as f:
    json.dump(meta, f, indent=2)
    f.write("\n")
EOF

echo "runtime-verify: observations in $out" >&2
exit $failed
