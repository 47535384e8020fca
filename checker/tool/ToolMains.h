//===--- ToolMains.h - the entry points of the torch-sync programs --------===//
//
// Each program's main() is one of these, so that the wheel's multi-call
// executable (MultiCallMain.cpp) can hold them all. Each takes the program's
// argc/argv as main() gets them and returns its exit status.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_TOOL_TOOLMAINS_H
#define TORCH_SYNC_TOOL_TOOLMAINS_H

namespace torch_sync {

/// clang-tidy with the torch-sync module (TidyTool.cpp).
int runTidy(int Argc, const char **Argv);

/// clangd with the torch-sync module (ClangdTool.cpp).
int runClangd(int Argc, char **Argv);

/// The make-format dependencies of every entry of a compilation database, as
/// `clang-scan-deps -compilation-database=DB -format=make` prints them
/// (ScanDepsTool.cpp); the pre-commit hook finds a header's includers with it.
int runScanDeps(int Argc, const char **Argv);

/// A clang driver for the jobs that clang runs in one process, such as
/// precompiling a header (-x c++-header ... -o F.pch) or -fsyntax-only
/// (CompilerTool.cpp); the batch tools' precompiled LibTorch headers use it
/// where no clang++ of the same release is installed.
int runCompiler(int Argc, const char **Argv);

} // namespace torch_sync

#endif // TORCH_SYNC_TOOL_TOOLMAINS_H
