"""Kernel launches written with spaces inside the chevrons, as nvcc accepts them, for clang.

nvcc takes `kernel<< <grid, block >> >(args)` (a form that old formatters wrote) as a launch;
clang's lexer knows only the `<<<` and `>>>` tokens, so it reads `<<` `<` and stops with
"expected expression". This module rewrites each such launch into the token form, keeping the
file's length, lines and columns (`<< <` becomes `<<< `: the spaces move after the chevrons),
and writes a clang virtual file system overlay that shows clang-tidy the rewritten copies under
the original paths (clang-tidy --vfsoverlay=FILE; the diagnostics name the original files).
Only a launch is rewritten: an opening `<< <` that does not follow `operator` (`operator<< <>`
in a friend declaration), closed by `>> >` or `>>>` and then `(`, with no `;`, `{` or `}`
between; comments and string literals are left as they are.

Usage: cuda_launch_syntax.py [--out DIR] ROOT...
  ROOT             a folder (its sources and headers, .git left out) or a file
  --out DIR        where the overlay and the rewritten copies go (default: a folder named by
                   the content under ${XDG_CACHE_HOME:-~/.cache}/torch-sync/cuda-launch)
Prints the overlay's path (nothing when no file needs a rewrite) and, on stderr, how many
launches in how many files were rewritten. Sources are only read.
"""

import argparse
import hashlib
import json
import os
import re
import sys

# The files that may hold a kernel launch: CUDA sources and every kind of header.
EXTENSIONS = (".cu", ".cuh", ".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".inc", ".ipp", ".tpp", ".cuinl")
MAX_BYTES = 4 << 20

# Comments and literals, skipped; then the two launch chevrons, spaced or not.
_TOKENS = re.compile(r'''
    (?P<skip> //[^\n]* | /\*.*?\*/ | "(?:\\.|[^"\\\n])*" | '(?:\\.|[^'\\\n])*' )
  | (?P<open> <<\s*< )
  | (?P<close> >>\s*> )
  | (?P<stop> [;{}] )
''', re.S | re.X)
_OPERATOR_BEFORE = re.compile(r'\boperator\s*$')
_CALL_AFTER = re.compile(r'\s*\(')


def _token_form(chevrons):
    """'<< <' -> '<<< ' (same length, newlines kept)."""
    mark = chevrons[0] * 3
    return mark + "".join(c for c in chevrons if c not in "<>")


def rewrite(text):
    """(text with each spaced launch in token form, the number of launches rewritten)."""
    out, count, pos = [], 0, 0
    opening = None  # the match of an open launch chevron not yet closed
    for m in _TOKENS.finditer(text):
        kind = m.lastgroup
        if kind == "skip":
            continue
        if kind == "stop":
            opening = None
        elif kind == "open":
            if not _OPERATOR_BEFORE.search(text[max(0, m.start() - 64):m.start()]):
                opening = m
        elif kind == "close" and opening is not None and _CALL_AFTER.match(text, m.end()):
            spaced = [x for x in (opening, m) if len(x.group()) > 3]
            for x in spaced:
                out.append(text[pos:x.start()])
                out.append(_token_form(x.group()))
                pos = x.end()
            count += bool(spaced)
            opening = None
    out.append(text[pos:])
    return "".join(out), count


def candidate_files(roots):
    """The files below each root (or the root itself) that may hold a launch."""
    for root in roots:
        if os.path.isfile(root):
            yield os.path.abspath(root)
            continue
        for d, dirs, names in os.walk(root):
            dirs[:] = sorted(x for x in dirs if x != ".git")
            for n in sorted(names):
                if n.endswith(EXTENSIONS):
                    yield os.path.abspath(os.path.join(d, n))


def rewritten_files(roots):
    """[(path, rewritten text, launches)] of the files that need a rewrite."""
    found = []
    for path in candidate_files(roots):
        try:
            if os.path.getsize(path) > MAX_BYTES:
                continue
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if not re.search(rb"<<\s+<|>>\s+>", data):
            continue
        text = data.decode("utf-8", errors="surrogateescape")
        new, n = rewrite(text)
        if n:
            found.append((path, new, n))
    return found


def default_out_base():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "torch-sync", "cuda-launch")


def write_overlay(roots, out=None, base=None):
    """Writes the rewritten copies of the files below roots and their overlay into out; returns
    (overlay path or None when no file needs a rewrite, files, launches). Without out, into a
    folder of base (default: default_out_base()) named by the content, so that the same sources
    give the same path (stable for a cache key) and concurrent writers write the same bytes."""
    found = rewritten_files(roots)
    if not found:
        return None, 0, 0
    if not out:
        digest = hashlib.sha256(json.dumps([(p, t) for p, t, _ in found], ensure_ascii=False).encode(
            "utf-8", "surrogateescape")).hexdigest()[:24]
        out = os.path.join(base or default_out_base(), digest)
    os.makedirs(out, exist_ok=True)
    roots_yaml = []
    for i, (path, text, _) in enumerate(found):
        copy = os.path.join(out, "%04d-%s" % (i, os.path.basename(path)))
        _write_atomic(copy, text.encode("utf-8", "surrogateescape"))
        roots_yaml.append({"type": "file", "name": path, "external-contents": copy})
    overlay = os.path.join(out, "overlay.yaml")
    # JSON is YAML: clang's overlay reader takes it. The original names stay in diagnostics.
    _write_atomic(overlay, json.dumps({"version": 0, "case-sensitive": "true", "use-external-names": False,
                                       "roots": roots_yaml}, indent=1).encode("utf-8"))
    return overlay, len(found), sum(n for _, _, n in found)


def _write_atomic(path, data):
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+", metavar="ROOT")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    for r in a.roots:
        if not os.path.exists(r):
            print("cuda-launch: error: no such file or folder: '%s'" % r, file=sys.stderr)
            return 2
    try:
        overlay, files, launches = write_overlay(a.roots, a.out)
    except OSError as e:
        print("cuda-launch: error: cannot write the overlay: %s" % e, file=sys.stderr)
        return 2
    if overlay:
        print(overlay)
        print("cuda-launch: %d launch(es) with spaced chevrons in %d file(s) rewritten for clang (%s)"
              % (launches, files, overlay), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
