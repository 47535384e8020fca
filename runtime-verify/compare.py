#!/usr/bin/env python3
"""Compares the checker's findings on samples/ with the syncs observed on a GPU.

Runs torch-sync-tidy (or clang-tidy with the plugin) over every sample, reads its findings from clang-tidy's
--export-fixes YAML, and matches them line by line with the observations that runtime-verify/run.sh recorded
(runtime-verify/observations/*.json). Writes a report as JSON and Markdown: per sample and per rule, true
positives (flagged, sync seen), false positives (flagged, no sync seen) and false negatives (sync seen, not
flagged); totals with precision and recall; and the lines where the signals disagree.

Exit status: 0 when every disagreement is listed in the known-disagreements file (and every listed one still
occurs) and the sync figures without the listed ones meet --min-precision / --min-recall (both figures are
reported); 1 when not; 2 on bad input.

A sync is an observed event with blocks_host true: a waiting CUDA call seen by CUPTI (unless the host-wait test
measured that call on that line as returning before the GPU work queued ahead of it had finished), a sync debug
mode warning, or a call the host-wait test measured as waiting. It belongs to every samples/ line on its stack
("sample_frames"), so a sync inside a helper function is also a sync of each line that calls the helper.
A finding is a true positive when its line is on the stack of an observed sync. An observed sync is found
when some finding lies on one of its lines. Lines inside a preprocessor conditional on TORCH_VERSION are left
out on both sides: the GPU and the checker may see different branches of them.

Capture failures are compared apart: a CUDA call that returned a stream capture error, or a LibTorch check
that refused a call inside a capture (kind "exception"; the recorder's "capture_failure" events; only each
capture's cause, not the "consequence" that cudaStreamEndCapture reports for an invalidated capture) with
torch-sync-graph-capture's findings, which no sync comparison counts. A
graph-capture finding on the stack of a failing call is a true positive, one on no such stack a false
positive, and a failing call with no finding on its stack a false negative. A call that failed capture may
have thrown before it could sync (item() inside a capture fails at its copy or its synchronize): another
check's finding on its stack that no observed sync confirms is "unverified", not a false positive.

A run that crashed (std::terminate, abort() or a fatal signal) after the recorder had started has its
observations up to the crash, marked "ended" ({"how": "terminate"} or {"how": "signal", "signal": "SIGABRT"}):
they are compared as observations (their syncs count, found or missed), but a finding that no recorded sync
confirms is "unverified", not a false positive, since the run may have ended before reaching it; the crash
itself is a problem (exit 1). A run that wrote no observations is not compared.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:  # python3-yaml, installed by scripts/install-deps.sh
    sys.exit("compare: needs PyYAML (Debian package python3-yaml) to read clang-tidy's --export-fixes")

SIGNALS = ("cupti", "sdm", "host_wait")
# The check whose findings are compared with the observed capture failures rather than with the syncs.
CAPTURE_CHECK = "torch-sync-graph-capture"

# The two comparisons, findings against observed syncs and torch-sync-graph-capture's findings against observed
# capture failures, differ only in their words: the field that lists what saw each missed event ("signals", or
# the capture "errors"), the prefix of their disagreements' kinds, and the per-function verdicts.
SYNC_COMPARISON = {
    "details": "signals", "disagreement_prefix": "", "describe_apis": lambda miss: miss["apis"],
    "observed_field": "observed_sync", "function_fields": {},
    "verdicts": {"crashed": "unverified (no sync recorded before the run crashed)",
                 "missed": "MISSED (sync not flagged)", "false alarm": "FALSE ALARM (flagged, no sync)",
                 "quiet": "no sync on this GPU, not flagged", "after all, flagged": "syncs after all (flagged)",
                 "after all, not flagged": "SYNCS AFTER ALL (not flagged)"}}
CAPTURE_COMPARISON = {
    "details": "errors", "disagreement_prefix": "capture ",
    "describe_apis": lambda miss: [f"{a} ({', '.join(miss['errors'])})" for a in miss["apis"]],
    "observed_field": "observed_capture_failure", "function_fields": {"comparison": "capture"},
    "verdicts": {"crashed": "unverified (no capture failure recorded before the run crashed)",
                 "missed": "MISSED (capture failure not flagged)",
                 "false alarm": "FALSE ALARM (flagged, capture did not fail)",
                 "quiet": "capture did not fail on this GPU, not flagged",
                 "after all, flagged": "fails capture after all (flagged)",
                 "after all, not flagged": "FAILS CAPTURE AFTER ALL (not flagged)"}}


def fail(message):
    print(f"compare: error: {message}", file=sys.stderr)
    sys.exit(2)


def version_dependent_lines(path):
    """The 1-based line numbers inside '#if ... TORCH_VERSION ...' blocks (with their #else branches)."""
    lines = set()
    stack = []  # one bool per open conditional: whether it depends on TORCH_VERSION
    with open(path, errors="replace") as f:
        for number, text in enumerate(f, 1):
            directive = re.match(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b", text)
            if directive:
                kind = directive.group(1)
                if kind in ("if", "ifdef", "ifndef"):
                    stack.append("TORCH_VERSION" in text or (bool(stack) and stack[-1]))
                elif kind == "endif" and stack:
                    if stack[-1]:
                        lines.add(number)
                    stack.pop()
                    continue
            if stack and stack[-1]:
                lines.add(number)
    return lines


def line_of_offset(path, offset, cache={}):
    if path not in cache:
        with open(path, "rb") as f:
            data = f.read()
        cache[path] = [m.start() for m in re.finditer(b"\n", data)]
    import bisect
    return bisect.bisect_left(cache[path], offset) + 1


def run_checker(tidy, source, flags, config, root, pch=None, rejected=None):
    """Runs the checker on one file, with the precompiled header PCH if given (and again without
    it when clang rejects it: REJECTED matches what clang then says); returns (findings, error
    text or None)."""
    with tempfile.TemporaryDirectory() as scratch:
        fixes = os.path.join(scratch, "fixes.yaml")
        command = list(tidy) + ["--quiet", "--checks=-*,torch-sync-*", f"--export-fixes={fixes}"]
        if config:
            command.append(f"--config={config}")
        command += [source, "--"] + flags
        result = subprocess.run(command + (["-include-pch", pch] if pch else []), capture_output=True, text=True)
        if result.returncode != 0 and pch and rejected.search(result.stderr + result.stdout):
            result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            return [], f"exit {result.returncode}: " + (result.stderr + result.stdout).strip()[-2000:]
        if not os.path.exists(fixes):
            return [], None
        return read_fixes(fixes, root), None


def read_fixes(fixes, root):
    """The findings of a clang-tidy --export-fixes YAML file in files under root (a FilePath relative to
    root counts as such: recorded findings, --findings)."""
    with open(fixes) as f:
        document = yaml.safe_load(f) or {}
    findings = []
    for diagnostic in document.get("Diagnostics") or []:
        message = diagnostic.get("DiagnosticMessage", {})
        path = message.get("FilePath")
        if path and not os.path.isabs(path):
            path = os.path.join(root, path)
        if not path or not os.path.exists(path):
            continue
        path = os.path.realpath(path)
        if not path.startswith(root + os.sep):
            continue
        findings.append({
            "file": os.path.relpath(path, root),
            "line": line_of_offset(path, message.get("FileOffset", 0)),
            "check": diagnostic.get("DiagnosticName"),
            "message": message.get("Message", ""),
        })
    return findings


def sample_functions(path):
    """The rule_* and exempt_* functions of a per-rule sample: (name, first line, last line), by brace depth."""
    functions = []
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    number = 0
    while number < len(lines):
        match = re.match(r"^\S.*\b((?:rule|exempt)_\w+)\s*\(", lines[number])
        if not match:
            number += 1
            continue
        depth, seen_brace, last = 0, False, number
        for last in range(number, len(lines)):
            code = re.sub(r"//.*", "", lines[last])
            depth += code.count("{") - code.count("}")
            seen_brace = seen_brace or "{" in code
            if seen_brace and depth <= 0:
                break
        functions.append((match.group(1), number + 1, last + 1))
        number = last + 1
    return functions


def rule_of(finding):
    """The rule a finding belongs to: its check and the call it names ('torch-sync-item: item')."""
    called = re.match(r"'([^']+)'", finding["message"])
    return f"{finding['check']}: {called.group(1) if called else '?'}"


def source_of(root, sample, observation_file):
    """The sample's source file, relative to root: samples/<name>.cpp|.cu or samples/rules/<check>.cpp."""
    candidates = [f"samples/{sample}.cpp", f"samples/{sample}.cu"]
    if sample.startswith("rules_"):
        candidates.insert(0, f"samples/rules/{sample[len('rules_'):]}.cpp")
    for candidate in candidates:
        if os.path.exists(os.path.join(root, candidate)):
            return candidate
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tidy",
                        help="the checker command: torch-sync-tidy, or 'clang-tidy-N -load=PLUGIN' (split on spaces)")
    parser.add_argument("--findings", help="instead of running the checker: a folder of recorded findings, "
                        "<sample>.yaml in clang-tidy's --export-fixes format (FilePath relative to --root)")
    parser.add_argument("--observations", required=True, help="folder of <sample>.json and metadata.json")
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="repository root (default: the one holding this script)")
    parser.add_argument("--cxx-flags", default="", help="compiler flags for .cpp samples (one string)")
    parser.add_argument("--cuda-flags", default="", help="compiler flags for .cu samples (one string)")
    parser.add_argument("--libtorch-version", help="LibTorchVersion for the checker (default: the observations')")
    parser.add_argument("--known", help="JSON list of known disagreements, each documented as a limitation")
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    parser.add_argument("--out", help="folder for report.json and report.md (default: print the Markdown)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--pch-dir", help="share precompiled LibTorch headers between the samples "
                        "(python/torch_sync/torch_pch.py), kept in this folder; the findings are the same")
    parser.add_argument("--clangxx", help="the clang++ that builds them (default: the checker's LLVM release's)")
    args = parser.parse_args()
    if bool(args.tidy) == bool(args.findings):
        parser.error("give the checker (--tidy) or recorded findings (--findings), one of them")

    root = os.path.realpath(args.root)
    if not os.path.isdir(args.observations):
        fail(f"no observations folder '{args.observations}'")
    try:
        metadata = json.load(open(os.path.join(args.observations, "metadata.json")))
    except (OSError, ValueError) as e:
        fail(f"cannot read {os.path.join(args.observations, 'metadata.json')}: {e}")
    version = args.libtorch_version
    if not version:
        match = re.match(r"(\d+)\.(\d+)", metadata.get("torch", ""))
        if not match:
            fail("the observations' metadata names no torch version; pass --libtorch-version")
        version = f"{match.group(1)}.{match.group(2)}"
    config = "{CheckOptions: {LibTorchVersion: '%s'}}" % version
    tidy = args.tidy.split() if args.tidy else []

    # The observations, per sample.
    samples = {}
    for name in sorted(os.listdir(args.observations)):
        if not name.endswith(".json") or name == "metadata.json":
            continue
        data = json.load(open(os.path.join(args.observations, name)))
        sample = data.get("sample") or name[:-5]
        source = source_of(root, sample, name)
        if source is None:
            fail(f"observations '{name}' name sample '{sample}', which has no source under samples/")
        samples[sample] = {"source": source, "data": data}
    if not samples:
        fail(f"no observations in '{args.observations}'")
    for source in sorted(set(os.path.relpath(os.path.join(d, f), root)
                             for d, _, files in os.walk(os.path.join(root, "samples"))
                             for f in files if f.endswith((".cpp", ".cu")))):
        if source not in {s["source"] for s in samples.values()}:
            fail(f"{source} has no observations: run runtime-verify/run.sh on a GPU and commit them")

    def flags_of(source):
        return (args.cuda_flags if source.endswith(".cu") else args.cxx_flags).split()

    # The samples that share their flags and first LibTorch header share one precompiled header.
    pch_of, rejected = {}, None
    if args.pch_dir and tidy:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
        from torch_sync import torch_pch
        rejected = torch_pch.REJECTED
        clangxx = args.clangxx or torch_pch.clangxx_for(tidy)
        if not clangxx:
            fail("--pch-dir: no clang++ of the checker's LLVM release; pass --clangxx")
        units = [{"directory": root, "file": os.path.join(root, s["source"]),
                  "arguments": ["clang++"] + flags_of(s["source"]) + ["-c", os.path.join(root, s["source"])]}
                 for s in samples.values()]
        store = torch_pch.Store(args.pch_dir, clangxx,
                                log=lambda m, error=False: print("compare: " + m, file=sys.stderr))
        planned, stats = torch_pch.plan(units, store, root, jobs=max(1, args.jobs))
        print("compare: " + torch_pch.summary_line(stats), file=sys.stderr)
        pch_of = {f: p["pch"] for f, p in planned.items() if "pch" in p}

    # The checker's findings, per sample (in parallel: each file parses LibTorch's headers, or
    # loads the precompiled ones).
    def analyse(sample):
        source = samples[sample]["source"]
        path = os.path.join(root, source)
        if args.findings:
            fixes = os.path.join(args.findings, sample + ".yaml")
            return sample, (read_fixes(fixes, root), None) if os.path.exists(fixes) else ([], None)
        return sample, run_checker(tidy, path, flags_of(source), config, root, pch_of.get(path), rejected)

    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = dict((s, r) for s, r in pool.map(analyse, sorted(samples)))
    errors = {s: e for s, (_, e) in results.items() if e}
    if errors:
        for sample, error in errors.items():
            print(f"compare: the checker failed on {samples[sample]['source']}: {error}", file=sys.stderr)
        sys.exit(2)

    report = {"metadata": metadata, "libtorch_version_for_checker": version, "samples": {}, "rules": {},
              "disagreements": [], "signal_disagreements": [], "excluded": [], "not_run": [], "crashed": [],
              "unverified_after_capture_failure": [], "unwatched_captures": [], "unwatched_checks": []}
    totals = {"tp": 0, "fp": 0, "fn": 0, "found_syncs": 0}
    capture_totals = {"tp": 0, "fp": 0, "fn": 0, "found_failures": 0, "observed_failures": 0, "consequences": 0}
    for sample in sorted(samples):
        source = samples[sample]["source"]
        data = samples[sample]["data"]
        # torch-sync-graph-capture's findings are compared with the capture failures, the others with the syncs.
        capture_findings = [f for f in results[sample][0] if f["check"] == CAPTURE_CHECK]
        findings = [f for f in results[sample][0] if f["check"] != CAPTURE_CHECK]
        status = data.get("run", {}).get("status", "unknown")
        # Observations up to a crash (the recorder's "ended"): compared, its unconfirmed findings unverified.
        ended = data.get("ended")
        if ended:
            crash = {"sample": sample, "status": status, "ended": ended, "unverified": []}
            report["crashed"].append(crash)
        elif status != "ok":
            report["not_run"].append({"sample": sample, "status": status})
            continue
        excluded = {(source, n) for n in version_dependent_lines(os.path.join(root, source))}

        # The host-wait test's measurements, per line and call: a documented wait (CUPTI's reading) that was
        # measured as returning before the queued GPU work finished, and never as waiting, is not a sync.
        measured = {}
        for event in data.get("events", []):
            if event.get("signal") == "host_wait" and event.get("file"):
                measured.setdefault((event["file"], event["line"], event["api"]), set()).add(event.get("measured"))

        def measured_not_waiting(event):
            outcomes = measured.get((event["file"], event["line"], event["api"]), set())
            return event["signal"] == "cupti" and bool(outcomes) and "waited" not in outcomes

        # Observed syncs: one per innermost line, with every line of their stacks and the signals that saw them.
        syncs = {}
        signals_by_line = {}
        for event in data.get("events", []):
            if not event.get("file"):
                continue
            key = (event["file"], event["line"])
            seen = signals_by_line.setdefault(key, {})
            if event["signal"] == "host_wait":
                seen.setdefault("host_wait", set()).add(event.get("measured"))
            elif event.get("blocks_host") is True:
                seen.setdefault(event["signal"], set()).add(event["api"])
            if event.get("blocks_host") is not True or measured_not_waiting(event):
                continue
            add_observed(syncs, key, event, event["signal"])

        for key in sorted(set(syncs) & excluded):
            report["excluded"].append({"file": key[0], "line": key[1], "side": "observed"})
        syncs = {k: v for k, v in syncs.items() if k not in excluded}
        failures, consequences = capture_failures(data, excluded, report)
        on_failure_stack = set().union(*(f["frames"] for f in failures.values())) if failures else set()
        # A call that failed capture may have thrown before it could sync: a finding on its stack that no sync
        # confirms is neither confirmed nor refuted. (The sync disagreements go to the report after the capture
        # ones, below.)
        rows, found, sync_disagreements = match_findings(findings, syncs, SYNC_COMPARISON, excluded, ended,
                                                         crash if ended else None, report,
                                                         unverified=on_failure_stack)

        # Observations recorded before the recorder watched the CUDA calls that fail a capture cannot confirm or
        # refute a graph-capture finding: record the sample again. (Those recorded before it watched LibTorch's
        # failed checks, signals.capture_exception, miss the captures that a check refuses: such findings are
        # false positives unless listed as known.)
        if capture_findings and data.get("signals", {}).get("capture_failure") != "ok":
            report["unwatched_captures"].append({"sample": sample, "findings": len(capture_findings)})
            capture_findings = []
        # A recorder that meant to watch LibTorch's failed checks and could not: the refused captures are missing.
        checks_watch = data.get("signals", {}).get("capture_exception", "ok")
        if capture_findings and checks_watch != "ok":
            report["unwatched_checks"].append({"sample": sample, "status": checks_watch})
        capture_rows = compare_captures(capture_findings, failures, consequences, excluded, ended,
                                        crash if ended else None, report)
        capture_sample = bool(failures or consequences or capture_findings)
        # Per-rule samples: does each rule_* function sync and get flagged, and each exempt_* neither? In a
        # sample with capture failures or graph-capture findings: does each rule_* function fail capture and get
        # flagged by torch-sync-graph-capture, and each exempt_* neither?
        if capture_sample or source.startswith("samples/rules/"):
            observed, flagging, comparison = ((failures, capture_findings, CAPTURE_COMPARISON) if capture_sample
                                              else (syncs, findings, SYNC_COMPARISON))
            for name, first, last in sample_functions(os.path.join(root, source)):
                report.setdefault("functions", []).append(function_verdict(
                    source, name, (first, last), observed, flagging, comparison, excluded, ended))

        report["samples"][sample] = {
            "source": source, "observed_syncs": len(syncs), "found_syncs": found,
            "tp": len(rows["tp"]), "fp": len(rows["fp"]), "fn": len(rows["fn"]),
            "false_positives": rows["fp"], "false_negatives": rows["fn"],
        }
        if capture_sample:
            report["samples"][sample]["capture"] = capture_rows
            for field in ("tp", "fp", "fn", "found_failures", "observed_failures", "consequences"):
                capture_totals[field] += capture_rows[field]
        totals["tp"] += len(rows["tp"])
        totals["fp"] += len(rows["fp"])
        totals["fn"] += len(rows["fn"])
        totals["found_syncs"] += found
        report["disagreements"].extend(sync_disagreements)

        # Signals that disagree on a line: a documented wait that the sync debug mode did not report, or that
        # the host-wait test measured as returning early; a measured wait that no other signal calls one.
        for key, seen in sorted(signals_by_line.items()):
            if key in excluded:
                continue
            notes = []
            if "cupti" in seen and "sdm" not in seen:
                notes.append("CUPTI saw a wait (" + ", ".join(sorted(seen["cupti"])) + "); sync debug mode silent")
            outcomes = seen.get("host_wait", set())
            if "cupti" in seen and outcomes and "waited" not in outcomes:
                notes.append("documented as waiting, but the host-wait test measured no wait: not counted as a sync")
            if "waited" in outcomes and "cupti" not in seen and "sdm" not in seen:
                notes.append("the host-wait test measured a wait that CUPTI's reading and the sync debug mode "
                             "do not report")
            for note in notes:
                report["signal_disagreements"].append({"file": key[0], "line": key[1], "note": note})

    observed = totals["found_syncs"] + totals["fn"]
    flagged = totals["tp"] + totals["fp"]
    totals["observed_syncs"] = observed
    totals["precision"] = round(totals["tp"] / flagged, 4) if flagged else None
    totals["recall"] = round(totals["found_syncs"] / observed, 4) if observed else None
    report["totals"] = totals
    flagged = capture_totals["tp"] + capture_totals["fp"]
    capture_totals["precision"] = round(capture_totals["tp"] / flagged, 4) if flagged else None
    capture_totals["recall"] = (round(capture_totals["found_failures"] / capture_totals["observed_failures"], 4)
                                if capture_totals["observed_failures"] else None)
    report["capture_totals"] = capture_totals

    # Known disagreements: each one documented as a limitation in its check's page.
    problems = []
    if args.known:
        try:
            known = json.load(open(args.known))
        except (OSError, ValueError) as e:
            fail(f"cannot read the known disagreements '{args.known}': {e}")
        listed = {(k["kind"], k["file"], k["line"]) for k in known}
        actual = {(d["kind"], d["file"], d["line"]) for d in report["disagreements"]}
        for d in report["disagreements"]:
            d["known"] = (d["kind"], d["file"], d["line"]) in listed
        for k in known:
            if (k["kind"], k["file"], k["line"]) not in actual:
                problems.append(f"listed as known but no longer seen: {k['kind']} at {k['file']}:{k['line']} "
                                "(remove it from the list)")
    for d in report["disagreements"]:
        if not d.get("known"):
            problems.append(f"new {d['kind']} at {d['file']}:{d['line']}"
                            + (f" [{d['check']}]" if "check" in d else f" ({', '.join(d['apis'])})"))
    # The thresholds apply to the sync figures without the known disagreements (each documented as a limitation;
    # both figures are reported). The capture comparison has no thresholds: every capture disagreement not
    # listed is a problem of its own.
    for figures, prefix, found, seen in ((totals, "", totals["found_syncs"], observed),
                                         (capture_totals, "capture ", capture_totals["found_failures"],
                                          capture_totals["observed_failures"])):
        listed_fp = sum(1 for d in report["disagreements"] if d.get("known") and d["kind"] == prefix + "false positive")
        listed_fn = sum(1 for d in report["disagreements"] if d.get("known") and d["kind"] == prefix + "false negative")
        flagged = figures["tp"] + figures["fp"] - listed_fp
        figures["known_fp"], figures["known_fn"] = listed_fp, listed_fn
        figures["precision_without_known"] = round(figures["tp"] / flagged, 4) if flagged else None
        figures["recall_without_known"] = round(found / (seen - listed_fn), 4) if seen - listed_fn else None
    precision, recall = totals["precision_without_known"], totals["recall_without_known"]
    if precision is not None and precision < args.min_precision:
        problems.append(f"precision {precision:.4f} (without the known disagreements) is below {args.min_precision}")
    if recall is not None and recall < args.min_recall:
        problems.append(f"recall {recall:.4f} (without the known disagreements) is below {args.min_recall}")
    for entry in report["not_run"]:
        problems.append(f"sample {entry['sample']} did not run to completion on the GPU: {entry['status']}")
    for entry in report["unwatched_checks"]:
        problems.append(f"sample {entry['sample']}: the recorder did not watch LibTorch's failed checks "
                        f"(signals.capture_exception: {entry['status']}), so captures they refuse are missing: "
                        "record it again")
    for entry in report["unwatched_captures"]:
        problems.append(f"sample {entry['sample']} has {entry['findings']} torch-sync-graph-capture finding(s), but "
                        "its observations did not watch capture failures (signals.capture_failure): record it again")
    for entry in report["crashed"]:
        problems.append(f"sample {entry['sample']} crashed on the GPU ({entry['status']}; "
                        f"{ended_text(entry['ended'])}): the syncs recorded before are compared, "
                        f"{len(entry['unverified'])} finding(s) that none confirms are unverified")
    report["problems"] = problems

    markdown = render_markdown(report)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "report.json"), "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
        with open(os.path.join(args.out, "report.md"), "w") as f:
            f.write(markdown)
    else:
        sys.stdout.write(markdown)
    print(f"compare: precision {fmt(totals['precision'])}, recall {fmt(totals['recall'])} "
          f"({totals['tp']} true positives, {totals['fp']} false positives, {totals['fn']} false negatives; "
          f"{observed} observed syncs)", file=sys.stderr)
    if capture_totals["observed_failures"] or capture_totals["tp"] + capture_totals["fp"]:
        print(f"compare: capture failures: precision {fmt(capture_totals['precision'])}, recall "
              f"{fmt(capture_totals['recall'])} ({capture_totals['tp']} true positives, {capture_totals['fp']} "
              f"false positives, {capture_totals['fn']} false negatives; {capture_totals['observed_failures']} "
              f"observed failures)", file=sys.stderr)
    for figures, prefix in ((totals, ""), (capture_totals, "capture failures: ")):
        if figures["known_fp"] or figures["known_fn"]:
            print(f"compare: {prefix}without the {figures['known_fp']} known false positive(s) and "
                  f"{figures['known_fn']} known false negative(s): precision "
                  f"{fmt(figures['precision_without_known'])}, recall {fmt(figures['recall_without_known'])}",
                  file=sys.stderr)
    for problem in problems:
        print(f"compare: {problem}", file=sys.stderr)
    return 1 if problems else 0


