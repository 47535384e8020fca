"""A result cache for clang-tidy runs over one translation unit (Python 3 standard library only).

Usage:
  scripts/tidy_cache.py run [--cache-dir DIR] [--cache-max-mb N] [--mode direct|preprocessed]
                            [--clangxx CLANG++] -- TOOL [ARGS...] -p BUILD FILE
      run TOOL (clang-tidy -load PLUGIN, or torch-sync-tidy) on FILE, whose compile command is
      BUILD/compile_commands.json's, through the cache: replays stdout, stderr, the exit status
      and the --export-fixes file of an earlier identical run, or runs it and stores them.
  scripts/tidy_cache.py stats|clear [--cache-dir DIR]

torch_sync.scan_report's scan uses the Cache class directly (scan-project.sh --cache-dir,
--cache-max-mb, --no-cache). Default directory: ${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync/scan.

The key covers everything that can change a result:
  - the tool: sha256 of the tool binary, of every -load'ed plugin, of the LLVM shared libraries
    it links (ldd), and its --version output; computed once per Cache object (once per scan);
  - the effective configuration: TOOL --dump-config for the file, with the run's arguments;
  - the run's arguments, the compile command and its directory, the file's path, and the
    environment variables that change include search (CPATH, CPLUS_INCLUDE_PATH, ...);
  - what the caller adds (Cache.extra_key): in a scan, the content of the project facts file;
  - the translation unit's text, in one of two modes:
      direct (default): the main file's content hash, and a recorded list of every file the
        preprocessor read (clang++ -M, with the same flags clang-tidy uses), each re-hashed on
        lookup (once per scan), and the include search list (-v): a file of the same name
        newly created in a folder searched before the one a header was found in is a miss.
        Not seen: a new header beside an includer that shadows one found through the search
        list by an #include "..." (the case ccache's direct mode also misses);
      preprocessed: the sha256 of the preprocessed translation unit (clang++ -E with line
        markers, the same flags).
A run's artifacts (Cache.run's artifacts: the fragment of torch-sync-project-facts) are stored
with its result and written back on a hit.
An entry is one JSON file written atomically (temp file + os.replace) with the sha256 of its
payload inside; an entry that does not parse or whose checksum differs is reported, deleted and
recomputed, never replayed. Runs that timed out, crashed (signal) or whose dependency list could
not be made (clang++ -M failed) are not stored. Size bound: least recently used entries (by
mtime, touched on every hit) are evicted past max_mb.
"""

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

FORMAT = 2
ENV_KEYS = ("CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH", "SDKROOT",
            "CCC_OVERRIDE_OPTIONS")


def default_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "torch-sync", "scan")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sha256_json(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def entry_args(e):
    return list(e["arguments"]) if "arguments" in e else shlex.split(e["command"])


def strip_output_args(args):
    """The compile command without its compiler, output, dependency-file and action flags (what
    clang-tidy's argument adjusters remove)."""
    out, i = [], 1
    while i < len(args):
        x = args[i]
        if x in ("-o", "-MF", "-MT", "-MQ"):
            i += 2
            continue
        if x in ("-c", "-S", "-E", "-M", "-MM", "-MD", "-MMD", "-MP", "-MG", "-fsyntax-only") or \
                (x.startswith("-o") and len(x) > 2) or x.startswith(("-MF", "-MT", "-MQ")):
            i += 1
            continue
        out.append(x)
        i += 1
    return out


def tidy_extra_args(tidy_args):
    """(--extra-arg-before values, --extra-arg values) of a clang-tidy command line."""
    before, after, i = [], [], 0
    while i < len(tidy_args):
        x = tidy_args[i]
        for name, dest in (("--extra-arg-before", before), ("-extra-arg-before", before),
                           ("--extra-arg", after), ("-extra-arg", after)):
            if x == name and i + 1 < len(tidy_args):
                dest.append(tidy_args[i + 1])
                i += 1
                break
            if x.startswith(name + "="):
                dest.append(x[len(name) + 1:])
                break
        i += 1
    return before, after


def export_fixes_path(tidy_args):
    for i, x in enumerate(tidy_args):
        for name in ("--export-fixes", "-export-fixes"):
            if x == name and i + 1 < len(tidy_args):
                return tidy_args[i + 1]
            if x.startswith(name + "="):
                return x[len(name) + 1:]
    return None


def parse_make_deps(text):
    """The prerequisites of clang++ -M's output (make syntax: '\\ ' escapes a space)."""
    text = text.replace("\\\r\n", " ").replace("\\\n", " ")
    colon = re.search(r":(\s|$)", text)
    if not colon:
        return []
    body = text[colon.end():]
    deps, cur, i = [], "", 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body) and body[i + 1] in " #":
            cur += body[i + 1]
            i += 2
            continue
        if c == "$" and body[i + 1:i + 2] == "$":
            cur += "$"
            i += 2
            continue
        if c.isspace():
            if cur:
                deps.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur:
        deps.append(cur)
    return deps


