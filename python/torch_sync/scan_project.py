"""Runs the torch-sync checks over every translation unit of a LibTorch project and writes a
report (report.md, report.json) into OUTDIR: translation units analysed, those that failed
to parse, crashed (clang-tidy killed by a signal or printing a stack dump) or timed out,
findings per check and per file, and every finding (file:line:col, check, message, notes).
Never writes into the checkout (only into --build-dir when you pass one, and the cache); exits 0 when
every translation unit was analysed, 1 when some failed (the report is written all the
same), 2 on a usage error.

Usage: torch-sync-scan [options] CHECKOUT OUTDIR
       (in a torch-sync checkout: scripts/scan-project.sh, the same options)

The compilation database, the first that applies:
  -p, --compile-db PATH    compile_commands.json, or a folder holding one
  --build-dir DIR          a build folder: its compile_commands.json if it has one, otherwise
                           CMake is configured into DIR (the only place written besides OUTDIR)
  --generate-db            skip CMake: generate the database from flags (below)
  (default)                configure CMake (-DCMAKE_EXPORT_COMPILE_COMMANDS=ON, clang++-N,
                           Torch_DIR of Debian's libtorch-dev, FetchContent disconnected) into
                           OUTDIR/cmake-build: the checkout's top CMakeLists.txt, or each
                           --cmake-source folder, or else every top-level CMake project below
                           the checkout (a CMakeLists.txt with no CMakeLists.txt above it). A
                           project that does not configure gets a database generated from flags
                           for the sources below its folder, and the report says so. Debian's
                           LibTorch is a CPU build: the CUDA translation units of such a database
                           (see below) and the .cu sources it left out get generated flags with
                           --cuda-torch-include, the project's -I/-D kept; without a CUDA
                           LibTorch the report and stderr say that they are parsed as CPU code.
  --cmake-source DIR       a CMake source folder, relative to CHECKOUT (repeatable)
  --cmake-arg ARG          an extra configure argument, e.g. -DWITH_CUDA=OFF (repeatable)

A generated database compiles each source with clang++-N -std=STD -DNDEBUG (a release build:
assert() and TORCH_INTERNAL_ASSERT_DEBUG_ONLY compiled out), -I its own folder and
the include/ folders beside it and its parents up to the checkout, the -I/-D given, and
LibTorch from --torch-include; .cu sources host-only as CUDA (-x cuda --cuda-host-only
--cuda-path=CUDA -nocudalib), and .cu sources or sources that include CUDA headers
(c10/cuda, ATen/cuda, cuda_runtime, thrust, cub, ...), themselves or through the project's
headers (#include "..." and <...> found in the unit's include folders), with
--cuda-torch-include and CUDA's headers. These are the flags of a setup.py
(torch.utils.cpp_extension) build:
  --sources GLOB           sources, relative to CHECKOUT, ** allowed (repeatable; default:
                           every *.cpp *.cc *.cxx *.cu outside build/, third_party/, extern/, .*)
  -I DIR                   include folder, relative to CHECKOUT or absolute (repeatable)
  -D NAME[=VALUE]          macro definition (repeatable), e.g. -D WITH_CUDA
  --std STD                language standard (default c++17)
  --flags 'FLAGS'          further compiler flags
  --torch-extension NAME[=GLOB]
                           a Python extension: -DTORCH_EXTENSION_NAME=NAME
                           -DTORCH_API_INCLUDE_EXTENSION_H, Python's include folder and
                           pybind11's (pip's pybind11, else Debian's pybind11-dev in
                           /usr/include); an error names the package when one is missing.
                           Repeatable, for a project of several extensions: a source gets the
                           first NAME whose GLOB (relative to CHECKOUT, e.g. 'csrc/sparse/*')
                           matches it or that has no GLOB, else the first NAME
  --torch-include DIR      LibTorch's include root (default /usr/include, Debian's
                           libtorch-dev); DIR and DIR/torch/csrc/api/include are added
  --cuda-torch-include DIR LibTorch include root for CUDA translation units, e.g. an unpacked
                           CUDA build of LibTorch (Debian's CPU package has no c10/cuda,
                           ATen/cuda); default: --torch-include
  --cuda-path DIR          CUDA toolkit (default /usr/local/cuda)

The analysis:
  --tool plugin|tidy       clang-tidy-N -load libTorchSyncChecks.so (default) or torch-sync-tidy
  --tidy-binary PATH       a prebuilt torch-sync-tidy (implies --tool tidy)
  --checker-build DIR      torch-sync's build folder (default $TORCH_SYNC_BUILD_ROOT/llvm-N,
                           else <repo>/build/llvm-N): DIR/checker must hold the file --tool
                           needs (libTorchSyncChecks.so, or torch-sync-tidy); when it does not,
                           the script stops and names the command that builds it
  --build-checker          build it instead (scripts/build.sh N, into --checker-build)
  --llvm N                 LLVM major release (default 22)
  --checks GLOBS           checks to run (default '-*,torch-sync-*')
  --check-option KEY=VAL   a CheckOptions entry, e.g. ReportUnknownDevice=false (repeatable)
  --extra-arg ARG          passed to clang-tidy as --extra-arg (repeatable). Every run also gets
                           --extra-arg-before=-ferror-limit=0: clang's limit of 20 errors lifted, so
                           that errors in a library header do not stop a unit before its templates
                           are instantiated (a -ferror-limit in the compile command or here wins)
  -j, --jobs N             translation units at a time (default: the number of cores)
  --nice N                 run clang-tidy and clang++ under nice -n N (default 0)
  --filter REGEX           only translation units whose path (relative to CHECKOUT) matches
  --exclude REGEX          leave out translation units whose path matches (repeatable)
  --timeout S              seconds allowed to one translation unit (default 900)
  --label NAME             the project's name in the report (default: CHECKOUT's name)
  --revision REV           the revision named in the report (default: git's HEAD, if any)

Project facts (docs/project-facts.md): before the analysis, torch-sync-project-facts runs over
every translation unit of the database (not those of --exclude; --filter selects only what is
analysed) and torch_sync.merge_project_facts joins its fragments into OUTDIR/facts/
project-facts.json, which the analysis reads (ProjectFactsFile): the device inference then
sees the devices that the whole project passes to each function. Units that do not parse or
are left out are named in a notice; when no facts can be written the analysis runs without.
  --no-project-facts       analyse each translation unit alone
  (by default each unit to analyse is analysed in the same run that collects its facts, without
  them, its questions to the facts recorded; once they are merged, only the units whose
  questions they answer are analysed again: the findings are those of a scan that analyses
  every unit after the facts, in about half the time)
  --separate-facts-pass    collect the facts first, then analyse every unit with them
  --project-facts-file F   use the facts file F (merged by merge-project-facts.py from the
                           fragments of --project-facts-only runs) instead of collecting them
  --project-facts-only     run only the facts pass, over the translation units of this scan
                           (of its --shard): its fragments are left in OUTDIR/facts/fragments
                           for merge-project-facts.py; exits 1 when some unit gave none

Sharding, for a CI matrix over a large project (docs/ci.md):
  --shard K/N              analyse shard K of N: the translation units (after --filter and
                           --exclude) sorted by path relative to CHECKOUT, every N-th from the
                           K-th, so that the same paths give the same shards on every machine.
                           The project facts pass still covers every unit, unless
                           --project-facts-file gives them. 'python3 -m torch_sync.scan_report
                           merge-reports --out DIR SHARD_OUTDIR...' (in a torch-sync checkout:
                           scripts/scan_report.py merge-reports ...) joins the shards' reports.

CUDA sources as nvcc parses them: CUDA translation units (.cu, -x cuda) get the host prelude
checker/cuda/torch-sync-cuda-host.h force-included (the host min/max overloads of nvcc's
headers), and kernel launches written with spaces inside the chevrons ('k<< <g, b >> >(x)')
anywhere below the checkout are shown to clang in token form through a file system overlay
(torch_sync.cuda_launch_syntax, clang-tidy --vfsoverlay; lines, columns and file names kept;
the sources unchanged). The report says what was done.
  --no-cuda-compat         neither

The cache (torch_sync.tidy_cache): an unchanged translation unit's result (diagnostics, exit
status) is replayed; the key covers the tool's files (binary, plugin, LLVM libraries), the
effective configuration, the flags and every file the preprocessor reads:
  --cache-dir DIR          default ${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync/scan
  --cache-max-mb N         size bound, least recently used entries evicted (default 512)
  --cache-mode MODE        direct (default: the files read, re-hashed) or preprocessed
                           (clang++ -E of each unit, hashed; slower)
  --no-cache               neither read nor write it

Precompiled LibTorch headers (torch_sync.torch_pch): the LibTorch header that the units start
with is precompiled once per distinct compile command (by clang++-N, templates instantiated)
and each unit is analysed with it (-include-pch), in both passes: a <torch/torch.h> unit then
costs about a tenth of its parse (CUDA units get headers of their own, built as CUDA). Units it
cannot serve (a #define or code before LibTorch's first #include, an #if there that reads a
LibTorch macro, a prefix header of their own, the only unit of its command when the units are
parsed once) are analysed without one, and the report counts them and says why; a header that
clang rejects when a unit runs is dropped for that unit. The findings are those of a run without.
  --pch-dir DIR            default CACHE-DIR/pch with --cache-dir, else
                           ${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync/pch (the 4 most
                           recently used are kept, 100-150 MB each)
  --no-pch                 parse LibTorch's headers in every unit
Both passes go through the cache: a collection's fragment is kept with its result, and the
analysis's key covers the facts' content.

Speed:
  --compare-syntax-only    after the scan, time the whole scan against clang++-N -fsyntax-only
                           over the same translation units, with the same flags (those of the
                           database, as clang-tidy adjusts them) and the same -j, alternating
                           the two; the medians and their ratio go into the report
  --runs N                 timed runs of each for --compare-syntax-only (default 3)
"""

