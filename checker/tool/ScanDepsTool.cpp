//===--- ScanDepsTool.cpp - torch-sync-scan-deps --------------------------===//
//
// The subset of clang-scan-deps that the pre-commit hook uses to find the
// sources that include a changed header: every entry of a compilation
// database scanned with its own flags by Clang's dependency scanner, printed
// as make rules ("OBJ: SOURCE DEP..."). It lets the wheel check headers where
// no clang-scan-deps of the same release is installed.
//
// Usage: torch-sync-scan-deps -compilation-database=FILE [-format=make]
// Exit status: 0 when every entry was scanned, 1 when one was not (its
// errors on stderr, the other entries' rules printed), 2 on bad arguments or
// an unreadable database.
//
//===----------------------------------------------------------------------===//

#include "tool/ToolMains.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/DependencyScanning/DependencyScanningService.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Options/OptionUtils.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/DependencyScanningTool.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <string>
#include <vector>

using namespace clang;

namespace {

/// Whether COMMAND names a resource directory (-resource-dir DIR or
/// -resource-dir=DIR).
bool hasResourceDir(const std::vector<std::string> &Command) {
  for (const std::string &Arg : Command)
    if (llvm::StringRef(Arg).starts_with("-resource-dir"))
      return true;
  return false;
}

} // namespace

int torch_sync::runScanDeps(int Argc, const char **Argv) {
  const char *Name = "torch-sync-scan-deps";
  std::string DatabasePath;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef Arg = Argv[I];
    if (Arg.consume_front("-compilation-database=")) {
      DatabasePath = Arg.str();
    } else if (Arg != "-format=make") {
      llvm::errs() << Name << ": error: unknown argument '" << Arg
                   << "'; this is the subset of clang-scan-deps that "
                      "torch-sync uses: -compilation-database=FILE "
                      "[-format=make]\n";
      return 2;
    }
  }
  if (DatabasePath.empty()) {
    llvm::errs() << Name << ": error: no -compilation-database=FILE\n";
    return 2;
  }
  std::string Error;
  std::unique_ptr<tooling::JSONCompilationDatabase> Database =
      tooling::JSONCompilationDatabase::loadFromFile(
          DatabasePath, Error, tooling::JSONCommandLineSyntax::AutoDetect);
  if (!Database) {
    llvm::errs() << Name << ": error: " << Error << "\n";
    return 2;
  }

  // The compile commands name the project's compiler, whose resource
  // directory is not clang's: Clang's built-in headers are those beside this
  // executable, as for torch-sync-tidy.
  std::string ResourceDir = GetResourcesPath(
      Argv[0], reinterpret_cast<void *>(&torch_sync::runScanDeps));
  dependencies::DependencyScanningService Service(
      dependencies::ScanningMode::DependencyDirectivesScan,
      dependencies::ScanningOutputFormat::Make);
  tooling::DependencyScanningTool Tool(Service);
  DiagnosticOptions DiagOpts;
  TextDiagnosticPrinter Printer(llvm::errs(), DiagOpts);

  int Status = 0;
  for (const tooling::CompileCommand &Command :
       Database->getAllCompileCommands()) {
    std::vector<std::string> CommandLine = Command.CommandLine;
    if (!CommandLine.empty() && !hasResourceDir(CommandLine))
      CommandLine.insert(CommandLine.begin() + 1,
                         "-resource-dir=" + ResourceDir);
    std::optional<std::string> Rules =
        Tool.getDependencyFile(CommandLine, Command.Directory, Printer);
    if (!Rules) {
      llvm::errs() << Name << ": error: cannot scan '" << Command.Filename
                   << "' (above)\n";
      Status = 1;
      continue;
    }
    llvm::outs() << *Rules;
  }
  return Status;
}
