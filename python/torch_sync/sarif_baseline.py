"""Compares a torch-sync SARIF log with a baseline log and marks which findings are new.

Usage: sarif-baseline.py --baseline OLD.sarif [options] NEW.sarif
       sarif-baseline.py --baseline OLD.sarif --check-baseline-only

  --baseline OLD   the log of the reference revision (e.g. the main branch), written by
                   torch-sync-tidy-to-sarif or torch-sync-sarif (scripts/tidy-to-sarif.py, scripts/sarif.sh)
  NEW              the log of the revision under review
  -o, --output F   write NEW with each result's baselineState set ('new' or 'unchanged') to F
                   ('-' for standard output); without -o, nothing is written
  --absent         with -o, also add the baseline's results that NEW lacks, with
                   baselineState 'absent'
  --check-baseline-only
                   only check that OLD is a log that can be compared (what the comparison
                   checks of it): exit 0 if so, 2 with the error if not; no NEW is given

Results are matched by rule and the partialFingerprints key "torchSync/v1" that
tidy-to-sarif.py writes (the check, the file's path, the flagged line's text with whitespace
collapsed, and the occurrence among results sharing these; see docs/ci.md, "Only new
findings"), so a finding whose line moved is unchanged, while a second identical finding in
the same file, or a finding on a line whose text changed, is new.

The new findings are printed on standard output (on stderr with -o -) as
'file:line:col: LEVEL: message [check]';
a summary (new, unchanged, absent) goes to stderr, with each absent finding. Both logs are only
read.

Exit status: 0 when no result is new, 1 when some result is new, 2 on bad input (a file that
is not a SARIF 2.1.0 log, logs of different tools, a result without the fingerprint).
"""

import argparse
import copy
import json
import sys
import urllib.parse

FINGERPRINT_KEY = "torchSync/v1"


class InputError(Exception):
    pass


def load_log(path, what):
    """The runs of a SARIF 2.1.0 log, checked for what the comparison needs."""
    try:
        with open(path, encoding="utf-8") as f:
            log = json.load(f)
    except OSError as e:
        raise InputError("cannot read the %s log '%s': %s" % (what, path, e.strerror or e))
    except (ValueError, UnicodeDecodeError) as e:
        raise InputError("the %s log '%s' is not JSON: %s" % (what, path, e))
    if not isinstance(log, dict) or not isinstance(log.get("runs"), list):
        raise InputError("the %s log '%s' is not a SARIF log (no 'runs' list)" % (what, path))
    if log.get("version") != "2.1.0":
        raise InputError("the %s log '%s' is not SARIF 2.1.0 (version: %s)"
                         % (what, path, json.dumps(log.get("version"))))
    if not log["runs"]:
        raise InputError("the %s log '%s' has no run" % (what, path))
    for n, run in enumerate(log["runs"]):
        where = "%s: run %d" % (path, n)
        if not isinstance(run, dict):
            raise InputError("%s is not an object" % where)
        driver = (run.get("tool") or {}).get("driver") if isinstance(run.get("tool"), dict) else None
        if not isinstance(driver, dict) or not isinstance(driver.get("name"), str):
            raise InputError("%s has no tool.driver.name" % where)
        results = run.get("results")
        if results is None:
            raise InputError("%s has no 'results' list (the tool did not run?)" % where)
        if not isinstance(results, list):
            raise InputError("%s: 'results' is not a list" % where)
        for m, result in enumerate(results):
            rwhere = "%s result %d" % (where, m)
            if not isinstance(result, dict) or not isinstance(result.get("ruleId"), str):
                raise InputError("%s has no ruleId" % rwhere)
            prints = result.get("partialFingerprints")
            if not isinstance(prints, dict) or not isinstance(prints.get(FINGERPRINT_KEY), str):
                raise InputError("%s (%s) has no partialFingerprints '%s'; write the log with "
                                 "this torch-sync's scripts/tidy-to-sarif.py or sarif.sh"
                                 % (rwhere, result["ruleId"], FINGERPRINT_KEY))
    return log


def tool_name(log):
    names = sorted({run["tool"]["driver"]["name"] for run in log["runs"]})
    return ", ".join(names)


def key(result):
    return result["ruleId"], result["partialFingerprints"][FINGERPRINT_KEY]