# torch-sync-scan and scripts/scan-project.sh run this module. The text above is its --help, verbatim: the options'
# help is there, with the prose between them, a layout that argparse's own listing does not have.

import argparse
import fnmatch
import glob
import locale
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import sysconfig
import time
import traceback

from . import resources, scan_report, torch_pch
from .scan_report import die

# The torch-sync checkout this package is in (its build/ holds the checker), or None when installed.
REPO = resources.checkout()


# --------------------------------------------------------------------------- options

class Parser(argparse.ArgumentParser):
    """The options of scan-project.sh. Before argparse reads them, canonical() sorts the words out
    as scan-project.sh always has: a value-taking option takes the next word whatever it is
    (--checks '-*,torch-sync-*', --cmake-arg -DX=1: argparse alone would take such a value for an
    option), -I, -D and -j take it attached too (-Iinclude, -DNAME, -j8), '--' ends the options,
    and any other word that starts with '-' is an unknown option, an error that names it."""

    def __init__(self):
        super().__init__(prog="scan-project", usage=argparse.SUPPRESS, description=__doc__, add_help=False,
                         allow_abbrev=False, formatter_class=argparse.RawDescriptionHelpFormatter)
        self.flags, self.values = set(), set()

    def option(self, *names, **kw):
        (self.flags if kw.get("action") in ("store_true", "help") else self.values).update(names)
        self.add_argument(*names, help=argparse.SUPPRESS, **kw)

    def error(self, message):
        die("%s (see --help)" % message)

    def canonical(self, argv):
        """ARGV as argparse reads it unambiguously: each value joined to its option in one word
        (--opt=VALUE, -X=VALUE), then '--' and the positional arguments."""
        out, positional, i = [], [], 0
        while i < len(argv):
            x = argv[i]
            i += 1
            if x == "--":
                positional += argv[i:]
                break
            if x in ("-h", "--help"):
                return ["--help"]
            if x in self.flags:
                out.append(x)
            elif x in self.values:
                if i == len(argv) or not argv[i]:
                    die("option %s needs a value (see --help)" % x)
                out.append(x + "=" + argv[i])
                i += 1
            elif x.startswith("--") and x.partition("=")[0] in self.values:
                if not x.partition("=")[2]:
                    die("option %s needs a value (see --help)" % x.partition("=")[0])
                out.append(x)
            elif x[:2] in ("-I", "-D", "-j") and len(x) > 2:
                out.append(x[:2] + "=" + x[2:])
            elif x.startswith("-"):
                die("unknown option '%s' (see --help)" % x)
            else:
                positional.append(x)
        return out + ["--"] + positional


