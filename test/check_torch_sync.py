#!/usr/bin/env python3
"""Runs clang-tidy with the torch-sync checks on one test source and verifies
its diagnostics and fix-its against the annotations in that source.

With --fix (the fix-its of warnings) or --fix-notes (also those of notes:
rewrites that change the program's meaning), the fixed copy must match the CHECK-FIXES lines and must still
compile (COMPILER -fsyntax-only with the same compiler arguments).

Annotations (FileCheck syntax, the file itself is the check file):
  // CHECK-MESSAGES[-SUFFIX]: :[[@LINE-1]]:COL: warning: TEXT [check-name]
  // CHECK-NOTES[-SUFFIX]: :[[@LINE-1]]:COL: note: TEXT
  // CHECK-FIXES[-SUFFIX]: EXPECTED LINE AFTER FIXES
Every warning and error in clang-tidy's output must be expected by a
CHECK-MESSAGES line (FileCheck's --implicit-check-not); a source without any
CHECK-MESSAGES or CHECK-NOTES line for the active prefixes must produce no
warning at all. CHECK-NOTES lines expect every note too (and every warning):
a file uses CHECK-MESSAGES or CHECK-NOTES, not both, as check_clang_tidy.py
wants. A CHECK-FIXES line matches a whole line of the fixed file, leading and
trailing whitespace aside (a pattern anchored with {{^}} or {{$}} itself is
taken as written).
--check-suffix takes a comma-separated list, one FileCheck prefix per entry
(an empty entry: the plain CHECK-MESSAGES), as check_clang_tidy.py's
-check-suffixes does: lines shared by several runs or header sets use one
prefix, the lines of one of them another.

The source is copied to a temporary file with its CHECK lines stripped first
(each "// CHECK-...: ..." comment becomes "//", as check_clang_tidy.py does, so
that line and column numbers stay): a CHECK-FIXES line can then never match its
own copy in the fixed file. Fix-its never touch the source; the runner fails if
it changes anyway.

Usage:
  check_torch_sync.py --tidy CLANG_TIDY [--load PLUGIN] --filecheck FILECHECK
      --temp TEMP_BASE [--checks GLOB] [--check-suffix S[,S...]] [--fix|--fix-notes]
      [--config YAML] [--tidy-arg ARG]... [--compiler CLANGXX]
      SOURCE -- COMPILER_ARGS...
"""

import argparse
import hashlib
import os
import re
import subprocess
import sys


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(cmd, **kwargs):
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kwargs)


# A FileCheck directive in a comment: '// CHECK-MESSAGES-FOO: ...' up to the end
# of its line (the pattern check_clang_tidy.py strips).
CHECK_LINE = re.compile(r"//\s*CHECK-[A-Z0-9-]*:[^\r\n]*")


def strip_check_lines(text):
    """The test source without its FileCheck directives: each becomes '//'."""
    return CHECK_LINE.sub("//", text)


FIXES_LINE = re.compile(r"^(\s*//\s*CHECK-FIXES[A-Z0-9-]*:)[ \t]*(.*?)[ \t]*$")


def full_line_fixes(text):
    """The check file with each CHECK-FIXES pattern made to match a whole line (leading and
    trailing whitespace aside), as check_clang_tidy.py does since LLVM 21; an anchored pattern
    ({{^}} or {{$}}) stays as written."""
    out = []
    for line in text.split("\n"):
        m = FIXES_LINE.match(line)
        if m and "{{^" not in m.group(2) and "$}}" not in m.group(2):
            line = "%s {{^[[:space:]]*}}%s{{[[:space:]]*$}}" % (m.group(1), m.group(2))
        out.append(line)
    return "\n".join(out)


def filecheck(filecheck_bin, check_file, input_file, prefixes, extra=()):
    result = run([filecheck_bin, check_file, "--input-file=" + input_file,
                  "--check-prefixes=" + ",".join(prefixes), "--dump-input=fail", *extra])
    if result.returncode != 0:
        print(result.stdout)
        sys.exit("error: FileCheck with prefixes %s failed" % ",".join(prefixes))


