#!/usr/bin/env bash
# scripts/sarif.sh: torch-sync-sarif from this checkout: the package's python/torch_sync/shell/sarif.sh (its --help).
exec bash "$(dirname "${BASH_SOURCE[0]}")/../python/torch_sync/shell/sarif.sh" "$@"
