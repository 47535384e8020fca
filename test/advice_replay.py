#!/usr/bin/env python3
"""Replays the checker's advice on the corpus of public fix commits (test/advice-corpus/, its README).

  advice_replay.py --tidy TORCH_SYNC_TIDY [--corpus DIR] [--cuda-flags 'FLAGS'] [--min-rate PCT]
                   [--require-findings] [--known-gap cNN]... -- FLAGS...

runs torch-sync-tidy (checks torch-sync-*) over the corpus's snippets.cpp with the compiler FLAGS (and over
snippets-cuda.cu, the rows that need the CUDA front end, with FLAGS and --cuda-flags), takes each finding on a
line marked '// sync: cNN', maps the advice of its 'consider ...' note to a fix class (ADVICE_CLASSES,
the one mapping from advice text to class), and compares it with the fix_class of row cNN of corpus.tsv, the
class of what the project's fix did. A row matches when it has a finding and the advice of every finding on its
line maps to the row's class. Prints one line per row and the match rate; the exit status is 1 when the rate is
below --min-rate, or with --require-findings when a row's syncing line got no finding (a row named by --known-gap
must get none: a known gap that gets a finding fails too, so that the list stays true), 2 on a usage or input
error.
"""
import argparse
import csv
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The fix class that an advice names, by how the advice starts (the first alternative it offers, the one a reader
# takes), first match wins. The texts are those of checker/facts/sync-facts.yaml: 'advice_by_use' and the facts'
# 'alternative' and 'alternative_in_loop'.
ADVICE_CLASSES = [
    (r"passing the size in", "size-passed-in"),
    (r"passing the number of classes", "size-passed-in"),
    (r"one pinned staging buffer", "staging-buffer"),
    (r"counting on the device", "device-reduction"),
    (r"a 'cub::DeviceReduce", "device-reduction"),
    (r"'cub::Device", "device-reduction"),
    (r"using the host values the tensor was made from", "host-value"),
    # 'opt.value_or(t.item())': the advice names the value the caller passed, on the host.
    (r"'[^']*\.has_value\(\) \? \*", "host-value"),
    (r"reducing on the device", "device-reduction"),
    (r"removing the copy, whose result nothing reads", "removed-read"),
    (r"an event recorded right after the asynchronous copy", "non-blocking-copy"),
    (r"removing the wait with the staging buffer", "removed-wait"),
    (r"removing it where the host reads no result", "removed-wait"),
    (r"keeping the (value|computation|index) on the device", "keep-on-device"),
    (r"comparing on the device", "keep-on-device"),
    (r"'at::(eq|isclose)\(", "keep-on-device"),
    (r"a non-blocking copy|a pinned host tensor and 'copy_\(src, /\*non_blocking=\*/true\)'", "non-blocking-copy"),
    (r"'(cudaMemcpy\w*Async|cuMemcpy\w*Async)'", "non-blocking-copy"),
    (r"'pin_memory\(\)'|'cudaMemcpyAsync' with pinned", "non-blocking-copy"),
]
FIX_CLASSES = {"size-passed-in", "staging-buffer", "device-reduction", "host-value", "keep-on-device",
               "non-blocking-copy", "removed-wait", "removed-read", "other"}

DIAGNOSTIC = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<kind>warning|note): (?P<text>.*)$")
SYNC_MARK = re.compile(r"//\s*sync:\s*(?P<id>c\d+)\b")


def advice_class(advice):
    """The fix class that an advice ("consider ..." without 'consider') names; 'other' when none."""
    for pattern, fix_class in ADVICE_CLASSES:
        if re.match(pattern, advice):
            return fix_class
    return "other"


def findings(output, source):
    """[(line, column, check, advice)]: the warnings of torch-sync-tidy's output in source, each with the text of
    the first 'consider ...' note that follows it."""
    found = []
    target = os.path.realpath(source)
    for text in output.splitlines():
        m = DIAGNOSTIC.match(text)
        if not m or os.path.realpath(m["file"]) != target:
            continue
        if m["kind"] == "warning":
            check = re.search(r"\[([\w-]+)\]$", m["text"])
            found.append([int(m["line"]), int(m["col"]), check[1] if check else "", None])
        elif found and found[-1][3] is None and m["text"].startswith("consider "):
            found[-1][3] = m["text"][len("consider "):]
    return [tuple(f) for f in found if f[2].startswith("torch-sync-")]


def sync_lines(source):
    """{row id: [line numbers]} of the '// sync: cNN' marks in source (a row may mark several lines)."""
    marks = {}
    with open(source) as f:
        for number, text in enumerate(f, 1):
            m = SYNC_MARK.search(text)
            if m:
                marks.setdefault(m["id"], []).append(number)
    return marks