def precompiled_header(args, temp_source, compiler_args):
    """The precompiled LibTorch header that the run can share with the suite's other runs of the
    same flags and first LibTorch header (--pch-dir), or None: as the batch tools do
    (python/torch_sync/torch_pch.py, which leaves out the sources it cannot serve: a #define before
    LibTorch's headers, a precompiled or prefix header of the test's own, ...). The findings are
    those of a run that parses the headers (scripts/test.sh compares them on every sample)."""
    if not args.pch_dir or args.no_pch or not args.compiler:
        return None
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
    from torch_sync import torch_pch
    entry = {"directory": os.getcwd(), "file": temp_source,
             "arguments": [args.compiler, *compiler_args, "-c", temp_source]}
    store = torch_pch.Store(args.pch_dir, args.compiler, log=lambda m, error=False: None, keep=1000)
    planned, _ = torch_pch.plan([entry], store, os.path.dirname(os.path.abspath(args.source)), min_units=1)
    return planned.get(temp_source, {}).get("pch")


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("error: expected '--' before the compiler arguments")
    split = argv.index("--")
    own, compiler_args = argv[:split], argv[split + 1:]

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tidy", required=True)
    parser.add_argument("--load")
    parser.add_argument("--filecheck", required=True)
    parser.add_argument("--compiler", help="compiles the fixed file (--fix)")
    parser.add_argument("--temp", required=True)
    parser.add_argument("--checks", default="-*,torch-sync-*")
    parser.add_argument("--check-suffix", default="")
    parser.add_argument("--fix", action="store_true")
    parser.add_argument("--fix-notes", action="store_true",
                        help="apply the fix-its of notes too (clang-tidy --fix-notes)")
    parser.add_argument("--config")
    parser.add_argument("--tidy-arg", action="append", default=[])
    parser.add_argument("--pch-dir", help="share precompiled LibTorch headers between the runs "
                        "(python/torch_sync/torch_pch.py), kept in this folder")
    parser.add_argument("--no-pch", action="store_true",
                        help="parse the headers in this run, whatever --pch-dir says")
    parser.add_argument("source")
    args = parser.parse_args(own)

    suffixes = ["-" + s if s else "" for s in args.check_suffix.split(",")]
    messages_prefixes = ["CHECK-MESSAGES" + s for s in suffixes]
    notes_prefixes = ["CHECK-NOTES" + s for s in suffixes]
    fixes_prefixes = ["CHECK-FIXES" + s for s in suffixes]

    with open(args.source, encoding="utf-8") as f:
        source_text = f.read()
    directive = r"\b%s(-DAG|-NEXT|-SAME|-NOT)?:"
    # The prefixes that the file uses (one of a header set may have no line).
    messages_prefixes = [p for p in messages_prefixes
                         if re.search(directive % re.escape(p), source_text)]
    notes_prefixes = [p for p in notes_prefixes
                      if re.search(directive % re.escape(p), source_text)]
    fixes_prefixes = [p for p in fixes_prefixes
                      if re.search(directive % re.escape(p), source_text)]
    if messages_prefixes and notes_prefixes:
        sys.exit("error: use either CHECK-MESSAGES or CHECK-NOTES, not both (%s)"
                 % ",".join(messages_prefixes + notes_prefixes))
    has_messages = bool(messages_prefixes)
    has_notes = bool(notes_prefixes)
    has_fixes = bool(fixes_prefixes)
    fixing = args.fix or args.fix_notes
    if has_fixes and not fixing:
        sys.exit("error: %s lines need --fix or --fix-notes" % ",".join(fixes_prefixes))

    os.makedirs(os.path.dirname(os.path.abspath(args.temp)), exist_ok=True)
    extension = os.path.splitext(args.source)[1] or ".cpp"
    temp_source = args.temp + extension
    with open(temp_source, "w", encoding="utf-8") as f:
        f.write(strip_check_lines(source_text))
    stripped_hash = sha256(temp_source)
    source_hash = sha256(args.source)

    cmd = [args.tidy]
    if args.load:
        cmd.append("-load=" + args.load)
    cmd += [temp_source, "-checks=" + args.checks]
    if args.config:
        cmd.append("-config=" + args.config)
    if args.fix:
        cmd.append("-fix")
    if args.fix_notes:
        cmd.append("-fix-notes")
    cmd += args.tidy_arg
    cmd += ["--", *compiler_args]
    pch = precompiled_header(args, temp_source, compiler_args)
    result = run(cmd + (["-include-pch", pch] if pch else []))
    output = result.stdout
    output_file = args.temp + ".tidy-output.txt"
    with open(output_file, "w", encoding="utf-8") as f:
        f.write(output)
    print(output)

    if result.returncode != 0:
        sys.exit("error: clang-tidy exited with %d" % result.returncode)
    if sha256(args.source) != source_hash:
        sys.exit("error: the test source was modified")

    if has_messages:
        filecheck(args.filecheck, args.source, output_file, messages_prefixes,
                  ["--implicit-check-not={{warning|error}}:"])
    elif has_notes:
        # clang-tidy's own note on applied fixes is no finding's.
        notes_file = args.temp + ".notes.txt"
        with open(notes_file, "w", encoding="utf-8") as f:
            f.write("\n".join(l for l in output.splitlines()
                              if "note: FIX-IT applied" not in l))
        filecheck(args.filecheck, args.source, notes_file, notes_prefixes,
                  ["--implicit-check-not={{note|warning|error}}:"])
    else:
        unexpected = [l for l in output.splitlines()
                      if re.search(r"\b(warning|error):", l)]
        if unexpected:
            sys.exit("error: expected no diagnostics, got:\n" + "\n".join(unexpected))

    if fixing:
        if has_fixes:
            fixes_check = args.temp + ".fixes-check" + extension
            with open(fixes_check, "w", encoding="utf-8") as f:
                f.write(full_line_fixes(source_text))
            filecheck(args.filecheck, fixes_check, temp_source, fixes_prefixes,
                      ["--strict-whitespace"])
        elif sha256(temp_source) != stripped_hash:
            sys.exit("error: fix-its were applied but no %s lines expect them"
                     % ",".join("CHECK-FIXES" + s for s in suffixes))
        if args.compiler:
            compiled = run([args.compiler, "-fsyntax-only", temp_source,
                            *compiler_args])
            if compiled.returncode != 0:
                print(compiled.stdout)
                sys.exit("error: the fixed file does not compile")


if __name__ == "__main__":
    main()
