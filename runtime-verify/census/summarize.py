#!/usr/bin/env python3
"""Turns the census's raw results into the committed tables that the checker reads.

  summarize.py [--results DIR] [--facts DIR]

reads DIR/aten.jsonl.gz (census.py; else DIR/aten.jsonl) and DIR/frontend.jsonl (frontend_census) and writes,
in the facts directory (default checker/facts):
  census-aten.tsv      one row per ATen overload: verdict always / depends / never / not-run, cases that
                       synchronized of cases run, the condition, the mechanism, the schema, and the verdict per
                       condition of the hand-written and varied cases (an eighth column, left out when none:
                       'weight absent => never 0/1 | weight present => always 1/1')
  census-frontend.tsv  one row per measured C++ frontend or CUDA API call: synchronizes yes / no / error
A case synchronizes when the host waited for the GPU sleep, the call made a synchronizing CUDA call, or the
sync debug mode warned (census.py's sync_calls and mechanism say what each means). The verdict is recomputed
from the raw signals here, so a change of that rule needs no new GPU run.
"""
import argparse
import collections
import gzip
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from census import mechanism, sync_calls  # noqa: E402

# A tensor with a zero-size dimension in a case's description ("T[0, 5]float32").
EMPTY_INPUT = re.compile(r"T\[(?:[0-9, ]*, )?0(?:, [0-9, ]*)?\]")
# The condition of an overload that syncs exactly on its non-empty inputs starts so.
NONEMPTY = "non-empty inputs:"

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def clean(text, limit):
    text = " ".join(str(text).split()).replace("\t", " ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def case_sync(case):
    return bool(case["waited"] or sync_calls(case["calls"], case["copies"]) or case["sdm"])


def verdict_of(synced, run):
    """always / never / depends for synced of run cases."""
    return "always" if synced == run else "never" if synced == 0 else "depends"


def condition_verdicts(cases):
    """The verdict per condition of the cases that name one (hand-written and varied cases), in the order the
    conditions were first measured: 'condition => verdict synced/run', joined by ' | '."""
    by_condition = {}
    for c in cases:
        if c.get("condition"):
            by_condition.setdefault(clean(c["condition"], 80).replace("|", "/"), []).append(case_sync(c))
    return " | ".join(f"{cond} => {verdict_of(sum(syncs), len(syncs))} {sum(syncs)}/{len(syncs)}"
                      for cond, syncs in by_condition.items())


def aten_rows(records):
    rows = []
    for r in records:
        cases = r["cases"]
        if not cases:
            reason = "; ".join(r["errors"][:1]) or "no input fitted"
            rows.append((r["overload"], r["kernel"], "not-run", "0/0", clean(reason, 160), "", r.get("schema", ""),
                         ""))
            continue
        synced = [c for c in cases if case_sync(c)]
        calm = [c for c in cases if not case_sync(c)]
        if synced and calm and all(EMPTY_INPUT.search(c["case"]) for c in calm) and \
                not any(EMPTY_INPUT.search(c["case"]) for c in synced):
            # Only the cases with an empty tensor did not sync: the condition is a non-empty input.
            verdict = "depends"
            condition = (f"{NONEMPTY} every case with non-empty tensors synced, every case with an empty one did not: "
                         f"{'; '.join(c['case'] for c in synced[:2])}")
        elif synced and calm:
            verdict = "depends"
            condition = (f"syncs: {'; '.join(c['case'] for c in synced[:2])} | "
                         f"no sync: {'; '.join(c['case'] for c in calm[:2])}")
        elif synced:
            verdict = "always"
            condition = f"every case: {'; '.join(c['case'] for c in synced[:2])}"
        else:
            verdict = "never"
            condition = f"every case: {'; '.join(c['case'] for c in calm[:2])}"
        mech = ""
        if synced:
            # The mechanism of the first syncing case with non-empty tensors (empty ones often take a short
            # path), else the most common one.
            full = [c for c in synced if not EMPTY_INPUT.search(c["case"])]
            counts = collections.Counter(
                mechanism(c["calls"], c["copies"], c["sdm"], c["waited"]) for c in synced)
            mech = (mechanism(full[0]["calls"], full[0]["copies"], full[0]["sdm"], full[0]["waited"]) if full
                    else counts.most_common(1)[0][0])
        rows.append((r["overload"], r["kernel"], verdict, f"{len(synced)}/{len(cases)}", clean(condition, 240),
                     clean(mech, 160), r.get("schema", ""), condition_verdicts(cases)))
    return rows


def frontend_rows(lines):
    rows = []
    for r in lines:
        if "error" in r and "seen" not in r:
            rows.append((r["function"], r["arguments"], "error", clean(r["error"], 160)))
            continue
        seen = r["seen"]
        sync = bool(r["waited"] or sync_calls(seen["calls"], seen["copies"]) or r["sdm"])
        mech = mechanism(seen["calls"], seen["copies"], r["sdm"], r["waited"])
        if r.get("error"):
            mech = f"{mech}; raised: {clean(r['error'], 80)}".lstrip("; ")
        rows.append((r["function"], r["arguments"], "yes" if sync else "no", clean(mech, 160)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(HERE, "results"))
    ap.add_argument("--facts", default=os.path.join(ROOT, "checker", "facts"))
    args = ap.parse_args()
    aten = os.path.join(args.results, "aten.jsonl.gz")
    if not os.path.exists(aten) and os.path.exists(aten[:-3]):
        aten = aten[:-3]  # a run's own output, not yet compressed
    with (gzip.open if aten.endswith(".gz") else open)(aten, "rt") as f:
        records = [json.loads(line) for line in f if line.strip()]
    meta = records[0]["meta"]
    records = sorted(records[1:], key=lambda r: r["overload"])
    origin = (f"torch {meta['torch']}, CUDA {meta['cuda']}, {meta['gpu']}, {meta['date']}; "
              f"made by runtime-verify/census/summarize.py from runtime-verify/census/results/")
    rows = aten_rows(records)
    verdicts = collections.Counter(r[2] for r in rows)
    cuda_run = sum(1 for r in rows if r[1] == "cuda" and r[2] != "not-run")
    with open(os.path.join(args.facts, "census-aten.tsv"), "w") as out:
        out.write(f"# ATen operator census: {origin}\n")
        out.write(f"# {meta['overloads']} overloads of {meta['all_aten']} aten operators: "
                  f"{meta['with_cuda_kernel']} with a "
                  f"CUDA kernel ({cuda_run} run), {meta['composite']} composite; verdicts: "
                  + ", ".join(f"{k} {verdicts[k]}" for k in ("always", "depends", "never", "not-run")) + "\n")
        out.write("# columns: overload, kernel, verdict, cases synced/run, condition (the measured inputs), "
                  "mechanism, schema, verdict per condition (condition => verdict synced/run | ...)\n")
        for row in rows:
            # The eighth column only where a case named a condition: the rows of a census without hand-written
            # or varied cases keep their seven columns.
            out.write("\t".join(row if row[7] else row[:7]) + "\n")
    with open(os.path.join(args.results, "frontend.jsonl")) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    with open(os.path.join(args.facts, "census-frontend.tsv"), "w") as out:
        out.write(f"# C++ frontend and CUDA API census: {origin}\n")
        out.write("# columns: function, arguments measured, synchronizes (yes / no / error), mechanism\n")
        for row in frontend_rows(lines):
            out.write("\t".join(row) + "\n")
    print(f"census-aten.tsv: {len(rows)} overloads; " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))


if __name__ == "__main__":
    main()
