#!/usr/bin/env python3
"""torch_sync.scan_report from this checkout, without installing it: python/torch_sync/scan_report.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, "python"))
from torch_sync.scan_report import main  # noqa: E402 (after the path is set)

sys.exit(main())
