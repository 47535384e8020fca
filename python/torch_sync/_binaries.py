"""The console scripts that run the wheel's executable, torch_sync/bin/torch-sync (linked statically against LLVM,
with Clang's built-in headers in torch_sync/lib/clang/<major>/include, where it looks for them). It is each of
the programs below, by the name it runs as (checker/tool/MultiCallMain.cpp):

  torch-sync-tidy       clang-tidy with the torch-sync checks (also what it is under any other name)
  torch-sync-clangd     clangd with the torch-sync checks
  torch-sync-scan-deps  the subset of clang-scan-deps that the pre-commit hook uses for changed headers
  torch-sync-clang      a clang driver that precompiles headers (the batch tools' precompiled LibTorch headers)
"""

import os
import sys

BIN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")
EXECUTABLE = os.path.join(BIN_DIR, "torch-sync")


def executable(name):
    """A path that runs as `name` when executed as it is, or None: the wheel's executable for torch-sync-tidy (its
    default program); None for the others (run them through their console scripts, which name the program) and
    where this torch_sync package has no executable (a source checkout: the build tree has the programs)."""
    if name == "torch-sync-tidy" and os.access(EXECUTABLE, os.X_OK):
        return EXECUTABLE
    return None


def _exec(name):
    if not os.access(EXECUTABLE, os.X_OK):
        sys.stderr.write(
            f"{name}: error: {EXECUTABLE} is missing: this torch_sync package was not installed from the torch-sync "
            "wheel (pip install torch-sync, or pip install . in a checkout)\n")
        return 2
    # exec, not a child process: an editor's LSP pipe and the exit status go straight to the program, and argv[0]
    # names the program to be.
    os.execv(EXECUTABLE, [name] + sys.argv[1:])


def tidy():
    """Entry point of torch-sync-tidy."""
    return _exec("torch-sync-tidy")


def clangd():
    """Entry point of torch-sync-clangd."""
    return _exec("torch-sync-clangd")


def scan_deps():
    """Entry point of torch-sync-scan-deps."""
    return _exec("torch-sync-scan-deps")


def clang():
    """Entry point of torch-sync-clang."""
    return _exec("torch-sync-clang")
