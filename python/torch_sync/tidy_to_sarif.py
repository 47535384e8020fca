"""Converts clang-tidy's exported diagnostics (--export-fixes YAML) into SARIF 2.1.0.

Usage: tidy-to-sarif.py [options] INPUT...

  INPUT            a YAML file written by clang-tidy or torch-sync-tidy --export-fixes, or a
                   folder of them (run-clang-tidy -export-fixes DIR/ writes one per translation
                   unit); the same finding reported by several translation units is kept once
  -o, --output F   the SARIF file to write (default: standard output)
  --srcroot DIR    the source root: files below it are named relative to it, with the
                   uriBaseId %SRCROOT% (default: the current folder); files outside it (system
                   headers) keep an absolute file:// URI
  --docs-url URL   base URL of torch-sync's docs/checks/ folder, e.g.
                   https://github.com/OWNER/torch-sync/blob/main/docs/checks/ ; each
                   torch-sync-<name> rule then gets helpUri URL<name>.md (without it, no helpUri)
  --docs-dir DIR   torch-sync's docs/checks folder, read for each rule's description and help
                   text (default: the one shipped with this package, else the checkout's)
  --tool-name N    the tool's name in the log (default: torch-sync)
  --failed-unit STATUS FILE
                   a translation unit clang-tidy failed on (exit status STATUS) without
                   exporting its compiler errors, e.g. a crash (repeatable)

Each diagnostic becomes a result, sorted by file, position and check: ruleId (the check's
name), level (warning, error, or note for a remark), message, a location (artifactLocation and
region startLine/startColumn, columns counted in Unicode code points), its notes as
relatedLocations and its fix-its as fixes. The message ends with the remedy, the "consider ..."
note at the finding's location, as a viewer shows a result's message alone; a note's fix-it (a
rewrite that changes the program's meaning, which clang-tidy applies with --fix-notes only) is
a fix of its own, described by the note. Each check becomes a rule in tool.driver.rules.
Each result gets partialFingerprints that survive line moves: "torchSync/v1" (a hash of the
check, the file's path, the flagged line's text with whitespace collapsed and the occurrence
among results that share these; torch-sync-sarif-baseline matches on it) and, for files below
the source root that are UTF-8, GitHub's "primaryLocationLineHash" computed as GitHub's
upload-sarif does (see docs/ci.md, "Only new findings").
Sources are read only, to turn clang-tidy's byte offsets into lines and columns and to hash
the flagged lines; nothing is written but the SARIF file.

clang-tidy's YAML is read with PyYAML (Debian: python3-yaml, installed by
scripts/install-deps.sh); a file it cannot read is rejected with its line number.

The run's invocation says whether every translation unit was fully analysed
(executionSuccessful): a unit with compiler errors (an error-level clang-diagnostic-* entry of
its fixes file), whose findings come from what did parse, and a unit given with --failed-unit
STATUS FILE (clang-tidy failed there and exported nothing) each get an error-level
toolExecutionNotification naming the file (descriptor incomplete-translation-unit or
failed-translation-unit), also printed on stderr.

Exit status: 0 when the SARIF log was written, 2 on bad input (a clear message on stderr).
"""

import argparse
import hashlib
import json
import os
import pathlib
import re
import sys
import urllib.parse

from . import resources

try:
    import yaml
except ImportError:
    sys.exit("tidy-to-sarif: needs PyYAML (Debian package python3-yaml; scripts/install-deps.sh installs it)")

SARIF_SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
                "sarif-schema-2.1.0.json")
SRCROOT = "%SRCROOT%"
LEVELS = {"warning": "warning", "error": "error", "remark": "note"}
CLANG_TIDY_DOCS = "https://clang.llvm.org/extra/clang-tidy/checks/"
FINGERPRINT_KEY = "torchSync/v1"
# What clang says when it stops a unit at its error limit (-ferror-limit).
ERROR_LIMIT_MESSAGE = "too many errors emitted"


class InputError(Exception):
    """Bad input: the message names the file and, where known, the line."""


# --------------------------------------------------------------------------- YAML

