"""Shared precompiled LibTorch headers for the batch tools (Python 3 standard library only).

Nearly all of a LibTorch translation unit's parse is LibTorch's headers. scan-project.sh,
sarif.sh and the pre-commit hook therefore precompile the LibTorch header a unit starts with,
once per distinct compile command (its flags without the source and outputs) and working folder,
with the clang++ of the tool's LLVM release, and give the unit `-include-pch` (clang-tidy's
--extra-arg). The precompiled header instantiates its templates (-fpch-instantiate-templates),
so a unit that includes <torch/torch.h> parses in about a tenth of the CPU time.

CUDA units get one of their own, built by the host compile of the prefix (-x cuda
-Xclang -emit-pch), with the CUDA host prelude ahead of LibTorch's headers as the unit reads it.
A unit is analysed without one, and the caller counts it, when:
  - its command brings a prefix or precompiled header of its own (-include, -include-pch,
    -imacros; the CUDA host prelude, empty outside CUDA, excepted);
  - something other than #include, #pragma once, a diagnostic #pragma or a header guard comes
    before its first LibTorch #include (torch/, ATen/, c10/, caffe2/), in the file or in the
    project headers it includes first: a #define there could change what LibTorch's headers
    declare, and with -include-pch they are read before it;
  - it includes no LibTorch header, or one of its first includes cannot be found;
  - it is the only unit with its command and no precompiled header exists for it yet
    (min_units; the hook passes 1: the header serves its next run);
  - the header did not build (its first error is the reason), or clang rejected it when the unit
    ran (REJECTED: the caller runs the unit again without it).

Store: DIR/<key>/{prefix.h, libtorch.pch, deps.json}; the key hashes the clang++ (its path, size,
mtime and --version), the flags, the header and the folder. deps.json lists every file the
header read with its size and mtime, which is what clang checks when it loads the header: a
changed file rebuilds it. The KEEP most recently used headers are kept (each is 100-150 MB).
Default DIR: ${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync/pch.

Command line (for the shell tools):
  torch_pch.py plan -p BUILD --tool TOOL [--dir DIR] [--min-units N] [--jobs N] [--label L]
                    [--extra-arg A]... [--extra-arg-before A]... FILE...
      builds what is missing and prints one line per FILE: the precompiled header's path (empty
      when none) TAB the file; a summary goes to stderr.
  torch_pch.py rejected LOG
      exit 0 when clang-tidy's output in LOG says clang rejected a precompiled header.
"""

import argparse
import concurrent.futures
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from . import tidy_cache

FORMAT = 1
KEEP = 4
# The first folder of an #include spelling that names a LibTorch header.
LIBTORCH_FOLDERS = ("torch", "ATen", "c10", "caffe2")
# Force-included headers that declare nothing outside clang's CUDA mode (see the file).
NEUTRAL_INCLUDES = ("torch-sync-cuda-host.h",)
# What clang says when it refuses a precompiled header (a stale input, a macro or language
# option that differs, another compiler release, a damaged file).
REJECTED = re.compile(r"(error|fatal error): .*(precompiled (header|file)|PCH file|AST file)")
DIRECTIVE_RE = re.compile(r"#\s*(\w+)\s*(.*)$")
INCLUDE_RE = re.compile(r'([<"])([^>"]+)[>"]')


def default_dir():
    return os.path.join(os.path.dirname(tidy_cache.default_dir()), "pch")


def is_cuda_unit(e):
    """Whether a database entry compiles its file as CUDA (a .cu source, or -x cuda)."""
    args = tidy_cache.entry_args(e)
    if any(x == "-xcuda" or x.startswith("--cuda-") for x in args):
        return True
    for i, x in enumerate(args[:-1]):
        if x == "-x":
            return args[i + 1] == "cuda"
    return e["file"].endswith(".cu")