class Cache:
    """One scan's view of the cache. Thread-safe enough for a thread pool: the memo dicts are
    only ever filled with equal values, and entries are written atomically."""

    def __init__(self, directory=None, max_mb=512, mode="direct", clangxx="clang++", log=None):
        self.dir = os.path.abspath(directory or default_dir())
        self.max_bytes = int(max_mb * 1024 * 1024)
        if mode not in ("direct", "preprocessed"):
            raise ValueError("cache mode must be 'direct' or 'preprocessed', not %r" % mode)
        self.mode = mode
        self.clangxx = clangxx
        self.log = log or (lambda msg: print("tidy-cache: " + msg, file=sys.stderr))
        self.hits = self.misses = self.damaged = self.not_stored = 0
        # Something else the results depend on (the project facts file's content), or None.
        self.extra_key = None
        self._identity = {}
        self._config = {}
        self._file_hash = {}
        self._exists = {}
        self.written = []
        try:
            os.makedirs(os.path.join(self.dir, "entries"), exist_ok=True)
        except OSError as e:
            raise RuntimeError("cannot create the cache folder %s: %s" % (self.dir, e))

    # ---------------------------------------------------------------- key parts

    def tool_identity(self, tool):
        """sha256 of the tool's files and its --version, once per tool command line."""
        k = tuple(tool)
        if k in self._identity:
            return self._identity[k]
        exe = shutil.which(tool[0])
        if not exe:
            raise RuntimeError("tool '%s' not found" % tool[0])
        exe = os.path.realpath(exe)
        files = [exe]
        for i, x in enumerate(tool):
            if x in ("-load", "--load") and i + 1 < len(tool):
                files.append(tool[i + 1])
            elif x.startswith(("-load=", "--load=")):
                files.append(x.split("=", 1)[1])
        try:
            ldd = subprocess.run(["ldd", exe], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 text=True).stdout
            files += [m.group(1) for m in re.finditer(r"=>\s*(\S*(?:LLVM|clang)\S*)\s", ldd)]
        except OSError:
            pass
        parts = []
        for f in files:
            f = os.path.realpath(f)
            parts.append([f, sha256_file(f)])
        ver = subprocess.run(tool + ["--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, errors="replace").stdout
        ident = {"files": parts, "version": ver}
        self._identity[k] = sha256_json(ident)
        return self._identity[k]

    def effective_config(self, tool, tidy_args, file):
        """TOOL --dump-config for FILE with the run's arguments (memoized per folder)."""
        args = [x for x in tidy_args if x != file and not x.startswith(("--export-fixes", "-export-fixes"))]
        k = (tuple(tool), tuple(args), os.path.dirname(os.path.abspath(file)))
        if k not in self._config:
            p = subprocess.run(tool + args + ["--dump-config", file], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, errors="replace")
            self._config[k] = "%d\n%s" % (p.returncode, p.stdout)
        return self._config[k]

    def file_hash(self, path):
        """Content hash of a file, once per scan; None when it cannot be read."""
        if path not in self._file_hash:
            try:
                self._file_hash[path] = sha256_file(path)
            except OSError:
                self._file_hash[path] = None
        return self._file_hash[path]

    def compile_args(self, entry, tidy_args):
        """clang++ with the entry's flags and the run's extra arguments, for -M and -E. A
        precompiled header (-include-pch) is left out: what it holds is listed as it was read,
        so that a run with one and a run without have the same dependencies."""
        before, after = tidy_extra_args(tidy_args)
        args = entry_args(entry)
        extra = []
        for i, x in enumerate(after):
            if x != "-include-pch" and not (i and after[i - 1] == "-include-pch"):
                extra.append(x)
        return [self.clangxx] + before + strip_output_args(args) + extra

    # ---------------------------------------------------------------- entries

    def _path(self, key):
        return os.path.join(self.dir, "entries", key[:2], key + ".json")

    def _read(self, key):
        p = self._path(key)
        try:
            with open(p, "rb") as fh:
                raw = fh.read()
        except FileNotFoundError:
            return None
        except OSError as e:
            self.log("cannot read cache entry %s: %s; recomputed" % (p, e))
            return None
        why = None
        try:
            doc = json.loads(raw.decode("utf-8"))
            if not isinstance(doc, dict) or doc.get("format") != FORMAT or "payload" not in doc:
                why = "not a cache entry of this format"
            elif doc.get("sha256") != sha256_json(doc["payload"]):
                why = "bad checksum"
        except (ValueError, UnicodeDecodeError) as e:
            why = "bad JSON (%s)" % str(e).split(":")[0]
        if why:
            self.damaged += 1
            self.log("damaged cache entry %s: %s; recomputed" % (p, why))
            try:
                os.unlink(p)
            except OSError:
                pass
            return None
        try:
            os.utime(p)  # least recently used = oldest mtime
        except OSError:
            pass
        return doc["payload"]

    def _write(self, key, payload):
        p = self._path(key)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        doc = {"format": FORMAT, "sha256": sha256_json(payload), "payload": payload}
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(p))
        try:
            with os.fdopen(fd, "w") as fh:
                json.dump(doc, fh, separators=(",", ":"))
            os.replace(tmp, p)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def check_tool_unchanged(self, tool):
        """After a scan: when the tool's files changed while it ran (a rebuild), the entries
        written under the old identity may hold the new tool's results; remove them."""
        before = self._identity.pop(tuple(tool), None)
        if before is None or self.tool_identity(tool) == before:
            return True
        for key in self.written:
            try:
                os.unlink(self._path(key))
            except OSError:
                pass
        self.log("the tool's files changed during the scan; the %d entries it wrote were removed" %
                 len(self.written))
        return False

    def trim(self):
        """Evict least recently used entries until the cache is within max_bytes."""
        files = []
        for d, _, names in os.walk(os.path.join(self.dir, "entries")):
            for n in names:
                p = os.path.join(d, n)
                try:
                    st = os.stat(p)
                except OSError:
                    continue
                if n.startswith(".tmp-") and time.time() - st.st_mtime < 3600:
                    continue  # another writer's, still being written
                files.append((st.st_mtime_ns, st.st_size, p))
        total = sum(f[1] for f in files)
        evicted = 0
        for _, size, p in sorted(files):
            if total <= self.max_bytes:
                break
            try:
                os.unlink(p)
                total -= size
                evicted += 1
            except OSError:
                pass
        return evicted, total

    # ---------------------------------------------------------------- lookup and run

    def _base_key(self, tool, tidy_args, entry, file):
        key = {
            "format": FORMAT, "mode": self.mode,
            "tool": self.tool_identity(tool),
            "config": self.effective_config(tool, tidy_args, file),
            "tidy_args": list(tidy_args),
            "compile": entry_args(entry), "directory": entry["directory"],
            "file": os.path.abspath(file), "clangxx": self.clangxx,
            "env": {k: os.environ[k] for k in ENV_KEYS if k in os.environ},
        }
        if self.extra_key is not None:
            key["extra"] = self.extra_key
        return key

    def _deps(self, cargs, cwd, timeout):
        """Every file the preprocessor reads (clang++ -M) and its include search list (-v), or
        (None, None) when clang++ fails."""
        try:
            p = subprocess.run(cargs + ["-M", "-v"], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, errors="surrogateescape", timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as e:
            self.log("no dependency list for %s (%s): not stored" % (cargs[-1] if cargs else "?", e))
            return None, None
        if p.returncode != 0:
            return None, None
        search, on = [], False
        for line in p.stderr.splitlines():
            if line.startswith("#include ") and line.endswith("search starts here:"):
                on = True
            elif line.startswith("End of search list."):
                on = False
            elif on and line.startswith(" "):
                search.append(os.path.normpath(os.path.join(cwd, line.strip().replace(" (framework directory)", ""))))
        deps = [os.path.normpath(os.path.join(cwd, d)) for d in parse_make_deps(p.stdout)]
        return deps, search

    def _preprocessed_hash(self, cargs, cwd, timeout):
        try:
            p = subprocess.Popen(cargs + ["-E"], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError as e:
            self.log("cannot preprocess (%s): not cached" % e)
            return None
        h = hashlib.sha256()
        for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
            h.update(chunk)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            return None
        return h.hexdigest() if rc == 0 else None

    def exists(self, path):
        if path not in self._exists:
            self._exists[path] = os.path.exists(path)
        return self._exists[path]

    def _validate(self, payload):
        search = payload["search"]
        for path, digest, found, spelling, present in payload["deps"]:
            if self.file_hash(path) != digest:
                return False
            # A file of the same spelling, newly created in (or removed from) a folder searched
            # before the one this one was found in, would change what is included. Those that
            # existed when the entry was made are #include_next chains (clang's stdint.h).
            for j in range(found):
                if self.exists(os.path.join(search[j], spelling)) != (j in present):
                    return False
        return True

    def _record(self, deps, search):
        out = []
        for d in deps:
            found, spelling = -1, ""
            for i, s in enumerate(search):
                if d.startswith(s.rstrip("/") + "/"):
                    found, spelling = i, d[len(s.rstrip("/")) + 1:]
                    break
            h = self.file_hash(d)
            if h is None:
                return None
            found = max(found, 0)
            present = [j for j in range(found) if self.exists(os.path.join(search[j], spelling))]
            out.append([d, h, found, spelling, present])
        return out

    def run(self, tool, tidy_args, entry, runner, timeout=None, artifacts=()):
        """Run tool + tidy_args for entry['file'] through the cache. runner(cmd) returns
        (rc, stdout, stderr, seconds), rc None on a timeout. Returns the same tuple plus
        True when the result came from the cache. artifacts: files the run writes (the
        fragment of torch-sync-project-facts), stored with the result and written back, or
        removed, when it is replayed."""
        file = entry["file"]
        cwd = entry["directory"]
        cmd = list(tool) + list(tidy_args)
        fixes = export_fixes_path(tidy_args)
        base = self._base_key(tool, tidy_args, entry, file)
        cargs = self.compile_args(entry, tidy_args)
        deps = search = None
        if self.mode == "direct":
            key = sha256_json(dict(base, main=self.file_hash(os.path.join(cwd, file))))
            payload = self._read(key)
            if payload is not None and self._validate(payload):
                return self._replay(payload, fixes, artifacts)
        else:
            pp = self._preprocessed_hash(cargs, cwd, timeout)
            key = sha256_json(dict(base, preprocessed=pp)) if pp else None
            payload = self._read(key) if key else None
            if payload is not None:
                return self._replay(payload, fixes, artifacts)
        self.misses += 1
        if self.mode == "direct":
            # Recorded before the run: a change during it must not be taken as seen.
            deps, search = self._deps(cargs, cwd, timeout)
            if deps is not None:
                deps = self._record(deps, search)
        for f in [fixes] + list(artifacts):
            if f:
                try:
                    os.unlink(f)
                except OSError:
                    pass
        rc, out, err, secs = runner(cmd)
        storable = rc is not None and rc >= 0 and key is not None and \
            (self.mode == "preprocessed" or deps is not None)
        if storable:
            payload = {"rc": rc, "stdout": out, "stderr": err, "seconds": round(secs, 3),
                       "fixes": None, "deps": deps or [], "search": search or []}
            if fixes and os.path.isfile(fixes):
                with open(fixes, encoding="utf-8", errors="surrogateescape") as fh:
                    payload["fixes"] = fh.read()
            if artifacts:
                payload["artifacts"] = {}
                for f in artifacts:
                    if os.path.isfile(f):
                        with open(f, encoding="utf-8", errors="surrogateescape") as fh:
                            payload["artifacts"][f] = fh.read()
            try:
                self._write(key, payload)
                self.written.append(key)
            except OSError as e:
                self.log("cannot write cache entry: %s" % e)
        else:
            self.not_stored += 1
        return rc, out, err, secs, False

    def _replay(self, payload, fixes, artifacts=()):
        self.hits += 1
        stored = payload.get("artifacts") or {}
        for f in artifacts:
            if f in stored:
                os.makedirs(os.path.dirname(os.path.abspath(f)), exist_ok=True)
                with open(f, "w", encoding="utf-8", errors="surrogateescape") as fh:
                    fh.write(stored[f])
            else:
                try:
                    os.unlink(f)
                except OSError:
                    pass
        if fixes:
            if payload.get("fixes") is not None:
                with open(fixes, "w", encoding="utf-8", errors="surrogateescape") as fh:
                    fh.write(payload["fixes"])
            else:
                try:
                    os.unlink(fixes)
                except OSError:
                    pass
        return payload["rc"], payload["stdout"], payload["stderr"], payload["seconds"], True


# --------------------------------------------------------------------------- command line

def run_plain(cmd, cwd, timeout):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, errors="replace", text=True)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired:
        return None, "", "", time.monotonic() - t0


def split_tool(cmd):
    """TOOL (with its -load PLUGIN) and the rest of a clang-tidy command line."""
    n = 1
    while n < len(cmd):
        if cmd[n] in ("-load", "--load") and n + 1 < len(cmd):
            n += 2
        elif cmd[n].startswith(("-load=", "--load=")):
            n += 1
        else:
            break
    return cmd[:n], cmd[n:]


def find_entry(tidy_args):
    build, files, i = None, [], 0
    while i < len(tidy_args):
        x = tidy_args[i]
        if x in ("-p", "--p") and i + 1 < len(tidy_args):
            build = tidy_args[i + 1]
            i += 2
            continue
        if x.startswith(("-p=", "--p=")):
            build = x.split("=", 1)[1]
        elif not x.startswith("-"):
            files.append(x)
        i += 1
    if build is None or len(files) != 1:
        raise SystemExit("tidy-cache: run wants one source file and -p BUILD (the folder of "
                         "compile_commands.json); got %d file(s)%s" % (len(files), "" if build else ", no -p"))
    dbpath = build if build.endswith(".json") else os.path.join(build, "compile_commands.json")
    try:
        with open(dbpath) as fh:
            db = json.load(fh)
    except (OSError, ValueError) as e:
        raise SystemExit("tidy-cache: cannot read compilation database %s: %s" % (dbpath, e))
    want = os.path.realpath(files[0])
    for e in db:
        f = e.get("file", "")
        if os.path.realpath(os.path.join(e.get("directory", ""), f)) == want:
            return dict(e, file=os.path.normpath(os.path.join(e["directory"], f)))
    raise SystemExit("tidy-cache: %s is not in %s" % (files[0], dbpath))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=("run", "stats", "clear"))
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--cache-max-mb", type=float, default=512)
    ap.add_argument("--mode", default="direct", choices=("direct", "preprocessed"))
    ap.add_argument("--clangxx", default="clang++")
    ap.add_argument("--timeout", type=int, default=None)
    argv = sys.argv[1:] if argv is None else list(argv)
    cmd = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    d = os.path.abspath(a.cache_dir or default_dir())
    if a.action == "clear":
        shutil.rmtree(os.path.join(d, "entries"), ignore_errors=True)
        return 0
    if a.action == "stats":
        n = size = 0
        for root, _, names in os.walk(os.path.join(d, "entries")):
            for nm in names:
                n += 1
                size += os.path.getsize(os.path.join(root, nm))
        print("%s: %d entries, %.1f MB" % (d, n, size / 1048576))
        return 0
    if not cmd:
        ap.error("run wants -- TOOL ARGS... after its options")
    tool, tidy_args = split_tool(cmd)
    entry = find_entry(tidy_args)
    try:
        cache = Cache(d, a.cache_max_mb, a.mode, a.clangxx)
    except RuntimeError as e:
        raise SystemExit("tidy-cache: %s" % e)
    rc, out, err, _, hit = cache.run(tool, tidy_args, entry,
                                     lambda c: run_plain(c, entry["directory"], a.timeout), a.timeout)
    cache.check_tool_unchanged(tool)
    cache.trim()
    sys.stdout.write(out)
    sys.stderr.write(err)
    print("tidy-cache: %s" % ("hit" if hit else "miss"), file=sys.stderr)
    return 124 if rc is None else (rc if rc >= 0 else 128 - rc)


if __name__ == "__main__":
    sys.exit(main())
