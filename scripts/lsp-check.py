#!/usr/bin/env python3
"""torch-sync-lsp-check from this checkout, without installing it: python/torch_sync/lsp_check.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, "python"))
from torch_sync.lsp_check import main  # noqa: E402 (after the path is set)

sys.exit(main())
