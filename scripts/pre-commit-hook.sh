#!/usr/bin/env bash
# scripts/pre-commit-hook.sh: torch-sync-pre-commit from this checkout: the package's python/torch_sync/shell/pre-commit-hook.sh (its --help).
exec bash "$(dirname "${BASH_SOURCE[0]}")/../python/torch_sync/shell/pre-commit-hook.sh" "$@"
