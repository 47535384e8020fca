#!/usr/bin/env python3
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
                   text (default: docs/checks next to this script's folder, if present)
  --tool-name N    the tool's name in the log (default: torch-sync)

Each diagnostic becomes a result, sorted by file, position and check: ruleId (the check's
name), level (warning, error, or note for a remark), message, a location (artifactLocation and
region startLine/startColumn, columns counted in Unicode code points), its notes as
relatedLocations and its fix-its as fixes. Each check becomes a rule in tool.driver.rules.
Sources are read only, to turn clang-tidy's byte offsets into lines and columns; nothing is
written but the SARIF file.

clang-tidy's YAML is read with a small reader for the subset that LLVM's YAML writer and
PyYAML's safe_dump produce (block mappings and sequences, plain, single- and double-quoted
scalars, empty flow collections); anything else is rejected with its line number.

Exit status: 0 when the SARIF log was written, 2 on bad input (a clear message on stderr).
Python 3 standard library only.
"""

import argparse
import json
import os
import pathlib
import re
import sys
import urllib.parse

SARIF_SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
                "sarif-schema-2.1.0.json")
SRCROOT = "%SRCROOT%"
LEVELS = {"warning": "warning", "error": "error", "remark": "note"}
CLANG_TIDY_DOCS = "https://clang.llvm.org/extra/clang-tidy/checks/"


class InputError(Exception):
    """Bad input: the message names the file and, where known, the line."""


# --------------------------------------------------------------------------- YAML subset

_DQ_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
               "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
               "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_DQ_HEX = {"x": 2, "u": 4, "U": 8}


class _YamlReader:
    """Reads the block-style YAML subset of clang-tidy's fixes files into dicts, lists and
    strings (scalars stay strings; the caller converts numbers)."""

    def __init__(self, text, name):
        self.name = name
        self.lines = [l[:-1] if l.endswith("\r") else l for l in text.split("\n")]
        self.i = 0

    def error(self, msg, line=None):
        line = self.i if line is None else line
        return InputError("%s:%d: %s" % (self.name, line + 1, msg))

    # -- lines
    @staticmethod
    def _blank(line):
        s = line.strip()
        return not s or s.startswith("#")

    def _skip_blank(self):
        while self.i < len(self.lines) and self._blank(self.lines[self.i]):
            self.i += 1
        return self.i < len(self.lines)

    @staticmethod
    def _indent(line):
        return len(line) - len(line.lstrip(" "))

    @staticmethod
    def _is_marker(line, marker):
        return line == marker or line.startswith(marker + " ")

    # -- documents
    def documents(self):
        docs = []
        while self._skip_blank():
            line = self.lines[self.i]
            if self._is_marker(line, "---"):
                rest = line[3:].strip()
                if rest:
                    raise self.error("content after '---' is not supported")
                self.i += 1
                if not self._skip_blank() or self._is_marker(self.lines[self.i], "...") \
                        or self._is_marker(self.lines[self.i], "---"):
                    docs.append(None)
                    if self.i < len(self.lines) and self._is_marker(self.lines[self.i], "..."):
                        self.i += 1
                    continue
            elif self._is_marker(line, "..."):
                self.i += 1
                continue
            if self._indent(self.lines[self.i]) != 0:
                raise self.error("a document must start at the first column")
            docs.append(self._block(0))
            if self._skip_blank():
                line = self.lines[self.i]
                if self._is_marker(line, "..."):
                    self.i += 1
                elif not self._is_marker(line, "---"):
                    raise self.error("unexpected content")
        return docs

    # -- block nodes
    def _block(self, min_indent):
        line = self.lines[self.i]
        ind = self._indent(line)
        if ind < min_indent:
            return None
        content = line[ind:]
        if content == "-" or content.startswith("- "):
            return self._sequence(ind)
        if self._mapping_key(content) is not None:
            return self._mapping(ind)
        value, _ = self._scalar(self.i, ind, min_indent - 1)
        return value

    def _mapping_key(self, content):
        """(key, rest of the line after ':') when content starts a 'key: value' entry."""
        if content[:1] in ("'", '"'):
            try:
                key, end, end_line = self._quoted(self.i, content, 0, single_line=True)
            except InputError:
                return None
            rest = content[end:]
            if rest.startswith(":") and (len(rest) == 1 or rest[1] in " \t"):
                return key, rest[1:]
            return None
        if content[:1] in "[]{}&*!|>%@`#?" or content.startswith("- ") or content == "-":
            return None
        m = re.match(r"(.*?):(?=[ \t]|$)", content)
        if not m or not m.group(1).strip():
            return None
        return m.group(1).rstrip(), content[m.end():]

    def _mapping(self, ind):
        result = {}
        while self._skip_blank():
            line = self.lines[self.i]
            cur = self._indent(line)
            if cur < ind or (cur == 0 and (self._is_marker(line, "---") or
                                           self._is_marker(line, "..."))):
                break
            if cur > ind:
                raise self.error("unexpected indentation")
            content = line[ind:]
            kv = self._mapping_key(content)
            if kv is None:
                raise self.error("expected 'key: value'")
            key, rest = kv
            if key in result:
                raise self.error("duplicate key '%s'" % key)
            rest_col = len(line) - len(rest)
            if rest.strip() == "" or rest.strip().startswith("#"):
                self.i += 1
                if not self._skip_blank():
                    result[key] = None
                    continue
                nxt = self.lines[self.i]
                nind = self._indent(nxt)
                nc = nxt[nind:]
                if nind > ind:
                    result[key] = self._block(ind + 1)
                elif nind == ind and (nc == "-" or nc.startswith("- ")):
                    result[key] = self._sequence(ind)
                else:
                    result[key] = None
            else:
                value, _ = self._scalar(self.i, rest_col + (len(rest) - len(rest.lstrip())), ind)
                result[key] = value
        return result

    def _sequence(self, ind):
        result = []
        while self._skip_blank():
            line = self.lines[self.i]
            cur = self._indent(line)
            content = line[cur:]
            if cur != ind or not (content == "-" or content.startswith("- ")):
                if cur > ind:
                    raise self.error("unexpected indentation")
                break
            after = content[1:]
            stripped = after.lstrip(" ")
            if stripped == "" or stripped.startswith("#"):
                self.i += 1
                if self._skip_blank() and self._indent(self.lines[self.i]) > ind:
                    result.append(self._block(ind + 1))
                else:
                    result.append(None)
                continue
            col = ind + 1 + (len(after) - len(stripped))
            # An inline node after '- ': parse it as if it started on its own line.
            self.lines[self.i] = " " * col + stripped
            if stripped == "-" or stripped.startswith("- ") or \
                    self._mapping_key(stripped) is not None:
                result.append(self._block(col))
            else:
                value, _ = self._scalar(self.i, col, ind)
                result.append(value)
        return result

    # -- scalars
    def _scalar(self, line_no, col, parent_indent):
        """The scalar that starts at (line_no, col); leaves self.i after its last line."""
        text = self.lines[line_no][col:]
        first = text[:1]
        if first in ("'", '"'):
            value, end, end_line = self._quoted(line_no, text, 0)
            rest = (self.lines[end_line][end:] if end_line != line_no else text[end:]).strip()
            if rest and not rest.startswith("#"):
                raise self.error("unexpected text after a quoted scalar", end_line)
            self.i = end_line + 1
            return value, end_line
        if text.startswith("[") or text.startswith("{"):
            body = text.split(" #")[0].strip()
            if body in ("[]", "{}"):
                self.i = line_no + 1
                return ([] if body == "[]" else {}), line_no
            raise self.error("flow collections other than [] and {} are not supported", line_no)
        if first in "&*!|>%@`":
            raise self.error("YAML anchors, aliases, tags and block scalars are not supported",
                             line_no)
        # A plain scalar, possibly folded over more-indented lines.
        parts = [text.split(" #")[0].rstrip()]
        j = line_no + 1
        pending_newlines = 0
        while j < len(self.lines):
            nxt = self.lines[j]
            if nxt.strip() == "":
                pending_newlines += 1
                j += 1
                continue
            if self._indent(nxt) <= parent_indent or nxt.lstrip().startswith("#"):
                break
            s = nxt.strip()
            if re.search(r":(?:[ \t]|$)", s):
                break
            parts.append("\n" * pending_newlines if pending_newlines else " ")
            parts.append(s.split(" #")[0].rstrip())
            pending_newlines = 0
            j += 1
        self.i = j
        return "".join(parts), j - 1

    def _quoted(self, line_no, text, start, single_line=False):
        """Reads the quoted scalar at text[start]; returns (value, end column, end line)."""
        quote = text[start]
        out = []
        kept = 0  # out[:kept] ends with an escape, whose blanks a line fold keeps
        k = start + 1
        line = text
        ln = line_no
        while True:
            if k >= len(line):
                if single_line:
                    raise self.error("unterminated quoted scalar", line_no)
                # Fold the line break: trailing blanks go, then blank lines are newlines.
                while len(out) > kept and out[-1] in (" ", "\t"):
                    out.pop()
                ln += 1
                empty = 0
                while ln < len(self.lines) and self.lines[ln].strip() == "":
                    empty += 1
                    ln += 1
                if ln >= len(self.lines):
                    raise self.error("unterminated quoted scalar", line_no)
                out.append("\n" * empty if empty else " ")
                line = self.lines[ln]
                k = len(line) - len(line.lstrip(" \t"))
                continue
            c = line[k]
            if quote == "'":
                if c == "'":
                    if k + 1 < len(line) and line[k + 1] == "'":
                        out.append("'")
                        k += 2
                        continue
                    return "".join(out), k + 1, ln
                out.append(c)
                k += 1
            else:
                if c == '"':
                    return "".join(out), k + 1, ln
                if c != "\\":
                    out.append(c)
                    k += 1
                    continue
                if k + 1 >= len(line):
                    # An escaped line break: no space, leading blanks of the next line go.
                    if single_line:
                        raise self.error("unterminated quoted scalar", line_no)
                    ln += 1
                    if ln >= len(self.lines):
                        raise self.error("unterminated quoted scalar", line_no)
                    line = self.lines[ln]
                    k = len(line) - len(line.lstrip(" \t"))
                    continue
                e = line[k + 1]
                if e in _DQ_ESCAPES:
                    out.append(_DQ_ESCAPES[e])
                    kept = len(out)
                    k += 2
                elif e in _DQ_HEX:
                    n = _DQ_HEX[e]
                    digits = line[k + 2:k + 2 + n]
                    if len(digits) != n or not re.fullmatch(r"[0-9A-Fa-f]+", digits):
                        raise self.error("bad escape '\\%s%s'" % (e, digits), ln)
                    out.append(chr(int(digits, 16)))
                    kept = len(out)
                    k += 2 + n
                else:
                    raise self.error("unknown escape '\\%s'" % e, ln)


def read_yaml(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as e:
        raise InputError("%s: not UTF-8 text (%s)" % (path, e))
    except OSError as e:
        raise InputError("cannot read '%s': %s" % (path, e.strerror or e))
    return _YamlReader(text, path).documents()


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
    """The diagnostics of every fixes file, as dicts, in input order (duplicates kept)."""
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
    diags = []
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
                notes = []
                for m, note in enumerate(d.get("Notes") or []):
                    ntext, npath, noffset, _ = _message(note, f, "%s note %d" % (what, m + 1))
                    notes.append((ntext, _Location(_abspath(npath, build_dir), noffset)
                                  if npath else None))
                fixes = []
                for r in reps:
                    if not isinstance(r, dict) or "FilePath" not in r:
                        raise InputError("%s: %s has a replacement without FilePath" % (f, what))
                    fixes.append((_abspath(r["FilePath"], build_dir),
                                  _int(r.get("Offset", 0), "Offset", f),
                                  _int(r.get("Length", 0), "Length", f),
                                  str(r.get("ReplacementText") or "")))
                level = str(d.get("Level") or "Warning").lower()
                if level not in LEVELS:
                    raise InputError("%s: %s has an unknown Level '%s'" % (f, what, d.get("Level")))
                diags.append({
                    "rule": str(d["DiagnosticName"]),
                    "level": LEVELS[level],
                    "message": text,
                    "location": _Location(_abspath(path, build_dir), offset) if path else None,
                    "notes": notes,
                    "fixes": fixes,
                })
    return diags


# --------------------------------------------------------------------------- SARIF

class _Sources:
    """Line starts of the sources, read once, to turn byte offsets into lines and columns."""

    def __init__(self):
        self.cache = {}

    def line_column(self, path, offset):
        if path not in self.cache:
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                raise InputError("cannot read '%s' to turn an offset into a line (%s); convert "
                                 "on the machine that ran clang-tidy, with the same sources"
                                 % (path, e.strerror or e))
            starts = [0] + [m.end() for m in re.finditer(b"\n", data)]
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


class SarifWriter:
    def __init__(self, srcroot, docs_url, docs_dir, tool_name):
        self.srcroot = os.path.realpath(srcroot)
        self.docs_url = docs_url
        self.docs_dir = docs_dir
        self.tool_name = tool_name
        self.sources = _Sources()

    def artifact_location(self, path):
        real = os.path.realpath(path)
        rel = os.path.relpath(real, self.srcroot)
        if rel != os.pardir and not rel.startswith(os.pardir + os.sep):
            return {"uri": urllib.parse.quote(pathlib.PurePath(rel).as_posix()),
                    "uriBaseId": SRCROOT}
        return {"uri": pathlib.Path(real).as_uri()}

    def physical_location(self, loc):
        line, column = self.sources.line_column(loc.path, loc.offset)
        return {"artifactLocation": self.artifact_location(loc.path),
                "region": {"startLine": line, "startColumn": column}}

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

    def log(self, diags):
        seen = set()
        results = []
        rules = []
        rule_index = {}
        duplicates = 0
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
            related = []
            for text, nloc in d["notes"]:
                entry = {"id": len(related) + 1}
                if nloc:
                    entry["physicalLocation"] = self.physical_location(nloc)
                entry["message"] = {"text": text}
                related.append(entry)
            if related:
                result["relatedLocations"] = related
            if d["fixes"]:
                changes = {}
                for path, offset, length, text in d["fixes"]:
                    change = changes.setdefault(path, {
                        "artifactLocation": self.artifact_location(path), "replacements": []})
                    change["replacements"].append({
                        "deletedRegion": {"byteOffset": offset, "byteLength": length},
                        "insertedContent": {"text": text}})
                result["fixes"] = [{"description": {"text": "clang-tidy fix-it"},
                                    "artifactChanges": list(changes.values())}]
            results.append(result)
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


def main(argv):
    parser = argparse.ArgumentParser(
        prog="tidy-to-sarif.py",
        description="Convert clang-tidy --export-fixes YAML into a SARIF 2.1.0 log.")
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="fixes YAML file, or a folder of them")
    parser.add_argument("-o", "--output", default="-", help="SARIF file (default: stdout)")
    parser.add_argument("--srcroot", default=".", help="source root (default: .)")
    parser.add_argument("--docs-url", default="", help="base URL of torch-sync's docs/checks/")
    default_docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                                "docs", "checks")
    parser.add_argument("--docs-dir", default=None,
                        help="torch-sync's docs/checks folder (default: next to this script)")
    parser.add_argument("--tool-name", default="torch-sync", help="tool name in the log")
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
        docs_dir = os.path.normpath(default_docs) if os.path.isdir(default_docs) else ""
    elif not os.path.isdir(docs_dir):
        print("tidy-to-sarif: error: --docs-dir '%s' is not a folder" % docs_dir,
              file=sys.stderr)
        return 2

    try:
        diags = load_diagnostics(args.inputs)
        writer = SarifWriter(args.srcroot, args.docs_url, docs_dir, args.tool_name)
        log, duplicates = writer.log(diags)
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
    print("tidy-to-sarif: %d result(s)%s, %d rule(s) -> %s" % (
        len(run["results"]),
        " (%d duplicate(s) dropped)" % duplicates if duplicates else "",
        len(run["tool"]["driver"]["rules"]),
        "stdout" if args.output == "-" else args.output), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
