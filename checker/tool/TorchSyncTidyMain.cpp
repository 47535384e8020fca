//===--- TorchSyncTidyMain.cpp - torch-sync-tidy ---------------------------===//
//
// torch-sync-tidy is clang-tidy with the torch-sync module linked in: it takes
// clang-tidy's flags, runs all of clang-tidy's own checks and the torch-sync-*
// checks. The module registers itself through ClangTidyModuleRegistry when its
// object file is linked in.
//
//===----------------------------------------------------------------------===//

#include "clang-tidy/tool/ClangTidyMain.h"

int main(int argc, const char **argv) {
  return clang::tidy::clangTidyMain(argc, argv);
}
