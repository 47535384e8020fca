#!/usr/bin/env python3
"""Generates the checker's facts table (SyncFactsTable.inc) from sync-facts.yaml and the census tables.

  generate_facts.py --output SyncFactsTable.inc        the table that SyncFacts.cpp includes
  generate_facts.py --resolve-test names.cpp            a C++ file that names every qualified name of the
                                                        facts under the LibTorch versions each claims: it
                                                        compiles only where each name is declared as the
                                                        fact says (test/checks/facts-resolve.test). The
                                                        census rows name ATen overloads, not C++ names.
  generate_facts.py --list-reported                     the census overloads the checks report, one per line
                                                        (spelling, check, overload), for the docs' tests
  generate_facts.py --docs docs/checks                  rewrites the generated section of each check page
                                                        (between '<!-- BEGIN GENERATED: census -->' and
                                                        '<!-- END GENERATED: census -->', created when absent):
                                                        the census overloads the page's check reports, those of
                                                        its rules that sync under some arguments only, and what
                                                        the census measured of its facts; README.md lists the
                                                        overloads that match no rule, and ../census.md (next
                                                        to the folder) the census's figures
  generate_facts.py --check-docs docs/checks            exit status 1, with a diff, when a page's section differs
                                                        from what --docs writes, or when a fact's method or
                                                        function name is missing from its check's page outside
                                                        that section (test/docs/facts-docs.test)

Stops with a message (exit status 1) when the table is inconsistent: a fact without a category, names or
texts; a 'measured' reference that census-frontend.tsv lacks or that did not synchronize; an ATen overload
measured to block the host that no fact covers and no census rule classifies; and, with --output, when
SyncFacts.h declares SyncFact's or MeasuredSync's fields otherwise than facts_cpp.py writes them.

This file is the command line; the jobs are the modules beside it: facts_table.py (load and check the table and
the census TSVs), census_rows.py (the census's measured syncs), facts_cpp.py (the C++ files: the facts and the
measured syncs as designated initialisers, the API lists, the categories, the resolve test) and facts_docs.py
(the generated sections of docs/checks/*.md and docs/census.md: render and check).
"""
import argparse
import os
import sys

import yaml

from census_rows import measured_syncs
from facts_cpp import (check_struct_fields, check_value_uses, write_api_enum, write_categories, write_inc,
                       write_resolve_test)
from facts_docs import check_docs, write_docs
from facts_table import TableError, load

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", default=os.path.join(HERE, "sync-facts.yaml"))
    ap.add_argument("--census-aten", default=os.path.join(HERE, "census-aten.tsv"))
    ap.add_argument("--census-frontend", default=os.path.join(HERE, "census-frontend.tsv"))
    ap.add_argument("--output", help="SyncFactsTable.inc to write")
    ap.add_argument("--api-enum", help="SyncFactsApiLists.inc to write (the ApiList enumerators)")
    ap.add_argument("--categories", help="SyncCategories.inc to write (TORCH_SYNC_CATEGORY lines)")
    ap.add_argument("--resolve-test", help="C++ file to write that names every qualified name")
    ap.add_argument("--list-reported", action="store_true")
    ap.add_argument("--docs", metavar="DOCS_DIR", help="rewrite the generated census section of each check page")
    ap.add_argument("--check-docs", metavar="DOCS_DIR",
                    help="exit 1 when a generated census section differs from what --docs writes, or a fact's "
                         "name is missing from its check's page")
    args = ap.parse_args()
    try:
        table, census = load(args.facts, args.census_aten, args.census_frontend)
        rows = measured_syncs(table, census)
        if args.output:
            check_struct_fields()
            check_value_uses(table)
    except (TableError, yaml.YAMLError, OSError, KeyError, ValueError) as e:
        print(f"generate_facts: {e}", file=sys.stderr)
        return 1
    if args.output:
        with open(args.output, "w") as out:
            write_inc(table, rows, out)
    if args.categories:
        with open(args.categories, "w") as out:
            write_categories(table, out)
    if args.api_enum:
        with open(args.api_enum, "w") as out:
            write_api_enum(table, out)
    if args.resolve_test:
        with open(args.resolve_test, "w") as out:
            write_resolve_test(table, out)
    if args.list_reported:
        for r in rows:
            print(f"{'Tensor::' if r['method'] else 'at::'}{r['name']}\t{r['category']}\t{r['overload']}")
    try:
        if args.docs:
            write_docs(table, census, rows, args.docs, args.census_aten, args.census_frontend)
        if args.check_docs:
            problems = check_docs(table, census, rows, args.check_docs, args.census_aten, args.census_frontend)
            for p in problems:
                print(f"generate_facts: {p}", file=sys.stderr)
            if problems:
                return 1
    except OSError as e:
        print(f"generate_facts: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
