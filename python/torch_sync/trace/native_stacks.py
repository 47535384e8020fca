"""The user's frame and source line of a native call stack (the backtraces of an Nsight Systems export).

Takes: a CallStack: its frames innermost first, each a Frame (the symbol as the profiler resolved it, the
module's path, the instruction pointer in the process, and whether the symbol is unresolved), and where it
came from ("cuda-backtrace": the CUDA call's own, "osrt-backtrace": an OS runtime call's inside it).
Returns:
  - user_frame(stack): the innermost frame outside the CUDA runtime and driver (their modules, and the
    cuda*/cu*/__cudart* functions of a statically linked runtime), the system and compiler libraries,
    PyTorch's libraries, Python and the profiler, or None;
  - Symbolizer.line(stack): the SourceLine of that frame: "path:line" from the module's debug
    information where the module is on this machine (addr2line, after the load address is found from the
    symbols of the stack's frames in that module: nm), else only the function (and its module).
The profiler's backtraces name functions and modules, not lines: a line needs the binary, with -g.
"""

import collections
import os
import re
import shutil
import subprocess

from .source_lines import SourceLine

Frame = collections.namedtuple("Frame", "symbol module ip unresolved")
CallStack = collections.namedtuple("CallStack", "frames source")

# Module file names (no folder) of code that is not the user's: the CUDA libraries, the C and C++ runtime, the
# dynamic loader, PyTorch's libraries, Python and the profiler's own; "[...]" pseudo-modules ("[Unknown]",
# "[vdso]", "[kernel.kallsyms]").
LIBRARY_MODULE = re.compile(
    r"^(\[.*\]$|ld-linux|ld64|linux-vdso|lib(cuda|cudart|cupti|nvrtc|nvJitLink|nvToolsExt|nvtx|nvidia|nvdxgdmal|"
    r"dxcore|cublas|cudnn|cufft|curand|cusolver|cusparse|nccl|nvshmem|torch|c10|shm|caffe2|gomp|iomp|omp|tbb|"
    r"stdc\+\+|c\+\+|gcc_s|c\.so|c-|m\.so|m-|dl\.|dl-|rt\.|rt-|pthread|ToolsInjection|python)|python)")
# Library folders, whatever the file's name (a wheel's bundled libraries, the profiler's installation).
LIBRARY_FOLDER = re.compile(r"(site-packages|dist-packages)/(torch|nvidia|triton)/|/nsight-systems[^/]*/|"
                            r"/cuda[^/]*/(lib|targets)")
# The CUDA runtime and driver API and the static runtime's internals ("cudaError cudaHostAlloc<float>(...)", a
# cuda_runtime.h template, begins with its return type).
CUDA_API_SYMBOL = re.compile(r"^(?:[\w:]+\s+)?(?:cuda[A-Z_]|cu[A-Z]|__cudart|__cuda)")
# Header paths that are not the user's line when a frame's inlined locations are listed (addr2line -i).
LIBRARY_HEADER = re.compile(r"^/usr/(include|lib)/|/include/(c10|ATen|torch|cuda|thrust|cub|cuda/std)/|"
                            r"(site-packages|dist-packages)/")
PAGE = 0x1000


def is_library_frame(frame):
    """Whether a frame is in code that is not the user's (see LIBRARY_MODULE, CUDA_API_SYMBOL)."""
    module = frame.module or ""
    if LIBRARY_MODULE.match(os.path.basename(module)) or LIBRARY_FOLDER.search(module):
        return True
    return bool(frame.symbol) and not frame.unresolved and bool(CUDA_API_SYMBOL.match(frame.symbol))


def user_frame(stack):
    """(index, frame) of the innermost user frame of a CallStack, or None."""
    for index, frame in enumerate(stack.frames):
        if not frame.module and frame.unresolved:
            continue
        if not is_library_frame(frame):
            return index, frame
    return None


