"""Reads the checker's findings and matches them to the source lines that waited.

Takes: --findings files: a SARIF 2.1.0 log (runs[].results[]: ruleId, message.text,
locations[0].physicalLocation.artifactLocation.uri with its uriBaseId resolved through
run.originalUriBaseIds, region.startLine), or clang-tidy's --export-fixes YAML, one document or
several (Diagnostics[]: DiagnosticName, DiagnosticMessage.{Message, FilePath, FileOffset}, a
relative FilePath taken relative to the diagnostic's BuildDirectory when it has one; the offset is
turned into a line by reading the file, so the file must be readable; a note "consider ..." at the
finding's own position, its remedy, is appended to the message after "; ").
Returns:
  - load_findings(path): (the Finding tuples of the file, a Counter of the results or diagnostics
    skipped because a field has the wrong type, by reason); FindingsError (one line) when it is not
    such a file;
  - findings_at(findings, location, source_root): the findings on the line of a "path:line"
    location: same line number, and one path a suffix of the other (whole path components), the
    location taken relative to the stacks file's source_root when it is absolute.
"""

import collections
import json
import os
import urllib.parse

from .source_lines import split_location

# path: the file as resolved (for matching); shown: as the report prints it (the URI relative to its
# uriBaseId, or the path relative to the current folder when it lies below it).
Finding = collections.namedtuple("Finding", "rule message path line origin shown")


class FindingsError(Exception):
    """A --findings file that cannot be used; the message is one line."""