def arg_include_dirs(args, cwd):
    """The -I/-iquote/-isystem/-idirafter folders of a compile command, absolute, in order."""
    out, i = [], 0
    while i < len(args):
        x = args[i]
        for o in ("-I", "-iquote", "-isystem", "-idirafter"):
            if x == o and i + 1 < len(args):
                out.append(os.path.normpath(os.path.join(cwd, args[i + 1])))
                i += 1
                break
            if x.startswith(o) and len(x) > len(o) and not x.startswith(o + "-"):
                out.append(os.path.normpath(os.path.join(cwd, x[len(o):])))
                break
        i += 1
    return out


# --------------------------------------------------------------------------- the prefix

def logical_lines(text):
    """(line number, text) of each logical line: comments removed, continuations joined."""
    out, cur, start, line = [], [], 1, 1
    i, n, block, quote = 0, len(text), False, None
    while i < n:
        c = text[i]
        if block:
            if text.startswith("*/", i):
                block = False
                i += 2
                cur.append(" ")
                continue
            if c == "\n":
                line += 1
            i += 1
            continue
        if quote:
            cur.append(c)
            if c == "\\" and i + 1 < n:
                cur.append(text[i + 1])
                i += 2
                continue
            if c == quote or c == "\n":
                quote = None
            i += 1
            continue
        if text.startswith("/*", i):
            block = True
            i += 2
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c == "\\" and text.startswith("\n", i + 1):
            i += 2
            line += 1
            continue
        if c == "\n":
            out.append((start, "".join(cur).strip()))
            cur, line = [], line + 1
            start = line
            i += 1
            continue
        if c in "\"'" and not "".join(cur).lstrip().startswith("#include"):
            quote = c
        cur.append(c)
        i += 1
    out.append((start, "".join(cur).strip()))
    return out


