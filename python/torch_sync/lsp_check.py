# Drives clangd (torch-sync-clangd) over the Language Server Protocol on stdio, as an editor does,
# and prints the diagnostics it publishes: to check an editor set-up (does the .clangd file enable
# the torch-sync checks?) and to measure how long a re-check after an edit takes. The source file
# is only read: edits are sent to clangd as unsaved text, never written.
#
# Usage: torch-sync-lsp-check [options] FILE [-- CLANGD_ARG...]
#        (in a torch-sync checkout: scripts/lsp-check.py, the same options)
#
#   FILE                the source to open; clangd finds its compile command as in an editor
#                       (compile_commands.json in FILE's folder or a parent, or
#                       -- --compile-commands-dir=DIR) and its settings in .clangd files
#   --clangd PROGRAM    the clangd to run (default: $TORCH_SYNC_CLANGD, else torch-sync-clangd
#                       on PATH)
#   --change TEXT_FILE  after the diagnostics of the opened text, replace the document's text by
#                       TEXT_FILE's (a didChange) and print the diagnostics of the new version;
#                       may be repeated
#   --measure N         instead of printing diagnostics: make N edits (a comment line appended
#                       to the document, so clangd reuses its preamble) and print JSON: the
#                       first (cold) diagnostics and each re-check, as the wall time from the
#                       message sent to the diagnostics of its version and clangd's CPU time
#                       (user+sys) in between, with their medians
#   --code-actions      after the diagnostics of the last version, ask clangd for the quick
#                       fixes of each torch-sync diagnostic (textDocument/codeAction, as an
#                       editor's light bulb does) and print each under its diagnostic:
#                       "  action: TITLE (N edit(s))"
#   --apply-action TEXT write the last version's text, with the edits of every offered action
#                       whose title contains TEXT applied, to --write FILE (implies
#                       --code-actions; fails when no action matches)
#   --write FILE        where --apply-action writes (FILE is never the source)
#   --encoding NAME     the encoding of FILE and the --change files (default: utf-8; a Python
#                       codec name such as latin-1); LSP sends the text to clangd as UTF-8, as
#                       an editor does after decoding the file
#   --timeout SECONDS   how long to wait for each reply (default: 300)
#   CLANGD_ARG...       more arguments for clangd; unless given, --background-index=false and
#                       --log=error are added (clangd's log is shown on an error only, or
#                       always when a --log=LEVEL is given here)
#
# Output: for each version, "version V: N diagnostic(s)", then one line per diagnostic,
# "FILE:LINE:COL: SEVERITY: MESSAGE [CODE]", in the order clangd sent them.
# Exit status: 0 when clangd answered every step and shut down cleanly; 2 on bad input, a
# timeout, or clangd failing (its stderr is shown).
import argparse
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

SEVERITIES = {1: "error", 2: "warning", 3: "note", 4: "note"}
LANGUAGES = {".c": "c", ".cu": "cuda", ".cuh": "cuda", ".m": "objective-c", ".mm": "objective-cpp"}


class LspError(Exception):
    pass