class Symbolizer:
    """Turns user frames into SourceLines, with nm and addr2line, caching per module and address."""

    def __init__(self):
        self.tools = {"nm": tool("nm"), "addr2line": tool("addr2line")}
        self.symbols = {}     # module -> {symbol: [(address, size)]} or None
        self.elf_types = {}   # module -> "exec" / "dyn" / None
        self.lines = {}       # (module, address) -> (location, function) or None
        self.problems = collections.Counter()

    def line(self, stack):
        """The SourceLine of the stack's user frame, or None when it has none."""
        found = user_frame(stack)
        if found is None:
            return None
        index, frame = found
        resolved = self.resolve(stack, index, frame)
        if resolved is not None:
            return SourceLine(resolved[0], resolved[1] or frame.symbol, stack.source, None)
        name = frame.symbol if frame.symbol and not frame.unresolved else "?"
        return SourceLine(None, "%s (%s)" % (name, os.path.basename(frame.module or "?")), stack.source, None)

    def resolve(self, stack, index, frame):
        """(location, function) of a frame from the module's debug information, or None."""
        if frame.ip is None or not frame.module:
            return None
        if not os.path.isfile(frame.module):
            self.problems["module not on this machine"] += 1
            return None
        if not self.tools["addr2line"]:
            self.problems["addr2line not found"] += 1
            return None
        base = self.load_address(stack, frame.module)
        if base is None:
            return None
        address = frame.ip - base - (1 if index > 0 else 0)   # a caller's ip is its return address
        key = (frame.module, address)
        if key not in self.lines:
            self.lines[key] = addr2line(self.tools["addr2line"], frame.module, address)
            if self.lines[key] is None:
                self.problems["no debug information (build with -g)"] += 1
        return self.lines[key]

    def load_address(self, stack, module):
        """Where the module was loaded: 0 for an executable that is not position independent; else the one
        page-aligned address that puts every resolved frame of the stack in that module inside its symbol
        (nm's address and size), or None."""
        kind = self.elf_types.setdefault(module, elf_type(module))
        if kind == "exec":
            return 0
        if kind != "dyn":
            self.problems["not an ELF file"] += 1
            return None
        symbols = self.module_symbols(module)
        low, high = None, None
        for index, frame in enumerate(stack.frames):
            if frame.module != module or frame.unresolved or frame.ip is None or frame.symbol not in (symbols or {}):
                continue
            ip = frame.ip - (1 if index > 0 else 0)
            ranges = [(ip - address - size + 1, ip - address) for address, size in symbols[frame.symbol]]
            frame_low, frame_high = min(r[0] for r in ranges), max(r[1] for r in ranges)
            low = frame_low if low is None else max(low, frame_low)
            high = frame_high if high is None else min(high, frame_high)
        if low is None:
            self.problems["load address unknown (no frame's symbol in the module's symbol table)"] += 1
            return None
        first = -(-low // PAGE) * PAGE
        if first > high or first + PAGE <= high:
            self.problems["load address unknown (ambiguous)"] += 1
            return None
        return first

    def module_symbols(self, module):
        """{demangled symbol: [(address, size)]} of a module's defined functions (nm), or None."""
        if module not in self.symbols:
            self.symbols[module] = nm_symbols(self.tools["nm"], module) if self.tools["nm"] else None
        return self.symbols[module]


def tool(name):
    """The path of a binutils program, or of LLVM's equivalent, or None."""
    for candidate in (name, "llvm-" + name):
        found = shutil.which(candidate)
        if found:
            return found
    return None


def elf_type(path):
    """ "exec" or "dyn" (ELF e_type 2 or 3), or None for another file."""
    try:
        with open(path, "rb") as f:
            header = f.read(18)
    except OSError:
        return None
    if len(header) < 18 or header[:4] != b"\x7fELF":
        return None
    e_type = int.from_bytes(header[16:18], "little" if header[5] == 1 else "big")
    return {2: "exec", 3: "dyn"}.get(e_type)


NM_LINE = re.compile(r"^([0-9a-fA-F]+) ([0-9a-fA-F]+) [tTwW] (.+)$")


def nm_symbols(nm, module):
    """The defined functions of a module with their sizes, by demangled name."""
    try:
        output = subprocess.run([nm, "-C", "-S", "--defined-only", module], capture_output=True, text=True,
                                errors="replace", timeout=120).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    symbols = collections.defaultdict(list)
    for text in output.splitlines():
        match = NM_LINE.match(text)
        if match and int(match.group(2), 16):
            symbols[match.group(3)].append((int(match.group(1), 16), int(match.group(2), 16)))
    return symbols


def addr2line(program, module, address):
    """(location "path:line", function) of an address of a module, the user's innermost inlined location
    (library headers skipped), or None without debug information."""
    try:
        output = subprocess.run([program, "-C", "-f", "-i", "-e", module, "0x%x" % address], capture_output=True,
                                text=True, errors="replace", timeout=60).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return None
    entries = []
    for function, place in zip(output[0::2], output[1::2]):
        place = re.sub(r" \(discriminator \d+\)$", "", place.strip())
        path, _, line = place.rpartition(":")
        if path and path != "??" and line.isdigit() and line != "0":
            entries.append(("%s:%s" % (path, line), function.strip()))
    if not entries:
        return None
    for location, function in entries:
        if not LIBRARY_HEADER.search(location):
            return location, function
    return entries[-1]