def libtorch_prefix(path, include_dirs, root, depth=0, seen=None, conditions=None):
    """What the file includes first, as far as a precompiled header is concerned:
    ("found", spelling) when its first LibTorch #include comes after nothing but #include of
    system headers, of project headers (under root) of the same shape, #pragma once, diagnostic
    pragmas, header guards and conditional groups (#if ... #endif) of such lines;
    ("clean", None) when the file holds only such lines; ("blocked", reason) otherwise. A
    LibTorch #include inside a conditional group is passed over (LibTorch's headers do not
    depend on their order, so it may come after the precompiled one). The identifiers that those
    groups' conditions read are added to CONDITIONS: with the precompiled header they are
    evaluated after LibTorch's headers, so none may be a name those headers define
    (incompatible checks)."""
    seen = set() if seen is None else seen
    conditions = set() if conditions is None else conditions
    if path in seen or depth > 8:
        return "clean", None
    seen.add(path)
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = logical_lines(fh.read())
    except OSError as e:
        return "blocked", "cannot read %s: %s" % (path, e.strerror)
    shown = os.path.relpath(path, root) if root and path.startswith(root + os.sep) else path
    guard = None
    first = True
    open_groups = 0
    for k, (no, text) in enumerate(lines):
        if not text:
            continue
        m = DIRECTIVE_RE.match(text)
        if not m:
            if not depth and not any(re.match(r"#\s*include", t) for _, t in lines[k + 1:]):
                return "clean", None  # the unit includes nothing after its code: no LibTorch header
            return "blocked", "%s:%d declares or defines before LibTorch's headers" % (shown, no)
        name, rest = m.group(1), m.group(2).strip()
        if name == "pragma" and (rest == "once" or re.match(r"(GCC|clang) diagnostic\b", rest)):
            first = False
            continue
        if depth and first and name == "ifndef" and re.match(r"\w+$", rest):
            guard, first = rest, False
            continue
        first = False
        if guard and name == "define" and rest == guard:
            guard = None
            continue
        if name in ("if", "ifdef", "ifndef", "elif", "elifdef", "elifndef"):
            conditions.update(x for x in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", rest) if x != "defined")
            open_groups += name in ("if", "ifdef", "ifndef")
            continue
        if name == "else":
            continue
        if name == "endif":
            open_groups = max(0, open_groups - 1)
            continue
        if name != "include":
            return "blocked", "%s:%d has #%s before LibTorch's headers" % (shown, no, name)
        inc = INCLUDE_RE.match(rest)
        if not inc:
            return "blocked", "%s:%d includes a macro's expansion" % (shown, no)
        quoted, spelling = inc.group(1) == '"', inc.group(2).strip()
        found = None
        for d in ([os.path.dirname(path)] if quoted else []) + list(include_dirs):
            c = os.path.normpath(os.path.join(d, spelling))
            if os.path.isfile(c):
                found = c
                break
        inside = bool(found and root and below(found, root))
        if spelling.split("/", 1)[0] in LIBTORCH_FOLDERS and "/" in spelling and not inside:
            if open_groups:
                # Not a header every build includes; LibTorch's headers may come in any order,
                # so it may as well be read after the precompiled one.
                continue
            return "found", spelling
        if found is None:
            if quoted:
                return "blocked", "%s:%d includes \"%s\", which is not found" % (shown, no, spelling)
            continue  # the C++ library's and the compiler's own headers
        if not inside:
            continue  # a system or third-party header: read after the precompiled one, unchanged
        kind, what = libtorch_prefix(found, include_dirs, root, depth + 1, seen, conditions)
        if kind == "found" and open_groups:
            return "blocked", "%s:%d includes a project header that includes LibTorch's inside an #if" % (shown, no)
        if kind != "clean":
            return kind, what
    return "clean", None


def reaches_libtorch(path, include_dirs, root, seen=None):
    """Whether the file, or a project header (below root) that it includes anywhere, includes a
    LibTorch header."""
    seen = set() if seen is None else seen
    if path in seen:
        return False
    seen.add(path)
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = logical_lines(fh.read())
    except OSError:
        return False
    for _, text in lines:
        m = DIRECTIVE_RE.match(text)
        inc = m and m.group(1) == "include" and INCLUDE_RE.match(m.group(2).strip())
        if not inc:
            continue
        spelling = inc.group(2).strip()
        if spelling.split("/", 1)[0] in LIBTORCH_FOLDERS and "/" in spelling:
            return True
        for d in ([os.path.dirname(path)] if inc.group(1) == '"' else []) + list(include_dirs):
            c = os.path.normpath(os.path.join(d, spelling))
            if os.path.isfile(c):
                if root and below(c, root) and reaches_libtorch(c, include_dirs, root, seen):
                    return True
                break
    return False


# --------------------------------------------------------------------------- the flags

def has_own_prefix(args):
    """Whether a command line force-includes something (bar NEUTRAL_INCLUDES)."""
    for i, x in enumerate(args):
        if x in ("-include", "-imacros", "-include-pch", "--include", "-Xclang") and i + 1 < len(args):
            v = args[i + 1]
            if x == "-Xclang" and v not in ("-include", "-include-pch"):
                continue
            if os.path.basename(v) not in NEUTRAL_INCLUDES:
                return True
        elif x.startswith(("-include", "-imacros")) and not x.startswith("-include-pch") and \
                os.path.basename(x[8:] if x.startswith("-include") else x[8:]) not in NEUTRAL_INCLUDES:
            return True
        elif x.startswith("-include-pch="):
            return True
    return False


def without_neutral(args):
    out, i = [], 0
    while i < len(args):
        if args[i] == "-include" and i + 1 < len(args) and os.path.basename(args[i + 1]) in NEUTRAL_INCLUDES:
            i += 2
            continue
        if args[i].startswith("-include") and os.path.basename(args[i][8:]) in NEUTRAL_INCLUDES:
            i += 1
            continue
        out.append(args[i])
        i += 1
    return out


# Folders the compiler searches as system folders already: naming one with -isystem would
# break the C++ library's #include_next.
DEFAULT_SYSTEM_FOLDERS = ("/usr/include", "/usr/local/include")


def libtorch_as_system(flags):
    """FLAGS (with absolute -I folders, as unit_flags makes them) with each -I folder that holds
    a LibTorch folder (torch/, ATen/, c10/) given as -isystem instead. A unit that names
    LibTorch with -I (setup.py and torch.utils.cpp_extension builds do) gets, inside the
    precompiled header, the system headers that SkipLibraryHeaders makes of them when they are
    parsed (a precompiled header is not parsed again, so its files keep the kind they were
    built with): no matcher then runs inside them (about 1 s of CPU instead of 3 s for a
    <torch/torch.h> unit). The same files are found: clang validates each when it loads the
    header, and plan() gives no header to a unit whose own folders shadow one of them."""
    out = []
    for x in flags:
        d = x[2:] if x.startswith("-I") else None
        if d and d not in DEFAULT_SYSTEM_FOLDERS and any(
                os.path.isdir(os.path.join(d, f)) for f in LIBTORCH_FOLDERS):
            out.append("-isystem" + d)
        else:
            out.append(x)
    return out


def unit_flags(e, before=(), after=()):
    """The flags of a database entry that a precompiled header must share: its command without
    the compiler, the source and the outputs, with the tool's --extra-arg(-before) values, and
    the folders of -I, -isystem, -iquote, -idirafter made absolute."""
    cwd = e["directory"]
    main = os.path.normpath(os.path.join(cwd, e["file"]))
    args = list(before) + [x for x in tidy_cache.strip_output_args(tidy_cache.entry_args(e))
                           if os.path.normpath(os.path.join(cwd, x)) != main] + list(after)
    out, i = [], 0
    while i < len(args):
        x = args[i]
        for o in ("-I", "-iquote", "-isystem", "-idirafter"):
            if x == o and i + 1 < len(args):
                out.append(o + os.path.normpath(os.path.join(cwd, args[i + 1])))
                i += 1
                break
            if x.startswith(o) and len(x) > len(o) and not x.startswith(o + "-"):
                out.append(o + os.path.normpath(os.path.join(cwd, x[len(o):])))
                break
        else:
            out.append(x)
        i += 1
    return out


def below(path, root):
    """Whether PATH is ROOT or inside it."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def split_flags(flags, root):
    """(base, macros, folders): FLAGS without the -D/-U options (macros: those, in order, each
    as one argument) and without the -I/-iquote folders below ROOT that hold no LibTorch
    folder (folders). The three are what a precompiled header is shared by: the base must be
    equal, the macros and folders are checked against what the header read (compatible)."""
    base, macros, folders, i = [], [], [], 0
    while i < len(flags):
        x = flags[i]
        if x in ("-D", "-U") and i + 1 < len(flags):
            macros.append(x + flags[i + 1])
            i += 2
            continue
        if x.startswith(("-D", "-U")) and len(x) > 2:
            macros.append(x)
        elif x.startswith("-ferror-limit="):
            # How many errors clang reports changes nothing a header declares: the batch tools
            # lift the limit, and the header stays shared with runs that do not.
            pass
        elif x.startswith(("-I", "-iquote")) and root and below(x[2:] if x.startswith("-I") else x[7:], root) \
                and not any(os.path.isdir(os.path.join(x[2:] if x.startswith("-I") else x[7:], d))
                            for d in LIBTORCH_FOLDERS):
            folders.append(x[2:] if x.startswith("-I") else x[7:])
        else:
            base.append(x)
        i += 1
    return base, macros, folders


def macro_values(macros):
    """{name: value, or None when undefined} after a list of -DNAME[=V] / -UNAME options."""
    out = {}
    for m in macros:
        body = m[2:]
        name, _, value = body.partition("=")
        out[name.split("(", 1)[0]] = (value if "=" in body else "1") if m.startswith("-D") else None
    return out


# --------------------------------------------------------------------------- the store

class Store:
    """Precompiled headers under one folder, keyed and validated as the module says."""

    def __init__(self, directory, clangxx, log=None, keep=KEEP):
        self.dir = os.path.abspath(directory or default_dir())
        self.clangxx = clangxx
        self.keep = keep
        self.log = log or (lambda m, error=False: print("torch-pch: " + m, file=sys.stderr))
        self._identity = None
        self._info = {}
        os.makedirs(self.dir, exist_ok=True)

    def identity(self):
        """The clang++'s path, size, mtime and --version; raises RuntimeError if it does not run."""
        if self._identity is None:
            exe = shutil.which(self.clangxx)
            if not exe:
                raise RuntimeError("'%s' not found" % self.clangxx)
            st = os.stat(os.path.realpath(exe))
            ver = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True, errors="replace").stdout
            self._identity = [os.path.realpath(exe), st.st_size, st.st_mtime_ns, ver]
        return self._identity

    def key(self, base, header, macros, cuda=False):
        env = {k: os.environ[k] for k in tidy_cache.ENV_KEYS if k in os.environ}
        return tidy_cache.sha256_json({"format": FORMAT, "clangxx": self.identity(), "flags": base,
                                       "macros": list(macros), "header": header, "env": env,
                                       "cuda": cuda})[:32]

    def path(self, key):
        return os.path.join(self.dir, key, "libtorch.pch")

    def info(self, key):
        """The stored header's record ({"deps": [[path, size, mtime, spelling]...], "identifiers":
        [...]}) when it exists and no file it read has changed size or mtime (what clang checks
        when it loads it); else None."""
        if key in self._info:
            return self._info[key]
        try:
            with open(os.path.join(self.dir, key, "deps.json")) as fh:
                info = json.load(fh)
            if not os.path.isfile(self.path(key)):
                return None
            for p, size, mtime, _ in info["deps"]:
                st = os.stat(p)
                if st.st_size != size or st.st_mtime_ns != mtime:
                    return None
            info["identifiers"] = set(info["identifiers"])
        except (OSError, ValueError, TypeError, KeyError):
            return None
        os.utime(os.path.join(self.dir, key, "deps.json"))  # recently used
        self._info[key] = info
        return info

    def build(self, key, flags, header, cwd, cuda=False, timeout=900):
        """Precompile HEADER with FLAGS in CWD, as CUDA (the host side, as the units are parsed)
        when CUDA. Returns (seconds of CPU, None) or (None, reason). Runs that build the same key
        at once (parallel tests, two scans) take turns: the second finds it built."""
        folder = os.path.join(self.dir, key)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self._info.pop(key, None)
            if self.info(key) is not None:
                return 0.0, None
            return self._build(key, folder, flags, header, cwd, cuda, timeout)

    def _build(self, key, folder, flags, header, cwd, cuda, timeout):
        prefix = os.path.join(folder, "prefix.h")
        with open(prefix, "w") as fh:
            fh.write("#include <%s>\n" % header)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".pch", dir=folder)
        os.close(fd)
        depfile = tmp + ".d"
        if cuda:
            # clang has no CUDA header kind: the host compile of the prefix emits the AST.
            cmd = [self.clangxx] + libtorch_as_system(flags) + [
                "-x", "cuda", prefix, "-Xclang", "-emit-pch", "-c", "-o", tmp]
        else:
            cmd = [self.clangxx] + libtorch_as_system(without_neutral(flags)) + ["-x", "c++-header", prefix, "-o", tmp]
        cmd += ["-fpch-instantiate-templates", "-MD", "-MF", depfile, "-v"]
        t0 = os.times()
        try:
            p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               errors="replace", timeout=timeout)
            rc, err = p.returncode, p.stderr
        except (OSError, subprocess.TimeoutExpired) as e:
            rc, err = -1, "error: %s" % e
        t1 = os.times()
        cpu = (t1.children_user - t0.children_user) + (t1.children_system - t0.children_system)
        try:
            if rc != 0:
                first = [l for l in err.splitlines() if "error" in l][:1] or ["exit status %d" % rc]
                return None, "the precompiled <%s> did not build: %s" % (header, first[0].strip())
            search, on = [], False
            for line in err.splitlines():
                if line.startswith("#include ") and line.endswith("search starts here:"):
                    on = True
                elif line.startswith("End of search list."):
                    on = False
                elif on and line.startswith(" "):
                    search.append(os.path.normpath(os.path.join(cwd, line.strip().split(" (")[0])))
            with open(depfile) as fh:
                deps = [os.path.normpath(os.path.join(cwd, d)) for d in tidy_cache.parse_make_deps(fh.read())]
            record, ids = [], set()
            for d in deps:
                if d == prefix:
                    continue
                st = os.stat(d)
                spelling = next((d[len(s) + 1:] for s in search if d.startswith(s.rstrip("/") + "/")), "")
                record.append([d, st.st_size, st.st_mtime_ns, spelling])
                with open(d, "rb") as fh:
                    ids.update(m.decode("ascii") for m in re.findall(rb"[A-Za-z_][A-Za-z0-9_]*", fh.read()))
            os.replace(tmp, self.path(key))
            with open(os.path.join(folder, "deps.json.tmp"), "w") as fh:
                json.dump({"deps": record, "identifiers": sorted(ids)}, fh)
            os.replace(os.path.join(folder, "deps.json.tmp"), os.path.join(folder, "deps.json"))
            return cpu, None
        except OSError as e:
            return None, "the precompiled <%s> could not be stored: %s" % (header, e)
        finally:
            for f in (tmp, depfile):
                try:
                    os.unlink(f)
                except OSError:
                    pass

    def trim(self, keep=None):
        """Remove all but the KEEP (default: the store's) most recently used headers; returns
        how many were removed."""
        keep = self.keep if keep is None else keep
        dated = []
        for k in os.listdir(self.dir):
            try:
                dated.append((os.stat(os.path.join(self.dir, k, "deps.json")).st_mtime_ns, k))
            except OSError:
                # Being built by another run, or a failed build: only stale ones go.
                try:
                    if time.time() - os.stat(os.path.join(self.dir, k)).st_mtime > 3600:
                        shutil.rmtree(os.path.join(self.dir, k), ignore_errors=True)
                except OSError:
                    pass
        removed = 0
        for _, k in sorted(dated, reverse=True)[keep:]:
            shutil.rmtree(os.path.join(self.dir, k), ignore_errors=True)
            removed += 1
        return removed


