//===--- TorchSyncTidyMain.cpp - torch-sync-tidy --------------------------===//
//
// The main() of torch-sync-tidy: clang-tidy with the torch-sync module
// (TidyTool.cpp).
//
//===----------------------------------------------------------------------===//

#include "tool/ToolMains.h"

int main(int argc, const char **argv) {
  return torch_sync::runTidy(argc, argv);
}