def capture_failures(data, excluded, report):
    """The sample's observed capture failures: the causes, one per innermost line with every line of their
    stacks, the failing calls and their errors; and the consequences (cudaStreamEndCapture of an invalidated
    capture), which are listed, not compared."""
    failures, consequences = {}, []
    for event in data.get("events", []):
        if event.get("signal") != "capture_failure" or not event.get("file"):
            continue
        key = (event["file"], event["line"])
        if event.get("capture") != "cause":
            consequences.append({"file": key[0], "line": key[1], "api": event["api"], "error": event.get("error")})
            continue
        if key in excluded:
            report["excluded"].append({"file": key[0], "line": key[1], "side": "observed capture failure"})
            continue
        add_observed(failures, key, event, event.get("error") or "?")
    return failures, consequences


def add_observed(observed, key, event, detail):
    """Adds event, whose innermost sample line is key, to observed (syncs or capture failures, by that line):
    every sample line of its stack, its API, and detail (the signal that saw it, or the capture error)."""
    frames = [tuple(f.rsplit(":", 1)) for f in event.get("sample_frames") or [f"{key[0]}:{key[1]}"]]
    entry = observed.setdefault(key, {"frames": set(), "apis": set(), "details": set()})
    entry["frames"].update((f, int(n)) for f, n in frames)
    entry["apis"].add(event["api"])
    entry["details"].add(detail)


