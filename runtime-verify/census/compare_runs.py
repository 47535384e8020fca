#!/usr/bin/env python3
"""What changed between two census runs of the ATen half.

  compare_runs.py OLD NEW [--cuda-only]

OLD and NEW are census.py results (aten.jsonl or aten.jsonl.gz; the committed run is
runtime-verify/census/results/aten.jsonl.gz). Both are summarized with summarize.py's rules, then the report
lists: the verdict counts of each run; the overloads whose verdict changed (with the new per-condition
verdicts); the overloads that ran in NEW only (newly run) and in OLD only; and, for every overload of NEW whose
conditions disagree (some condition always synchronized, another never), its verdict per condition: the
arguments that decide. Exit status 0; the report goes to stdout.
"""
import argparse
import collections
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarize import aten_rows  # noqa: E402


def load(path):
    """(meta, {overload: row}) of a results file; rows as summarize.aten_rows writes them."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        records = [json.loads(line) for line in f if line.strip()]
    meta = records[0].get("meta", {}) if records and "meta" in records[0] else {}
    records = [r for r in records if "overload" in r]
    return meta, {row[0]: row for row in aten_rows(sorted(records, key=lambda r: r["overload"]))}


def deciding(row):
    """Whether the per-condition verdicts of a row disagree: some condition always, another never."""
    verdicts = {part.rpartition(" => ")[2].split(" ")[0] for part in row[7].split(" | ") if part} if row[7] else set()
    return "always" in verdicts and "never" in verdicts or "depends" in verdicts and len(verdicts) > 1


def report(old_meta, old, new_meta, new, cuda_only):
    lines = []
    keep = (lambda row: row[1] == "cuda") if cuda_only else (lambda row: True)
    names = sorted(set(old) | set(new))
    lines.append(f"OLD: {old_meta.get('torch', '?')} on {old_meta.get('gpu', '?')}, {old_meta.get('date', '?')}; "
                 f"NEW: {new_meta.get('torch', '?')} on {new_meta.get('gpu', '?')}, {new_meta.get('date', '?')}"
                 + (" (overloads with a CUDA kernel only)" if cuda_only else ""))
    for label, rows in (("OLD", old), ("NEW", new)):
        counts = collections.Counter(r[2] for r in rows.values() if keep(r))
        lines.append(f"{label} verdicts: " + ", ".join(f"{k} {counts[k]}"
                                                       for k in ("always", "depends", "never", "not-run")))
    changed, newly, lost = [], [], []
    for n in names:
        o, w = old.get(n), new.get(n)
        if w is None or not keep(w):
            continue
        if (o is None or o[2] == "not-run") and w[2] != "not-run":
            newly.append(w)
        elif o is not None and o[2] != "not-run" and w[2] == "not-run":
            lost.append((o, w))
        elif o is not None and o[2] != w[2]:
            changed.append((o, w))
    lines.append("")
    lines.append(f"## Verdict changed ({len(changed)})")
    for o, w in changed:
        lines.append(f"- {w[0]}: {o[2]} {o[3]} -> {w[2]} {w[3]}" + (f"; per condition: {w[7]}" if w[7] else ""))
    lines.append("")
    lines.append(f"## Newly run ({len(newly)})")
    for w in newly:
        lines.append(f"- {w[0]} [{w[1]}]: {w[2]} {w[3]}" + (f"; per condition: {w[7]}" if w[7] else
                                                             f"; {w[4][:160]}"))
    lines.append("")
    lines.append(f"## Ran in OLD, not in NEW ({len(lost)})")
    for o, w in lost:
        lines.append(f"- {w[0]}: was {o[2]} {o[3]}; now: {w[4][:160]}")
    decided = [w for n, w in sorted(new.items()) if keep(w) and deciding(w)]
    lines.append("")
    lines.append(f"## Conditions that decide in NEW ({len(decided)})")
    for w in decided:
        lines.append(f"- {w[0]} ({w[2]}): {w[7]}")
    still = [w for w in new.values() if keep(w) and w[2] == "not-run"]
    lines.append("")
    lines.append(f"## Still not run in NEW ({len(still)})")
    for w in sorted(still)[:400]:
        lines.append(f"- {w[0]}: {w[4][:140]}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--cuda-only", action="store_true", help="only the overloads with a CUDA kernel")
    args = ap.parse_args()
    old_meta, old = load(args.old)
    new_meta, new = load(args.new)
    sys.stdout.write(report(old_meta, old, new_meta, new, args.cuda_only))


if __name__ == "__main__":
    main()