def load_findings(path):
    """(findings, skipped) of a SARIF log or a clang-tidy export-fixes YAML file."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as error:
        raise FindingsError("cannot read: %s" % (error.strerror or error))
    text = raw.decode("utf-8", errors="replace")
    skipped = collections.Counter()
    if text.lstrip().startswith("{"):
        try:
            document = json.loads(text)
        except ValueError as error:
            raise FindingsError("not valid JSON (%s)" % str(error).splitlines()[0])
        return sarif_findings(document, path, skipped), skipped
    return yaml_findings(text, path, skipped), skipped


class BadField(Exception):
    """A field of a result or diagnostic of the wrong type; the message names it."""


def field(container, key, kinds, where, required=True):
    """container[key] checked to be of one of `kinds` (None when absent and not required)."""
    if not isinstance(container, dict):
        raise BadField("%s is not an object" % where)
    if key not in container or container[key] is None:
        if required:
            raise BadField("%s.%s is missing" % (where, key))
        return None
    value = container[key]
    if not isinstance(value, kinds) or isinstance(value, bool):
        raise BadField("%s.%s is not %s" % (where, key, " or ".join(KIND_NAMES[kind] for kind in kinds)))
    return value


KIND_NAMES = {dict: "an object", list: "an array", str: "a string", int: "an integer"}


def sarif_findings(document, path, skipped):
    """The results of every run of a SARIF 2.1.0 log."""
    if not isinstance(document, dict) or not isinstance(document.get("runs"), list):
        raise FindingsError("not a SARIF log: no \"runs\" array")
    if document.get("version") not in (None, "2.1.0"):
        raise FindingsError("SARIF version %r: this tool reads 2.1.0" % document.get("version"))
    findings = []
    for index, run in enumerate(document["runs"]):
        try:
            bases = field(run, "originalUriBaseIds", (dict,), "runs[%d]" % index, required=False) or {}
            results = field(run, "results", (list,), "runs[%d]" % index, required=False) or []
        except BadField as problem:
            raise FindingsError(str(problem))
        findings += convert_each(results, lambda result: sarif_result(result, bases, path), skipped)
    return findings


def convert_each(entries, convert, skipped):
    """The Findings that convert makes of entries; an entry whose fields have the wrong type (BadField) is
    counted in skipped by its problem, and one that convert turns into None is left out."""
    findings = []
    for entry in entries:
        try:
            finding = convert(entry)
        except BadField as problem:
            skipped[str(problem)] += 1
            continue
        if finding is not None:
            findings.append(finding)
    return findings


def sarif_result(result, bases, origin):
    """One Finding of a SARIF result, or None when it has no location; BadField when a field has the
    wrong type."""
    locations = field(result, "locations", (list,), "result", required=False)
    if not locations:
        return None
    location = field(locations[0], "physicalLocation", (dict,), "locations[0]", required=False)
    if location is None:
        return None
    artifact = field(location, "artifactLocation", (dict,), "physicalLocation")
    region = field(location, "region", (dict,), "physicalLocation")
    line = field(region, "startLine", (int,), "region")
    written = field(artifact, "uri", (str,), "artifactLocation")
    base_id = field(artifact, "uriBaseId", (str,), "artifactLocation", required=False)
    path = resolve_uri(written, base_id, bases)
    shown = urllib.parse.unquote(written) if base_id else shown_path(path)
    message = field(result, "message", (dict,), "result", required=False) or {}
    text = message.get("text", "")
    rule = result.get("ruleId", "?")
    return Finding(rule if isinstance(rule, str) else str(rule), text if isinstance(text, str) else str(text),
                   path, line, origin, shown)


def resolve_uri(uri, base_id, bases):
    """A file path for a SARIF artifact URI (relative when its base is unknown)."""
    base = bases.get(base_id) if base_id else None
    if isinstance(base, dict) and isinstance(base.get("uri"), str) and base["uri"]:
        uri = urllib.parse.urljoin(base["uri"], uri)
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme == "file":
        return urllib.parse.unquote(parsed.path)
    return urllib.parse.unquote(uri)


def yaml_findings(text, path, skipped):
    """The diagnostics of a clang-tidy --export-fixes file (one YAML document or several)."""
    try:
        import yaml
    except ImportError:
        raise FindingsError("reading clang-tidy YAML needs PyYAML (Debian: python3-yaml)")
    try:
        documents = [document for document in yaml.safe_load_all(text) if document is not None]
    except yaml.YAMLError as error:
        raise FindingsError("neither SARIF nor valid YAML (%s)" % str(error).splitlines()[0])
    if not documents or not all(isinstance(d, dict) and isinstance(d.get("Diagnostics"), list) for d in documents):
        raise FindingsError("not a SARIF log nor a clang-tidy export-fixes file (no Diagnostics list)")
    lines = LineTable()
    findings = []
    for document in documents:
        findings += convert_each(document["Diagnostics"],
                                 lambda diagnostic: yaml_diagnostic(diagnostic, lines, path), skipped)
    return findings


def yaml_diagnostic(diagnostic, lines, origin):
    """One Finding of a clang-tidy diagnostic, or None when it has no file; BadField when a field has
    the wrong type; FindingsError when its file cannot be read."""
    message = field(diagnostic, "DiagnosticMessage", (dict,), "diagnostic")
    file_path = field(message, "FilePath", (str,), "DiagnosticMessage", required=False)
    if not file_path:
        return None
    offset = field(message, "FileOffset", (int,), "DiagnosticMessage", required=False) or 0
    if offset < 0:
        raise BadField("DiagnosticMessage.FileOffset is negative")
    build_directory = field(diagnostic, "BuildDirectory", (str,), "diagnostic", required=False)
    if build_directory and not os.path.isabs(file_path):
        file_path = os.path.normpath(os.path.join(build_directory, file_path))
    line = lines.line_of(file_path, offset)
    if line is None:
        raise FindingsError("%s: cannot read %s to turn its offsets into lines" % (origin, file_path))
    name, text = diagnostic.get("DiagnosticName", "?"), message.get("Message", "")
    text = text if isinstance(text, str) else str(text)
    # The remedy is a note at the finding ("consider ..."); a report line gives it after the
    # finding, as SARIF's message does (torch_sync/tidy_to_sarif.py).
    for note in diagnostic.get("Notes") or []:
        if isinstance(note, dict) and str(note.get("Message", "")).startswith("consider ") and \
                note.get("FilePath") == message.get("FilePath") and \
                note.get("FileOffset") == message.get("FileOffset"):
            text = "%s; %s" % (text, note["Message"])
            break
    return Finding(name if isinstance(name, str) else str(name), text,
                   file_path, line, origin, shown_path(file_path))


def shown_path(path):
    """The path relative to the current folder when it lies below it, else as given."""
    if os.path.isabs(path):
        relative = os.path.relpath(path)
        if not relative.startswith(os.pardir):
            return relative
    return path


class LineTable:
    """Byte offset -> line number, per file, read once."""

    def __init__(self):
        self.contents = {}

    def line_of(self, path, offset):
        if path not in self.contents:
            try:
                with open(path, "rb") as f:
                    self.contents[path] = f.read()
            except OSError:
                self.contents[path] = None
        content = self.contents[path]
        if content is None:
            return None
        return content.count(b"\n", 0, offset) + 1


def path_components(path):
    """The normalized components of a path."""
    return [part for part in os.path.normpath(path).replace("\\", "/").split("/") if part not in ("", ".")]


def same_file(finding_path, location_path, source_root):
    """Whether two paths name the same file: one's components are a suffix of the other's."""
    if source_root and os.path.isabs(location_path):
        relative = os.path.relpath(location_path, source_root)
        if not relative.startswith(os.pardir):
            location_path = relative
    a, b = path_components(finding_path), path_components(location_path)
    if not a or not b:
        return False
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    return longer[-len(shorter):] == shorter


def findings_at(findings, location, source_root):
    """The findings on the line of a "path:line" location."""
    path, line = split_location(location)
    if line is None:
        return []
    return [finding for finding in findings if finding.line == line and same_file(finding.path, path, source_root)]