class Clangd:
    """A clangd subprocess spoken to in JSON-RPC over its stdin and stdout."""

    def __init__(self, argv, timeout, show_log):
        self.timeout = timeout
        self.next_id = 1
        self.messages = queue.Queue()
        self.stderr_lines = []
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=None if show_log else subprocess.PIPE)
        except OSError as e:
            hint = ""
            if isinstance(e, FileNotFoundError):
                hint = " (not built? docs/editors.md says how to build torch-sync-clangd)"
            raise LspError("cannot run %s: %s%s" % (argv[0], e.strerror, hint))
        threading.Thread(target=self._read_stdout, daemon=True).start()
        if not show_log:
            threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self):
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.decode("ascii", "replace").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                if length is None:
                    self.messages.put(LspError("a message without Content-Length"))
                    return
                body = out.read(length)
                if len(body) < length:
                    return
                self.messages.put(json.loads(body))
        except (ValueError, OSError) as e:
            self.messages.put(LspError("unreadable message from clangd: %s" % e))
        finally:
            self.messages.put(None)

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr_lines.append(line.decode("utf-8", "replace"))

    def send(self, message):
        message["jsonrpc"] = "2.0"
        body = json.dumps(message).encode("utf-8")
        try:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()
        except OSError:
            raise LspError("clangd stopped reading its input")

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def request(self, method, params):
        """Sends a request; returns its id."""
        request_id = self.next_id
        self.next_id += 1
        self.send({"id": request_id, "method": method, "params": params})
        return request_id

    def wait_for(self, matches, what):
        """Returns the first message for which matches() is true, answering clangd's own
        requests (progress tokens and the like) with an empty result on the way."""
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            try:
                message = self.messages.get(timeout=max(left, 0))
            except queue.Empty:
                raise LspError("no %s from clangd within %g s" % (what, self.timeout))
            if message is None:
                raise LspError("clangd closed its output while waiting for %s (exit status %s)"
                               % (what, self.proc.wait()))
            if isinstance(message, Exception):
                raise message
            if "method" in message and "id" in message:
                self.send({"id": message["id"], "result": None})
                continue
            if matches(message):
                return message

    def response(self, request_id, what):
        message = self.wait_for(lambda m: m.get("id") == request_id and "method" not in m, what)
        if "error" in message:
            raise LspError("clangd answered %s with an error: %s"
                           % (what, message["error"].get("message")))
        return message.get("result")

    def cpu_seconds(self):
        """clangd's CPU time so far (user+sys, all its threads), from /proc."""
        try:
            with open("/proc/%d/stat" % self.proc.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def file_uri(path):
    return "file://" + urllib.request.pathname2url(path)


def diagnostics_of(clangd, uri, version, what):
    def matches(m):
        if m.get("method") != "textDocument/publishDiagnostics":
            return False
        params = m.get("params", {})
        return (urllib.parse.unquote(params.get("uri", "")) == urllib.parse.unquote(uri)
                and params.get("version", version) == version)
    return clangd.wait_for(matches, what)["params"].get("diagnostics", [])


def format_diagnostic(name, d):
    start = d.get("range", {}).get("start", {})
    code = d.get("code")
    return "%s:%d:%d: %s: %s%s" % (
        name, start.get("line", 0) + 1, start.get("character", 0) + 1,
        SEVERITIES.get(d.get("severity"), "warning"), d.get("message", "").replace("\n", " "),
        " [%s]" % code if code else "")


def is_torch_sync(d):
    return str(d.get("code", "")).startswith("torch-sync-")


def read_text(path, what, encoding):
    """The text of path, decoded: LSP carries documents as Unicode text (UTF-8 on the wire)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise LspError("cannot read %s %s: %s" % (what, path, e.strerror))
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as e:
        raise LspError(
            "cannot read %s %s: byte 0x%02x at offset %d is not %s; LSP sends the text to clangd "
            "as UTF-8, so give the file's encoding with --encoding (e.g. --encoding latin-1)"
            % (what, path, data[e.start], e.start, encoding))


def utf16_offset(text, line, character):
    """The offset into text of an LSP position (a line and a count of UTF-16 code units)."""
    lines = text.split("\n")
    if line >= len(lines):
        return len(text)
    start = sum(len(l) + 1 for l in lines[:line])
    units = 0
    for i, ch in enumerate(lines[line]):
        if units >= character:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(lines[line])


def apply_edits(text, edits):
    """text with the LSP TextEdits applied (they must not overlap), from the last to the first."""
    spans = []
    for e in edits:
        r = e["range"]
        spans.append((utf16_offset(text, r["start"]["line"], r["start"]["character"]),
                      utf16_offset(text, r["end"]["line"], r["end"]["character"]), e["newText"]))
    for begin, end, new in sorted(spans, reverse=True):
        text = text[:begin] + new + text[end:]
    return text


def action_edits(action, uri):
    """The TextEdits a code action makes to the document uri."""
    edit = action.get("edit") or {}
    edits = list((edit.get("changes") or {}).get(uri, []))
    for change in edit.get("documentChanges") or []:
        if urllib.parse.unquote(change.get("textDocument", {}).get("uri", "")) == \
                urllib.parse.unquote(uri):
            edits += change.get("edits", [])
    return edits


def code_actions(clangd, uri, diagnostics):
    """[(diagnostic, [code action])] for each torch-sync diagnostic: what clangd offers for it."""
    found = []
    for d in diagnostics:
        if not is_torch_sync(d):
            continue
        result = clangd.response(clangd.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": d["range"],
            "context": {"diagnostics": [d], "only": ["quickfix"]}}),
            "the code actions of %s" % format_diagnostic(uri, d))
        found.append((d, [a for a in result or [] if "edit" in a]))
    return found


def run(args, clangd_args):
    path = os.path.abspath(args.file)
    text = read_text(args.file, "the source", args.encoding)
    changes = [read_text(c, "the --change text", args.encoding) for c in args.change]
    program = args.clangd or os.environ.get("TORCH_SYNC_CLANGD") or shutil.which("torch-sync-clangd")
    if not program:
        raise LspError("no clangd: give --clangd PROGRAM, set TORCH_SYNC_CLANGD, or put "
                       "torch-sync-clangd on PATH (docs/editors.md says how to build it)")
    argv = [program]
    if not any(a.lstrip("-").startswith("background-index") for a in clangd_args):
        argv.append("--background-index=false")
    show_log = any(a.lstrip("-").startswith("log") for a in clangd_args)
    if not show_log:
        argv.append("--log=error")
    argv += clangd_args

    clangd = Clangd(argv, args.timeout, show_log)
    uri = file_uri(path)
    try:
        init = clangd.request("initialize", {
            "processId": os.getpid(),
            "rootUri": file_uri(os.path.dirname(path)),
            "capabilities": {"textDocument": {
                # As editors do: a note comes as related information of its diagnostic.
                "publishDiagnostics": {"versionSupport": True, "relatedInformation": True},
                "codeAction": {"codeActionLiteralSupport": {
                    "codeActionKind": {"valueSet": ["quickfix"]}}}}},
        })
        clangd.response(init, "the answer to initialize")
        clangd.notify("initialized", {})

        language = LANGUAGES.get(os.path.splitext(path)[1].lower(), "cpp")
        cpu0, wall0 = clangd.cpu_seconds(), time.monotonic()
        clangd.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": 1, "text": text}})
        first = diagnostics_of(clangd, uri, 1, "diagnostics of the opened file")
        cold = {"wall_s": time.monotonic() - wall0, "cpu_s": delta(clangd.cpu_seconds(), cpu0),
                "diagnostics": len(first), "torch_sync_diagnostics": sum(map(is_torch_sync, first))}
        results = [first]
        edits = []
        if args.measure is not None:
            changes = [text + "\n// lsp-check edit %d\n" % i for i in range(1, args.measure + 1)]
        for version, new_text in enumerate(changes, start=2):
            cpu0, wall0 = clangd.cpu_seconds(), time.monotonic()
            clangd.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": new_text}]})
            diags = diagnostics_of(clangd, uri, version, "diagnostics of version %d" % version)
            edits.append({"wall_s": time.monotonic() - wall0,
                          "cpu_s": delta(clangd.cpu_seconds(), cpu0),
                          "diagnostics": len(diags),
                          "torch_sync_diagnostics": sum(map(is_torch_sync, diags))})
            results.append(diags)
        last_text = changes[-1] if changes else text
        actions = code_actions(clangd, uri, results[-1]) if args.code_actions else []

        clangd.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        clangd.response(clangd.request("shutdown", None), "the answer to shutdown")
        clangd.notify("exit", None)
        try:
            status = clangd.proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            raise LspError("clangd did not exit within %g s of the exit notification" % args.timeout)
        if status != 0:
            raise LspError("clangd exited with status %d after shutdown" % status)
    except LspError:
        clangd.stop()
        sys.stderr.writelines(clangd.stderr_lines[-40:])
        raise
    except BaseException:
        clangd.stop()
        raise

    if args.measure is not None:
        print(json.dumps({
            "clangd": program, "file": path, "cold": cold, "edits": edits,
            "median_wall_s": statistics.median(e["wall_s"] for e in edits),
            "median_cpu_s": median_or_none([e["cpu_s"] for e in edits]),
        }, indent=2))
    else:
        offered = {id(d): a for d, a in actions}
        for version, diags in enumerate(results, start=1):
            print("version %d: %d diagnostic(s)" % (version, len(diags)))
            for d in diags:
                print(format_diagnostic(args.file, d))
                if version == len(results):
                    for a in offered.get(id(d), []):
                        print("  action: %s (%d edit(s))" % (a.get("title", "").replace("\n", " "),
                                                            len(action_edits(a, uri))))
    if args.apply_action is not None:
        chosen = [e for _, acts in actions for a in acts if args.apply_action in a.get("title", "")
                  for e in action_edits(a, uri)]
        if not chosen:
            raise LspError("clangd offered no code action whose title contains %r"
                           % args.apply_action)
        with open(args.write, "w", encoding="utf-8") as f:
            f.write(apply_edits(last_text, chosen))


def delta(after, before):
    return None if after is None or before is None else round(after - before, 3)


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    clangd_args = []
    if "--" in argv:
        at = argv.index("--")
        argv, clangd_args = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(description="Drive clangd over LSP and print its diagnostics.")
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--clangd", metavar="PROGRAM")
    parser.add_argument("--change", metavar="TEXT_FILE", action="append", default=[])
    parser.add_argument("--measure", metavar="N", type=int)
    parser.add_argument("--code-actions", action="store_true")
    parser.add_argument("--apply-action", metavar="TEXT")
    parser.add_argument("--write", metavar="FILE")
    parser.add_argument("--encoding", metavar="NAME", default="utf-8")
    parser.add_argument("--timeout", metavar="SECONDS", type=float, default=300)
    args = parser.parse_args(argv)
    if args.measure is not None and (args.measure < 1 or args.change):
        parser.error("--measure takes a count of edits N >= 1 and goes without --change")
    if args.apply_action is not None:
        args.code_actions = True
        if not args.write:
            parser.error("--apply-action needs --write FILE")
        if os.path.abspath(args.write) == os.path.abspath(args.file):
            parser.error("--write must not name the source: the tool never edits it")
    if args.code_actions and args.measure is not None:
        parser.error("--code-actions goes without --measure")
    if args.timeout <= 0:
        parser.error("--timeout takes a positive number of seconds")
    try:
        b"\0\0\0\0".decode(args.encoding)  # not b"": that is decoded without a codec look-up
    except UnicodeDecodeError:
        pass
    except LookupError:
        parser.error("--encoding: %r is not a text encoding Python knows" % args.encoding)
    try:
        run(args, clangd_args)
    except LspError as e:
        print("lsp-check: error: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
