//===--- PluginVersionGuard.cpp - refuse a mismatched clang-tidy ----------===//
//
// The plugin is built against one LLVM release and shares clang-tidy's C++ ABI,
// which changes between releases. Loaded into another release it would crash in
// the first check it constructs. This static initializer runs when clang-tidy
// loads the plugin (-load), asks the host process for its LLVM version through
// the stable C API, and stops with a clear message when the majors differ.
//
//===----------------------------------------------------------------------===//

#include "llvm-c/Core.h"
#include <cstdio>
#include <cstdlib>

#ifndef TORCH_SYNC_LLVM_VERSION_MAJOR
#error "TORCH_SYNC_LLVM_VERSION_MAJOR must be defined by the build"
#endif

namespace {

struct PluginVersionGuard {
  PluginVersionGuard() {
    unsigned Major = 0, Minor = 0, Patch = 0;
    LLVMGetVersion(&Major, &Minor, &Patch);
    if (Major == TORCH_SYNC_LLVM_VERSION_MAJOR)
      return;
    std::fprintf(stderr,
                 "error: the torch-sync plugin was built for clang-tidy %d but "
                 "was loaded into clang-tidy %u.%u.%u; rebuild it against LLVM "
                 "%u (see the README) or use torch-sync-tidy\n",
                 TORCH_SYNC_LLVM_VERSION_MAJOR, Major, Minor, Patch, Major);
    std::fflush(stderr);
    std::_Exit(2);
  }
};

const PluginVersionGuard Guard;

} // namespace
