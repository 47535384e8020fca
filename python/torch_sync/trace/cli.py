"""The command line of torch-sync-trace: reads the traces, runs the analysis, writes the outputs.
Manual: docs/trace.md. Run as torch-sync-trace, python3 -m torch_sync.trace.cli, or scripts/torch-sync-trace
in a checkout.

main() takes sys.argv (see parse_args()). Returns an exit status: 0 done, 2 unreadable or unusable input
(one line "torch-sync-trace: error: ..." per problem on stderr, and no output written).
An output (--json, --svg, --rewrite) that is one of the input files is refused; each output is
written to a temporary file in its folder and moved into place only once all are written, so a
failed run leaves no file half-written.
"""

import argparse
import json
import os
import sys
import tempfile

from . import analysis, report, svg_timeline, trace_rewrite
from .findings_join import FindingsError, load_findings
from .nsys_reader import is_sqlite
from .source_lines import StacksError, load_stacks
from .trace_reader import TraceError, read_trace

PROG = "torch-sync-trace"
# Debian's python3-ijson (scripts/install-deps.sh) serves Debian's Python: where the python3 that runs this
# lacks ijson (a virtual environment, pyenv), run on /usr/bin/python3 instead when that one has it, so that
# large traces are still read in bounded memory.
DEBIAN_PYTHON = "/usr/bin/python3"


def rerun_where_ijson_is(argv):
    """Replaces this process with DEBIAN_PYTHON -m torch_sync.trace.cli ARGV when this Python lacks ijson and
    that one has it (and can import this package, through PYTHONPATH); returns otherwise."""
    if os.environ.get("TORCH_SYNC_TRACE_NO_IJSON") or os.environ.get("TORCH_SYNC_TRACE_RERUN"):
        return
    try:
        import ijson  # noqa: F401 (only whether it is there)
        return
    except ImportError:
        pass
    if not os.access(DEBIAN_PYTHON, os.X_OK) or os.path.realpath(sys.executable) == os.path.realpath(DEBIAN_PYTHON):
        return
    import subprocess
    if subprocess.run([DEBIAN_PYTHON, "-c", "import ijson"], capture_output=True).returncode != 0:
        return
    from .. import resources
    env = resources.python_env()
    env["TORCH_SYNC_TRACE_RERUN"] = "1"
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(DEBIAN_PYTHON, [DEBIAN_PYTHON, "-m", __package__ + ".cli"] + argv, env)


def parse_args(argv):
    """The options (docs/trace.md describes them)."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Attributes the GPU idle gaps of Kineto traces (and of Nsight Systems reports "
                               "exported to SQLite) to the host calls that waited and to the user's source lines.",
        epilog="Exit status: 0 done, 2 unusable input (one error line per problem). Manual: docs/trace.md.")
    parser.add_argument("traces", nargs="+", metavar="TRACE",
                        help="a Chrome/Kineto trace (.json or .json.gz), or the SQLite export of an Nsight Systems "
                             "report (nsys export --type sqlite), recognized by its content")
    parser.add_argument("--threshold-us", type=float, default=5.0, metavar="N",
                        help="smallest gap reported (default 5)")
    parser.add_argument("--window", metavar="NAME", help="measure inside the user_annotation NAME")
    parser.add_argument("--tolerance-us", type=float, default=2.0, metavar="N",
                        help="a wait that ended this long before the gap began still counts (default 2)")
    parser.add_argument("--async-margin-us", type=float, default=20.0, metavar="N",
                        help="an async copy that outlasts its copy by more than this waited (default 20)")
    parser.add_argument("--stacks", action="append", default=[], metavar="FILE",
                        help="a stacks file of the runtime recorder (repeatable; applied to every trace)")
    parser.add_argument("--findings", action="append", default=[], metavar="FILE",
                        help="the checker's SARIF log or clang-tidy export-fixes YAML (repeatable)")
    parser.add_argument("--label", action="append", default=[], metavar="TEXT",
                        help="the label of a trace, in the order of the traces (default: the file name)")
    parser.add_argument("--top", type=int, default=5, metavar="N", help="rows per ranking in the summary (default 5)")
    parser.add_argument("--gaps", action="store_true", help="also print a table of every gap")
    parser.add_argument("--json", metavar="OUT", help="write the JSON report")
    parser.add_argument("--svg", metavar="OUT", help="write a timeline picture of the traces")
    parser.add_argument("--rewrite", metavar="OUT",
                        help="write a copy of the (single) trace with the blocking calls on a track of their own")
    parser.add_argument("-q", "--quiet", action="store_true", help="no summary on stdout")
    args = parser.parse_intermixed_args(argv)
    if len(args.label) > len(args.traces):
        parser.error("more --label than traces")
    if args.rewrite and len(args.traces) != 1:
        parser.error("--rewrite takes one trace")
    if args.rewrite and is_sqlite(args.traces[0]):
        parser.error("--rewrite copies Kineto JSON traces only; %s is an SQLite file (an Nsight Systems export)"
                     % args.traces[0])
    if args.threshold_us < 0 or args.tolerance_us < 0 or args.async_margin_us < 0:
        parser.error("thresholds, tolerance and margin must not be negative")
    return args


def error(message):
    print("%s: error: %s" % (PROG, message), file=sys.stderr)


def load_inputs(args):
    """(stacks files, findings, errors): the side inputs, each bad file one error line."""
    stacks, findings, errors = [], [], []
    for path in args.stacks:
        try:
            stacks.append(load_stacks(path))
        except StacksError as problem:
            errors.append("%s: bad --stacks file: %s" % (path, problem))
    for path in args.findings:
        try:
            found, skipped = load_findings(path)
        except FindingsError as problem:
            errors.append("%s: bad --findings file: %s" % (path, problem))
            continue
        findings.extend(found)
        if skipped:
            print("%s: note: %s: %d finding%s skipped, of an unexpected shape: %s"
                  % (PROG, path, sum(skipped.values()), "" if sum(skipped.values()) == 1 else "s",
                     "; ".join("%s (%d)" % item for item in sorted(skipped.items()))), file=sys.stderr)
    return stacks, findings, errors


def analyse_traces(args, options, stacks, findings):
    """(TraceAnalysis per trace, errors)."""
    analyses, errors = [], []
    for index, path in enumerate(args.traces):
        label = args.label[index] if index < len(args.label) else analysis.default_label(path)
        try:
            data = read_trace(path)
            analyses.append(analysis.analyse(label, data, options, stacks, findings))
        except (TraceError, analysis.AnalysisError) as problem:
            errors.append("%s: %s" % (path, problem))
    return analyses, errors


class OutputFiles:
    """The outputs of a run, each written to a temporary file beside it until commit()."""

    def __init__(self):
        self.temps = []   # (temporary path, final path)

    def temp(self, path):
        """A new temporary file in the folder of `path`, to be renamed to it by commit()."""
        folder = os.path.dirname(os.path.abspath(path))
        try:
            handle, temp_path = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), suffix=".tmp", dir=folder)
        except OSError as problem:
            raise OSError(problem.errno, problem.strerror, path)
        os.close(handle)
        self.temps.append((temp_path, path))
        return temp_path

    def final_name(self, name):
        """The output path of a temporary file's path (other names as they are)."""
        return dict(self.temps).get(name, name)

    def commit(self):
        """Moves every temporary file to its final path, with the permissions of a new file."""
        mask = os.umask(0)
        os.umask(mask)
        for temp_path, path in self.temps:
            os.chmod(temp_path, 0o666 & ~mask)
            os.replace(temp_path, path)
        self.temps = []

    def discard(self):
        """Removes the temporary files left."""
        for temp_path, _ in self.temps:
            try:
                os.remove(temp_path)
            except OSError:
                pass
        self.temps = []