def match_findings(findings, observed, comparison, excluded, ended, crash, report, unverified=frozenset()):
    """One sample's findings against its observed events of one comparison (syncs, or capture failures): a finding
    on the stack of an observed event is a true positive, one on no such stack a false positive, and an event with
    no finding on its stack a false negative. Findings on excluded lines are listed as excluded; after a crash
    (crash: the report's entry, else None), a finding on no stack is unverified (maybe never reached), and so is one
    whose line is in unverified. Adds the per-rule counts to report. Returns the rows (tp, fp, fn lists), how many
    observed events were found, and the disagreements (false positives, then false negatives) for the report."""
    on_stack = set().union(*(o["frames"] for o in observed.values())) if observed else set()
    rows = {"tp": [], "fp": [], "fn": []}
    flagged_lines = set()
    for finding in findings:
        key = (finding["file"], finding["line"])
        if key in excluded:
            report["excluded"].append({"file": key[0], "line": key[1], "side": "finding", "check": finding["check"]})
            continue
        flagged_lines.add(key)
        if ended and key not in on_stack:
            crash["unverified"].append(finding)  # maybe never reached: the run crashed
            continue
        if key not in on_stack and key in unverified:
            report["unverified_after_capture_failure"].append(finding)
            continue
        verdict = "tp" if key in on_stack else "fp"
        rows[verdict].append(finding)
        rule = report["rules"].setdefault(rule_of(finding), {"tp": 0, "fp": 0, "fn": 0})
        rule[verdict] += 1
    found = 0
    for key, event in sorted(observed.items()):
        if event["frames"] & flagged_lines:
            found += 1
            continue
        rows["fn"].append({"file": key[0], "line": key[1], "apis": sorted(event["apis"]),
                           comparison["details"]: sorted(event["details"])})
    prefix = comparison["disagreement_prefix"]
    disagreements = [{"kind": prefix + "false positive", "file": finding["file"], "line": finding["line"],
                      "check": finding["check"], "message": finding["message"]} for finding in rows["fp"]]
    disagreements += [{"kind": prefix + "false negative", "file": miss["file"], "line": miss["line"],
                       "apis": comparison["describe_apis"](miss)} for miss in rows["fn"]]
    return rows, found, disagreements


