"""The command line of torch-sync-trace: reads the traces, runs the analysis, writes the outputs.

Takes: sys.argv (see usage()). Returns an exit status: 0 done, 2 unreadable or unusable input
(one line "torch-sync-trace: error: ..." per problem on stderr, and no output written).
"""

import argparse
import json
import sys

import analysis
import report
import svg_timeline
import trace_rewrite
from findings_join import FindingsError, load_findings
from source_lines import StacksError, load_stacks
from trace_reader import TraceError, read_trace

PROG = "torch-sync-trace"


def parse_args(argv):
    """The options (docs/trace.md describes them)."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Attributes the GPU idle gaps of Kineto traces to the host calls that waited "
                               "and to the user's source lines.",
        epilog="Exit status: 0 done, 2 unusable input (one error line per problem). Manual: docs/trace.md.")
    parser.add_argument("traces", nargs="+", metavar="TRACE", help="a Chrome/Kineto trace (.json or .json.gz)")
    parser.add_argument("--threshold-us", type=float, default=5.0, metavar="N", help="smallest gap reported (default 5)")
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
            findings.extend(load_findings(path))
        except FindingsError as problem:
            errors.append("%s: bad --findings file: %s" % (path, problem))
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


def write_outputs(args, options, analyses, findings):
    """The summary, the gap table and the files asked for."""
    ranked, unexplained = analysis.join_findings(analyses, findings)
    if not args.quiet:
        sys.stdout.write(report.summary_text(analyses, ranked, unexplained, options, args.top,
                                             bool(args.findings)))
    if args.gaps:
        sys.stdout.write("\n" + report.gaps_table(analyses))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report.json_report(analyses, ranked, unexplained, options, bool(args.findings)), f, indent=1,
                      default=report.json_default)
            f.write("\n")
    if args.svg:
        with open(args.svg, "w", encoding="utf-8") as f:
            f.write(svg_timeline.render(analyses, options))
    if args.rewrite:
        moved = trace_rewrite.rewrite(analyses[0], args.rewrite)
        print("%s: wrote %s: %d blocking call%s moved to their own track"
              % (PROG, args.rewrite, moved, "" if moved == 1 else "s"), file=sys.stderr)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    options = analysis.Options(args.threshold_us, args.window, args.tolerance_us, args.async_margin_us)
    stacks, findings, errors = load_inputs(args)
    if not errors:
        analyses, errors = analyse_traces(args, options, stacks, findings)
    for message in errors:
        error(message)
    if errors:
        return 2
    try:
        write_outputs(args, options, analyses, findings)
    except TraceError as problem:
        error("%s: %s" % (args.traces[0], problem))
        return 2
    except OSError as problem:
        error("cannot write %s: %s" % (problem.filename, problem.strerror))
        return 2
    return 0