def read_rows(corpus_tsv):
    """The rows of corpus.tsv, as dicts of its columns."""
    with open(corpus_tsv, newline="") as f:
        rows = [r for r in csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t")]
    for r in rows:
        if not r.get("id") or not r.get("fix_class"):
            raise ValueError(f"a row without id or fix_class: {r}")
    return rows


def run_tidy(tidy, source, flags):
    """{line: [(column, check, advice)]} of torch-sync-tidy's findings in source; None when it could not parse it."""
    run = subprocess.run([tidy, "--checks=-*,torch-sync-*", "--quiet", source, "--"] + flags,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if re.search(r": error: ", run.stdout):
        print(run.stdout, file=sys.stderr)
        return None
    by_line = {}
    for line, col, check, advice in findings(run.stdout, source):
        by_line.setdefault(line, []).append((col, check, advice or ""))
    return by_line


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tidy", required=True, help="torch-sync-tidy to run")
    ap.add_argument("--corpus", default=os.path.join(HERE, "advice-corpus"),
                    help="the corpus folder (corpus.tsv, snippets.cpp)")
    ap.add_argument("--cuda-flags", default="", help="flags added for snippets-cuda.cu, one string")
    ap.add_argument("--min-rate", type=float, help="fail below this match rate, in percent")
    ap.add_argument("--require-findings", action="store_true", help="fail when a syncing line got no finding")
    ap.add_argument("--known-gap", action="append", default=[], metavar="ID",
                    help="a row whose syncing line the checker is known not to report (with --require-findings)")
    ap.add_argument("flags", nargs="*", help="compiler flags, after '--'")
    args = ap.parse_args(argv)

    sources = [(os.path.join(args.corpus, "snippets.cpp"), args.flags)]
    cuda_source = os.path.join(args.corpus, "snippets-cuda.cu")
    if os.path.exists(cuda_source):
        sources.append((cuda_source, args.flags + shlex.split(args.cuda_flags)))
    try:
        rows = read_rows(os.path.join(args.corpus, "corpus.tsv"))
        # {row id: [(source, line)]}, and the findings of each source by line.
        marks, found_in = {}, {}
        for source, flags in sources:
            for row_id, lines in sync_lines(source).items():
                marks.setdefault(row_id, []).extend((source, line) for line in lines)
            found_in[source] = run_tidy(args.tidy, source, flags)
            if found_in[source] is None:
                raise ValueError(f"torch-sync-tidy could not analyse {source}")
    except (OSError, ValueError, KeyError) as e:
        print(f"advice_replay: {e}", file=sys.stderr)
        return 2
    unknown = sorted({r["fix_class"] for r in rows} - FIX_CLASSES)
    if unknown:
        print(f"note: fix classes no advice names: {', '.join(unknown)}")

    matched = 0
    missing = []
    for r in rows:
        if r["id"] not in marks:
            print(f"advice_replay: {r['id']}: no '// sync: {r['id']}' line in the snippets", file=sys.stderr)
            return 2
        found = [f for source, line in marks[r["id"]] for f in sorted(found_in[source].get(line, []))]
        classes = [advice_class(advice) for _, _, advice in found]
        ok = bool(found) and all(c == r["fix_class"] for c in classes)
        matched += ok
        if any(not found_in[source].get(line) for source, line in marks[r["id"]]):
            missing.append(r["id"])
        got = ", ".join(f"{check}: {c}" for (_, check, _), c in zip(found, classes)) or "no finding"
        print(f"{r['id']}\t{'match' if ok else 'MISS'}\t{r['fix_class']}\t{got}")
    rate = 100.0 * matched / len(rows) if rows else 0.0
    print(f"match rate: {matched}/{len(rows)} ({rate:.0f} %)")
    if missing:
        print(f"no finding on the syncing line: {', '.join(missing)}")
    status = 0
    if args.min_rate is not None and rate < args.min_rate:
        print(f"advice_replay: the match rate {rate:.0f} % is below {args.min_rate:.0f} %", file=sys.stderr)
        status = 1
    unexpected = sorted(set(missing) - set(args.known_gap))
    closed = sorted(set(args.known_gap) - set(missing))
    if args.require_findings and unexpected:
        print(f"advice_replay: syncing lines with no finding: {', '.join(unexpected)}", file=sys.stderr)
        status = 1
    if args.require_findings and closed:
        print(f"advice_replay: known gaps that now get a finding: {', '.join(closed)}", file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
