// The runtime core's host call stacks: capture (cheap, inside a CUPTI callback), symbolization (at report
// time, with binutils' addr2line for the modules that are worth it and the dynamic symbol table for the
// rest), and the classification that finds the user's frame: the first frame outside LibTorch, CUDA, the C++
// runtime and torch-sync itself.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace torch_sync::runtime {

// Return addresses of one host call stack, innermost first. Trivially copyable; capacity kMaxFrames.
struct StackTrace {
  static constexpr int kMaxFrames = 128;
  std::uintptr_t frames[kMaxFrames];
  int size = 0;
};

// Captures the calling thread's stack with backtrace(), leaving out the innermost skip frames (the capture's
// own callers inside the core). Safe to call from a CUPTI callback; the first call loads the unwinder, so
// call warmUpStackCapture() once at start-up rather than inside a CUDA call.
StackTrace captureStack(int skip = 0);
void warmUpStackCapture();

// A hash of stack's return addresses from index from outward: equal stacks from there hash alike.
std::uint64_t hashFrames(const StackTrace &stack, int from = 0);

// One symbolized frame: an inline function expanded by addr2line is a frame of its own.
struct Frame {
  std::uintptr_t address = 0;
  std::string module;   // the shared object's or executable's path
  std::string function; // demangled; "?" when unknown
  std::string file;     // source file (real path); empty without debug information
  int line = 0;
};

// Which library a frame belongs to.
enum class FrameOrigin {
  User,      // the program's own code
  LibTorch,  // libtorch*, libc10*, or LibTorch's inline headers (ATen/, c10/, torch/csrc/)
  Cuda,      // the CUDA runtime, driver, CUPTI and CUDA math libraries
  System,    // libc, libstdc++, the loader, OpenMP, the C++ standard headers, GoogleTest
  TorchSync, // the runtime core, the recorder and the guard
};

// Classifies frame by its module's file name, its source file and its function name. Pure; see the .cpp for
// the lists.
FrameOrigin classifyFrame(const Frame &frame);

// Whether the module at path (a shared object or the executable) is one whose frames are worth addr2line's
// time: not LibTorch, CUDA or system libraries (which carry no debug information and are large).
bool isSymbolizedModule(std::string_view path);

// Symbolizes stacks: addr2line -C -f -i once per module that isSymbolizedModule() accepts, the dynamic symbol
// table (dladdr) for the others. addr2line is TORCH_SYNC_ADDR2LINE or "addr2line"; when it cannot be run, the
// frames keep dladdr's names and no file. Returns one frame list per stack, innermost first.
std::vector<std::vector<Frame>> symbolize(const std::vector<StackTrace> &stacks);

// The index of the first User frame of frames, scanning outward from the innermost, or -1.
int firstUserFrame(const std::vector<Frame> &frames);

// The outermost ATen operator on frames, as "aten::<name>" from a frame at::_ops::<name>::call (or
// ::redispatch), or "" when none.
std::string outermostAtenOperator(const std::vector<Frame> &frames);

// The LibTorch function that the user's frame at index user called: the frame just inside it when that frame
// is LibTorch's; "" otherwise (for instance a CUDA call made by the user directly).
std::string libTorchEntry(const std::vector<Frame> &frames, int user);

// name made shorter where the C++ runtime wraps the user's code: a lambda called through std::function is
// "std::_Function_handler<void (), F>::_M_invoke(std::_Any_data const&)", shown as F.
std::string readableFunction(const std::string &name);

// The last component of path; realpath(path), or path when that fails; the running program's path
// (/proc/self/exe), or "" when it cannot be read.
std::string_view baseName(std::string_view path);
std::string realPath(const std::string &path);
std::string executablePath();

// "file:line" with file relative to root when it lies under root, or the base name of the module and the
// function when there is no line information.
std::string describeLocation(const Frame &frame, const std::string &root = {});

} // namespace torch_sync::runtime
