"""torch-sync-sarif: the checks over a compilation database, as a SARIF 2.1.0 log (shell/sarif.sh, whose
--help lists its options), run with bash, its Python modules on this Python (TORCH_SYNC_PYTHON)."""

from . import shell


def main(argv=None):
    return shell.run("sarif.sh", argv)


if __name__ == "__main__":
    raise SystemExit(main())
