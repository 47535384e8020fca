//===--- MultiCallMain.cpp - the wheel's one executable -------------------===//
//
// The wheel ships one executable, torch_sync/bin/torch-sync, that is each of
// the torch-sync programs, chosen by the name it is run as (argv[0], which
// the wheel's console scripts set when they exec it: torch_sync/_binaries.py):
// torch-sync-clangd, torch-sync-scan-deps, torch-sync-clang, and otherwise
// torch-sync-tidy. One executable instead of two halves the wheel: the
// programs share nearly all of Clang.
//
//===----------------------------------------------------------------------===//

#include "tool/ToolMains.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

int main(int argc, char *argv[]) {
  llvm::StringRef Name = llvm::sys::path::filename(argv[0]);
  const char **ConstArgv = const_cast<const char **>(argv);
  if (Name == "torch-sync-clangd")
    return torch_sync::runClangd(argc, argv);
  if (Name == "torch-sync-scan-deps")
    return torch_sync::runScanDeps(argc, ConstArgv);
  if (Name == "torch-sync-clang")
    return torch_sync::runCompiler(argc, ConstArgv);
  return torch_sync::runTidy(argc, ConstArgv);
}