def output_clashes(args):
    """The errors for outputs that are an input file (writing them would destroy the input)."""
    inputs = list(args.traces) + list(args.stacks) + list(args.findings)
    errors = []
    for option, out in (("--json", args.json), ("--svg", args.svg), ("--rewrite", args.rewrite)):
        if not out or not os.path.exists(out):
            continue
        for path in inputs:
            if os.path.exists(path) and os.path.samefile(out, path):
                errors.append("%s %s: is an input file (%s); refusing to overwrite it" % (option, out, path))
                break
    return errors


def write_outputs(args, options, analyses, findings, files):
    """The summary, the gap table and the files asked for (as temporary files of `files`)."""
    ranked, unexplained = analysis.join_findings(analyses, findings)
    if args.json:
        with open(files.temp(args.json), "w", encoding="utf-8") as f:
            json.dump(report.json_report(analyses, ranked, unexplained, options, bool(args.findings)), f, indent=1,
                      default=report.json_default)
            f.write("\n")
    if args.svg:
        with open(files.temp(args.svg), "w", encoding="utf-8") as f:
            f.write(svg_timeline.render(analyses, options))
    moved = None
    if args.rewrite:
        moved = trace_rewrite.rewrite(analyses[0], files.temp(args.rewrite), args.rewrite.endswith(".gz"))
    files.commit()
    if not args.quiet:
        sys.stdout.write(report.summary_text(analyses, ranked, unexplained, options, args.top,
                                             bool(args.findings)))
    if args.gaps:
        sys.stdout.write("\n" + report.gaps_table(analyses))
    if moved is not None:
        print("%s: wrote %s: %d blocking call%s moved to their own tracks"
              % (PROG, args.rewrite, moved, "" if moved == 1 else "s"), file=sys.stderr)


def main(argv=None):
    """The command: ARGV (default: the command line's) run on a Python that has ijson where this one lacks it;
    returns the exit status (130 on an interrupt, 0 when stdout's reader went away)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    rerun_where_ijson_is(argv)
    try:
        return run(argv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def run(argv):
    args = parse_args(argv)
    options = analysis.Options(args.threshold_us, args.window, args.tolerance_us, args.async_margin_us)
    errors = output_clashes(args)
    if not errors:
        stacks, findings, errors = load_inputs(args)
    if not errors:
        analyses, errors = analyse_traces(args, options, stacks, findings)
    for message in errors:
        error(message)
    if errors:
        return 2
    files = OutputFiles()
    try:
        write_outputs(args, options, analyses, findings, files)
    except TraceError as problem:
        error("%s: %s" % (args.traces[0], problem))
        return 2
    except OSError as problem:
        error("cannot write %s: %s" % (files.final_name(problem.filename), problem.strerror or problem))
        return 2
    finally:
        files.discard()
    return 0


if __name__ == "__main__":
    sys.exit(main())
