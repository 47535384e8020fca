"""Helpers of torch-sync-scan (scripts/scan-project.sh), called by torch_sync.scan_project, which parses its options
(Python 3 standard library only).

  scan_report.py gendb  ...   write a compilation database from flags
  scan_report.py merge  ...   merge compilation databases into one
  scan_report.py scan   ...   collect the project facts over every translation unit of a
                              database (unless --no-project-facts), run the torch-sync checks
                              over them with the facts, optionally time clang++ -fsyntax-only
                              over the same units, and write report.md and report.json

scan-project.sh is the documented entry point; see its --help.
"""

import argparse
import concurrent.futures
import glob
import fnmatch
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

from . import cuda_launch_syntax, resources, tidy_cache, torch_pch
from .torch_pch import arg_include_dirs, is_cuda_unit

SOURCE_EXTS = (".cpp", ".cc", ".cxx", ".c++", ".cu")
# A translation unit that needs the CUDA flavour of LibTorch and the CUDA headers.
CUDA_INCLUDE_RE = re.compile(
    r'^\s*#\s*include\s*[<"](c10/cuda/|ATen/cuda/|ATen/native/cuda/|c10/hip/|ATen/hip/|'
    r'cuda_runtime|cuda\.h|cuda_fp16|cuda_bf16|cublas|cusparse|cusolver|curand|thrust/|cub/)',
    re.M)
SKIP_DIRS = {".git", ".hg", ".svn", "build", "_build", "third_party", "third-party", "extern",
             "external", "node_modules", "__pycache__"}
DIAG_RE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>warning|error|note|remark|fatal error): "
                     r"(?P<msg>.*?)(?: \[(?P<check>[A-Za-z0-9_.,-]+)\])?$")
# Every clang-tidy run lifts clang's error limit (20 by default): after it a unit stops with a
# fatal error and no template is instantiated any more, so errors in a library header would
# silently take findings in the project's own code with them. Before the compile command's own
# arguments and --extra-arg's, which still win (torch-sync-tidy puts it there too; a stock
# clang-tidy with the plugin does not).
NO_ERROR_LIMIT = "--extra-arg-before=-ferror-limit=0"
# What clang says when it stops at the error limit (a limit the compile command sets).
ERROR_LIMIT_MARKER = "too many errors emitted, stopping now"
CRASH_MARKERS = ("Stack dump:", "PLEASE submit a bug report", "LLVM ERROR:", "Segmentation fault")


def die(msg):
    print("scan-project: " + msg, file=sys.stderr)
    sys.exit(2)


# --------------------------------------------------------------------------- gendb

def find_sources(root, patterns, excludes, under="."):
    files = set()
    if patterns:
        for pat in patterns:
            hits = glob.glob(os.path.join(root, pat), recursive=True)
            if not hits:
                print("scan-project: warning: --sources '%s' matches no file" % pat, file=sys.stderr)
            files.update(os.path.abspath(h) for h in hits if os.path.isfile(h))
    else:
        for d, subdirs, names in os.walk(os.path.join(root, under)):
            subdirs[:] = sorted(s for s in subdirs if s not in SKIP_DIRS and not s.startswith("."))
            for n in names:
                if n.endswith(SOURCE_EXTS):
                    files.add(os.path.abspath(os.path.join(d, n)))
    out = []
    for f in sorted(files):
        rel = os.path.relpath(f, root)
        if any(re.search(x, rel) for x in excludes):
            continue
        out.append(f)
    return out


INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
_includes_memo = {}


def file_includes(path):
    """(quoted, name) of each #include of a file, and whether it includes a CUDA header."""
    if path not in _includes_memo:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            text = ""
        _includes_memo[path] = ([(m.group(1) == '"', m.group(2).strip()) for m in INCLUDE_RE.finditer(text)],
                                bool(CUDA_INCLUDE_RE.search(text)))
    return _includes_memo[path]


def needs_cuda(path, root=None, include_dirs=()):
    """Whether a translation unit needs CUDA: a .cu/.cuh file, or one that includes a CUDA header
    itself or through the project's own headers (#include "..." resolved beside the includer and
    in include_dirs, <...> in include_dirs; only files under root are followed)."""
    root = os.path.abspath(root) + os.sep if root else None
    seen, todo = set(), [os.path.abspath(path)]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        if f.endswith((".cu", ".cuh")):
            return True
        incs, cuda = file_includes(f)
        if cuda:
            return True
        if root is None:
            continue
        for quoted, name in incs:
            cands = ([os.path.dirname(f)] if quoted else []) + list(include_dirs)
            for d in cands:
                c = os.path.normpath(os.path.join(d, name))
                if os.path.isfile(c):
                    if c.startswith(root):
                        todo.append(c)
                    break
    return False


def is_cuda_libtorch(root_dir):
    """A CUDA build of LibTorch has the generated c10/cuda/impl/cuda_cmake_macros.h; a CPU one
    (Debian's libtorch-dev) has not."""
    return os.path.isfile(os.path.join(root_dir, "c10/cuda/impl/cuda_cmake_macros.h"))


def torch_includes(root_dir):
    # /usr/include is already a system folder: naming it again with -isystem moves it ahead of
    # the C++ library's folders and breaks <cstdlib>'s #include_next.
    api = ["-isystem", os.path.join(root_dir, "torch/csrc/api/include")]
    if os.path.normpath(root_dir) in ("/usr/include", "/usr/local/include"):
        return api
    return ["-isystem", root_dir] + api


def extension_name(specs, rel_path):
    """The Python extension a source belongs to, from --torch-extension NAME[=GLOB] (in order:
    the first whose GLOB, relative to the checkout, matches, or that has none); a source that
    none matches gets the first NAME (any identifier lets PYBIND11_MODULE parse). "" without
    specs."""
    for spec in specs:
        name, _, pattern = spec.partition("=")
        if not pattern or fnmatch.fnmatchcase(rel_path, pattern):
            return name
    return specs[0].partition("=")[0] if specs else ""


def gen_options(a, root, f=""):
    incs = []
    for i in a.include:
        incs += ["-I", i if os.path.isabs(i) else os.path.join(root, i)]
    ext = []
    name = extension_name(a.torch_extension, os.path.relpath(f, root) if f else "")
    if name:
        ext = ["-DTORCH_EXTENSION_NAME=" + name, "-DTORCH_API_INCLUDE_EXTENSION_H"]
        if a.python_include:
            ext += ["-isystem", a.python_include]
    return incs, ["-D" + d for d in a.define], ext, shlex.split(a.flags or "")


def gen_entry(a, root, f, more=()):
    """A generated compile command for source f; more: further -I/-D flags, before LibTorch's.
    Returns (entry, whether it was made a CUDA translation unit)."""
    incs, defs, ext, extra = gen_options(a, root, f)
    args = [a.compiler]
    if f.endswith(".cu"):
        args += ["-x", "cuda", "--cuda-host-only", "--cuda-path=" + a.cuda_path, "-nocudalib",
                 "-Wno-unknown-cuda-version"]
        # What torch.utils.cpp_extension and LibTorch's CMake pass to nvcc: without them
        # c10::Half's operators are ambiguous with CUDA's __half operators.
        args += ["-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
                 "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__"]
    # What a release build passes (CMake's Release and RelWithDebInfo, and setup.py builds through
    # Python's CFLAGS): assert() and TORCH_INTERNAL_ASSERT_DEBUG_ONLY are compiled out, so a sync
    # inside one does not run, and is not reported.
    args += ["-std=" + a.std, "-DNDEBUG"]
    # The source's own folder and the include/ folders beside it and its parents (the
    # usual src/ + include/ layout), up to the checkout.
    d = os.path.dirname(f)
    local = [d]
    while True:
        inc = os.path.join(d, "include")
        if os.path.isdir(inc):
            local.append(inc)
        if os.path.samefile(d, root) or os.path.dirname(d) == d:
            break
        d = os.path.dirname(d)
    more = list(more)
    cuda = needs_cuda(f, root, local + incs[1::2] + arg_include_dirs(more, root))
    torch_root = a.cuda_torch_include if cuda else a.torch_include
    for l in local:
        args += ["-I", l]
    args += incs + defs + more + ext + torch_includes(torch_root)
    if cuda:
        args += ["-isystem", os.path.join(a.cuda_path, "include"),
                 "-isystem", os.path.join(a.cuda_path, "include/cccl")]
    if f.endswith(".cu") and not os.path.isfile(os.path.join(a.cuda_path, "include/texture_fetch_functions.h")):
        # CUDA 13 removed texture_fetch_functions.h, which clang 19's CUDA wrapper still
        # includes: an empty stand-in, searched after every other folder.
        stub = os.path.join(os.path.dirname(os.path.abspath(getattr(a, "out", None) or a.db)), "cuda-stub")
        os.makedirs(stub, exist_ok=True)
        open(os.path.join(stub, "texture_fetch_functions.h"), "a").close()
        args += ["-idirafter", stub]
    args += extra + ["-c", f, "-o", os.path.splitext(os.path.basename(f))[0] + ".o"]
    return {"directory": root, "file": f, "arguments": args}, cuda