def read_yaml(path):
    """The YAML documents of one --export-fixes file, read with PyYAML (Debian: python3-yaml)."""
    try:
        with open(path, encoding="utf-8") as f:
            return [d for d in yaml.safe_load_all(f) if d is not None]
    except UnicodeDecodeError as e:
        raise InputError("%s: not UTF-8 text (%s)" % (path, e))
    except OSError as e:
        raise InputError("cannot read '%s': %s" % (path, e.strerror or e))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = ":%d" % (mark.line + 1) if mark else ""
        raise InputError("%s%s: not clang-tidy's YAML (%s)" % (path, where, getattr(e, "problem", None) or e))


# --------------------------------------------------------------------------- diagnostics

def _abspath(path, build_dir):
    if not os.path.isabs(path) and build_dir:
        path = os.path.join(build_dir, path)
    return os.path.normpath(os.path.abspath(path))


class _Location:
    __slots__ = ("path", "offset")

    def __init__(self, path, offset):
        self.path, self.offset = path, offset


def _int(value, what, source):
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        raise InputError("%s: %s is not a number: %r" % (source, what, value))
    if n < 0:
        raise InputError("%s: %s is negative: %d" % (source, what, n))
    return n


def _message(entry, source, what):
    if not isinstance(entry, dict):
        raise InputError("%s: %s is not a mapping" % (source, what))
    text = entry.get("Message")
    if text is None:
        raise InputError("%s: %s has no Message" % (source, what))
    path = entry.get("FilePath") or ""
    offset = _int(entry.get("FileOffset", 0), what + " FileOffset", source)
    reps = entry.get("Replacements") or []
    if not isinstance(reps, list):
        raise InputError("%s: %s Replacements is not a list" % (source, what))
    return str(text), path, offset, reps


