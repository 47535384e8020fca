#!/usr/bin/env bash
# Runs inside the clean root (clean-root.sh copies it to /work and runs it under chroot): installs the wheel
# as a user does and runs each tool once, writing what each printed to /out (clean-root.checks asserts it).
set -uo pipefail
export HOME=/root LANG=C.UTF-8
# No index: the wheel and its dependency (PyYAML), pre-commit and the build tools pip needs for
# pre-commit's hook environment come from these folders.
export PIP_NO_INDEX=1 PIP_FIND_LINKS="/wheels /wheels/deps" PIP_DISABLE_PIP_VERSION_CHECK=1
inc=/opt/libtorch/include
step() { echo "clean-root: $*"; }

step "what the root lacks"
{
  for tool in cc c++ gcc g++ clang clang++ clang-tidy clangd ld pre-commit; do
    command -v "$tool" >/dev/null && echo "present: $tool" || echo "absent: $tool"
  done
  ls -d /usr/lib/llvm-* 2>/dev/null | sed 's/^/present: /'
  find / -xdev \( -name 'libLLVM*' -o -name 'libclang*' \) -print 2>/dev/null | sed 's/^/present: /'
} > /out/root.txt

step "pre-commit into a virtual environment of its own"
python3 -m venv /tools && /tools/bin/pip install pre-commit > /out/pip-pre-commit.txt 2>&1 ||
  { cat /out/pip-pre-commit.txt; exit 1; }
export PATH=$PATH:/tools/bin

step "pip install the wheel into a fresh virtual environment"
python3 -m venv /venv
/venv/bin/pip install /wheels/torch_sync-*.whl > /out/pip.txt 2>&1 || { cat /out/pip.txt; exit 1; }
export PATH=/venv/bin:$PATH

step "torch-sync-tidy --version"
torch-sync-tidy --version > /out/version.txt 2>&1
echo "exit $?" >> /out/version.txt
ldd "$(python3 -c 'import torch_sync._binaries as b; print(b.EXECUTABLE)')" > /out/ldd.txt 2>&1

step "torch-sync-tidy on a sample (<torch/torch.h>)"
torch-sync-tidy --checks='-*,torch-sync-*' /work/sample/metrics.cpp -- -std=c++17 -isystem "$inc" \
  -isystem "$inc/torch/csrc/api/include" > /out/sample.txt 2>&1
echo "exit $?" >> /out/sample.txt

step "torch-sync-tidy -p on a CMake project's compilation database"
torch-sync-tidy --checks='-*,torch-sync-*' -p /work/cmake-project/build /work/cmake-project/scores.cpp \
  > /out/cmake.txt 2>&1
echo "exit $?" >> /out/cmake.txt

step "torch-sync-sarif on the CMake project"
(cd /work/cmake-project && torch-sync-sarif -p build --srcroot . -o /out/scores.sarif) > /out/sarif.txt 2>&1
echo "exit $?" >> /out/sarif.txt
python3 -c 'import json, sys
log = json.load(open("/out/scores.sarif"))
for r in log["runs"][0]["results"]:
    loc = r["locations"][0]["physicalLocation"]
    print("result:", r["ruleId"], loc["artifactLocation"]["uri"], loc["region"]["startLine"])
for rule in log["runs"][0]["tool"]["driver"]["rules"]:
    print("rule:", rule["id"], "help" if rule.get("help", {}).get("markdown") else "no help")' >> /out/sarif.txt 2>&1

step "torch-sync-scan on the CMake project"
torch-sync-scan -p /work/cmake-project/build --torch-include "$inc" /work/cmake-project /out/scan > /out/scan.txt 2>&1
echo "exit $?" >> /out/scan.txt
grep -h "torch-sync-item" /out/scan/report.md >> /out/scan.txt 2>&1

step "torch-sync-trace on a profiler trace of the minimal loop"
torch-sync-trace /work/trace/trace_printing.json --stacks /work/trace/stacks_printing.json > /out/trace.txt 2>&1
echo "exit $?" >> /out/trace.txt

step "torch-sync-clangd over LSP"
(cd /work/editor && XDG_CONFIG_HOME=/work/editor/xdg torch-sync-lsp-check --clangd torch-sync-clangd t.cpp) \
  > /out/lsp.txt 2>&1
echo "exit $?" >> /out/lsp.txt

step "pre-commit: a commit with a sync, then its sync-free twin"
cd /work/hook-project
git add -A >/dev/null && git -c user.name=t -c user.email=t@t commit -qm sync
pre-commit run --all-files > /out/pre-commit-sync.txt 2>&1
echo "exit $?" >> /out/pre-commit-sync.txt
cp /work/threshold-fixed.cpp threshold.cpp && git add -A && git -c user.name=t -c user.email=t@t commit -qm fixed
pre-commit run --all-files > /out/pre-commit-fixed.txt 2>&1
echo "exit $?" >> /out/pre-commit-fixed.txt
step "pre-commit: a change to a header only (torch-sync-scan-deps finds the source that includes it)"
cp /work/threshold-sync.h threshold.h && git add -A && git -c user.name=t -c user.email=t@t commit -qm header
pre-commit run --files threshold.h > /out/pre-commit-header.txt 2>&1
echo "exit $?" >> /out/pre-commit-header.txt
# The hook's precompiled LibTorch header, built by torch-sync-clang, kept in the cache for the next commits.
ls /root/.cache/torch-sync/pch/*/libtorch.pch 2>&1 | sed 's|.*/|pch: |' >> /out/pre-commit-header.txt
step "done"
