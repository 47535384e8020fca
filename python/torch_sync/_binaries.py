"""The console scripts torch-sync-tidy and torch-sync-clangd: they run the executables that the wheel
ships in torch_sync/bin (linked statically against LLVM, with Clang's built-in headers in
torch_sync/lib/clang/<major>/include, where the executables look for them)."""

import os
import sys

BIN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")


def executable(name):
    """The path of the wheel's executable `name` (torch-sync-tidy or torch-sync-clangd), or None when this
    torch_sync package has none (a source checkout: the build tree has them)."""
    path = os.path.join(BIN_DIR, name)
    return path if os.access(path, os.X_OK) else None


def _exec(name):
    path = executable(name)
    if path is None:
        sys.stderr.write(
            f"{name}: error: {os.path.join(BIN_DIR, name)} is missing: this torch_sync package was not installed "
            "from the torch-sync wheel (pip install torch-sync, or pip install . in a checkout)\n")
        return 2
    # exec, not a child process: an editor's LSP pipe and the exit status go straight to the executable.
    os.execv(path, [path] + sys.argv[1:])


def tidy():
    """Entry point of torch-sync-tidy: clang-tidy with the torch-sync checks."""
    return _exec("torch-sync-tidy")


def clangd():
    """Entry point of torch-sync-clangd: clangd with the torch-sync checks."""
    return _exec("torch-sync-clangd")
