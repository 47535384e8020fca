#!/usr/bin/env bash
# Runs the torch-sync checks over every translation unit of a LibTorch project and writes a
# report into OUTDIR. Usage: scripts/scan-project.sh [options] CHECKOUT OUTDIR; --help lists
# the options. torch-sync-scan from this checkout: python/torch_sync/scan_project.py parses
# them and runs the scan.
command -v python3 >/dev/null || { echo "scan-project: python3 not found" >&2; exit 2; }
PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")/../python" && pwd)${PYTHONPATH:+:$PYTHONPATH}" \
  exec python3 -m torch_sync.scan_project "$@"