def parser():
    """scan-project.sh's options, with the defaults of its --help; the numbers are kept as text
    until checked()."""
    p = Parser()
    o = p.option
    o("-h", "--help", action="help")
    # The compilation database.
    o("-p", "--compile-db", default="")
    o("--build-dir", default="")
    o("--generate-db", action="store_true")
    o("--cmake-source", action="append", default=[])
    o("--cmake-arg", action="append", default=[])
    # A generated database.
    o("--sources", action="append", default=[])
    o("-I", dest="includes", action="append", default=[])
    o("-D", dest="defines", action="append", default=[])
    o("--std", default="c++17")
    o("--flags", default="")
    o("--torch-extension", action="append", default=[])
    o("--torch-include", default="/usr/include")
    o("--cuda-torch-include", default="")  # --torch-include's
    o("--cuda-path", default="/usr/local/cuda")
    # The analysis.
    o("--tool", default="")  # plugin, unless --tidy-binary
    o("--tidy-binary", default="")
    o("--checker-build", default="")
    o("--build-checker", action="store_true")
    o("--llvm", default="22")
    o("--checks", default="-*,torch-sync-*")
    o("--check-option", action="append", default=[])
    o("--extra-arg", action="append", default=[])
    o("-j", "--jobs", default="")  # the number of cores
    o("--nice", default="0")
    o("--filter", default="")
    o("--exclude", action="append", default=[])
    o("--timeout", default="900")
    o("--label", default="")
    o("--revision", default="")
    # Project facts.
    o("--no-project-facts", action="store_true")
    o("--separate-facts-pass", action="store_true")
    o("--project-facts-file", default="")
    o("--project-facts-only", action="store_true")
    # Sharding.
    o("--shard", default="")
    # CUDA sources as nvcc parses them.
    o("--no-cuda-compat", action="store_true")
    # The cache.
    o("--cache-dir", default="")
    o("--cache-max-mb", default="512")
    o("--cache-mode", default="direct")
    o("--no-cache", action="store_true")
    # Precompiled LibTorch headers.
    o("--pch-dir", default="")
    o("--no-pch", action="store_true")
    # Speed.
    o("--compare-syntax-only", action="store_true")
    o("--runs", default="3")
    p.add_argument("paths", nargs="*", help=argparse.SUPPRESS)  # CHECKOUT OUTDIR
    return p


