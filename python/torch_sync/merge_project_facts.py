"""Joins the fragments that torch-sync-project-facts wrote (one per translation unit) into one
project facts file for option ProjectFactsFile (Python 3 standard library only).

Usage:
  torch-sync-merge-facts [-p COMPILE_DB] [--allow-incomplete] -o FACTS FRAGMENT_DIR...
  (in a torch-sync checkout: scripts/merge-project-facts.py, the same arguments)

Every fragment must come from the same tool and configuration. The tensor parameters of each
function take the join of the devices at all its calls in the project (the same device, or
Unknown), solved to a fixpoint where a call passes a parameter of its caller on; a function
that nothing in the project calls, or whose address escapes (pybind11, TORCH_LIBRARY's m.def,
a pointer), keeps Unknown. A kernel registered for the CPU dispatch key counts as called with
CPU tensors, one for CUDA with a CUDA tensor where it has a sole tensor argument.

The collection must be complete, or the facts could miss a call: with -p, every translation
unit of the compilation database must have a fragment (fragments of others are ignored), and
no fragment may come from a translation unit that did not parse. --allow-incomplete writes
the facts anyway and lists those units in the file (incomplete_translation_units).

Every source that a fragment names must still have the content it was collected from; the
file records each one's size, modification time and MD5, which clang-tidy checks before it
uses the facts. docs/project-facts.md describes both formats.

Exit status: 0 when the facts were written, 1 when they were not (the reason on stderr),
2 on a usage error.
"""

import argparse
import hashlib
import json
import os
import sys
import tempfile

FORMAT_VERSION = 1
FRAGMENT_FORMAT = "torch-sync-project-facts-fragment"
FACTS_FORMAT = "torch-sync-project-facts"
DEVICES = ("CPU", "CUDA", "Unknown")
BOTTOM = None  # no call seen yet


class Refused(Exception):
    """The facts cannot be written; the message says why."""


def md5_file(path):
    try:
        h = hashlib.md5(usedforsecurity=False)
    except TypeError:  # Python < 3.9
        h = hashlib.md5()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def join(a, b):
    """The join of two devices: BOTTOM is neutral, different devices give Unknown."""
    if a is BOTTOM:
        return b
    if b is BOTTOM or a == b:
        return a
    return "Unknown"


def check_term(term, where, own):
    """A device, {"function": key, "parameter": k} for an argument, {"parameter": k} for a
    return (own)."""
    if isinstance(term, str) and term in DEVICES:
        return
    keys = {"parameter"} if own else {"function", "parameter"}
    if isinstance(term, dict) and set(term) == keys and isinstance(term["parameter"], int) and \
            term["parameter"] >= 0 and (own or isinstance(term["function"], str)):
        return
    raise Refused("%s: %r is neither a device nor a parameter" % (where, term))


def read_fragments(dirs):
    fragments = []
    for d in dirs:
        if not os.path.isdir(d):
            raise Refused("'%s' is not a folder of fragments" % d)
        for name in sorted(os.listdir(d)):
            if not name.endswith(".json") or name.startswith("."):
                continue
            path = os.path.join(d, name)
            try:
                with open(path, encoding="utf-8") as fh:
                    doc = json.load(fh)
            except (OSError, ValueError) as e:
                raise Refused("cannot read fragment %s: %s" % (path, e))
            if not isinstance(doc, dict) or doc.get("format") != FRAGMENT_FORMAT:
                raise Refused("%s is not a torch-sync project facts fragment" % path)
            if doc.get("version") != FORMAT_VERSION:
                raise Refused("%s has format version %r; this script reads version %d" % (
                    path, doc.get("version"), FORMAT_VERSION))
            for field, kind in (("tool", str), ("configuration", str), ("translation_unit", str),
                                ("parse_errors", bool), ("sources", dict), ("calls", list),
                                ("returns", dict)):
                if not isinstance(doc.get(field), kind):
                    raise Refused("%s: '%s' is missing or not a %s" % (path, field, kind.__name__))
            for call in doc["calls"]:
                if not isinstance(call, dict) or not isinstance(call.get("callee"), str) or \
                        not isinstance(call.get("arguments"), dict):
                    raise Refused("%s: a call lacks its callee or arguments" % path)
                for k, term in call["arguments"].items():
                    if not k.isdigit():
                        raise Refused("%s: argument index %r is not a number" % (path, k))
                    check_term(term, path, own=False)
            for key, terms in doc["returns"].items():
                if not isinstance(terms, list) or not terms:
                    raise Refused("%s: the returns of '%s' are not a list" % (path, key))
                for term in terms:
                    check_term(term, path, own=True)
            doc["path"] = path
            fragments.append(doc)
    if not fragments:
        raise Refused("no fragment in %s: run clang-tidy with torch-sync-project-facts and its "
                      "OutputDirectory first" % ", ".join(dirs))
    return fragments


def database_units(path):
    if os.path.isdir(path):
        path = os.path.join(path, "compile_commands.json")
    try:
        with open(path) as fh:
            db = json.load(fh)
    except (OSError, ValueError) as e:
        raise Refused("cannot read compilation database %s: %s" % (path, e))
    return {os.path.normpath(os.path.join(e["directory"], e["file"])) for e in db
            if isinstance(e, dict) and "file" in e and "directory" in e}


