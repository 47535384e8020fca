//===--- TidyTool.cpp - torch-sync-tidy -----------------------------------===//
//
// torch-sync-tidy is clang-tidy with the torch-sync module linked in: it takes
// clang-tidy's flags, runs all of clang-tidy's own checks and the torch-sync-*
// checks. The module registers itself through ClangTidyModuleRegistry when its
// object file is linked in.
//
// One difference: where clang-tidy, given '-p DIR' without a compilation
// database, goes on "without flags" (and analyses code it cannot parse), this
// tool stops with an error, so that a CI job does not pass on nothing.
//
//===----------------------------------------------------------------------===//

#include "clang-tidy/tool/ClangTidyMain.h"
#include "tool/ToolMains.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>

namespace {

/// The build path given with -p (as "-p DIR", "-p=DIR", "--p DIR" or
/// "--p=DIR") before any "--", or std::nullopt.
std::optional<std::string> buildPathArgument(int Argc, const char **Argv) {
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef Arg = Argv[I];
    if (Arg == "--")
      break;
    if ((Arg == "-p" || Arg == "--p") && I + 1 < Argc)
      return std::string(Argv[I + 1]);
    if (Arg.consume_front("-p=") || Arg.consume_front("--p="))
      return Arg.str();
  }
  return std::nullopt;
}

} // namespace

int torch_sync::runTidy(int Argc, const char **Argv) {
  // --version names torch-sync's release after clang-tidy's LLVM release.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "torch-sync version " << TORCH_SYNC_VERSION << "\n";
  });
  if (std::optional<std::string> BuildPath = buildPathArgument(Argc, Argv)) {
    std::string Error;
    if (!clang::tooling::CompilationDatabase::autoDetectFromDirectory(
            *BuildPath, Error)) {
      llvm::errs() << "torch-sync-tidy: error: no compilation database "
                      "(compile_commands.json) in '"
                   << *BuildPath
                   << "' or its parent directories; generate one (CMake: "
                      "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON) or give the "
                      "compiler flags after '--'\n";
      return 1;
    }
  }
  return clang::tidy::clangTidyMain(Argc, Argv);
}
