"""Files the tools read besides their own code, in both layouts: an installed package (the wheel
ships them under torch_sync/data/) and a torch-sync checkout (python/torch_sync/ beside checker/,
docs/, ...), where they are read from the tree.

  path(packaged, in_checkout)   the first that exists of PACKAGE/data/<packaged> and
                                <checkout>/<in_checkout>, else None
  checkout()                    the checkout this package is in, or None when installed
  executable(name)              the wheel's executable as torch-sync-tidy (torch_sync/bin), or None
"""

import os

from . import _binaries

PACKAGE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(PACKAGE, "data")


def checkout():
    """The torch-sync checkout whose python/torch_sync this package is, or None (an installed package)."""
    python = os.path.dirname(PACKAGE)
    root = os.path.dirname(python)
    if os.path.basename(python) == "python" and os.path.isdir(os.path.join(root, "checker")):
        return root
    return None


def path(packaged, in_checkout=None):
    """The file or folder shipped as data/<packaged>, else <checkout>/<in_checkout>, else None."""
    candidates = [os.path.join(DATA, packaged)]
    root = checkout()
    if root and in_checkout:
        candidates.append(os.path.join(root, in_checkout))
    for candidate in candidates:
        if os.path.exists(candidate):
            return candidate
    return None


def cuda_host_prelude():
    """The CUDA host prelude (checker/cuda/torch-sync-cuda-host.h), force-included into CUDA units."""
    return path("cuda/torch-sync-cuda-host.h", "checker/cuda/torch-sync-cuda-host.h")


def docs_checks():
    """The folder of the checks' pages (docs/checks), read for the SARIF rules' texts, or None."""
    return path("docs/checks", "docs/checks")


def python_env(env=None):
    """ENV (default os.environ), copied, with the folder this package is in first on PYTHONPATH: what a child
    `python3 -m torch_sync.X` needs to import this same package."""
    env = dict(os.environ if env is None else env)
    parent = os.path.dirname(PACKAGE)
    env["PYTHONPATH"] = os.pathsep.join([parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def executable(name):
    """A path that runs as NAME where the wheel has one (torch-sync-tidy; _binaries.py), or None: a checkout (its
    build tree has them) or a package installed without them."""
    return _binaries.executable(name)