def conditions_clash(unit, info):
    """Why the conditional groups before a unit's LibTorch #include (its "conditions": the names
    their conditions read) may read otherwise after a precompiled header recorded in INFO: one of
    the names is in LibTorch's headers, which may define it; else None."""
    read = [n for n in unit.get("conditions", ()) if n in info["identifiers"]]
    if read:
        return "an #if before its LibTorch #include reads %s, which LibTorch's headers name" % ", ".join(read[:3])
    return None


def incompatible(unit, pch_macros, info, shadow_memo):
    """Why a unit (its "macros" and "folders") cannot use a precompiled header built with
    PCH_MACROS whose record is INFO, or None: a command-line macro that differs and that a header
    it read names (token pasting aside, a macro no header names cannot change it), or one of the
    unit's project include folders holding a file of the name of one it read (clang would find
    that one first). SHADOW_MEMO caches the folders' verdicts."""
    mine, theirs = macro_values(unit["macros"]), macro_values(pch_macros)
    differ = sorted(n for n in set(mine) | set(theirs)
                    if mine.get(n) != theirs.get(n) and n in info["identifiers"])
    if differ:
        return "its macro%s %s differ%s from those of the precompiled header" % (
            "s" if len(differ) > 1 else "", ", ".join(differ[:3]) + (", ..." if len(differ) > 3 else ""),
            "" if len(differ) > 1 else "s")
    for d in unit["folders"]:
        if d not in shadow_memo:
            shadow_memo[d] = next((sp for _, _, _, sp in info["deps"]
                                   if sp and os.path.exists(os.path.join(d, sp))), None)
        if shadow_memo[d]:
            return "its include folder %s holds %s, which LibTorch's headers include" % (d, shadow_memo[d])
    return None