def compare_captures(capture_findings, failures, consequences, excluded, ended, crash, report):
    """torch-sync-graph-capture's findings against the observed capture failures of one sample: the rows
    (true and false positives, false negatives) and counts; adds its disagreements and rules to report."""
    rows, found, disagreements = match_findings(capture_findings, failures, CAPTURE_COMPARISON, excluded, ended,
                                                crash, report)
    report["disagreements"].extend(disagreements)
    return {"observed_failures": len(failures), "found_failures": found, "tp": len(rows["tp"]),
            "fp": len(rows["fp"]), "fn": len(rows["fn"]), "false_positives": rows["fp"],
            "false_negatives": rows["fn"], "consequences": len(consequences), "consequence_calls": consequences}


def function_verdict(source, name, lines, observed, findings, comparison, excluded, ended):
    """Whether a rule_* function of a sample has an observed event (a sync, or a capture failure) and is flagged,
    and an exempt_* neither: one row of the report's "functions"."""
    first, last = lines

    def inside(key):
        return key[0] == source and first <= key[1] <= last
    happened = any(inside(frame) for event in observed.values() for frame in event["frames"])
    flags = sorted({f["check"] for f in findings if inside((f["file"], f["line"]))
                    and (f["file"], f["line"]) not in excluded})
    words = comparison["verdicts"]
    if all((source, n) in excluded for n in range(first, last + 1)):
        verdict = "left out (TORCH_VERSION conditional)"
    elif ended and not happened:
        verdict = words["crashed"]
    elif name.startswith("rule_"):
        verdict = {(True, True): "confirmed", (True, False): words["missed"], (False, True): words["false alarm"],
                   (False, False): words["quiet"]}[(happened, bool(flags))]
    else:
        verdict = {(False, False): "confirmed", (False, True): words["false alarm"],
                   (True, True): words["after all, flagged"],
                   (True, False): words["after all, not flagged"]}[(happened, bool(flags))]
    row = {"sample": source, "function": name, "lines": [first, last]}
    row.update(comparison["function_fields"])
    row.update({comparison["observed_field"]: happened, "flagged_by": flags, "verdict": verdict})
    return row


