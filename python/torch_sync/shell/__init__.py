"""The package's bash tools (pre-commit-hook.sh, sarif.sh) and run(), which their Python launchers call."""

import os
import sys


def run(script, argv=None):
    """Replaces this process with bash SCRIPT ARGV (default: the command line's), SCRIPT one of this folder's,
    with TORCH_SYNC_PYTHON naming this Python so that the script runs the package's modules on it, and, unless
    set, TORCH_SYNC_TIDY naming the wheel's torch-sync-tidy where this package has one; returns only when bash
    cannot be started (exit status 127)."""
    from .. import resources
    argv = sys.argv[1:] if argv is None else list(argv)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), script)
    env = dict(os.environ, TORCH_SYNC_PYTHON=sys.executable)
    tidy = resources.executable("torch-sync-tidy")
    if tidy and not env.get("TORCH_SYNC_TIDY"):
        env["TORCH_SYNC_TIDY"] = tidy
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvpe("bash", ["bash", path] + argv, env)
    except OSError as e:
        print("torch-sync: cannot run bash for %s: %s" % (script, e.strerror or e), file=sys.stderr)
        return 127