def load_diagnostics(paths):
    """The diagnostics of every fixes file, as dicts, in input order (duplicates kept), and the
    translation units that did not parse: {main source file: its compiler errors}. A compiler
    error is an error-level clang-diagnostic-* entry (a finding that WarningsAsErrors made an
    error is not one); clang-tidy names the unit in MainSourceFile."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(os.path.join(p, n) for n in os.listdir(p)
                           if n.endswith((".yaml", ".yml")))
            files.extend(found)
        elif os.path.exists(p):
            files.append(p)
        else:
            raise InputError("no such file or folder: '%s'" % p)
    diags, incomplete = [], {}
    for f in files:
        for doc in read_yaml(f):
            if doc is None or doc == "":
                continue
            if not isinstance(doc, dict) or "Diagnostics" not in doc:
                raise InputError("%s: not a clang-tidy fixes file (no 'Diagnostics' key); write "
                                 "one with clang-tidy --export-fixes=FILE" % f)
            entries = doc.get("Diagnostics") or []
            if not isinstance(entries, list):
                raise InputError("%s: 'Diagnostics' is not a list" % f)
            for n, d in enumerate(entries):
                what = "diagnostic %d" % (n + 1)
                if not isinstance(d, dict) or "DiagnosticName" not in d:
                    raise InputError("%s: %s has no DiagnosticName" % (f, what))
                build_dir = d.get("BuildDirectory") or ""
                text, path, offset, reps = _message(d.get("DiagnosticMessage"), f, what)

                def replacements(reps, what):
                    edits = []
                    for r in reps:
                        if not isinstance(r, dict) or "FilePath" not in r:
                            raise InputError("%s: %s has a replacement without FilePath" % (f, what))
                        edits.append((_abspath(r["FilePath"], build_dir),
                                      _int(r.get("Offset", 0), "Offset", f),
                                      _int(r.get("Length", 0), "Length", f),
                                      str(r.get("ReplacementText") or "")))
                    return edits

                notes, note_fixes = [], []
                for m, note in enumerate(d.get("Notes") or []):
                    nwhat = "%s note %d" % (what, m + 1)
                    ntext, npath, noffset, nreps = _message(note, f, nwhat)
                    notes.append((ntext, _Location(_abspath(npath, build_dir), noffset)
                                  if npath else None))
                    # A note's fix-it changes the program's meaning (clang-tidy applies it with
                    # --fix-notes only): a fix of its own, described by the note.
                    if nreps:
                        note_fixes.append((ntext, replacements(nreps, nwhat)))
                # The remedy is a note ("consider ..."); a SARIF viewer shows a result's message
                # alone, so the message ends with it, as in one line of clang-tidy's output.
                for ntext, nloc in notes:
                    if ntext.startswith("consider ") and nloc and nloc.path == _abspath(path, build_dir) \
                            and nloc.offset == offset:
                        text = "%s; %s" % (text, ntext)
                        break
                fixes = replacements(reps, what)
                level = str(d.get("Level") or "Warning").lower()
                if level not in LEVELS:
                    raise InputError("%s: %s has an unknown Level '%s'" % (f, what, d.get("Level")))
                diag = {
                    "rule": str(d["DiagnosticName"]),
                    "level": LEVELS[level],
                    "message": text,
                    "location": _Location(_abspath(path, build_dir), offset) if path else None,
                    "notes": notes,
                    "fixes": fixes,
                    "note_fixes": note_fixes,
                }
                diags.append(diag)
                main = doc.get("MainSourceFile")
                if main and level == "error" and diag["rule"].startswith("clang-diagnostic-"):
                    incomplete.setdefault(_abspath(str(main), build_dir), []).append(diag)
    return diags, incomplete


# --------------------------------------------------------------------------- SARIF

class _Sources:
    """Line starts of the sources, read once, to turn byte offsets into lines and columns."""

    def __init__(self):
        self.cache = {}
        self.line_hashes = {}

    def line_column(self, path, offset):
        if path not in self.cache:
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                raise InputError("cannot read '%s' to turn an offset into a line (%s); convert "
                                 "on the machine that ran clang-tidy, with the same sources"
                                 % (path, e.strerror or e))
            # Line ends as clang counts them (and GitHub's line hash): CR LF, a lone CR, LF.
            starts = [0] + [m.end() for m in re.finditer(rb"\r\n|\r|\n", data)]
            self.cache[path] = (data, starts)
        data, starts = self.cache[path]
        if offset > len(data):
            raise InputError("offset %d is past the end of '%s' (%d bytes): the file changed "
                             "since clang-tidy ran" % (offset, path, len(data)))
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        prefix = data[starts[lo]:offset].decode("utf-8", errors="replace")
        return lo + 1, len(prefix) + 1

    def line_text(self, path, line):
        """The text of a 1-based line (read by line_column before), without its line end."""
        data, starts = self.cache[path]
        end = starts[line] if line < len(starts) else len(data)
        return data[starts[line - 1]:end].decode("utf-8", errors="replace").rstrip("\r\n")

    def github_line_hash(self, path, line):
        """GitHub's primaryLocationLineHash of a line, or None when the file is not UTF-8."""
        if path not in self.line_hashes:
            data, _ = self.cache[path]
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            self.line_hashes[path] = github_line_hashes(text) if text is not None else None
        hashes = self.line_hashes[path]
        return hashes.get(line) if hashes is not None else None


def github_line_hashes(text):
    """{line: hash} for every line of text, as GitHub's upload-sarif computes
    partialFingerprints.primaryLocationLineHash (codeql-action, src/fingerprints.ts).

    Spaces and tabs are dropped, and CR LF and lone CR become LF. A line's hash is a
    polynomial rolling hash (base 37, modulo 2**64) of the 100 characters (UTF-16 code units,
    as JavaScript counts them) that follow the line's start in that stream, which ends with
    the value 65535 and then zeros; it is written in lower-case hex without leading zeros,
    followed by ':' and how many lines of the file so far have had the same hash."""
    block, base, mask = 100, 37, (1 << 64) - 1
    first_mod = pow(base, block, 1 << 64)
    units = []
    for ch in text:
        o = ord(ch)
        if o > 0xFFFF:  # a UTF-16 surrogate pair, as String.charCodeAt sees it
            o -= 0x10000
            units.append(0xD800 + (o >> 10))
            units.append(0xDC00 + (o & 0x3FF))
        else:
            units.append(o)
    units.append(65535)

    window = [0] * block
    line_numbers = [-1] * block
    state = {"hash": 0, "index": 0}
    counts = {}
    hashes = {}

    def output():
        value = "%x" % state["hash"]
        counts[value] = counts.get(value, 0) + 1
        hashes[line_numbers[state["index"]]] = "%s:%d" % (value, counts[value])
        line_numbers[state["index"]] = -1

    def update(current):
        i = state["index"]
        begin = window[i]
        window[i] = current
        state["hash"] = (base * state["hash"] + current - first_mod * begin) & mask
        state["index"] = (i + 1) % block

    line_number, line_start, prev_cr = 0, True, False
    for current in units:
        if current in (0x20, 0x09) or (prev_cr and current == 0x0A):
            prev_cr = False
            continue
        if current == 0x0D:
            current, prev_cr = 0x0A, True
        else:
            prev_cr = False
        if line_numbers[state["index"]] != -1:
            output()
        if line_start:
            line_start = False
            line_number += 1
            line_numbers[state["index"]] = line_number
        if current == 0x0A:
            line_start = True
        update(current)
    for _ in range(block):
        if line_numbers[state["index"]] != -1:
            output()
        update(0)
    return hashes