def cores():
    """The number of cores, as nproc counts them (the CPUs this process may run on, bounded by
    OMP_NUM_THREADS and OMP_THREAD_LIMIT when they are set)."""
    try:
        return subprocess.run(["nproc"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return str(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count())


def checked(a):
    """The usage errors that the options and the arguments can have, in the order scan-project.sh
    has always named them; fills in the defaults that depend on others, a.checkout (absolute, free
    of symbolic links), a.outdir (as given) and a.clangxx."""
    if len(a.paths) != 2:
        die("expected CHECKOUT and OUTDIR, got %d argument(s) (see --help)" % len(a.paths))
    checkout, a.outdir = a.paths
    if not os.path.exists(checkout):
        die("checkout '%s' does not exist" % checkout)
    if not os.path.isdir(checkout):
        die("checkout '%s' is not a folder" % checkout)
    a.checkout = os.path.realpath(checkout)
    a.jobs = a.jobs or cores()
    if not re.fullmatch(r"[0-9]+", a.llvm):
        die("--llvm wants a number, got '%s'" % a.llvm)
    for name, value, what in (("--jobs", a.jobs, "a positive number"), ("--runs", a.runs, "a positive number"),
                              ("--timeout", a.timeout, "a positive number of seconds")):
        if not re.fullmatch(r"[1-9][0-9]*", value):
            die("%s wants %s, got '%s'" % (name, what, value))
    if not re.fullmatch(r"[0-9]+", a.nice):
        die("--nice wants a number from 0 to 19, got '%s'" % a.nice)
    if a.tidy_binary:
        if a.tool == "plugin":
            die("--tidy-binary names a torch-sync-tidy; it excludes --tool plugin")
        a.tool = "tidy"
    a.tool_named = bool(a.tool)
    a.tool = a.tool or "plugin"
    if a.tool not in ("plugin", "tidy"):
        die("--tool wants 'plugin' or 'tidy', got '%s'" % a.tool)
    if not re.fullmatch(r"[0-9]+([.][0-9]+)?", a.cache_max_mb):
        die("--cache-max-mb wants a number of megabytes, got '%s'" % a.cache_max_mb)
    if a.cache_mode not in ("direct", "preprocessed"):
        die("--cache-mode wants 'direct' or 'preprocessed', got '%s'" % a.cache_mode)
    for x in a.check_option:
        if "=" not in x[1:]:
            die("--check-option wants KEY=VALUE, got '%s'" % x)
    if a.compile_db and a.generate_db:
        die("--compile-db and --generate-db exclude each other")
    if a.shard:
        try:
            scan_report.parse_shard(a.shard)
        except ValueError as e:
            die(str(e))
    if a.project_facts_file:
        if a.no_project_facts:
            die("--project-facts-file and --no-project-facts exclude each other")
        if a.project_facts_only:
            die("--project-facts-file and --project-facts-only exclude each other")
        if not os.path.isfile(a.project_facts_file):
            die("--project-facts-file '%s': no such file" % a.project_facts_file)
        a.project_facts_file = resolved(a.project_facts_file)
    if a.project_facts_only and a.no_project_facts:
        die("--project-facts-only and --no-project-facts exclude each other")
    a.cuda_torch_include = a.cuda_torch_include or a.torch_include
    for d in (a.torch_include, a.cuda_torch_include):
        if not os.path.isdir(d + "/torch/csrc/api/include"):
            die("'%s' is not a LibTorch include root (no torch/csrc/api/include)" % d)
    # The wheel's torch-sync-clang serves where no clang++ of the release is installed: it parses, preprocesses
    # and precompiles; configuring CMake (no -p) needs a real compiler still.
    a.clangxx = torch_pch.clangxx_of_release(a.llvm)
    if not a.clangxx:
        die("clang++-%s not found; run scripts/install-deps.sh %s" % (a.llvm, a.llvm))


# --------------------------------------------------------------------------- paths, as the shell names them

def dirname(path):
    """dirname(1): PATH without its last component, '.' when it has one only."""
    p = path.rstrip("/")
    if not p:
        return "/" if path else "."
    if "/" not in p:
        return "."
    return p[:p.rindex("/")].rstrip("/") or "/"


def basename(path):
    """basename(1): the last component of PATH."""
    p = path.rstrip("/")
    return p.rpartition("/")[2] if p else ("/" if path else "")


def resolved(path):
    """PATH with its folder made absolute and free of symbolic links ($(cd "$(dirname P)" && pwd -P)/
    $(basename P)): the file named, not the one a link names."""
    return os.path.realpath(dirname(path)) + "/" + basename(path)


def working_folder():
    """The working folder as the shell names it ($PWD: through the symbolic links it was reached by)."""
    pwd = os.environ.get("PWD", "")
    try:
        if pwd.startswith("/") and os.path.samefile(pwd, "."):
            return pwd
    except OSError:
        pass
    return os.getcwd()


def collated(names):
    """NAMES in the order of sort(1) (the locale's collation, then bytes)."""
    return sorted(names, key=lambda s: (locale.strxfrm(s), s))


def rm_rf(path):
    """rm -rf PATH."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.remove(path)


# --------------------------------------------------------------------------- the checker

def checker(a):
    """The command that runs the checks (clang-tidy-N with the plugin, or a torch-sync-tidy),
    quoted: the file that --tool needs, from --tidy-binary or --checker-build (built there with
    --build-checker), that registers the torch-sync checks."""
    if a.tidy_binary:
        if not os.path.exists(a.tidy_binary):
            die("--tidy-binary '%s' does not exist" % a.tidy_binary)
        if not (os.path.isfile(a.tidy_binary) and os.access(a.tidy_binary, os.X_OK)):
            die("--tidy-binary '%s' is not an executable file" % a.tidy_binary)
        tidy = resolved(a.tidy_binary)
    elif not (a.checker_build or os.environ.get("TORCH_SYNC_BUILD_ROOT") or REPO):
        # An installed package, no build folder named: the wheel's torch-sync-tidy, else the one on PATH.
        tidy = resources.executable("torch-sync-tidy") or shutil.which("torch-sync-tidy")
        if not tidy or (a.tool == "plugin" and a.tool_named):
            die("no torch-sync build to take %s from: pass --tidy-binary PATH (a torch-sync-tidy), or "
                "--checker-build DIR (a torch-sync build folder)" % (
                    "libTorchSyncChecks.so" if a.tool == "plugin" and a.tool_named else "torch-sync-tidy"))
        tidy = resolved(tidy)
        a.tool = "tidy"
    else:
        build = a.checker_build or (os.environ.get("TORCH_SYNC_BUILD_ROOT") or REPO + "/build") + "/llvm-" + a.llvm
        if not build.startswith("/"):
            build = working_folder() + "/" + build
        plugin = build + "/checker/libTorchSyncChecks.so"
        tidy = build + "/checker/torch-sync-tidy"
        wanted = plugin if a.tool == "plugin" else tidy
        if not os.path.isfile(wanted):
            if not a.build_checker:
                msg = ("no %s in %s/checker (--tool %s). Build it with 'scripts/build.sh %s' in the torch-sync "
                       "checkout" % (basename(wanted), build, a.tool, a.llvm))
                if REPO is None or build != REPO + "/build/llvm-" + a.llvm:
                    msg += " (TORCH_SYNC_BUILD_ROOT=%s scripts/build.sh %s)" % (dirname(build), a.llvm)
                die(msg + ", or pass --build-checker to build it now, --checker-build DIR for another build "
                    "folder, or --tidy-binary PATH for a prebuilt torch-sync-tidy")
            if REPO is None:
                die("--build-checker builds torch-sync with scripts/build.sh of a torch-sync checkout, and this "
                    "torch_sync package is installed, not in one: build it there, and pass --checker-build DIR")
            print("scan-project: building torch-sync (LLVM %s) into %s (--build-checker)" % (a.llvm, build),
                  file=sys.stderr, flush=True)
            if run([REPO + "/scripts/build.sh", a.llvm], stdout=sys.stderr,
                   env=dict(os.environ, TORCH_SYNC_BUILD_ROOT=dirname(build))) != 0:
                die("building torch-sync failed (scripts/build.sh %s)" % a.llvm)
            if not os.path.isfile(wanted):
                die("scripts/build.sh %s did not make %s" % (a.llvm, wanted))
    if a.tool == "plugin":
        if not shutil.which("clang-tidy-" + a.llvm):
            die("clang-tidy-%s not found; run scripts/install-deps.sh %s" % (a.llvm, a.llvm))
        tool = ["clang-tidy-" + a.llvm, "-load", plugin]
    else:
        tool = [tidy]
    tool_cmd = " ".join(shlex.quote(x) for x in tool)
    listed = output(tool + ["-checks=-*,torch-sync-*", "-list-checks"])
    if listed is None or "torch-sync-item" not in listed:
        die("%s registers no torch-sync check; rebuild it (scripts/build.sh %s)" % (tool_cmd, a.llvm))
    return tool_cmd


def run(cmd, **kw):
    """CMD's exit status; 127 when it cannot be run."""
    try:
        return subprocess.run(cmd, **kw).returncode
    except OSError:
        return 127


def output(cmd, stream="stdout", any_status=False):
    """What CMD writes on STREAM (the other one dropped) when it exits 0 (or ANY_STATUS), else None."""
    pipes = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, stream: subprocess.PIPE}
    try:
        p = subprocess.run(cmd, text=True, errors="replace", **pipes)
    except OSError:
        return None
    return getattr(p, stream) if p.returncode == 0 or any_status else None


# --------------------------------------------------------------------------- the compilation database

def extension_includes(a):
    """For --torch-extension: Python's include folder, and pybind11's when a pip pybind11 gives it
    (Debian's pybind11-dev is in a folder searched already); an error names the package missing."""
    for e in a.torch_extension:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", e.partition("=")[0]):
            die("--torch-extension wants NAME or NAME=GLOB with NAME an identifier, got '%s'" % e)
    a.python_include = a.pybind11_include = ""
    if not a.torch_extension:
        return
    # torch/extension.h includes <Python.h> and <pybind11/pybind11.h>.
    a.python_include = sysconfig.get_paths()["include"]
    if not os.path.isfile(a.python_include + "/Python.h"):
        die("--torch-extension: no Python.h in %s; install Python's headers (Debian: apt-get install python3-dev)"
            % a.python_include)
    pybind11 = (output([sys.executable, "-c", "import pybind11; print(pybind11.get_include())"]) or "").rstrip("\n")
    if pybind11 and os.path.isfile(pybind11 + "/pybind11/pybind11.h"):
        a.pybind11_include = pybind11
        return
    searched = output([a.clangxx, "-x", "c++", "-E", "-v", "/dev/null"], "stderr", any_status=True) or ""
    dirs = [m.group(1) for m in re.finditer(r"^ (/[^ \n]*)", searched, re.M)]
    dirs += [a.torch_include, a.cuda_torch_include, a.python_include]
    dirs += [d if d.startswith("/") else a.checkout + "/" + d for d in a.includes]
    if not any(os.path.isfile(d + "/pybind11/pybind11.h") for d in dirs):
        die("--torch-extension: pybind11's headers were not found (torch/extension.h includes "
            "<pybind11/pybind11.h>); install them (Debian: apt-get install pybind11-dev, or pip install pybind11)")


def helper(args):
    """torch_sync.scan_report ARGS, in this process: its exit status."""
    try:
        return scan_report.main(args) or 0
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 1 if e.code else 0
    except Exception:
        traceback.print_exc()
        return 1


def generated_flags(a, sources=True):
    """scan_report.py's flags of a generated database (gendb's, cudafix's without SOURCES)."""
    args = ["--std=" + a.std, "--flags=" + a.flags, "--compiler=" + a.clangxx, "--torch-include=" + a.torch_include,
            "--notices=" + a.notices_file, "--cuda-torch-include=" + a.cuda_torch_include,
            "--cuda-path=" + a.cuda_path]
    args += ["--sources=" + s for s in (a.sources if sources else [])]
    args += ["--exclude=" + s for s in a.exclude]
    args += ["--include=" + s for s in a.includes]
    args += ["--define=" + s for s in a.defines]
    args += ["--include=" + a.pybind11_include] if a.pybind11_include else []
    args += ["--torch-extension=" + s for s in a.torch_extension]
    args += ["--python-include=" + a.python_include] if a.torch_extension else []
    return args


def gendb(a, out, under, more=()):
    """A database generated from flags, into OUT, for the sources below UNDER (relative to the
    checkout), with MORE flags (--include=DIR, --define=MACRO): 0 when it was written."""
    return helper(["gendb", "--root=" + a.checkout, "--out=" + out, "--under=" + under] + generated_flags(a) +
                  list(more))


def cudafix(a, db):
    """The CUDA translation units of the CMake database DB given generated flags; exits on an error."""
    rc = helper(["cudafix", "--root=" + a.checkout, "--db=" + db] + generated_flags(a, sources=False))
    if rc:
        sys.exit(rc)


def torch_cmake_dir():
    """Debian's libtorch-dev's Torch_DIR, or ''."""
    found = collated(glob.glob("/usr/lib/*/cmake/Torch"))
    return found[0] if found else ""


def cmake_settings(a, bld):
    """clang-N as the compilers, FetchContent disconnected (its downloads kept in BLD)."""
    return ["-DCMAKE_CXX_COMPILER=" + a.clangxx, "-DCMAKE_C_COMPILER=clang-" + a.llvm,
            "-DFETCHCONTENT_FULLY_DISCONNECTED=ON", "-DFETCHCONTENT_BASE_DIR=" + bld + "/_deps"]


def configure(a, src, bld):
    """CMake configured from SRC into BLD: whether BLD/compile_commands.json was written."""
    if not os.path.isfile(src + "/CMakeLists.txt"):
        return False
    if not shutil.which("cmake"):
        print("scan-project: cmake not found", file=sys.stderr)
        return False
    torch_dir = torch_cmake_dir()
    os.makedirs(bld, exist_ok=True)
    cmd = ["cmake", "-S", src, "-B", bld, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"] + cmake_settings(a, bld)
    cmd += (["-DTorch_DIR=" + torch_dir] if torch_dir else []) + a.cmake_arg
    print("scan-project: configuring " + src, file=sys.stderr)
    with open(bld + "/configure.log", "w") as log:
        log.write("".join(shlex.quote(x) + " " for x in cmd) + "\n")
        log.flush()
        rc = run(["timeout", "600"] + cmd, stdout=log, stderr=subprocess.STDOUT)
    return rc == 0 and os.path.isfile(bld + "/compile_commands.json")


def traced_flags(a, src, bld):
    """--include=DIR and --define=MACRO for what a configure step of SRC that failed had set: its
    include folders and macros, read from CMake's own trace (written into BLD)."""
    torch_dir = torch_cmake_dir()
    os.makedirs(bld, exist_ok=True)
    cmd = ["cmake", "-S", src, "-B", bld] + cmake_settings(a, bld)
    cmd += ["--trace-expand", "--trace-format=json-v1", "--trace-redirect=" + bld + "/trace.json"]
    cmd += ["-DTorch_DIR=" + torch_dir] if torch_dir else []
    with open(bld + "/trace-configure.log", "w") as log:
        run(["timeout", "600"] + cmd + a.cmake_arg, stdout=log, stderr=subprocess.STDOUT)
    includes, defines = scan_report.cmake_trace_flags(bld + "/trace.json", a.checkout)
    rm_rf(bld + "/trace.json")
    return ["--include=" + d for d in includes] + ["--define=" + d for d in defines]


def cmake_projects(a):
    """The CMake projects to configure, folders relative to the checkout: each --cmake-source, or
    the checkout, or else every top-level project below it (a CMakeLists.txt with none above it,
    outside hidden folders and build*/)."""
    if a.cmake_source:
        for s in a.cmake_source:
            if not os.path.isfile(a.checkout + "/" + s + "/CMakeLists.txt"):
                die("--cmake-source '%s' has no CMakeLists.txt under %s" % (s, a.checkout))
        return list(a.cmake_source)
    if os.path.isfile(a.checkout + "/CMakeLists.txt"):
        return ["."]
    found = []
    for d, subdirs, names in os.walk(a.checkout):
        top = d == a.checkout
        subdirs[:] = [s for s in subdirs if not s.startswith(".") and not (top and s.startswith("build"))]
        if "CMakeLists.txt" in names:
            found.append(os.path.relpath(os.path.join(d, "CMakeLists.txt"), a.checkout))
    projects = []
    for f in collated(found):
        d = up = dirname(f)
        while True:
            up = dirname(up)
            if up == ".":
                projects.append(d)
                break
            if os.path.isfile(a.checkout + "/" + up + "/CMakeLists.txt"):
                break
    return projects


def written_since(root, marker, skip):
    """The first 20 paths below ROOT, ROOT included, modified after MARKER, in the order of
    find ROOT -newer MARKER; those below the folder SKIP left out."""
    since = os.stat(marker).st_mtime_ns
    written, todo = [], [iter([root])]
    while todo and len(written) < 20:
        path = next(todo[-1], None)
        if path is None:
            todo.pop()
            continue
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if st.st_mtime_ns > since and not (skip and fnmatch.fnmatchcase(path, skip + "/*")):
            written.append(path)
        if stat.S_ISDIR(st.st_mode):
            try:
                todo.append(iter([path + "/" + n for n in os.listdir(path)]))
            except OSError:
                pass
    return written


def compilation_database(a):
    """OUTDIR/db/compile_commands.json, the first that applies: --compile-db's, --build-dir's,
    generated from flags (--generate-db), or CMake's, configured into --build-dir or
    OUTDIR/cmake-build. Returns where it comes from, for the report, and the notices for it."""
    db = a.outdir + "/db/compile_commands.json"
    notices = []
    if a.compile_db:
        path = a.compile_db + "/compile_commands.json" if os.path.isdir(a.compile_db) else a.compile_db
        if not os.path.isfile(path):
            die("no compilation database at '%s'" % path)
        shutil.copy(path, db)
        return "given: " + resolved(path), notices
    if a.build_dir and os.path.isfile(a.build_dir + "/compile_commands.json"):
        shutil.copy(a.build_dir + "/compile_commands.json", db)
        return "given: %s/compile_commands.json" % a.build_dir, notices
    if a.generate_db:
        if gendb(a, db, "."):
            die("could not generate a compilation database for %s" % a.checkout)
        return "generated from flags (--generate-db)", notices
    marker = a.outdir + "/db/.configure-start"
    open(marker, "w").close()
    time.sleep(1)
    build_dir = ""
    if a.build_dir:
        os.makedirs(a.build_dir, exist_ok=True)
        build_dir = os.path.realpath(a.build_dir)
        if not configure(a, a.checkout, build_dir):
            die("CMake could not configure %s into %s (see %s/configure.log); pass --generate-db to generate the "
                "database from flags" % (a.checkout, build_dir, build_dir))
        shutil.copy(build_dir + "/compile_commands.json", db)
        origin = "CMake, configured into " + build_dir
        cudafix(a, db)
    else:
        projects = cmake_projects(a)
        if not projects:
            die("%s has no CMakeLists.txt and no --compile-db was given; pass --generate-db to generate the "
                "database from flags" % a.checkout)
        parts, n_cmake, n_gen = [], 0, 0
        for i, p in enumerate(projects, 1):
            bld = "%s/cmake-build/%d-%s" % (a.outdir, i, p.replace("/", "_"))
            rm_rf(bld)
            if configure(a, a.checkout + "/" + p, bld):
                parts.append(bld + "/compile_commands.json")
                n_cmake += 1
                continue
            # What the configure step set before it failed (an optional subfolder that is an empty
            # submodule, say): its include folders and macros, read from CMake's own trace.
            known = traced_flags(a, a.checkout + "/" + p, bld + "/traced")
            notices.append("CMake could not configure `%s` (log: `%s/configure.log`): its sources got a database "
                           "generated from flags, with the %d include folder(s) and macro(s) that CMake had set "
                           "before it failed" % (p, bld[len(a.outdir) + 1:], len(known)))
            print("scan-project: CMake could not configure %s (see %s/configure.log); generating its database from "
                  "flags, with the %d include folder(s) and macro(s) it had set" % (p, bld, len(known)),
                  file=sys.stderr)
            if gendb(a, bld + "/generated.json", p, known) == 0:
                parts.append(bld + "/generated.json")
                n_gen += 1
            else:
                notices.append("no database for `%s`" % p)
        if not parts:
            die("no compilation database could be configured or generated for %s" % a.checkout)
        rc = helper(["merge", "--out=" + db] + parts)
        if rc:
            sys.exit(rc)
        cudafix(a, db)
        origin = "CMake (%d project(s) configured under %s/cmake-build)" % (n_cmake, a.outdir)
        if n_gen:
            origin += "; generated from flags for %d project(s) that did not configure" % n_gen
    written = written_since(a.checkout, marker, build_dir)
    if written:
        notices.append("CMake's configure step wrote into the checkout: " + "".join(w + " " for w in written))
        print("scan-project: warning: CMake's configure step wrote into the checkout:\n" + "\n".join(written),
              file=sys.stderr)
    return origin, notices


# --------------------------------------------------------------------------- the scan

def git_head(checkout):
    """The checkout's git HEAD, or '' outside a git work tree."""
    if output(["git", "-C", checkout, "rev-parse", "--git-dir"]) is None:
        return ""
    try:
        return subprocess.run(["git", "-C", checkout, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, errors="replace").stdout.rstrip("\n")
    except OSError:
        return ""


def main(argv=None):
    """scan-project.sh ARGV: 0 when every translation unit was analysed, 1 when some failed (the
    report written all the same), 2 on a usage error."""
    try:
        locale.setlocale(locale.LC_COLLATE, "")
    except locale.Error:
        pass
    p = parser()
    a = p.parse_args(p.canonical(sys.argv[1:] if argv is None else argv))
    checked(a)
    try:
        os.makedirs(a.outdir, exist_ok=True)
    except OSError as e:
        die("cannot create OUTDIR '%s' (%s)" % (a.outdir, e.strerror))
    a.outdir = os.path.realpath(a.outdir)
    if (a.outdir + "/").startswith(a.checkout + "/"):
        die("OUTDIR '%s' is inside the checkout; choose a folder outside it" % a.outdir)
    for x in ("db", "logs", "facts", "report.md", "report.json"):
        rm_rf(a.outdir + "/" + x)
    os.makedirs(a.outdir + "/db")
    a.notices_file = a.outdir + "/db/notices.txt"

    tool_cmd = checker(a)
    extension_includes(a)
    origin, notices = compilation_database(a)
    if os.path.isfile(a.notices_file):
        with open(a.notices_file, errors="surrogateescape") as fh:
            notices += [s for s in fh.read().split("\n")[:-1] if s]
    revision = a.revision or git_head(a.checkout)

    scan = ["scan", "--root=" + a.checkout, "--db=" + a.outdir + "/db/compile_commands.json", "--db-origin=" + origin,
            "--out=" + a.outdir, "--tool=" + tool_cmd, "--checks=" + a.checks, "--jobs=" + a.jobs,
            "--nice=" + a.nice, "--timeout=" + a.timeout, "--filter=" + a.filter, "--label=" + a.label,
            "--revision=" + revision, "--clangxx=" + a.clangxx, "--runs=" + a.runs, "--report-missing"]
    scan += ["--check-option=" + s for s in a.check_option]
    scan += ["--extra-arg=" + s for s in a.extra_arg]
    scan += ["--exclude=" + s for s in a.exclude]
    scan += ["--notice=" + s for s in notices]
    for flag in ("compare_syntax_only", "no_project_facts", "project_facts_only", "separate_facts_pass",
                 "no_cuda_compat"):
        if getattr(a, flag):
            scan.append("--" + flag.replace("_", "-"))
    scan += ["--project-facts-file=" + a.project_facts_file] if a.project_facts_file else []
    scan += ["--shard=" + a.shard] if a.shard else []
    if a.no_pch:
        scan.append("--no-pch")
    elif a.pch_dir or a.cache_dir:
        scan.append("--pch-dir=" + (a.pch_dir or a.cache_dir + "/pch"))
    if a.no_cache:
        scan.append("--no-cache")
    else:
        home_cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~") + "/.cache"
        scan += ["--cache-dir=" + (a.cache_dir or home_cache + "/torch-sync/scan"),
                 "--cache-max-mb=" + a.cache_max_mb, "--cache-mode=" + a.cache_mode]
    return scan_report.main(scan)


if __name__ == "__main__":
    sys.exit(main())
