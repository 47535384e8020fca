"""Reads the checker's findings and matches them to the source lines that waited.

Takes: --findings files: a SARIF 2.1.0 log (runs[].results[]: ruleId, message.text,
locations[0].physicalLocation.artifactLocation.uri with its uriBaseId resolved through
run.originalUriBaseIds, region.startLine), or clang-tidy's --export-fixes YAML (Diagnostics[]:
DiagnosticName, DiagnosticMessage.{Message, FilePath, FileOffset}; the offset is turned into a line
by reading the file, so the file must be readable).
Returns:
  - load_findings(path): the Finding tuples of the file; FindingsError (one line) when it is not
    such a file;
  - findings_at(findings, location, source_root): the findings on the line of a "path:line"
    location: same line number, and one path a suffix of the other (whole path components), the
    location taken relative to the stacks file's source_root when it is absolute.
"""

import collections
import json
import os
import urllib.parse

from source_lines import split_location

# path: the file as resolved (for matching); shown: as the report prints it (the URI relative to its
# uriBaseId, or the path relative to the current folder when it lies below it).
Finding = collections.namedtuple("Finding", "rule message path line origin shown")


class FindingsError(Exception):
    """A --findings file that cannot be used; the message is one line."""


def load_findings(path):
    """The findings of a SARIF log or a clang-tidy export-fixes YAML file."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as error:
        raise FindingsError("cannot read: %s" % (error.strerror or error))
    text = raw.decode("utf-8", errors="replace")
    if text.lstrip().startswith("{"):
        try:
            document = json.loads(text)
        except ValueError as error:
            raise FindingsError("not valid JSON (%s)" % str(error).splitlines()[0])
        return sarif_findings(document, path)
    return yaml_findings(text, path)


def sarif_findings(document, path):
    """The results of every run of a SARIF 2.1.0 log."""
    if not isinstance(document, dict) or not isinstance(document.get("runs"), list):
        raise FindingsError("not a SARIF log: no \"runs\" array")
    if document.get("version") not in (None, "2.1.0"):
        raise FindingsError("SARIF version %r: this tool reads 2.1.0" % document.get("version"))
    findings = []
    for run in document["runs"]:
        bases = run.get("originalUriBaseIds", {}) if isinstance(run, dict) else {}
        for result in (run.get("results") or []) if isinstance(run, dict) else []:
            finding = sarif_result(result, bases, path)
            if finding is not None:
                findings.append(finding)
    return findings


def sarif_result(result, bases, origin):
    """One Finding of a SARIF result, or None when it has no file and line."""
    try:
        location = result["locations"][0]["physicalLocation"]
        artifact = location["artifactLocation"]
        line = int(location["region"]["startLine"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    written = str(artifact.get("uri", ""))
    path = resolve_uri(written, artifact.get("uriBaseId"), bases)
    shown = urllib.parse.unquote(written) if artifact.get("uriBaseId") else shown_path(path)
    message = result.get("message", {}).get("text", "") if isinstance(result.get("message"), dict) else ""
    return Finding(str(result.get("ruleId", "?")), message, path, line, origin, shown)


def resolve_uri(uri, base_id, bases):
    """A file path for a SARIF artifact URI (relative when its base is unknown)."""
    if base_id and isinstance(bases.get(base_id), dict) and bases[base_id].get("uri"):
        uri = urllib.parse.urljoin(bases[base_id]["uri"], uri)
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme == "file":
        return urllib.parse.unquote(parsed.path)
    return urllib.parse.unquote(uri)


def yaml_findings(text, path):
    """The diagnostics of a clang-tidy --export-fixes file."""
    try:
        import yaml
    except ImportError:
        raise FindingsError("reading clang-tidy YAML needs PyYAML (Debian: python3-yaml)")
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise FindingsError("neither SARIF nor valid YAML (%s)" % str(error).splitlines()[0])
    if not isinstance(document, dict) or not isinstance(document.get("Diagnostics"), list):
        raise FindingsError("not a SARIF log nor a clang-tidy export-fixes file (no Diagnostics list)")
    lines = LineTable()
    findings = []
    for diagnostic in document["Diagnostics"]:
        message = diagnostic.get("DiagnosticMessage") if isinstance(diagnostic, dict) else None
        if not isinstance(message, dict) or not message.get("FilePath"):
            continue
        file_path = message["FilePath"]
        line = lines.line_of(file_path, int(message.get("FileOffset", 0) or 0))
        if line is None:
            raise FindingsError("%s: cannot read %s to turn its offsets into lines" % (path, file_path))
        findings.append(Finding(str(diagnostic.get("DiagnosticName", "?")), message.get("Message", ""),
                                file_path, line, path, shown_path(file_path)))
    return findings


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
