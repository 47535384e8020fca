"""torch-sync-pre-commit: the pre-commit hook (shell/pre-commit-hook.sh, whose --help lists its options), run
with bash, its Python modules on this Python (TORCH_SYNC_PYTHON)."""

from . import shell


def main(argv=None):
    return shell.run("pre-commit-hook.sh", argv)


if __name__ == "__main__":
    raise SystemExit(main())