def normalized(text):
    """Text with runs of whitespace collapsed into one space, and none at either end."""
    return " ".join(text.split())


def torch_sync_fingerprint(rule, path, line_text, occurrence):
    """The torchSync/v1 partial fingerprint: see docs/ci.md, "Only new findings"."""
    key = json.dumps([rule, path, normalized(line_text), occurrence], ensure_ascii=False)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


class SarifWriter:
    def __init__(self, srcroot, docs_url, docs_dir, tool_name):
        self.srcroot = os.path.realpath(srcroot)
        self.docs_url = docs_url
        self.docs_dir = docs_dir
        self.tool_name = tool_name
        self.sources = _Sources()

    def _below_root(self, path):
        """(the real path, its path relative to the source root or None outside it)."""
        real = os.path.realpath(path)
        rel = os.path.relpath(real, self.srcroot)
        return real, (None if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel)

    def artifact_location(self, path):
        real, rel = self._below_root(path)
        if rel is not None:
            return {"uri": urllib.parse.quote(pathlib.PurePath(rel).as_posix()),
                    "uriBaseId": SRCROOT}
        return {"uri": pathlib.Path(real).as_uri()}

    def display_path(self, path):
        """The path relative to the source root, or absolute outside it."""
        real, rel = self._below_root(path)
        return real if rel is None else rel

    def fix(self, description, edits):
        """A SARIF fix: its description and the replacements of each file it edits."""
        changes = {}
        for path, offset, length, text in edits:
            change = changes.setdefault(path, {
                "artifactLocation": self.artifact_location(path), "replacements": []})
            change["replacements"].append({
                "deletedRegion": {"byteOffset": offset, "byteLength": length},
                "insertedContent": {"text": text}})
        return {"description": {"text": description}, "artifactChanges": list(changes.values())}

    def physical_location(self, loc):
        line, column = self.sources.line_column(loc.path, loc.offset)
        return {"artifactLocation": self.artifact_location(loc.path),
                "region": {"startLine": line, "startColumn": column}}

    def fingerprint(self, results):
        """Sets partialFingerprints on each (result, location), in the results' order: our
        torchSync/v1 key, and GitHub's primaryLocationLineHash for a file below the source
        root that is UTF-8 (what GitHub's upload-sarif would compute for it)."""
        occurrences = {}
        for result, loc in results:
            path, text, line = "", "", None
            if loc:
                artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
                path = urllib.parse.unquote(artifact["uri"])
                line = result["locations"][0]["physicalLocation"]["region"]["startLine"]
                text = self.sources.line_text(loc.path, line)
            key = (result["ruleId"], path, normalized(text))
            occurrence = occurrences.get(key, 0)
            occurrences[key] = occurrence + 1
            prints = {FINGERPRINT_KEY: torch_sync_fingerprint(result["ruleId"], path, text,
                                                              occurrence)}
            if loc and "uriBaseId" in artifact:
                line_hash = self.sources.github_line_hash(loc.path, line)
                if line_hash:
                    prints["primaryLocationLineHash"] = line_hash
            result["partialFingerprints"] = prints

    def rule(self, rule_id):
        rule = {"id": rule_id}
        if rule_id.startswith("torch-sync-"):
            name = rule_id[len("torch-sync-"):]
            page = os.path.join(self.docs_dir, name + ".md") if self.docs_dir else None
            if page and os.path.isfile(page):
                with open(page, encoding="utf-8") as f:
                    text = f.read()
                summary = _first_paragraph(text)
                if summary:
                    rule["shortDescription"] = {"text": summary}
                rule["help"] = {"text": text, "markdown": text}
            if self.docs_url:
                rule["helpUri"] = self.docs_url + name + ".md"
        elif not rule_id.startswith("clang-diagnostic-"):
            # clang-tidy's own checks (torch-sync-tidy runs them too): LLVM's page for each.
            m = re.match(r"(clang-analyzer|[a-z0-9]+)-(.+)$", rule_id)
            if m:
                rule["helpUri"] = "%s%s/%s.html" % (CLANG_TIDY_DOCS, m.group(1), m.group(2))
        return rule

    def notifications(self, incomplete, failed):
        """toolExecutionNotifications for the translation units that were not fully analysed:
        those with compiler errors ({file: errors}), whose findings come from a partial AST, and
        those clang-tidy failed on without exporting anything ([(file, exit status)])."""
        def notification(descriptor, path, text):
            return {"level": "error", "descriptor": {"id": descriptor}, "message": {"text": text},
                    "locations": [{"physicalLocation": {"artifactLocation": self.artifact_location(path)}}]}

        notes = []
        for path in sorted(incomplete):
            errors = incomplete[path]
            # The first error with a location: clang's "too many errors emitted" has none.
            first = next((e for e in errors if e["location"]), errors[0])
            where = ""
            if first["location"]:
                line, column = self.sources.line_column(first["location"].path, first["location"].offset)
                where = " at %s:%d:%d" % (self.display_path(first["location"].path), line, column)
            # clang stops a unit at an error limit that its compile command sets (sarif.sh lifts
            # the default one): the rest of the unit was not even parsed.
            stopped = any(e["message"].startswith(ERROR_LIMIT_MESSAGE) for e in errors)
            notes.append(notification(
                "incomplete-translation-unit", path,
                "translation unit '%s' did not parse: %d compiler error(s), the first%s: %s; the checks ran "
                "on what did parse, so its findings may be incomplete%s" % (
                    self.display_path(path), len(errors), where, first["message"],
                    "; clang stopped at the error limit (-ferror-limit) that its compile command sets, so "
                    "the rest of it was not analysed" if stopped else "")))
        for path, status in sorted(failed):
            notes.append(notification(
                "failed-translation-unit", path,
                "clang-tidy failed on translation unit '%s' (exit status %s) and exported no diagnostics; "
                "it was not analysed" % (self.display_path(path), status)))
        return notes

    def log(self, diags, incomplete=None, failed=()):
        seen = set()
        results = []
        rules = []
        rule_index = {}
        duplicates = 0
        fingerprinted = []
        # Sorted by file, position and check, whatever order the translation units ran in.
        diags = sorted(diags, key=lambda d: (
            (d["location"].path, d["location"].offset) if d["location"] else ("", -1),
            d["rule"], d["message"]))
        for d in diags:
            loc = d["location"]
            key = (d["rule"], d["message"], loc.path if loc else "", loc.offset if loc else -1,
                   tuple((t, l.path if l else "", l.offset if l else -1) for t, l in d["notes"]))
            if key in seen:
                duplicates += 1
                continue
            seen.add(key)
            if d["rule"] not in rule_index:
                rule_index[d["rule"]] = len(rules)
                rules.append(self.rule(d["rule"]))
            result = {"ruleId": d["rule"], "ruleIndex": rule_index[d["rule"]],
                      "level": d["level"], "message": {"text": d["message"]}}
            if loc:
                result["locations"] = [{"physicalLocation": self.physical_location(loc)}]
            fingerprinted.append((result, loc))
            related = []
            for text, nloc in d["notes"]:
                entry = {"id": len(related) + 1}
                if nloc:
                    entry["physicalLocation"] = self.physical_location(nloc)
                entry["message"] = {"text": text}
                related.append(entry)
            if related:
                result["relatedLocations"] = related
            fixes = [("clang-tidy fix-it", d["fixes"])] if d["fixes"] else []
            fixes += d.get("note_fixes", [])
            if fixes:
                result["fixes"] = [self.fix(description, edits) for description, edits in fixes]
            results.append(result)
        self.fingerprint(fingerprinted)
        driver = {"name": self.tool_name}
        if self.docs_url:
            driver["informationUri"] = self.docs_url + "README.md"
        driver["rules"] = rules
        run = {
            "tool": {"driver": driver},
            "originalUriBaseIds": {SRCROOT: {"uri": pathlib.Path(self.srcroot).as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }
        notes = self.notifications(incomplete or {}, failed)
        run["invocations"] = [{"executionSuccessful": not notes}]
        if notes:
            run["invocations"][0]["toolExecutionNotifications"] = notes
        return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, duplicates


def _first_paragraph(markdown):
    """The first paragraph after the title of a docs/checks page, on one line."""
    para = []
    for line in markdown.splitlines():
        s = line.strip()
        if s.startswith("#"):
            if para:
                break
            continue
        if not s:
            if para:
                break
            continue
        para.append(s)
    return " ".join(para)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Convert clang-tidy --export-fixes YAML into a SARIF 2.1.0 log.")
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="fixes YAML file, or a folder of them")
    parser.add_argument("-o", "--output", default="-", help="SARIF file (default: stdout)")
    parser.add_argument("--srcroot", default=".", help="source root (default: .)")
    parser.add_argument("--docs-url", default="", help="base URL of torch-sync's docs/checks/")
    parser.add_argument("--docs-dir", default=None,
                        help="torch-sync's docs/checks folder (default: the one shipped with this package, "
                             "or its checkout's)")
    parser.add_argument("--tool-name", default="torch-sync", help="tool name in the log")
    parser.add_argument("--failed-unit", nargs=2, action="append", default=[], metavar=("STATUS", "FILE"),
                        help="a translation unit clang-tidy failed on with exit status STATUS "
                             "(repeatable): a notification, unless its compiler errors were exported")
    args = parser.parse_args(argv)

    if not os.path.isdir(args.srcroot):
        print("tidy-to-sarif: error: --srcroot '%s' is not a folder" % args.srcroot,
              file=sys.stderr)
        return 2
    if args.docs_url:
        parsed = urllib.parse.urlparse(args.docs_url)
        if not parsed.scheme or not parsed.netloc:
            print("tidy-to-sarif: error: --docs-url '%s' is not an absolute URL" % args.docs_url,
                  file=sys.stderr)
            return 2
        if not args.docs_url.endswith("/"):
            args.docs_url += "/"
    docs_dir = args.docs_dir
    if docs_dir is None:
        docs_dir = resources.docs_checks() or ""
    elif not os.path.isdir(docs_dir):
        print("tidy-to-sarif: error: --docs-dir '%s' is not a folder" % docs_dir,
              file=sys.stderr)
        return 2

    try:
        diags, incomplete = load_diagnostics(args.inputs)
        writer = SarifWriter(args.srcroot, args.docs_url, docs_dir, args.tool_name)
        failed = [(os.path.abspath(f), status) for status, f in args.failed_unit
                  if os.path.abspath(f) not in incomplete]
        log, duplicates = writer.log(diags, incomplete, failed)
    except InputError as e:
        print("tidy-to-sarif: error: %s" % e, file=sys.stderr)
        return 2
    text = json.dumps(log, indent=2, ensure_ascii=False) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            print("tidy-to-sarif: error: cannot write '%s': %s" % (args.output, e.strerror or e),
                  file=sys.stderr)
            return 2
    run = log["runs"][0]
    notes = run["invocations"][0].get("toolExecutionNotifications", [])
    print("tidy-to-sarif: %d result(s)%s, %d rule(s)%s -> %s" % (
        len(run["results"]),
        " (%d duplicate(s) dropped)" % duplicates if duplicates else "",
        len(run["tool"]["driver"]["rules"]),
        ", %d translation unit(s) not fully analysed" % len(notes) if notes else "",
        "stdout" if args.output == "-" else args.output), file=sys.stderr)
    for n in notes:
        print("tidy-to-sarif: " + n["message"]["text"], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
