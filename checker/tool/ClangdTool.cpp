//===--- ClangdTool.cpp - torch-sync-clangd -------------------------------===//
//
// torch-sync-clangd is clangd with the torch-sync clang-tidy module linked in:
// it takes clangd's flags and runs the torch-sync-* checks that a .clangd file
// enables (Diagnostics: ClangTidy: Add: [torch-sync-*]). clangd runs only the
// checks in its table of timed fast checks unless the configuration sets
// Diagnostics: ClangTidy: FastCheckFilter: Loose (or None); the torch-sync
// checks are not in that table (docs/editors.md). The module registers itself
// through ClangTidyModuleRegistry when its object files are linked in, as in
// torch-sync-tidy.
//
//===----------------------------------------------------------------------===//

#include "tool/ToolMains.h"

// clangd's ClangdMain.h is not installed with its libraries; this is its one
// declaration (the same in LLVM 19 and 22).
namespace clang {
namespace clangd {
int clangdMain(int argc, char *argv[]);
} // namespace clangd
} // namespace clang

int torch_sync::runClangd(int Argc, char **Argv) {
  return clang::clangd::clangdMain(Argc, Argv);
}
