// See stack_trace.h.
#include "stack_trace.h"

#include "prefixes.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

namespace torch_sync::runtime {
namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Shared objects by the start of their file name.
constexpr std::string_view kLibTorchModules[] = {"libtorch", "libc10", "libshm", "libcaffe2", "libkineto"};
constexpr std::string_view kCudaModules[] = {
    "libcuda.",     "libcudart", "libcupti",  "libcublas",   "libcudnn",    "libnccl",       "libnvrtc",
    "libnvJitLink", "libcufft",  "libcurand", "libcusparse", "libcusolver", "libnvToolsExt", "libnvidia-"};
constexpr std::string_view kSystemModules[] = {"libc.so",  "libc-",      "libstdc++", "libgcc_s", "ld-linux",
                                               "libm.so",  "libpthread", "libdl.",    "libgomp",  "libgtest",
                                               "libgmock", "libasan",    "libubsan"};
constexpr std::string_view kTorchSyncModules[] = {"libtorch_sync"};

// Source paths of LibTorch's inline headers and of the C++ standard library. Checked on the path as
// addr2line prints it, so that inline code compiled into the user's program is not the user's.
constexpr std::string_view kLibTorchPaths[] = {"/ATen/", "/c10/", "/torch/csrc/", "/torch/include/",
                                               "/caffe2/"};
constexpr std::string_view kSystemPaths[] = {"/usr/include/", "/include/c++/", "/bits/",      "/gtest/",
                                             "/gmock/",       "/googletest/",  "/googlemock/"};
// The core's, the recorder's and the guard's own sources (inline code of the guard's header included).
constexpr std::string_view kTorchSyncPaths[] = {"/runtime-verify/core/", "/runtime-verify/recorder/",
                                                "/runtime-verify/guard/src/", "/torch_sync/guard",
                                                "/torch_sync/gtest"};

std::string demangle(const char *name) {
  if (!name || !*name)
    return "?";
  int status = 0;
  char *out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string result = status == 0 && out ? out : name;
  std::free(out);
  return result;
}

// Where an address lies: its module's path and load bias, and the nearest dynamic symbol.
struct ModuleAddress {
  std::string module, symbol;
  std::uintptr_t bias = 0;
};

ModuleAddress locate(std::uintptr_t address) {
  ModuleAddress result;
  Dl_info info{};
  link_map *map = nullptr;
  if (!dladdr1(reinterpret_cast<void *>(address), &info, reinterpret_cast<void **>(&map), RTLD_DL_LINKMAP))
    return result;
  result.symbol = demangle(info.dli_sname);
  if (map) {
    result.bias = map->l_addr;
    // The main program's link_map has an empty name.
    result.module = map->l_name && *map->l_name ? map->l_name : executablePath();
  } else if (info.dli_fname) {
    result.module = info.dli_fname;
    result.bias = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  }
  return result;
}

// Quotes s for the shell.
std::string shellQuoted(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs addr2line over offsets of module; returns each offset's inline chain, innermost first.
std::map<std::uintptr_t, std::vector<Frame>> runAddr2line(const std::string &module,
                                                          const std::set<std::uintptr_t> &offsets) {
  std::map<std::uintptr_t, std::vector<Frame>> result;
  char listPath[] = "/tmp/torch_sync_addresses_XXXXXX";
  int fd = mkstemp(listPath);
  if (fd < 0)
    return result;
  if (FILE *list = fdopen(fd, "w")) {
    for (std::uintptr_t offset : offsets)
      std::fprintf(list, "0x%lx\n", static_cast<unsigned long>(offset));
    std::fclose(list);
  } else {
    close(fd);
  }
  const char *tool = std::getenv("TORCH_SYNC_ADDR2LINE");
  std::string command = std::string(tool && *tool ? tool : "addr2line") + " -a -C -f -i -e " +
                        shellQuoted(module) + " < " + listPath + " 2>/dev/null";
  if (FILE *pipe = popen(command.c_str(), "r")) {
    std::vector<std::string> lines;
    char buffer[8192];
    while (std::fgets(buffer, sizeof(buffer), pipe)) {
      std::string line = buffer;
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
        line.pop_back();
      lines.push_back(line);
    }
    pclose(pipe);
    std::uintptr_t current = 0;
    bool haveAddress = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (startsWith(lines[i], "0x")) {
        current = std::strtoul(lines[i].c_str(), nullptr, 16);
        haveAddress = true;
        continue;
      }
      if (!haveAddress || i + 1 >= lines.size())
        continue;
      Frame frame;
      frame.module = module;
      frame.function = lines[i];
      std::string where = lines[++i];
      if (size_t space = where.find(" ("); space != std::string::npos) // " (discriminator N)"
        where.resize(space);
      if (size_t colon = where.rfind(':'); colon != std::string::npos) {
        frame.file = where.substr(0, colon);
        frame.line = std::atoi(where.c_str() + colon + 1);
      }
      if (frame.file == "??")
        frame.file.clear();
      else if (!frame.file.empty())
        frame.file = realPath(frame.file);
      result[current].push_back(frame);
    }
  }
  unlink(listPath);
  return result;
}

} // namespace