def where(result):
    """'file:line:col' of the result's first location, as a compiler prints it."""
    locs = result.get("locations") or []
    phys = (locs[0].get("physicalLocation") or {}) if locs and isinstance(locs[0], dict) else {}
    uri = (phys.get("artifactLocation") or {}).get("uri")
    if not isinstance(uri, str):
        return "<no location>"
    path = urllib.parse.unquote(urllib.parse.urlparse(uri).path if uri.startswith("file:") else uri)
    region = phys.get("region") or {}
    line, col = region.get("startLine"), region.get("startColumn")
    text = path
    if isinstance(line, int):
        text += ":%d" % line
        if isinstance(col, int):
            text += ":%d" % col
    return text


def describe(result):
    text = (result.get("message") or {}).get("text", "")
    return "%s: %s: %s [%s]" % (where(result), result.get("level", "warning"), text,
                                 result["ruleId"])


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Mark the results of a torch-sync SARIF log as new or unchanged against a "
                    "baseline log; exit 1 when some result is new.")
    parser.add_argument("--baseline", required=True, metavar="OLD",
                        help="the baseline SARIF log")
    parser.add_argument("new", metavar="NEW", nargs="?", help="the SARIF log to compare")
    parser.add_argument("-o", "--output", help="write the marked log here ('-': stdout)")
    parser.add_argument("--absent", action="store_true",
                        help="add the baseline's results that NEW lacks, as 'absent'")
    parser.add_argument("--check-baseline-only", action="store_true",
                        help="only check that OLD can be compared; exit 0 or 2")
    args = parser.parse_args(argv)
    if args.check_baseline_only:
        if args.new or args.output or args.absent:
            parser.error("--check-baseline-only takes no NEW, -o or --absent")
        try:
            load_log(args.baseline, "baseline")
        except InputError as e:
            print("sarif-baseline: error: %s" % e, file=sys.stderr)
            return 2
        return 0
    if not args.new:
        parser.error("the NEW log to compare is required")
    if args.absent and not args.output:
        parser.error("--absent needs -o FILE")

    try:
        old = load_log(args.baseline, "baseline")
        new = load_log(args.new, "new")
        if tool_name(old) != tool_name(new):
            raise InputError("the logs come from different tools: '%s' (baseline %s) and '%s' "
                             "(%s)" % (tool_name(old), args.baseline, tool_name(new), args.new))
    except InputError as e:
        print("sarif-baseline: error: %s" % e, file=sys.stderr)
        return 2

    remaining = {}
    for run in old["runs"]:
        for result in run["results"]:
            remaining.setdefault(key(result), []).append((run, result))
    new_results, unchanged = [], 0
    for run in new["runs"]:
        for result in run["results"]:
            matches = remaining.get(key(result))
            if matches:
                matches.pop(0)
                result["baselineState"] = "unchanged"
                unchanged += 1
            else:
                result["baselineState"] = "new"
                new_results.append(result)
    absent = [m for ms in remaining.values() for m in ms]

    if args.absent:
        run = new["runs"][0]
        rules = run["tool"]["driver"].setdefault("rules", [])
        index = {r.get("id"): i for i, r in enumerate(rules) if isinstance(r, dict)}
        for old_run, result in absent:
            entry = copy.deepcopy(result)
            entry["baselineState"] = "absent"
            if entry["ruleId"] not in index:
                old_rules = old_run["tool"]["driver"].get("rules") or []
                rule = next((r for r in old_rules if isinstance(r, dict)
                             and r.get("id") == entry["ruleId"]), None)
                if rule is not None:
                    index[entry["ruleId"]] = len(rules)
                    rules.append(copy.deepcopy(rule))
            if entry["ruleId"] in index:
                entry["ruleIndex"] = index[entry["ruleId"]]  # the new log's rules
            else:
                entry.pop("ruleIndex", None)
            run["results"].append(entry)

    listing = sys.stderr if args.output == "-" else sys.stdout
    for result in new_results:
        print(describe(result), file=listing)
    listing.flush()
    for _, result in absent:
        print("sarif-baseline: absent now: %s" % describe(result), file=sys.stderr)
    print("sarif-baseline: %d new, %d unchanged, %d absent (baseline %s)"
          % (len(new_results), unchanged, len(absent), args.baseline), file=sys.stderr)

    if args.output:
        text = json.dumps(new, indent=2, ensure_ascii=False) + "\n"
        if args.output == "-":
            sys.stdout.write(text)
        else:
            try:
                with open(args.output, "w", encoding="utf-8") as f:
                    f.write(text)
            except OSError as e:
                print("sarif-baseline: error: cannot write '%s': %s"
                      % (args.output, e.strerror or e), file=sys.stderr)
                return 2
    return 1 if new_results else 0


if __name__ == "__main__":
    sys.exit(main())
