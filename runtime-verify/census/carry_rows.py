#!/usr/bin/env python3
"""Completes a census run that stopped at --time-limit with an earlier run's rows.

  carry_rows.py NEW OLD --out MERGED

NEW and OLD are census.py results of the ATen half (aten.jsonl or aten.jsonl.gz). Each row of NEW that its
workers did not reach ("errors": ["not reached before --time-limit"]) is replaced by OLD's row of the same
overload, when OLD ran it (a row that OLD did not reach either stays as it is), marked with "carried_from":
OLD's date and GPU (its first line's meta; a row OLD had itself carried keeps its own). MERGED (gzip-compressed
when its name ends in .gz) has NEW's first line with "not_reached" counting the rows still not reached,
"carried_rows" the rows carried (added to any NEW had) and, when any was, "carried_from", then the rows in NEW's
order.
The result is what docs/census.md calls a run with carried rows; summarize.py and compare_runs.py read it as
any run. Exit status 0; 2 on unreadable input. A one-line summary goes to stdout.
"""
import argparse
import gzip
import json
import sys

NOT_REACHED = "not reached before --time-limit"


def fail(message):
    print(f"carry_rows: {message}", file=sys.stderr)
    sys.exit(2)


def read_run(path):
    """(meta, rows) of a results file, the rows in file order."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            records = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        fail(f"cannot read '{path}': {e}")
    if not records or "meta" not in records[0]:
        fail(f"'{path}' is no census result (its first line has no 'meta')")
    return records[0]["meta"], [r for r in records[1:] if "overload" in r]


def not_reached(row):
    return NOT_REACHED in row.get("errors", [])


def carry(new_meta, new_rows, old_meta, old_rows):
    """NEW's meta and rows with OLD's rows in place of NEW's unreached ones."""
    label = f"{old_meta.get('date', '?')} {old_meta.get('gpu', '?')}"
    earlier = {row["overload"]: row for row in old_rows if not not_reached(row)}
    merged, carried = [], 0
    for row in new_rows:
        if not_reached(row) and row["overload"] in earlier:
            # A row OLD itself carried keeps the run it came from.
            row = dict(earlier[row["overload"]])
            row.setdefault("carried_from", label)
            carried += 1
        merged.append(row)
    meta = dict(new_meta, not_reached=sum(1 for row in merged if not_reached(row)))
    meta["carried_rows"] = meta.get("carried_rows", 0) + carried
    if carried:
        meta["carried_from"] = label
    return meta, merged


def carried_count(rows):
    return sum(1 for row in rows if "carried_from" in row)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("new", help="the run that stopped at --time-limit")
    parser.add_argument("old", help="the earlier run whose rows fill in")
    parser.add_argument("--out", required=True, help="the merged results (.jsonl or .jsonl.gz)")
    args = parser.parse_args()
    new_meta, new_rows = read_run(args.new)
    old_meta, old_rows = read_run(args.old)
    meta, rows = carry(new_meta, new_rows, old_meta, old_rows)
    opener = gzip.open if args.out.endswith(".gz") else open
    with opener(args.out, "wt") as out:
        out.write(json.dumps({"meta": meta}) + "\n")
        for row in rows:
            out.write(json.dumps(row) + "\n")
    left = sum(1 for row in rows if not_reached(row))
    print(f"carry_rows: {carried_count(rows)} rows carried from {old_meta.get('date', '?')} "
          f"{old_meta.get('gpu', '?')} or earlier; {left} not reached in either run")


if __name__ == "__main__":
    main()