std::string_view baseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string realPath(const std::string &path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) ? std::string(buffer) : path;
}

std::string executablePath() {
  char buffer[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string();
}

std::uint64_t hashFrames(const StackTrace &stack, int from) {
  std::uint64_t hash = 1469598103934665603ull; // FNV-1a over the return addresses
  for (int i = from < 0 ? 0 : from; i < stack.size; ++i) {
    hash ^= stack.frames[i];
    hash *= 1099511628211ull;
  }
  return hash;
}

StackTrace captureStack(int skip) {
  StackTrace stack;
  void *frames[StackTrace::kMaxFrames];
  int n = backtrace(frames, StackTrace::kMaxFrames);
  for (int i = skip + 1; i < n; ++i) // + 1: captureStack itself
    stack.frames[stack.size++] = reinterpret_cast<std::uintptr_t>(frames[i]);
  return stack;
}

void warmUpStackCapture() {
  void *frames[4];
  backtrace(frames, 4);
}

FrameOrigin classifyFrame(const Frame &frame) {
  std::string_view module = baseName(frame.module);
  std::string_view function = frame.function;
  std::string_view file = frame.file;
  if (startsWithAny(module, kTorchSyncModules) || startsWith(function, "torch_sync::runtime::") ||
      startsWith(function, "torch_sync::recorder::") || startsWith(function, "torch_sync::guard_detail::"))
    return FrameOrigin::TorchSync;
  for (std::string_view path : kTorchSyncPaths)
    if (contains(file, path))
      return FrameOrigin::TorchSync;
  if (startsWithAny(module, kCudaModules))
    return FrameOrigin::Cuda;
  if (startsWithAny(module, kLibTorchModules))
    return FrameOrigin::LibTorch;
  if (startsWithAny(module, kSystemModules))
    return FrameOrigin::System;
  for (std::string_view path : kLibTorchPaths)
    if (contains(file, path))
      return FrameOrigin::LibTorch;
  for (std::string_view path : kSystemPaths)
    if (contains(file, path))
      return FrameOrigin::System;
  // Without line information, inline code of the C++ runtime and GoogleTest is known by its name.
  if (file.empty() &&
      (startsWith(function, "std::") || startsWith(function, "testing::") ||
       startsWith(function, "void testing::") || startsWith(function, "__libc_") || function == "_start"))
    return FrameOrigin::System;
  return FrameOrigin::User;
}

bool isSymbolizedModule(std::string_view path) {
  std::string_view module = baseName(path);
  return !module.empty() && !startsWithAny(module, kLibTorchModules) &&
         !startsWithAny(module, kCudaModules) && !startsWithAny(module, kSystemModules) &&
         !startsWith(module, "linux-vdso");
}

std::vector<std::vector<Frame>> symbolize(const std::vector<StackTrace> &stacks) {
  std::map<std::uintptr_t, ModuleAddress> located;
  std::map<std::string, std::set<std::uintptr_t>> offsetsByModule;
  for (const StackTrace &stack : stacks)
    for (int i = 0; i < stack.size; ++i) {
      std::uintptr_t address = stack.frames[i];
      if (located.count(address))
        continue;
      ModuleAddress &where = located[address] = locate(address);
      if (isSymbolizedModule(where.module))
        offsetsByModule[where.module].insert(address - 1 - where.bias); // - 1: the call, not the next one
    }
  std::map<std::string, std::map<std::uintptr_t, std::vector<Frame>>> lines;
  for (const auto &[module, offsets] : offsetsByModule)
    lines[module] = runAddr2line(module, offsets);

  std::vector<std::vector<Frame>> result;
  result.reserve(stacks.size());
  for (const StackTrace &stack : stacks) {
    std::vector<Frame> frames;
    for (int i = 0; i < stack.size; ++i) {
      std::uintptr_t address = stack.frames[i];
      const ModuleAddress &where = located[address];
      auto module = lines.find(where.module);
      if (module != lines.end()) {
        auto chain = module->second.find(address - 1 - where.bias);
        if (chain != module->second.end() && !chain->second.empty()) {
          for (Frame frame : chain->second) {
            frame.address = address;
            if (frame.function == "??")
              frame.function = where.symbol;
            frames.push_back(std::move(frame));
          }
          continue;
        }
      }
      Frame frame;
      frame.address = address;
      frame.module = where.module;
      frame.function = where.symbol.empty() ? "?" : where.symbol;
      frames.push_back(std::move(frame));
    }
    result.push_back(std::move(frames));
  }
  return result;
}

int firstUserFrame(const std::vector<Frame> &frames) {
  for (size_t i = 0; i < frames.size(); ++i)
    if (classifyFrame(frames[i]) == FrameOrigin::User)
      return static_cast<int>(i);
  return -1;
}

std::string outermostAtenOperator(const std::vector<Frame> &frames) {
  std::string result;
  for (const Frame &frame : frames) {
    std::string_view function = frame.function;
    size_t ops = function.find("at::_ops::");
    if (ops == std::string_view::npos)
      continue;
    std::string_view rest = function.substr(ops + std::strlen("at::_ops::"));
    size_t end = rest.find("::");
    if (end == std::string_view::npos)
      continue;
    std::string_view member = rest.substr(end + 2);
    if (startsWith(member, "call(") || startsWith(member, "redispatch(") || member == "call" ||
        member == "redispatch")
      result = "aten::" + std::string(rest.substr(0, end)); // outer frames come later: keep the last
  }
  return result;
}

std::string libTorchEntry(const std::vector<Frame> &frames, int user) {
  if (user <= 0)
    return {};
  const Frame &inner = frames[static_cast<size_t>(user) - 1];
  return classifyFrame(inner) == FrameOrigin::LibTorch ? inner.function : std::string();
}

std::string readableFunction(const std::string &name) {
  constexpr std::string_view handlerPrefix = "std::_Function_handler<";
  constexpr std::string_view invokeSuffix = ">::_M_invoke(std::_Any_data const&)";
  std::string_view view = name;
  if (!startsWith(view, handlerPrefix) || view.size() < handlerPrefix.size() + invokeSuffix.size() ||
      view.substr(view.size() - invokeSuffix.size()) != invokeSuffix)
    return name;
  std::string_view arguments =
      view.substr(handlerPrefix.size(), view.size() - handlerPrefix.size() - invokeSuffix.size());
  // "<signature>, <callable>": the signature's own parentheses hold no top-level comma.
  int depth = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    char c = arguments[i];
    if (c == '(' || c == '<')
      ++depth;
    else if (c == ')' || c == '>')
      --depth;
    else if (c == ',' && depth == 0)
      return std::string(arguments.substr(i + 1 + (i + 1 < arguments.size() && arguments[i + 1] == ' ')));
  }
  return name;
}

std::string describeLocation(const Frame &frame, const std::string &root) {
  if (!frame.file.empty()) {
    std::string file = frame.file;
    if (!root.empty() && startsWith(file, root + "/"))
      file = file.substr(root.size() + 1);
    return file + ":" + std::to_string(frame.line);
  }
  return std::string(baseName(frame.module)) + " (" + frame.function + ")";
}

} // namespace torch_sync::runtime
