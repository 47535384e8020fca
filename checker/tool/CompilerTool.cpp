//===--- CompilerTool.cpp - torch-sync-clang ------------------------------===//
//
// A clang driver for the compiles that run in one clang -cc1 process and
// generate no code: precompiling a header (-x c++-header H -o F.pch, or
// -Xclang -emit-pch), -fsyntax-only, preprocessing (-E, and -M for the
// dependency list). The batch tools
// precompile LibTorch's headers with the clang++ of torch-sync-tidy's release
// (torch_sync/torch_pch.py); in the wheel, where no clang++ is installed, this
// is that compiler: the same Clang libraries as torch-sync-tidy, so that the
// precompiled header it writes is one torch-sync-tidy can read.
//
// Usage: torch-sync-clang [clang driver options] FILE
//        torch-sync-clang --version
// Exit status: 0 on success, 1 when the compile failed or needs something
// else (code generation, linking), with clang's diagnostics on stderr.
//
//===----------------------------------------------------------------------===//

#include "tool/ToolMains.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/FrontendOptions.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <string>
#include <vector>

using namespace clang;

namespace {

/// The frontend action of the -cc1 job's options, among those that need no
/// code generation (which the wheel does not link), or nullptr.
std::unique_ptr<FrontendAction> frontendAction(frontend::ActionKind Kind) {
  switch (Kind) {
  case frontend::GeneratePCH:
    return std::make_unique<GeneratePCHAction>();
  case frontend::ParseSyntaxOnly:
    return std::make_unique<SyntaxOnlyAction>();
  case frontend::PrintPreprocessedInput:
    return std::make_unique<PrintPreprocessedAction>();
  case frontend::RunPreprocessorOnly: // -M: the dependency list alone
    return std::make_unique<PreprocessOnlyAction>();
  default:
    return nullptr;
  }
}

/// Runs the -cc1 job that the driver made of the command line, as clang's own
/// -cc1 does for the actions frontendAction() knows.
class CompileAction : public tooling::ToolAction {
public:
  bool runInvocation(std::shared_ptr<CompilerInvocation> Invocation,
                     FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> PCHContainerOps,
                     DiagnosticConsumer *DiagConsumer) override {
    std::unique_ptr<FrontendAction> Action =
        frontendAction(Invocation->getFrontendOpts().ProgramAction);
    if (!Action) {
      llvm::errs() << "torch-sync-clang: error: only precompiling a header, "
                      "-fsyntax-only, -E and -M are supported (no code "
                      "generation)\n";
      return false;
    }
    CompilerInstance Compiler(std::move(Invocation),
                              std::move(PCHContainerOps));
    Compiler.setFileManager(llvm::IntrusiveRefCntPtr<FileManager>(Files));
    Compiler.createDiagnostics(DiagConsumer, /*ShouldOwnClient=*/false);
    Compiler.createSourceManager();
    return Compiler.ExecuteAction(*Action);
  }
};

} // namespace

int torch_sync::runCompiler(int Argc, const char **Argv) {
  if (Argc == 2 && llvm::StringRef(Argv[1]) == "--version") {
    llvm::outs() << getClangFullVersion() << "\n";
    return 0;
  }
  // The driver finds Clang's built-in headers from the program's path, so the
  // command line starts with this executable's real path.
  std::vector<std::string> CommandLine = {llvm::sys::fs::getMainExecutable(
      Argv[0], reinterpret_cast<void *>(&torch_sync::runCompiler))};
  CommandLine.insert(CommandLine.end(), Argv + 1, Argv + Argc);
  CompileAction Action;
  llvm::IntrusiveRefCntPtr<FileManager> Files(
      new FileManager(FileSystemOptions(), llvm::vfs::getRealFileSystem()));
  tooling::ToolInvocation Invocation(
      std::move(CommandLine), &Action, Files.get(),
      std::make_shared<PCHContainerOperations>());
  return Invocation.run() ? 0 : 1;
}
