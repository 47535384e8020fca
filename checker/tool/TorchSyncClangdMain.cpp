//===--- TorchSyncClangdMain.cpp - torch-sync-clangd ----------------------===//
//
// The main() of torch-sync-clangd: clangd with the torch-sync module
// (ClangdTool.cpp).
//
//===----------------------------------------------------------------------===//

#include "tool/ToolMains.h"

int main(int argc, char *argv[]) { return torch_sync::runClangd(argc, argv); }