def solve(calls):
    """The device of every tensor parameter: the join over its calls, to a fixpoint."""
    incoming = {}
    for call in calls:
        for k, term in call["arguments"].items():
            incoming.setdefault((call["callee"], int(k)), []).append(term)
    called = {callee for callee, _ in incoming}
    device = {p: BOTTOM for p in incoming}

    def value(term):
        if isinstance(term, str):
            return term
        p = (term["function"], term["parameter"])
        # A caller that nothing in the project calls is called from outside it.
        if term["function"] not in called or p not in device:
            return "Unknown"
        return device[p]

    changed = True
    while changed:
        changed = False
        for p, terms in incoming.items():
            d = device[p]
            for term in terms:
                d = join(d, value(term))
            if d != device[p]:
                device[p] = d
                changed = True
    # Parameters reached only from callers that are never called: dead code.
    return {p: d or "Unknown" for p, d in device.items()}


def merge(a):
    fragments = read_fragments(a.fragments)
    identities = {(f["tool"], f["configuration"]) for f in fragments}
    if len(identities) > 1:
        raise Refused("the fragments come from %d different tools or configurations (%s); collect "
                      "them again into an empty folder" % (
                          len(identities), "; ".join("%s, configuration %s" % i for i in sorted(identities))))
    tool, configuration = identities.pop()

    by_unit = {}
    for f in fragments:
        unit = os.path.normpath(f["translation_unit"])
        if unit in by_unit:
            raise Refused("two fragments for %s: %s and %s" % (unit, by_unit[unit]["path"], f["path"]))
        by_unit[unit] = f
    incomplete = sorted(u for u, f in by_unit.items() if f["parse_errors"])
    if a.compile_db:
        wanted = database_units(a.compile_db)
        for u in sorted(set(by_unit) - wanted):
            print("merge-project-facts: ignoring the fragment of %s, which is not in %s" % (
                u, a.compile_db), file=sys.stderr)
            del by_unit[u]
        incomplete = sorted(set(u for u in incomplete if u in by_unit) | (wanted - set(by_unit)))
    if incomplete and not a.allow_incomplete:
        raise Refused("the collection is incomplete: %d translation unit(s) did not parse or have "
                      "no fragment (%s); their calls could be missing. Fix them, or pass "
                      "--allow-incomplete" % (len(incomplete), ", ".join(incomplete[:5]) +
                                              (", ..." if len(incomplete) > 5 else "")))

    sources, calls, returns = {}, [], {}
    for unit, f in sorted(by_unit.items()):
        for path, stamp in f["sources"].items():
            if not isinstance(stamp, dict) or not isinstance(stamp.get("md5"), str):
                raise Refused("%s: source %s has no md5" % (f["path"], path))
            seen = sources.setdefault(path, stamp["md5"])
            if seen != stamp["md5"]:
                raise Refused("%s changed while the fragments were collected; collect them again" % path)
        calls += f["calls"]
        for key, terms in f["returns"].items():
            merged = returns.setdefault(key, [])
            for t in terms:
                if t not in merged:
                    merged.append(t)

    # The stamps clang-tidy checks: the current size and time of each source, which must
    # still have the content the fragments saw.
    stamped = {}
    for path, digest in sorted(sources.items()):
        try:
            st = os.stat(path)
            same = md5_file(path) == digest
        except OSError:
            raise Refused("%s no longer exists; collect the fragments again" % path)
        if not same:
            raise Refused("%s changed since the fragments were collected; collect them again" % path)
        stamped[path] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "md5": digest}

    functions = {}
    for (key, k), d in sorted(solve(calls).items()):
        functions.setdefault(key, {}).setdefault("parameters", {})[str(k)] = d
    for key, terms in sorted(returns.items()):
        functions.setdefault(key, {})["returns"] = ["Unknown"] if "Unknown" in terms else terms

    facts = {
        "format": FACTS_FORMAT, "version": FORMAT_VERSION, "tool": tool,
        "configuration": configuration,
        "translation_units": sorted(by_unit),
        "incomplete_translation_units": incomplete,
        "sources": stamped,
        "functions": functions,
    }
    out_dir = os.path.dirname(os.path.abspath(a.output))
    os.makedirs(out_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".facts-", dir=out_dir)
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(facts, fh, indent=1, sort_keys=True)
            fh.write("\n")
        os.replace(tmp, a.output)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    params = [d for f in functions.values() for d in f.get("parameters", {}).values()]
    print("merge-project-facts: %d translation unit(s), %d function(s); tensor parameters: %d CPU, "
          "%d CUDA, %d Unknown; wrote %s" % (
              len(by_unit), len(functions), params.count("CPU"), params.count("CUDA"),
              params.count("Unknown"), a.output), file=sys.stderr)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", required=True, help="the facts file to write")
    ap.add_argument("-p", "--compile-db", help="compile_commands.json, or its folder: the translation "
                    "units that must all have a fragment")
    ap.add_argument("--allow-incomplete", action="store_true",
                    help="write the facts even when translation units did not parse or have no fragment")
    ap.add_argument("fragments", nargs="+", help="folders of fragments (OutputDirectory)")
    a = ap.parse_args(argv)
    try:
        merge(a)
    except Refused as e:
        print("merge-project-facts: %s; no facts written" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