# --------------------------------------------------------------------------- the plan

def plan(units, store, root, before=(), after=(), jobs=2, min_units=2, rounds=3):
    """Which precompiled header each unit (a database entry) is analysed with, building those
    that are missing. Units whose base flags (split_flags) and LibTorch header agree form a
    group; each round builds, per group, the header of the macros most of its remaining units
    have, and gives it to every unit compatible with it (incompatible). Returns
    ({file: {"pch": path} or {"reason": text}}, stats), stats {"built", "reused",
    "build_cpu_seconds", "with", "without": {reason: count}}."""
    root = os.path.realpath(root) if root else None
    result, groups = {}, {}
    for e in units:
        f = e["file"]
        # The CUDA host prelude declares nothing in C++ units: a header serves them with or
        # without it. A CUDA unit's header holds it, ahead of LibTorch's, as the unit reads it.
        cuda = is_cuda_unit(e)
        args = unit_flags(e, before, after)
        if not cuda:
            args = without_neutral(args)
        if has_own_prefix(args):
            result[f] = {"reason": "its command has a prefix or precompiled header of its own"}
            continue
        main = os.path.normpath(os.path.join(e["directory"], f))
        dirs = arg_include_dirs(args, e["directory"])
        conditions = set()
        kind, what = libtorch_prefix(main, dirs, root, conditions=conditions)
        if kind == "blocked" and not reaches_libtorch(main, dirs, root):
            kind = "clean"
        if kind != "found":
            result[f] = {"reason": what if kind == "blocked" else "it includes no LibTorch header"}
            continue
        base, macros, folders = split_flags(args, root)
        g = groups.setdefault(tidy_cache.sha256_json([base, what, cuda]),
                              {"base": base, "header": what, "cwd": e["directory"],
                               "cuda": cuda, "units": []})
        g["units"].append({"file": f, "macros": macros, "folders": folders, "conditions": sorted(conditions)})
    stats = {"built": 0, "reused": 0, "build_cpu_seconds": 0.0, "with": 0, "without": {}}
    shadow = {}
    for _ in range(rounds):
        todo = []
        for g in groups.values():
            if not g["units"]:
                continue
            counts = {}
            for u in g["units"]:
                counts[tuple(u["macros"])] = counts.get(tuple(u["macros"]), 0) + 1
            macros = max(counts, key=lambda m: counts[m])  # the first of the most common
            key = store.key(g["base"], g["header"], macros, g["cuda"])
            g["next"] = (key, list(macros))
            if store.info(key) is not None:
                stats["reused"] += 1
            elif len(g["units"]) >= min_units:
                todo.append(g)
            else:
                g["next"] = None
        if todo:
            store.log("precompiling LibTorch's headers for %d compile command(s): %s" % (
                len(todo), ", ".join(sorted({"<%s>" % g["header"] for g in todo}))))
            with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
                futures = [(g, ex.submit(store.build, g["next"][0], g["base"] + g["next"][1],
                                         g["header"], g["cwd"], g["cuda"]))
                           for g in todo]
            for g, fut in futures:
                cpu, why = fut.result()
                if why:
                    store.log(why, error=True)
                    for u in g["units"]:
                        result[u["file"]] = {"reason": why}
                    g["units"], g["next"] = [], None
                else:
                    stats["built"] += 1
                    stats["build_cpu_seconds"] += cpu
        progress = False
        for g in groups.values():
            if not g.get("next"):
                continue
            key, macros = g["next"]
            info = store.info(key)
            if info is None:
                continue
            left = []
            for u in g["units"]:
                why = conditions_clash(u, info)
                if why:
                    # Every header of the group reads those names: none will fit.
                    result[u["file"]] = {"reason": why}
                    continue
                why = incompatible(u, macros, info, shadow.setdefault(key, {}))
                if why:
                    u["why"] = why
                    left.append(u)
                else:
                    result[u["file"]] = {"pch": store.path(key)}
                    progress = True
            g["units"], g["next"] = left, None
        if not progress:
            break
    for g in groups.values():
        for u in g["units"]:
            result[u["file"]] = {"reason": u.get("why") or (
                "the only unit with its compile command (a precompiled header would cost more than it saves)")}
    for r in result.values():
        if "pch" in r:
            stats["with"] += 1
        else:
            stats["without"][r["reason"]] = stats["without"].get(r["reason"], 0) + 1
    stats["build_cpu_seconds"] = round(stats["build_cpu_seconds"], 2)
    store.trim(max(store.keep, len({r["pch"] for r in result.values() if "pch" in r})))
    return result, stats


