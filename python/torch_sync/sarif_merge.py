"""Merge the SARIF logs of several torch-sync runs over one source tree (the shards of a CI
matrix: torch-sync-sarif --shard K/N) into one log, as one run over all of it would have written.

  torch-sync-sarif-merge (scripts/sarif-merge.py in a checkout) -o MERGED.sarif [--srcroot DIR] SHARD.sarif...

Each log must hold one run of the same tool with the same source root (originalUriBaseIds).
The rules are joined; a result that several logs hold (a finding in a header that units of
several shards include) is kept once; the results are sorted as tidy-to-sarif.py sorts them,
and their torchSync/v1 fingerprints are computed again over the merged results, from the source
lines under --srcroot (default: the current folder; the checkout the shards analysed), so that
they equal an unsharded run's and torch-sync-sarif-baseline compares the merged log with any
other. The shards' notifications (units not fully analysed) are kept, and the run is successful
only when every shard's was. Exit status: 0 when merged; 2 on bad input (a file that is not such a
log, logs of different tools or source roots, a source file that cannot be read).
"""

import argparse
import json
import os
import sys
import urllib.parse

from . import tidy_to_sarif


class InputError(Exception):
    pass


class _Location:
    """What SarifWriter.fingerprint reads of a location: the file's path on this machine."""

    def __init__(self, path):
        self.path = path


def read_log(path):
    try:
        with open(path, encoding="utf-8") as f:
            log = json.load(f)
        run, = log["runs"]
        run["tool"]["driver"]["name"], run["results"]  # noqa: B018 (the fields merged)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError("'%s' is not a SARIF log of one run (%s)" % (path, e))
    return log


def merge(logs, srcroot):
    """One log from LOGS (parsed SARIF), fingerprinted against the sources under SRCROOT."""
    first = logs[0]["runs"][0]
    name = first["tool"]["driver"]["name"]
    base = first.get("originalUriBaseIds")
    known, results, seen, notes, success = {}, [], set(), [], True
    for log in logs:
        run = log["runs"][0]
        if run["tool"]["driver"]["name"] != name:
            raise InputError("the logs come from different tools ('%s', '%s')" % (name, run["tool"]["driver"]["name"]))
        if run.get("originalUriBaseIds") != base:
            raise InputError("the logs have different source roots (originalUriBaseIds)")
        for rule in run["tool"]["driver"].get("rules", []):
            known.setdefault(rule["id"], rule)
        for result in run["results"]:
            loc = (result.get("locations") or [{}])[0].get("physicalLocation", {})
            key = json.dumps([result["ruleId"], result["message"]["text"],
                              loc.get("artifactLocation", {}).get("uri", ""), loc.get("region", {}),
                              result.get("relatedLocations", [])], sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            results.append((result, loc))
        for inv in run.get("invocations", []):
            success = success and inv.get("executionSuccessful", True)
            notes += inv.get("toolExecutionNotifications", [])

    def order(item):
        result, loc = item
        region = loc.get("region", {})
        return (urllib.parse.unquote(loc.get("artifactLocation", {}).get("uri", "")),
                region.get("startLine", 0), region.get("startColumn", 0), result["ruleId"], result["message"]["text"])

    results.sort(key=order)
    # The rules in the order of their first result, as tidy-to-sarif.py lists them.
    rules, rule_ids = [], {}
    for result, _ in results:
        if result["ruleId"] not in rule_ids:
            rule_ids[result["ruleId"]] = len(rules)
            rules.append(known.get(result["ruleId"], {"id": result["ruleId"]}))
    writer = tidy_to_sarif.SarifWriter(srcroot, "", "", name)
    fingerprinted = []
    for result, loc in results:
        result["ruleIndex"] = rule_ids[result["ruleId"]]
        artifact = loc.get("artifactLocation")
        where = None
        if artifact and "region" in loc:
            uri = urllib.parse.unquote(artifact["uri"])
            path = (os.path.join(srcroot, uri) if "uriBaseId" in artifact
                    else urllib.parse.urlparse(artifact["uri"]).path)
            try:
                writer.sources.line_column(path, 0)  # reads the file
            except tidy_to_sarif.InputError as e:
                raise InputError("%s (--srcroot must be the checkout the shards analysed)" % e)
            where = _Location(path)
        fingerprinted.append((result, where))
    writer.fingerprint(fingerprinted)
    run = {k: v for k, v in first.items() if k not in ("results", "invocations", "tool")}
    run["tool"] = {"driver": dict(first["tool"]["driver"], rules=rules)}
    run["results"] = [r for r, _ in results]
    run["invocations"] = [{"executionSuccessful": success and not notes}]
    if notes:
        run["invocations"][0]["toolExecutionNotifications"] = notes
    return dict(logs[0], runs=[run])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logs", nargs="+", metavar="LOG")
    parser.add_argument("-o", "--output", default="-", help="the merged log (default: stdout)")
    parser.add_argument("--srcroot", default=".", help="the source root the shards analysed (default: .)")
    args = parser.parse_args(argv)
    try:
        if not os.path.isdir(args.srcroot):
            raise InputError("--srcroot '%s' is not a folder" % args.srcroot)
        merged = merge([read_log(p) for p in args.logs], os.path.realpath(args.srcroot))
        text = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
        if args.output == "-":
            sys.stdout.write(text)
        else:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
    except (InputError, OSError) as e:
        print("sarif-merge: error: %s" % e, file=sys.stderr)
        return 2
    run = merged["runs"][0]
    print("sarif-merge: %d log(s), %d result(s), %d rule(s)%s -> %s" % (
        len(args.logs), len(run["results"]), len(run["tool"]["driver"]["rules"]),
        ", %d translation unit(s) not fully analysed" % len(run["invocations"][0].get("toolExecutionNotifications", []))
        if not run["invocations"][0]["executionSuccessful"] else "",
        "stdout" if args.output == "-" else args.output), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