def ended_text(ended):
    """How a crashed run ended, from the recorder's "ended" object."""
    if ended.get("how") == "signal":
        return f"ended by {ended.get('signal', 'a signal')}"
    if ended.get("how") == "terminate":
        return "ended in std::terminate"
    return f"ended: {ended.get('how')}"


def fmt(value):
    return "n/a" if value is None else f"{100 * value:.1f} %"


def without_known(figures):
    """The figures without the known disagreements, as a sentence to append, or '' when none is listed."""
    if not figures.get("known_fp") and not figures.get("known_fn"):
        return ""
    return (f" Without the {figures['known_fp']} known false positive(s) and {figures['known_fn']} known false "
            f"negative(s) (runtime-verify/known-disagreements.json, each documented as a limitation): "
            f"**precision {fmt(figures['precision_without_known'])}, recall "
            f"{fmt(figures['recall_without_known'])}**.")


def render_markdown(report):
    meta = report["metadata"]
    t = report["totals"]
    out = [
        "# torch-sync findings against GPU observations",
        "",
        f"Observations: {meta.get('gpu')}, torch {meta.get('torch')}, CUDA {meta.get('torch_cuda')}, "
        f"{meta.get('date')}. Checker run with LibTorchVersion {report['libtorch_version_for_checker']}.",
        "",
        f"**Precision {fmt(t['precision'])}, recall {fmt(t['recall'])}**: {t['tp']} true positives, "
        f"{t['fp']} false positives, {t['fn']} false negatives, {t['observed_syncs']} observed syncs "
        f"({t['found_syncs']} found)." + without_known(t),
        "",
        "## Per sample",
        "",
        "| sample | observed syncs | found | TP | FP | FN |",
        "|---|---|---|---|---|---|",
    ]
    for name, s in sorted(report["samples"].items()):
        out.append(f"| `{s['source']}` | {s['observed_syncs']} | {s['found_syncs']} | {s['tp']} | {s['fp']} | "
                   f"{s['fn']} |")
    if any("capture" in s for s in report["samples"].values()):
        c = report["capture_totals"]
        out += ["", "## Capture failures (torch-sync-graph-capture)", "",
                f"**Precision {fmt(c['precision'])}, recall {fmt(c['recall'])}**: {c['tp']} true positives, "
                f"{c['fp']} false positives, {c['fn']} false negatives, {c['observed_failures']} observed capture "
                f"failures ({c['found_failures']} found); {c['consequences']} consequences (a call that reported "
                "an earlier failure of its capture) not compared." + without_known(c), "",
                "| sample | observed failures | found | TP | FP | FN | consequences |", "|---|---|---|---|---|---|---|"]
        for name, s in sorted(report["samples"].items()):
            if "capture" in s:
                k = s["capture"]
                out.append(f"| `{s['source']}` | {k['observed_failures']} | {k['found_failures']} | {k['tp']} | "
                           f"{k['fp']} | {k['fn']} | {k['consequences']} |")
    out += ["", "## Per rule (findings)", "", "| rule | TP | FP |", "|---|---|---|"]
    for rule, r in sorted(report["rules"].items()):
        out.append(f"| {rule} | {r['tp']} | {r['fp']} |")
    if report.get("functions"):
        out += ["", "## Rules and exemptions (samples/rules; capture failures where a sample has them)", "",
                "| sample | function | sync observed | flagged by | verdict |", "|---|---|---|---|---|"]
        for f in report["functions"]:
            observed = f.get("observed_sync", f.get("observed_capture_failure"))
            what = "capture failure: " if f.get("comparison") == "capture" else ""
            out.append(f"| `{f['sample']}:{f['lines'][0]}` | `{f['function']}` | "
                       f"{what}{'yes' if observed else 'no'} | {', '.join(f['flagged_by']) or '-'} | "
                       f"{f['verdict']} |")
    out += ["", "## Disagreements", ""]
    if not report["disagreements"]:
        out.append("None.")
    for d in report["disagreements"]:
        what = f"[{d['check']}] {d['message'][:140]}" if "check" in d else (
            ("capture failed in " if d["kind"].startswith("capture") else "sync via ") + ", ".join(d["apis"]))
        known = " (known limitation)" if d.get("known") else ""
        out.append(f"- {d['kind']}{known}: `{d['file']}:{d['line']}`: {what}")
    out += ["", "## Signals that disagree", ""]
    if not report["signal_disagreements"]:
        out.append("None.")
    for d in report["signal_disagreements"]:
        out.append(f"- `{d['file']}:{d['line']}`: {d['note']}")
    if report["unverified_after_capture_failure"]:
        out += ["", "## Unverified: the call failed capture before it could sync", ""]
        for f in report["unverified_after_capture_failure"]:
            out.append(f"- `{f['file']}:{f['line']}` [{f['check']}]")
    if report["excluded"]:
        out += ["", "## Left out (inside a TORCH_VERSION conditional)", ""]
        for e in report["excluded"]:
            out.append(f"- `{e['file']}:{e['line']}` ({e['side']})")
    if report["not_run"]:
        out += ["", "## Samples that did not run to completion", ""]
        for e in report["not_run"]:
            out.append(f"- `{e['sample']}`: {e['status']}")
    if report["crashed"]:
        out += ["", "## Samples that crashed (observations up to the crash)", ""]
        for e in report["crashed"]:
            lines = ", ".join(f"`{f['file']}:{f['line']}` [{f['check']}]" for f in e["unverified"])
            out.append(f"- `{e['sample']}`: {e['status']}, {ended_text(e['ended'])}; findings unverified: "
                       f"{lines or 'none'}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