def clangxx_for(tool):
    """The clang++ of the tool's LLVM release (clang++-N, from TOOL --version), or None."""
    try:
        ver = subprocess.run(list(tool) + ["--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, errors="replace").stdout
    except OSError:
        return None
    m = re.search(r"LLVM version (\d+\.\d+\.\d+)", ver)
    return clangxx_of_release(m.group(1)) if m else None


def clangxx_of_release(version):
    """The clang++ of the LLVM release VERSION ("22", or "22.1.8" for that one exactly): the first on PATH of
    clang++-MAJOR, clang++ and the wheel's torch-sync-clang (the same Clang as its torch-sync-tidy, where no
    clang++ is installed) whose --version names it, or None."""
    for name in ("clang++-" + version.split(".")[0], "clang++", "torch-sync-clang"):
        exe = shutil.which(name)
        if exe:
            cv = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace").stdout
            if re.search(r"version %s\b" % re.escape(version), cv):
                return name
    return None


def summary_line(stats):
    """One line for a tool's stderr."""
    without = sum(stats["without"].values())
    return "precompiled LibTorch headers: %d built (%.1f s of CPU), %d reused; %d unit(s) with one, %d without%s" % (
        stats["built"], stats["build_cpu_seconds"], stats["reused"], stats["with"], without,
        (" (" + "; ".join("%d: %s" % (n, r) for r, n in sorted(stats["without"].items(), key=lambda x: -x[1])) + ")")
        if without else "")


# --------------------------------------------------------------------------- command line

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="action", required=True)
    p = sub.add_parser("plan")
    p.add_argument("-p", dest="build", required=True)
    p.add_argument("--tool", required=True, help="the clang-tidy command (its LLVM release picks clang++)")
    p.add_argument("--dir", default=None)
    p.add_argument("--root", default=".")
    p.add_argument("--min-units", type=int, default=2)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--label", default="torch-pch")
    p.add_argument("--quiet", action="store_true", help="say nothing on stderr but errors")
    p.add_argument("--extra-arg", action="append", default=[])
    p.add_argument("--extra-arg-before", action="append", default=[])
    p.add_argument("files", nargs="*")
    r = sub.add_parser("rejected")
    r.add_argument("log")
    a = ap.parse_args(argv)
    if a.action == "rejected":
        with open(a.log, encoding="utf-8", errors="replace") as fh:
            return 0 if REJECTED.search(fh.read()) else 1

    def log(m, error=False):
        if error or not a.quiet:
            print("%s: %s" % (a.label, m), file=sys.stderr)

    def nothing(why):
        log("no precompiled LibTorch headers: " + why)
        for f in a.files:
            print("\t" + f)
        return 0

    clangxx = clangxx_for(a.tool.split())
    if not clangxx:
        return nothing("no clang++ of %s's LLVM release on PATH" % a.tool)
    dbpath = a.build if a.build.endswith(".json") else os.path.join(a.build, "compile_commands.json")
    try:
        with open(dbpath) as fh:
            db = json.load(fh)
    except (OSError, ValueError) as e:
        return nothing("cannot read %s: %s" % (dbpath, e))
    entries = {}
    for e in db if isinstance(db, list) else []:
        if isinstance(e, dict) and "file" in e and "directory" in e:
            e = dict(e, file=os.path.normpath(os.path.join(e["directory"], e["file"])))
            entries.setdefault(os.path.realpath(e["file"]), e)
    units = [entries[os.path.realpath(f)] for f in a.files if os.path.realpath(f) in entries]
    try:
        store = Store(a.dir, clangxx, log)
        result, stats = plan(units, store, a.root, a.extra_arg_before, a.extra_arg, a.jobs, a.min_units)
    except (OSError, RuntimeError) as e:
        return nothing(str(e))
    log(summary_line(stats))
    for f in a.files:
        e = entries.get(os.path.realpath(f))
        print("%s\t%s" % (result.get(e["file"], {}).get("pch", "") if e else "", f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