def cmd_gendb(a):
    root = os.path.abspath(a.root)
    sources = find_sources(root, a.sources, a.exclude, a.under)
    if not sources:
        die("no source files (%s) found under %s%s; nothing to analyse" % (
            " ".join("*" + e for e in SOURCE_EXTS), root,
            " with --sources " + " ".join(a.sources) if a.sources else ""))
    entries, ncuda = [], 0
    for f in sources:
        e, cuda = gen_entry(a, root, f)
        entries.append(e)
        ncuda += cuda
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as fh:
        json.dump(entries, fh, indent=1)
    print("scan-project: generated %s: %d translation units (%d as CUDA)" % (
        a.out, len(entries), ncuda), file=sys.stderr)
    if ncuda and not is_cuda_libtorch(a.cuda_torch_include):
        cpu_libtorch_notice(a, ncuda, "generated database")


# The commands of a CMake trace (cmake --trace-format=json-v1) that name include folders and
# macros, and the keywords among their arguments.
TRACE_INCLUDES = {"include_directories", "target_include_directories"}
TRACE_DEFINES = {"add_definitions", "add_compile_definitions", "target_compile_definitions",
                 "add_compile_options", "target_compile_options"}
TRACE_KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER"}


def cmake_trace_flags(trace_path, root):
    """The include folders (absolute, below root) and macro definitions that the configure step
    traced in TRACE_PATH set before it failed: the flags CMake knew, for a database generated
    when it could not write one. Generator expressions and folders outside root (third-party or
    system ones, which the generated flags bring themselves) are left out. Returns
    ([folder], [NAME[=VALUE]]) in order, without duplicates."""
    includes, defines = [], []
    root = os.path.realpath(root)
    try:
        fh = open(trace_path, encoding="utf-8", errors="replace")
    except OSError:
        return includes, defines
    with fh:
        for line in fh:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            cmd = str(ev.get("cmd", "")).lower()
            args = [str(x) for x in ev.get("args", [])]
            if cmd in ("target_include_directories", "target_compile_definitions", "target_compile_options"):
                args = args[1:]  # the target
            args = [x for x in args if x not in TRACE_KEYWORDS and "$<" not in x and x]
            base = os.path.dirname(str(ev.get("file", ""))) or root
            if cmd in TRACE_INCLUDES:
                for x in args:
                    d = os.path.realpath(os.path.join(base, x))
                    if below_root(d, root) and os.path.isdir(d) and d not in includes:
                        includes.append(d)
            elif cmd in TRACE_DEFINES:
                for x in args:
                    if cmd.startswith(("add_definitions", "add_compile_options", "target_compile_options")):
                        if not x.startswith(("-D", "/D")):
                            continue
                        x = x[2:]
                    elif x.startswith("-D"):
                        x = x[2:]
                    if re.match(r"^[A-Za-z_][A-Za-z0-9_]*(=.*)?$", x) and x not in defines:
                        defines.append(x)
    return includes, defines


def cmd_cmake_trace_flags(a):
    includes, defines = cmake_trace_flags(a.trace, a.root)
    for d in includes:
        print("-I\t" + d)
    for d in defines:
        print("-D\t" + d)


def project_flags(args, root):
    """The -I/-iquote folders inside root and the -D/-U macros of a compile command."""
    out, i = [], 0
    root = os.path.abspath(root) + os.sep
    while i < len(args):
        x, nxt = args[i], args[i + 1] if i + 1 < len(args) else None
        if x in ("-D", "-U") and nxt is not None:
            out += [x, nxt]
            i += 2
            continue
        if x.startswith(("-D", "-U")) and len(x) > 2:
            out.append(x)
        for o in ("-I", "-iquote"):
            v = nxt if x == o else (x[len(o):] if x.startswith(o) and len(x) > len(o) else None)
            if v is not None:
                if (os.path.abspath(v) + os.sep).startswith(root):
                    out += [o, os.path.abspath(v)]
                if x == o:
                    i += 1
                break
        i += 1
    return out


def cmd_cudafix(a):
    """A CMake database configured against a CPU LibTorch: its CUDA translation units (and the
    .cu sources it left out) get generated flags with --cuda-torch-include, keeping the
    project's own -I and -D flags."""
    root = os.path.abspath(a.root)
    db = load_db(a.db)
    cuda_units = []
    for e in db:
        args = entry_args(e)
        dirs = arg_include_dirs(args, e["directory"])
        if any(is_cuda_libtorch(d) for d in dirs):
            continue  # already configured against a CUDA LibTorch
        if needs_cuda(e["file"], root, dirs):
            cuda_units.append(e)
    inside = {os.path.normpath(e["file"]) for e in db}
    left_out = [f for f in find_sources(root, None, a.exclude) if f.endswith(".cu") and f not in inside]
    if not cuda_units and not left_out:
        return
    n = len(cuda_units) + len(left_out)
    print("scan-project: the project uses CUDA: %d translation unit(s) of the CMake database need "
          "CUDA, and %d .cu source(s) are not in it" % (len(cuda_units), len(left_out)), file=sys.stderr)
    if not is_cuda_libtorch(a.cuda_torch_include):
        cpu_libtorch_notice(a, n, "CMake database (configured against a CPU LibTorch)")
        return
    new = []
    for e in db:
        if e in cuda_units:
            e = gen_entry(a, root, e["file"], project_flags(entry_args(e), root))[0]
        new.append(e)
    for f in left_out:
        new.append(gen_entry(a, root, f)[0])
    with open(a.db, "w") as fh:
        json.dump(new, fh, indent=1)
    msg = ("CMake was configured against a CPU LibTorch: %d CUDA translation unit(s) of its database "
           "(those including CUDA headers, directly or through the project's headers) got generated "
           "flags with the CUDA LibTorch of --cuda-torch-include `%s`, their CMake -I/-D flags kept; "
           "%d .cu source(s) that it left out were added the same way" % (
               len(cuda_units), a.cuda_torch_include, len(left_out)))
    print("scan-project: " + msg, file=sys.stderr)
    with open(a.notices, "a") as fh:
        fh.write(msg + "\n")


def cpu_libtorch_notice(a, ncuda, where):
    msg = ("%d translation unit(s) use CUDA (.cu sources, or CUDA headers included directly or through "
           "the project's headers), but only a CPU LibTorch is available (%s has no "
           "c10/cuda/impl/cuda_cmake_macros.h): the %s parses them against CPU headers, so they may "
           "fail to parse and lose findings; pass --cuda-torch-include DIR, the include folder of a CUDA "
           "build of LibTorch (a CUDA PyTorch wheel's torch/include)" % (ncuda, a.cuda_torch_include, where))
    print("scan-project: warning: " + msg, file=sys.stderr)
    if a.notices:
        with open(a.notices, "a") as fh:
            fh.write(msg + "\n")


# --------------------------------------------------------------------------- merge

def load_db(path):
    try:
        with open(path) as fh:
            db = json.load(fh)
    except (OSError, ValueError) as e:
        die("cannot read compilation database %s: %s" % (path, e))
    if not isinstance(db, list):
        die("%s is not a compilation database (a JSON list)" % path)
    for e in db:
        if not isinstance(e, dict) or "file" not in e or "directory" not in e or \
                ("arguments" not in e and "command" not in e):
            die("%s: an entry lacks 'directory', 'file' or 'arguments'/'command'" % path)
        if not os.path.isabs(e["file"]):
            e["file"] = os.path.normpath(os.path.join(e["directory"], e["file"]))
    return db


def cmd_merge(a):
    merged, seen = [], set()
    for p in a.dbs:
        for e in load_db(p):
            if e["file"] in seen:
                continue
            seen.add(e["file"])
            merged.append(e)
    with open(a.out, "w") as fh:
        json.dump(merged, fh, indent=1)


# --------------------------------------------------------------------------- scan

def entry_args(e):
    return list(e["arguments"]) if "arguments" in e else shlex.split(e["command"])


def syntax_only_args(e, clangxx):
    """The compile command as clang-tidy's argument adjusters see it: no output, no
    dependency files, -fsyntax-only; the compiler replaced by clang++."""
    args = entry_args(e)
    out = [clangxx]
    i = 1
    while i < len(args):
        x = args[i]
        if x in ("-o", "-MF", "-MT", "-MQ"):
            i += 2
            continue
        if x in ("-c", "-S", "-E", "-M", "-MM", "-MD", "-MMD", "-MP", "-fsyntax-only") or \
                (x.startswith("-o") and len(x) > 2) or x.startswith(("-MF", "-MT", "-MQ")):
            i += 1
            continue
        out.append(x)
        i += 1
    out.append("-fsyntax-only")
    return out


def run_one(cmd, cwd, timeout):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, errors="replace", text=True)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as ex:
        rc, out, err = None, ex.stdout or "", ex.stderr or ""
        out = out.decode(errors="replace") if isinstance(out, bytes) else out
        err = err.decode(errors="replace") if isinstance(err, bytes) else err
    return rc, out, err, time.monotonic() - t0


# Appended to a unit's stderr when clang rejected its precompiled header and it ran without.
PCH_FALLBACK_NOTE = "scan-project: clang rejected the precompiled LibTorch headers; analysed without them"


def run_tidy(cmd, cwd, timeout):
    """run_one for a clang-tidy command; one whose precompiled header clang rejects
    (torch_pch.REJECTED) runs again without it, with PCH_FALLBACK_NOTE on its stderr."""
    rc, out, err, secs = run_one(cmd, cwd, timeout)
    if rc and "--extra-arg=-include-pch" in cmd and torch_pch.REJECTED.search(out + err):
        i = cmd.index("--extra-arg=-include-pch")
        rc, out, err, more = run_one(cmd[:i] + cmd[i + 2:], cwd, timeout)
        err += ("\n" if err and not err.endswith("\n") else "") + PCH_FALLBACK_NOTE + "\n"
        secs += more
    return rc, out, err, secs


def pool_run(jobs, n, nice):
    """jobs: list of (key, cmd, cwd, timeout). Returns (results by key, wall seconds)."""
    results = {}
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=n) as ex:
        futs = {ex.submit(run_tidy, (["nice", "-n", str(nice)] if nice else []) + cmd, cwd, to): k
                for k, cmd, cwd, to in jobs}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = f.result()
    return results, time.monotonic() - t0


def cached_pool_run(cache, tool, jobs, units, n, nice, artifacts=None):
    """pool_run through the cache: results by key are (rc, out, err, seconds, from_cache).
    artifacts(entry): the files a run writes, kept with its result (tidy_cache.Cache.run)."""
    entries = {e["file"]: e for e in units}
    results = {}
    t0 = time.monotonic()

    def one(k, cmd, cwd, to):
        pre = ["nice", "-n", str(nice)] if nice else []
        return cache.run(tool, cmd[len(tool):], entries[k],
                         lambda c: run_tidy(pre + c, cwd, to), to,
                         artifacts(entries[k]) if artifacts else ())

    with concurrent.futures.ThreadPoolExecutor(max_workers=n) as ex:
        futs = {ex.submit(one, *j): j[0] for j in jobs}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = f.result()
    return results, time.monotonic() - t0


def yaml_sq(s):
    return "'" + s.replace("'", "''") + "'"


def parse_output(text):
    diags = []
    for line in text.splitlines():
        m = DIAG_RE.match(line)
        if not m:
            continue
        d = m.groupdict()
        d["line"], d["col"] = int(d["line"]), int(d["col"])
        if d["sev"] == "note" and diags:
            diags[-1].setdefault("notes", []).append(
                {"file": d["file"], "line": d["line"], "col": d["col"], "message": d["msg"]})
            continue
        if d["sev"] == "note":
            continue
        diags.append(d)
    return diags


def rel(path, root):
    p = os.path.normpath(path)
    r = os.path.relpath(p, root)
    return p if r.startswith("..") else r


def below_root(path, root):
    """Whether PATH is inside the folder ROOT."""
    return (os.path.normpath(path) + os.sep).startswith(root.rstrip(os.sep) + os.sep)


def md_escape(s):
    return s.replace("|", "\\|")


def cmd_scan(a):
    root = os.path.abspath(a.root)
    db = load_db(a.db)
    seen, units = set(), []
    for e in db:
        f = e["file"]
        r = rel(f, root)
        if f in seen:
            continue
        if a.filter and not re.search(a.filter, r):
            continue
        if any(re.search(x, r) for x in a.exclude):
            continue
        seen.add(f)
        units.append(e)
    if not units:
        die("the compilation database %s has no translation unit to analyse%s" % (
            a.db, " (after --filter/--exclude)" if a.filter or a.exclude else ""))
    a.shard_info = None
    a.all_units = units
    if a.shard:
        a.shard_info = {"index": a.shard[0], "count": a.shard[1], "translation_units_in_all": len(units)}
        units = shard_units(units, root, *a.shard)
        print("scan-project: shard %d of %d: %d of %d translation units" % (
            a.shard[0], a.shard[1], len(units), a.shard_info["translation_units_in_all"]), file=sys.stderr)
    dbdir = os.path.dirname(os.path.abspath(a.db))
    # Headers below the checkout, named absolutely or (from an -I of a relative folder) relative
    # to the command's folder; a relative one outside the checkout is dropped after the run.
    header_re = "^(%s|[^/.]|\\.[^/.])" % re.escape(root + os.sep)
    options = [tuple(o.split("=", 1)) for o in a.check_option]

    def make_config(checks, more=()):
        c = "{Checks: %s, WarningsAsErrors: '', HeaderFilterRegex: %s, SystemHeaders: false" % (
            yaml_sq(checks), yaml_sq(header_re))
        if options or more:
            c += ", CheckOptions: {%s}" % ", ".join(
                "%s: %s" % (k, yaml_sq(v)) for k, v in options + list(more))
        return c + "}"

    tool = shlex.split(a.tool)
    cache = None
    if not a.no_cache:
        try:
            cache = tidy_cache.Cache(a.cache_dir or None, a.cache_max_mb, a.cache_mode, a.clangxx,
                                     log=lambda m: print("scan-project: cache: " + m, file=sys.stderr))
            cache.tool_identity(tool)
        except (RuntimeError, OSError) as e:
            die("cache: %s (pass --no-cache to scan without it)" % e)

    a.cuda_compat = None if a.no_cuda_compat else cuda_compat(a, root, db, cache)
    # The facts pass covers the whole database (every caller counts), but for a shard that only
    # collects (--project-facts-only), or when the facts come merged from elsewhere.
    if a.no_project_facts or a.project_facts_file:
        collect = []
    elif a.project_facts_only:
        collect = units
    else:
        collect = facts_units(a, root, db)
    # A unit that both passes parse (--separate-facts-pass) pays for a header of its own (one
    # parse of LibTorch's headers against two); one parsed once, as most are when the facts run
    # analyses them too, needs a second unit to share it.
    a.pch = precompiled_headers(a, root, list({e["file"]: e for e in collect + units}.values()),
                                min_units=1 if collect and a.separate_facts_pass else 2)
    facts = None
    if a.project_facts_only:
        return collect_facts_only(a, tool, collect, dbdir, make_config, cache)
    if a.no_project_facts:
        pass
    elif a.project_facts_file:
        facts = given_project_facts(a, root)
    elif any(k == "ProjectFactsFile" or k.endswith(".ProjectFactsFile") for k, _ in options):
        a.notice.append("project facts: not collected, a --check-option names ProjectFactsFile")
    else:
        facts = project_facts(a, tool, db, dbdir, make_config, cache, [] if a.separate_facts_pass else units)
    first_pass = facts.pop("first_pass", None) if facts and not a.separate_facts_pass else None
    again = facts.pop("again", None) if facts else None
    config = make_config(a.checks, [("ProjectFactsFile", facts["file"])] if facts and facts["file"] else [])
    if cache and facts and facts["file"]:
        # The analysis depends on the facts: their content, without the sources' stamps (which
        # the merge refreshes) is part of every key.
        cache.extra_key = {"project_facts": facts["digest"]}

    def tidy_jobs(subset=None):
        return [(e["file"], tool + [NO_ERROR_LIMIT, "-p", dbdir, "--quiet", "--config=" + config] +
                 ["--extra-arg=" + x for x in a.extra_arg] + compat_args(a, e) + pch_args(a, e) + [e["file"]],
                 e["directory"], a.timeout) for e in units if subset is None or e["file"] in subset]

    # The units analysed in the facts run whose findings the facts cannot change keep them.
    todo = [e for e in units if first_pass is None or e["file"] in again]
    if first_pass is not None:
        facts["analysed_in_collection"] = len(units)
        facts["analysed_again"] = len(todo)
        print("scan-project: %d of %d translation units analysed again with the project facts (their "
              "findings depend on them)" % (len(todo), len(units)), file=sys.stderr)
    print("scan-project: %d translation units, %d at a time: %s" % (len(todo), a.jobs, " ".join(
        shlex.quote(x) for x in tool + [NO_ERROR_LIMIT, "-p", dbdir, "--config=" + config])), file=sys.stderr)
    todo_files = {e["file"] for e in todo}
    if cache:
        results, wall = cached_pool_run(cache, tool, tidy_jobs(todo_files), todo, a.jobs, a.nice)
        cache.check_tool_unchanged(tool)
        evicted, size = cache.trim()
        if first_pass is not None:
            # A unit's result from the facts run counts as the analysis's, hit or miss.
            kept = [v for k, v in first_pass.items() if k not in todo_files]
            cache.hits += sum(1 for v in kept if len(v) > 4 and v[4])
            cache.misses += sum(1 for v in kept if not (len(v) > 4 and v[4]))
        print("scan-project: cache %s: %d of %d translation units from the cache%s%s" % (
            cache.dir, cache.hits, len(units),
            ", %d damaged entr%s recomputed" % (cache.damaged, "y" if cache.damaged == 1 else "ies")
            if cache.damaged else "",
            ", %d entr%s evicted (bound %g MB)" % (evicted, "y" if evicted == 1 else "ies", a.cache_max_mb)
            if evicted else ""), file=sys.stderr)
    else:
        results, wall = pool_run(tidy_jobs(todo_files), a.jobs, a.nice)
    if first_pass is not None:
        results = dict({k: v for k, v in first_pass.items() if k not in todo_files}, **results)

    cached = {k: v[4] for k, v in results.items() if len(v) > 4}
    logdir = os.path.join(a.out, "logs")
    os.makedirs(logdir, exist_ok=True)
    tus, findings = [], {}
    for i, e in enumerate(units):
        rc, out, err, secs = results[e["file"]][:4]
        text = out + ("\n" if out and not out.endswith("\n") else "") + err
        diags = parse_output(text)
        for d in diags:  # clang-tidy names files as the command does: relative to its directory
            for x in [d] + d.get("notes", []):
                x["file"] = os.path.join(e["directory"], x["file"])
        errors = [d for d in diags if d["sev"] in ("error", "fatal error")]
        crash = (rc is not None and rc < 0) or any(m in text for m in CRASH_MARKERS)
        if rc is None:
            status = "timeout"
        elif crash:
            status = "crash"
        elif errors or rc != 0:
            status = "parse-error"
        else:
            status = "ok"
        tu = {"file": rel(e["file"], root), "status": status, "exit": rc, "seconds": round(secs, 2),
              "cached": bool(cached.get(e["file"]))}
        if a.pch:
            planned = a.pch["units"].get(e["file"], {})
            tu["pch"] = "rejected" if PCH_FALLBACK_NOTE in err else bool(planned.get("pch"))
            if not planned.get("pch"):
                tu["pch_reason"] = planned.get("reason", "")
        if rc is not None and rc < 0:
            tu["signal"] = -rc
        if status != "ok":
            log = os.path.join(logdir, "%03d-%s.log" % (i, os.path.basename(e["file"])))
            with open(log, "w") as fh:
                fh.write(text)
            tu["log"] = os.path.relpath(log, a.out)
            tu["first_errors"] = ["%s:%d:%d: %s" % (rel(d["file"], root), d["line"], d["col"], d["msg"])
                                  for d in errors[:5]]
            if crash:
                tu["first_errors"] = [l for l in text.splitlines() if l.strip()][-12:]
            if ERROR_LIMIT_MARKER in text:
                # clang stopped parsing the unit: less of it was analysed than of a unit whose
                # errors were all reported.
                tu["error_limit_reached"] = True
        n = 0
        for d in diags:
            if d["sev"] != "warning" or not d.get("check"):
                continue
            if not below_root(d["file"], root):
                continue  # a header outside the checkout that the command names relatively
            n += 1
            key = (os.path.normpath(d["file"]), d["line"], d["col"], d["check"], d["msg"])
            if key not in findings:
                findings[key] = {"file": rel(d["file"], root), "line": d["line"], "col": d["col"],
                                 "check": d["check"], "message": d["msg"],
                                 "notes": [dict(nt, file=rel(nt["file"], root)) for nt in d.get("notes", [])],
                                 "translation_units": []}
            findings[key]["translation_units"].append(tu["file"])
        tu["findings"] = n
        tus.append(tu)
    tus.sort(key=lambda t: t["file"])
    flist = sorted(findings.values(), key=lambda f: (f["file"], f["line"], f["col"], f["check"]))
    # A finding that only units with compiler errors reported comes from a partial AST: the
    # report says so beside it.
    incomplete = {t["file"] for t in tus if t["status"] == "parse-error"}
    for f in flist:
        f["only_from_incomplete_units"] = all(u in incomplete for u in f["translation_units"])
    by_check, by_file = {}, {}
    for f in flist:
        by_check[f["check"]] = by_check.get(f["check"], 0) + 1
        by_file[f["file"]] = by_file.get(f["file"], 0) + 1

    timing = None
    if a.compare_syntax_only:
        timing = compare(a, units, tidy_jobs, wall)

    summary = {
        "translation_units": len(tus),
        "analysed": sum(t["status"] == "ok" for t in tus),
        "parse_errors": sum(t["status"] == "parse-error" for t in tus),
        "crashes": sum(t["status"] == "crash" for t in tus),
        "timeouts": sum(t["status"] == "timeout" for t in tus),
        "findings": len(flist),
        "findings_only_from_incomplete_units": sum(f["only_from_incomplete_units"] for f in flist),
        "scan_wall_seconds": round(wall, 2),
        "cache_hits": sum(t["cached"] for t in tus),
    }
    if facts:
        summary["facts_wall_seconds"] = facts["seconds"]
    pch = None
    if a.pch:
        without = {}
        for t in tus:
            if t["pch"] is not True:
                why = "clang rejected it; analysed without" if t["pch"] == "rejected" else t["pch_reason"]
                without[why] = without.get(why, 0) + 1
        pch = {k: a.pch[k] for k in ("dir", "built", "reused", "build_cpu_seconds", "seconds")}
        pch.update({"with": sum(t["pch"] is True for t in tus), "without": without,
                    "rejected": sum(t["pch"] == "rejected" for t in tus)})
        summary["pch_wall_seconds"] = a.pch["seconds"]
        summary["units_without_pch"] = sum(without.values())
    report = {
        "project": a.label or os.path.basename(root), "checkout": root, "revision": a.revision or None,
        "compile_database": {"path": os.path.abspath(a.db), "origin": a.db_origin},
        "tool": tool, "checks": a.checks, "config": config, "jobs": a.jobs,
        "summary": summary, "by_check": dict(sorted(by_check.items())),
        "by_file": dict(sorted(by_file.items(), key=lambda kv: (-kv[1], kv[0]))),
        "translation_units": tus, "findings": flist, "timing": timing,
        "sources_not_in_database": [rel(s, root) for s in missing_sources(root, a.all_units, a)],
        "notices": a.notice,
        "project_facts": facts,
        "cuda_compat": a.cuda_compat,
        "precompiled_headers": pch,
        "shard": a.shard_info,
        "cache": {"dir": cache.dir, "mode": cache.mode, "hits": cache.hits, "misses": cache.misses,
                  "damaged": cache.damaged, "not_stored": cache.not_stored,
                  "max_mb": a.cache_max_mb} if cache else None,
    }
    with open(os.path.join(a.out, "report.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    with open(os.path.join(a.out, "report.md"), "w") as fh:
        fh.write(markdown(report))
    s = summary
    print("scan-project: %d TUs: %d analysed, %d failed to parse, %d crashed, %d timed out; %d findings%s; "
          "report in %s" % (s["translation_units"], s["analysed"], s["parse_errors"], s["crashes"],
                            s["timeouts"], s["findings"],
                            " (%d only from units that did not parse)" % s["findings_only_from_incomplete_units"]
                            if s["findings_only_from_incomplete_units"] else "",
                            os.path.join(a.out, "report.md")), file=sys.stderr)
    if timing:
        print("scan-project: wall time: scan %.2fs, clang++ -fsyntax-only %.2fs, ratio %.3f" % (
            timing["tidy_median_seconds"], timing["syntax_only_median_seconds"], timing["ratio"]),
            file=sys.stderr)
    return 0 if s["analysed"] == s["translation_units"] else 1


# The CUDA host prelude (see the file): force-included into CUDA translation units.
CUDA_HOST_PRELUDE = resources.cuda_host_prelude()


def cuda_compat(a, root, units, cache):
    """What makes the CUDA units parse as nvcc parses them: the host prelude, and an overlay
    that shows clang the kernel launches with spaced chevrons in token form (their copies are
    named by content, under the cache, else OUTDIR, so the cache key stays put). Returns
    {"prelude", "overlay", "files", "launches"}; "prelude" None when no unit is CUDA."""
    info = {"prelude": None, "overlay": None, "files": 0, "launches": 0}
    if not any(is_cuda_unit(e) for e in units):
        return info
    info["prelude"] = CUDA_HOST_PRELUDE
    info["overlay"], info["files"], info["launches"] = cuda_launch_syntax.write_overlay(
        [root], base=os.path.join(cache.dir if cache else os.path.abspath(a.out), "cuda-launch"))
    return info


def compat_args(a, e):
    """The clang-tidy arguments that cuda_compat adds to entry e's command."""
    c = getattr(a, "cuda_compat", None) or {}
    args = ["--vfsoverlay=" + c["overlay"]] if c.get("overlay") else []
    if c.get("prelude") and is_cuda_unit(e):
        args.append("--extra-arg=-include" + c["prelude"])
    return args


def facts_units(a, root, db):
    """The units of the project-facts pass: every one of the database but those of --exclude."""
    seen, units = set(), []
    for e in db:
        if e["file"] not in seen and not any(re.search(x, rel(e["file"], root)) for x in a.exclude):
            seen.add(e["file"])
            units.append(e)
    return units


def precompiled_headers(a, root, units, min_units=2):
    """The shared precompiled LibTorch headers (torch_pch) of units, built where missing, under
    --pch-dir, else torch_pch's default folder. Returns
    torch_pch.plan's stats with "dir", "seconds" (wall) and "units" (the plan), or None with
    --no-pch."""
    if a.no_pch:
        return None
    d = a.pch_dir or torch_pch.default_dir()
    t0 = time.monotonic()
    try:
        store = torch_pch.Store(d, a.clangxx, log=lambda m, error=False: print("scan-project: " + m, file=sys.stderr))
        result, stats = torch_pch.plan(units, store, root, (), a.extra_arg, a.jobs, min_units)
    except (OSError, RuntimeError) as e:
        a.notice.append("precompiled LibTorch headers: none (%s); every unit parsed LibTorch's headers" % e)
        return None
    info = dict(stats, dir=store.dir, seconds=round(time.monotonic() - t0, 2), units=result)
    print("scan-project: " + torch_pch.summary_line(stats), file=sys.stderr)
    return info


def pch_args(a, e):
    """The clang-tidy arguments that give entry e its precompiled LibTorch headers, if any."""
    p = ((getattr(a, "pch", None) or {}).get("units") or {}).get(e["file"], {}).get("pch")
    return ["--extra-arg=-include-pch", "--extra-arg=" + p] if p else []


def shard_units(units, root, index, count):
    """Shard INDEX (1-based) of COUNT: the units whose place in the list sorted by path relative to
    ROOT is INDEX-1 modulo COUNT. The same paths give the same shards on every machine and
    whatever the database's order, and the shards' sizes differ by one at most."""
    ordered = sorted(units, key=lambda e: rel(e["file"], root))
    return [e for i, e in enumerate(ordered) if i % count == index - 1]


def parse_shard(text):
    """'K/N' -> (K, N), 1 <= K <= N; raises ValueError."""
    m = re.match(r"^([0-9]+)/([0-9]+)$", text or "")
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ValueError("--shard wants K/N with 1 <= K <= N (e.g. 2/4), got '%s'" % text)
    return int(m.group(1)), int(m.group(2))


def given_project_facts(a, root):
    """What the report says of a facts file merged elsewhere (--project-facts-file)."""
    path = os.path.abspath(a.project_facts_file)
    try:
        with open(path) as fh:
            doc = json.load(fh)
        params = [d for f in doc["functions"].values() for d in f.get("parameters", {}).values()]
        incomplete = [rel(u, root) for u in doc["incomplete_translation_units"]]
        units = len(doc["translation_units"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        die("--project-facts-file %s: not a project facts file (%s)" % (path, e))
    print("scan-project: project facts: %s, given (%d CPU, %d CUDA, %d unknown tensor parameters)" % (
        path, params.count("CPU"), params.count("CUDA"), params.count("Unknown")), file=sys.stderr)
    if incomplete:
        a.notice.append("project facts: %d translation unit(s) did not parse, or were left out or not "
                        "collected (%s); calls from them are not in the facts" % (
                            len(incomplete), ", ".join("`%s`" % u for u in incomplete[:5]) +
                            (", ..." if len(incomplete) > 5 else "")))
    return {"file": path, "given": True, "seconds": 0.0, "collected": 0, "cache_hits": 0,
            "digest": tidy_cache.sha256_json({k: v for k, v in doc.items() if k != "sources"}),
            "translation_units": units, "incomplete_translation_units": incomplete,
            "parameters": {d: params.count(d) for d in ("CPU", "CUDA", "Unknown")}}


def collect_facts_only(a, tool, units, dbdir, make_config, cache):
    """--project-facts-only: the facts pass over UNITS (a shard's), its fragments left in
    OUT/facts/fragments for merge-project-facts.py to join with the other shards'. Exits 0 when
    every unit gave its fragment, 1 when some did not parse or gave none."""
    frag = os.path.join(a.out, "facts", "fragments")
    shutil.rmtree(os.path.join(a.out, "facts"), ignore_errors=True)
    os.makedirs(frag)
    info = run_facts_pass(a, tool, units, dbdir, make_config, cache, frag)
    info.pop("results")
    missing = [rel(e["file"], root_of(a)) for e in units if not os.path.exists(fragment_path(frag, e))]
    print("scan-project: project facts only: %d of %d translation units gave their fragment in %s%s" % (
        len(units) - len(missing), len(units), frag, "; none from: " + ", ".join(missing[:5]) +
        (", ..." if len(missing) > 5 else "") if missing else ""), file=sys.stderr)
    with open(os.path.join(a.out, "facts", "collection.json"), "w") as fh:
        json.dump(dict(info, shard=a.shard_info, without_fragment=missing,
                       precompiled_headers={k: a.pch[k] for k in ("built", "reused", "with", "without")}
                       if a.pch else None), fh, indent=1)
    return 1 if missing else 0


def root_of(a):
    return os.path.abspath(a.root)


def fragment_path(frag, e):
    """The fragment that torch-sync-project-facts writes for database entry e: named after the MD5
    of its main file's absolute path."""
    return os.path.join(frag, hashlib.md5(e["file"].encode()).hexdigest() + ".json")


def run_facts_pass(a, tool, units, dbdir, make_config, cache, frag, analysed=(), qdir=None):
    """torch-sync-project-facts over UNITS, writing into FRAG, through the cache; the files of
    ANALYSED are analysed in the same run (the checks of --checks), their questions to the facts
    recorded into QDIR. Returns {"seconds", "collected", "cache_hits", "results" (by file)}."""
    collect = [("torch-sync-project-facts.OutputDirectory", frag)]
    config = make_config("-*,torch-sync-project-facts", collect)
    both = make_config(a.checks + ",torch-sync-project-facts",
                       collect + [("ProjectFactsQueryDirectory", qdir)]) if analysed else None
    jobs = [(e["file"],
             tool + [NO_ERROR_LIMIT, "-p", dbdir, "--quiet",
                     "--config=" + (both if e["file"] in analysed else config)] +
             ["--extra-arg=" + x for x in a.extra_arg] + compat_args(a, e) + pch_args(a, e) + [e["file"]],
             e["directory"], a.timeout) for e in units]
    print("scan-project: project facts: collecting over %d translation units%s" % (
        len(units), ", analysing %d of them in the same run" % len(analysed) if analysed else ""), file=sys.stderr)
    hits = 0

    def artifacts(e):
        return [fragment_path(frag, e)] + ([fragment_path(qdir, e)] if e["file"] in analysed else [])

    if cache:
        # The report counts the analysis's hits and misses; this pass's hits are its own.
        before = (cache.hits, cache.misses)
        results, wall = cached_pool_run(cache, tool, jobs, units, a.jobs, a.nice, artifacts)
        hits = cache.hits - before[0]
        cache.hits, cache.misses = before
    else:
        results, wall = pool_run(jobs, a.jobs, a.nice)
    return {"seconds": round(wall, 2), "collected": len(units), "cache_hits": hits, "results": results}


def needs_facts(doc, main_file, qdir):
    """Whether the unit of MAIN_FILE, analysed without facts while they were collected, must be
    analysed again with the merged facts DOC: its questions (QDIR) are missing, the facts do not
    cover it, or they answer one of its questions: a parameter's device, CPU or CUDA; a return
    that is a device other than Unknown or one of the parameters (a return that is only Unknown
    reads as none: ProjectFacts' readers take only CPU, or fall back on the function's body)."""
    if main_file not in doc.get("translation_units", []) or main_file in doc.get("incomplete_translation_units", []):
        return True
    try:
        with open(fragment_path(qdir, {"file": main_file})) as fh:
            queries = json.load(fh)["queries"]
    except (OSError, ValueError, KeyError, TypeError):
        return True
    functions = doc.get("functions", {})
    for q in queries:
        f = functions.get(q.get("function"))
        if f is None:
            continue
        if q.get("returns") and any(t != "Unknown" for t in f.get("returns", [])):
            return True
        if "parameter" in q and f.get("parameters", {}).get(str(q["parameter"])) in ("CPU", "CUDA"):
            return True
    return False


def project_facts(a, tool, db, dbdir, make_config, cache, analysed):
    """The first pass: torch-sync-project-facts over every translation unit of the database
    (but those of --exclude), then merge-project-facts.py. The units to analyse (ANALYSED) are
    analysed in the same run, without facts, their questions to the facts recorded
    (ProjectFactsQueryDirectory): once the facts are merged, a unit whose questions they do not
    answer has its findings already, as a run with them would give, and only the others are
    analysed again. Returns what the report says of it, with "file" None when no facts could
    be written (a notice says why), "first_pass" the analysed units' results and "again" the
    files to analyse again with the facts."""
    root = os.path.abspath(a.root)
    fdir = os.path.join(a.out, "facts")
    frag = os.path.join(fdir, "fragments")
    qdir = os.path.join(fdir, "queries")
    facts_file = os.path.join(fdir, "project-facts.json")
    shutil.rmtree(fdir, ignore_errors=True)
    os.makedirs(frag)
    units = facts_units(a, root, db)
    both = {e["file"] for e in analysed}
    info = dict(run_facts_pass(a, tool, units, dbdir, make_config, cache, frag, both, qdir), file=None,
                fragments=os.path.relpath(frag, a.out))
    first = info.pop("results")
    info["first_pass"] = {k: v for k, v in first.items() if k in both}
    info["again"] = set(both)
    wall = info["seconds"]
    merge = subprocess.run([sys.executable, "-m", __package__ + ".merge_project_facts",
                            "-p", a.db, "--allow-incomplete", "-o", facts_file, frag],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                           env=resources.python_env())
    if merge.returncode != 0:
        why = (merge.stderr.strip().splitlines() or ["exit status %d" % merge.returncode])[-1]
        a.notice.append("project facts: none, the merge refused (%s); the analysis ran without them" %
                        why.replace("merge-project-facts: ", ""))
        print("scan-project: warning: " + a.notice[-1], file=sys.stderr)
        # The facts run analysed the units without facts already: nothing to analyse again.
        info["again"] = set()
        return info
    with open(facts_file) as fh:
        doc = json.load(fh)
    params = [d for f in doc["functions"].values() for d in f.get("parameters", {}).values()]
    incomplete = [rel(u, root) for u in doc["incomplete_translation_units"]]
    info["again"] = {e["file"] for e in analysed if needs_facts(doc, e["file"], qdir)}
    info.update({
        "file": facts_file,
        "digest": tidy_cache.sha256_json({k: v for k, v in doc.items() if k != "sources"}),
        "translation_units": len(doc["translation_units"]),
        "incomplete_translation_units": incomplete,
        "parameters": {d: params.count(d) for d in ("CPU", "CUDA", "Unknown")},
    })
    if incomplete:
        a.notice.append("project facts: %d translation unit(s) did not parse, or were left out or not "
                        "collected (%s); calls from them are not in the facts" % (
                            len(incomplete), ", ".join("`%s`" % u for u in incomplete[:5]) +
                            (", ..." if len(incomplete) > 5 else "")))
    print("scan-project: project facts: %s (%d CPU, %d CUDA, %d unknown tensor parameters), %.1f s" % (
        facts_file, params.count("CPU"), params.count("CUDA"), params.count("Unknown"), wall),
        file=sys.stderr)
    return info


def missing_sources(root, units, a):
    if not a.report_missing:
        return []
    inside = {e["file"] for e in units}
    return [s for s in find_sources(root, None, a.exclude) if s not in inside and
            not (a.filter and not re.search(a.filter, rel(s, root)))]


def compare(a, units, tidy_jobs, first_wall):
    syn = [(e["file"], syntax_only_args(e, a.clangxx), e["directory"], a.timeout) for e in units]
    tidy_times, syn_times, syn_fail = [], [], set()
    for r in range(a.runs):
        order = [("syntax", syn), ("tidy", tidy_jobs())]
        if r % 2:
            order.reverse()
        for name, jobs in order:
            res, w = pool_run(jobs, a.jobs, a.nice)
            (syn_times if name == "syntax" else tidy_times).append(w)
            if name == "syntax":
                syn_fail.update(rel(k, a.root) for k, v in res.items() if v[0] != 0)
            print("scan-project: timing run %d: %s %.2fs" % (r + 1, name, w), file=sys.stderr)

    def med(xs):
        xs = sorted(xs)
        return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2

    t, s = med(tidy_times), med(syn_times)
    return {"runs": a.runs, "jobs": a.jobs, "tidy_seconds": [round(x, 2) for x in tidy_times],
            "syntax_only_seconds": [round(x, 2) for x in syn_times],
            "tidy_median_seconds": round(t, 2), "syntax_only_median_seconds": round(s, 2),
            "ratio": round(t / s, 3) if s else None, "first_scan_seconds": round(first_wall, 2),
            "syntax_only_failures": sorted(syn_fail),
            "syntax_only_command_example": " ".join(shlex.quote(x) for x in syn[0][1]) if syn else ""}


def markdown(r):
    s = r["summary"]
    L = ["# torch-sync scan: %s" % r["project"], ""]
    L.append("- checkout: `%s`%s" % (r["checkout"], " at `%s`" % r["revision"] if r["revision"] else ""))
    L.append("- compile database: `%s` (%s)" % (r["compile_database"]["path"], r["compile_database"]["origin"]))
    L.append("- tool: `%s`, checks `%s`, %d jobs" % (" ".join(r["tool"]), r["checks"], r["jobs"]))
    c = r.get("cache")
    L.append("- cache: %s" % ("off (--no-cache)" if not c else
                              "%d of %d translation units from the cache `%s` (%s mode)" % (
                                  c["hits"], s["translation_units"], c["dir"], c["mode"])))
    pf = r.get("project_facts")
    if pf is None:
        L.append("- project facts: off")
    elif pf["file"] and pf.get("given"):
        p = pf["parameters"]
        L.append("- project facts: `%s`, given (collected elsewhere, from %d translation units): "
                 "tensor parameters %d CPU, %d CUDA, %d unknown" % (
                     pf["file"], pf["translation_units"], p["CPU"], p["CUDA"], p["Unknown"]))
    elif pf["file"]:
        p = pf["parameters"]
        L.append("- project facts: `%s`, from %d translation units (%d from the cache) in %.1f s: "
                 "tensor parameters %d CPU, %d CUDA, %d unknown%s" % (
                     pf["file"], pf["translation_units"], pf["cache_hits"], pf["seconds"],
                     p["CPU"], p["CUDA"], p["Unknown"],
                     "; the units were analysed in the same pass, and %d of %d again with the facts, which "
                     "answer what their analysis asked" % (pf["analysed_again"], pf["analysed_in_collection"])
                     if "analysed_again" in pf else "; the analysis ran after them (--separate-facts-pass)"))
    else:
        L.append("- project facts: none (see the notices)")
    cc = r.get("cuda_compat")
    if cc and cc["prelude"]:
        L.append("- CUDA units: the host prelude `%s` force-included; %s" % (
            cc["prelude"], "%d kernel launch(es) written with spaced chevrons ('<< <' ... '>> >', which nvcc takes) "
            "in %d file(s) read in token form through the file system overlay `%s` (the sources unchanged)" % (
                cc["launches"], cc["files"], cc["overlay"])
            if cc["overlay"] else "no kernel launch with spaced chevrons"))
    p = r.get("precompiled_headers")
    if p is None:
        L.append("- precompiled LibTorch headers: off")
    else:
        L.append("- precompiled LibTorch headers: %d built (%.1f s of CPU), %d reused, in `%s`; %d of %d translation "
                 "units analysed with one%s" % (
                     p["built"], p["build_cpu_seconds"], p["reused"], p["dir"], p["with"], s["translation_units"],
                     "; without: " + "; ".join("%d, %s" % (n, md_escape(w)) for w, n in
                                               sorted(p["without"].items(), key=lambda kv: -kv[1]))
                     if p["without"] else ""))
    sh = r.get("shard")
    if sh and "merged_from" in sh:
        L.append("- merged from %d shard report(s)%s" % (sh["merged_from"], "; " + "; ".join(
            md_escape(x) for x in sh["problems"]) if sh["problems"] else ""))
    elif sh:
        L.append("- shard %d of %d: %d of the %d translation units" % (
            sh["index"], sh["count"], s["translation_units"], sh["translation_units_in_all"]))
    L.append("- wall time of each pass: %s" % ", ".join(
        "%s %.1f s" % (n, s[k]) for n, k in (("precompiled headers", "pch_wall_seconds"),
                                             ("project facts", "facts_wall_seconds"),
                                             ("analysis", "scan_wall_seconds")) if k in s))
    for n in r["notices"]:
        L.append("- notice: %s" % n)
    L += ["", "## Summary", "",
          "| translation units | analysed | failed to parse | crashed | timed out | findings | scan wall time |",
          "|---|---|---|---|---|---|---|",
          "| %d | %d | %d | %d | %d | %d | %.1f s |" % (
              s["translation_units"], s["analysed"], s["parse_errors"], s["crashes"], s["timeouts"], s["findings"],
              s["scan_wall_seconds"])]
    t = r["timing"]
    if t:
        L += ["", "## Wall time against clang++ -fsyntax-only", "",
              "Same translation units, same flags, %d at a time, %d run(s) each (median):" % (t["jobs"], t["runs"]), "",
              "| clang++ -fsyntax-only | torch-sync scan | ratio |", "|---|---|---|",
              "| %.2f s %s | %.2f s %s | %.3f |" % (t["syntax_only_median_seconds"], t["syntax_only_seconds"],
                                                  t["tidy_median_seconds"], t["tidy_seconds"], t["ratio"] or 0)]
        if t["syntax_only_failures"]:
            L.append("")
            L.append("clang++ -fsyntax-only failed on: " + ", ".join("`%s`" % f for f in t["syntax_only_failures"]))
    bad = [x for x in r["translation_units"] if x["status"] != "ok"]
    L += ["", "## Translation units that failed", ""]
    if not bad:
        L.append("None.")
    for x in bad:
        L.append("- `%s`: %s (exit %s%s), log `%s`%s" % (
            x["file"], x["status"], x["exit"], ", signal %d" % x["signal"] if "signal" in x else "", x["log"],
            "; clang stopped at the error limit that the compile command sets (-ferror-limit), so the "
            "rest of the unit was not analysed" if x.get("error_limit_reached") else ""))
        for e in x.get("first_errors", []):
            L.append("    - `%s`" % e.replace("`", "'"))
    if r["sources_not_in_database"]:
        L += ["", "## Sources not in the compile database", ""]
        L += ["- `%s`" % f for f in r["sources_not_in_database"]]
    L += ["", "## Findings per check", ""]
    L += ["| check | findings |", "|---|---|"] + ["| %s | %d |" % kv for kv in r["by_check"].items()] \
        if r["by_check"] else ["None."]
    L += ["", "## Findings per file", ""]
    L += ["| file | findings |", "|---|---|"] + ["| `%s` | %d |" % kv for kv in r["by_file"].items()] \
        if r["by_file"] else ["None."]
    L += ["", "## Findings", ""]
    if not r["findings"]:
        L.append("None.")
    if s.get("findings_only_from_incomplete_units"):
        L += ["%d finding(s) marked *(incomplete unit)* come only from translation units that did not parse: "
              "the checks saw part of those units, so findings there may be missing or wrong." %
              s["findings_only_from_incomplete_units"], ""]
    for f in r["findings"]:
        L.append("- `%s:%d:%d` **%s**: %s%s" % (f["file"], f["line"], f["col"], f["check"], md_escape(f["message"]),
                                               " *(incomplete unit)*" if f.get("only_from_incomplete_units") else ""))
        for n in f["notes"]:
            L.append("    - note `%s:%d:%d`: %s" % (n["file"], n["line"], n["col"], md_escape(n["message"])))
    L += ["", "## Translation units", "", "| file | status | findings | seconds |", "|---|---|---|---|"]
    L += ["| `%s` | %s | %d | %.1f%s |" % (x["file"], x["status"], x["findings"], x["seconds"],
                                          " (cached)" if x.get("cached") else "") for x in r["translation_units"]]
    return "\n".join(L) + "\n"


def cmd_merge_reports(a):
    """merge-reports --out DIR REPORT.json...: one report of several scans of one project (the
    shards of a --shard K/N matrix, or scans split by --filter): their translation units, their
    findings merged (a finding in a header that units of several shards reached is listed once,
    with all of them), the summary and tables recomputed. A shard missing from a K/N set, two
    sets of different N, a unit scanned twice, or facts that differ are named in the report.
    Exits 0 when every translation unit of the merged reports was analysed and no shard is
    missing, 1 otherwise, 2 when a report cannot be read."""
    reports = []
    for path in a.reports:
        if os.path.isdir(path):
            path = os.path.join(path, "report.json")
        try:
            with open(path) as fh:
                r = json.load(fh)
            r["summary"], r["translation_units"], r["findings"]  # noqa: B018 (the fields merged)
        except (OSError, ValueError, KeyError, TypeError) as e:
            die("merge-reports: %s is not a scan-project report (%s)" % (path, e))
        reports.append(r)
    first = reports[0]
    problems, tus, seen_tus, findings, notices = [], [], set(), {}, []
    counts = {r["shard"]["count"] for r in reports if r.get("shard") and "count" in r["shard"]}
    if len(counts) > 1:
        problems.append("the reports come from shard sets of different sizes (%s)"
                        % ", ".join(map(str, sorted(counts))))
    for n in counts:
        have = {r["shard"]["index"] for r in reports if (r.get("shard") or {}).get("count") == n}
        missing = sorted(set(range(1, n + 1)) - have)
        if missing:
            problems.append("shard(s) %s of %d missing" % (", ".join(map(str, missing)), n))
    digests = {(r.get("project_facts") or {}).get("digest") for r in reports}
    if len(digests) > 1:
        problems.append("the shards were analysed with different project facts")
    for r in reports:
        for t in r["translation_units"]:
            if t["file"] in seen_tus:
                problems.append("`%s` was scanned by more than one report; its first result is kept" % t["file"])
                continue
            seen_tus.add(t["file"])
            tus.append(t)
        for f in r["findings"]:
            key = (f["file"], f["line"], f["col"], f["check"], f["message"])
            if key not in findings:
                findings[key] = dict(f, translation_units=[])
            findings[key]["translation_units"] += [u for u in f["translation_units"]
                                                   if u not in findings[key]["translation_units"]]
        for n in r.get("notices") or []:
            if n not in notices:
                notices.append(n)
    tus.sort(key=lambda t: t["file"])
    incomplete = {t["file"] for t in tus if t["status"] == "parse-error"}
    flist = sorted(findings.values(), key=lambda f: (f["file"], f["line"], f["col"], f["check"]))
    for f in flist:
        f["only_from_incomplete_units"] = all(u in incomplete for u in f["translation_units"])
    by_check, by_file = {}, {}
    for f in flist:
        by_check[f["check"]] = by_check.get(f["check"], 0) + 1
        by_file[f["file"]] = by_file.get(f["file"], 0) + 1
    summary = {
        "translation_units": len(tus),
        "analysed": sum(t["status"] == "ok" for t in tus),
        "parse_errors": sum(t["status"] == "parse-error" for t in tus),
        "crashes": sum(t["status"] == "crash" for t in tus),
        "timeouts": sum(t["status"] == "timeout" for t in tus),
        "findings": len(flist),
        "findings_only_from_incomplete_units": sum(f["only_from_incomplete_units"] for f in flist),
        # The shards ran side by side: the longest is the merged scan's.
        "scan_wall_seconds": max(r["summary"].get("scan_wall_seconds", 0) for r in reports),
        "cache_hits": sum(t.get("cached", False) for t in tus),
    }
    for k in ("facts_wall_seconds", "pch_wall_seconds"):
        if any(k in r["summary"] for r in reports):
            summary[k] = max(r["summary"].get(k, 0) for r in reports)
    pch = None
    if all(r.get("precompiled_headers") for r in reports):
        pch = {"dir": first["precompiled_headers"]["dir"], "without": {}, "rejected": 0}
        for k in ("built", "reused", "build_cpu_seconds", "with"):
            pch[k] = sum(r["precompiled_headers"][k] for r in reports)
        for r in reports:
            pch["rejected"] += r["precompiled_headers"].get("rejected", 0)
            for w, n in r["precompiled_headers"]["without"].items():
                pch["without"][w] = pch["without"].get(w, 0) + n
        summary["units_without_pch"] = sum(pch["without"].values())
    missing_src = set.intersection(*[set(r.get("sources_not_in_database") or []) for r in reports])
    report = dict(first, summary=summary, by_check=dict(sorted(by_check.items())),
                  by_file=dict(sorted(by_file.items(), key=lambda kv: (-kv[1], kv[0]))),
                  translation_units=tus, findings=flist, timing=None, notices=notices,
                  sources_not_in_database=sorted(missing_src), precompiled_headers=pch,
                  shard={"merged_from": len(reports), "problems": problems},
                  cache=dict(first["cache"], hits=sum(r["cache"]["hits"] for r in reports),
                             misses=sum(r["cache"]["misses"] for r in reports))
                  if all(r.get("cache") for r in reports) else None)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "report.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    with open(os.path.join(a.out, "report.md"), "w") as fh:
        fh.write(markdown(report))
    s = summary
    print("scan-project: merged %d report(s): %d TUs: %d analysed, %d failed to parse, %d crashed, %d timed out; "
          "%d findings; report in %s" % (len(reports), s["translation_units"], s["analysed"], s["parse_errors"],
                                         s["crashes"], s["timeouts"], s["findings"], os.path.join(a.out, "report.md")),
          file=sys.stderr)
    for p in problems:
        print("scan-project: warning: " + p, file=sys.stderr)
    missing_shard = any("missing" in p for p in problems)
    return 0 if s["analysed"] == s["translation_units"] and not missing_shard else 1


def parse_shard_arg(text):
    try:
        return parse_shard(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def main(argv=None):
    """Runs the subcommand of ARGV (default: the command line's); returns its exit status."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    # The flags of a generated database, shared by gendb and cudafix.
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument("--root", required=True)
    flags.add_argument("--exclude", action="append", default=[])
    flags.add_argument("--include", action="append", default=[])
    flags.add_argument("--define", action="append", default=[])
    flags.add_argument("--std", default="c++17")
    flags.add_argument("--flags", default="")
    flags.add_argument("--compiler", default="clang++")
    flags.add_argument("--torch-include", required=True)
    flags.add_argument("--cuda-torch-include", required=True)
    flags.add_argument("--cuda-path", required=True)
    flags.add_argument("--torch-extension", action="append", default=[])
    flags.add_argument("--python-include", default="")
    g = sub.add_parser("gendb", parents=[flags])
    g.add_argument("--out", required=True)
    g.add_argument("--sources", action="append", default=[])
    g.add_argument("--under", default=".")
    g.add_argument("--notices", default="", help="append notices for the report to this file")
    g = sub.add_parser("cudafix", parents=[flags])
    g.add_argument("--db", required=True)
    g.add_argument("--notices", required=True)
    m = sub.add_parser("merge")
    m.add_argument("--out", required=True)
    m.add_argument("dbs", nargs="+")
    s = sub.add_parser("scan")
    s.add_argument("--root", required=True)
    s.add_argument("--db", required=True)
    s.add_argument("--db-origin", default="given")
    s.add_argument("--out", required=True)
    s.add_argument("--tool", required=True)
    s.add_argument("--checks", default="-*,torch-sync-*")
    s.add_argument("--check-option", action="append", default=[])
    s.add_argument("--extra-arg", action="append", default=[])
    s.add_argument("--jobs", type=int, default=2)
    s.add_argument("--nice", type=int, default=0)
    s.add_argument("--timeout", type=int, default=900)
    s.add_argument("--filter", default="")
    s.add_argument("--exclude", action="append", default=[])
    s.add_argument("--label", default="")
    s.add_argument("--revision", default="")
    s.add_argument("--notice", action="append", default=[])
    s.add_argument("--compare-syntax-only", action="store_true")
    s.add_argument("--no-cuda-compat", action="store_true")
    s.add_argument("--runs", type=int, default=1)
    s.add_argument("--clangxx", default="clang++")
    s.add_argument("--report-missing", action="store_true")
    s.add_argument("--cache-dir", default="")
    s.add_argument("--cache-max-mb", type=float, default=512)
    s.add_argument("--cache-mode", default="direct", choices=("direct", "preprocessed"))
    s.add_argument("--no-cache", action="store_true")
    s.add_argument("--no-project-facts", action="store_true")
    s.add_argument("--no-pch", action="store_true")
    s.add_argument("--pch-dir", default="")
    s.add_argument("--shard", type=parse_shard_arg, default=None)
    s.add_argument("--project-facts-file", default="")
    s.add_argument("--project-facts-only", action="store_true")
    s.add_argument("--separate-facts-pass", action="store_true")
    t = sub.add_parser("cmake-trace-flags")
    t.add_argument("--root", required=True)
    t.add_argument("trace")
    r = sub.add_parser("merge-reports")
    r.add_argument("--out", required=True)
    r.add_argument("reports", nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "gendb":
        cmd_gendb(a)
    elif a.cmd == "cudafix":
        cmd_cudafix(a)
    elif a.cmd == "merge":
        cmd_merge(a)
    elif a.cmd == "cmake-trace-flags":
        cmd_cmake_trace_flags(a)
    elif a.cmd == "merge-reports":
        return cmd_merge_reports(a)
    else:
        return cmd_scan(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
