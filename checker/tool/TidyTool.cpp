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
// Two: every compile command gets -ferror-limit=0 before its own arguments
// (as --extra-arg-before would put it). clang's driver stops a unit after 20
// errors by default, and after that fatal error no template is instantiated
// any more: errors in a library header (one that does not compile with this
// clang, say) would silently drop findings in the user's own code. Put first,
// the flag loses to any -ferror-limit in the compile command or given with
// --extra-arg or --extra-arg-before, so a user's own limit still wins. The
// plugin (-load into a stock clang-tidy) cannot change its host's command
// lines: there, give --extra-arg-before=-ferror-limit=0 (the batch tools do).
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
#include <vector>

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

/// The argument that lifts clang's error limit in every compile command,
/// placed before the command's own arguments so that theirs win.
constexpr const char *NoErrorLimit = "--extra-arg-before=-ferror-limit=0";

/// \p Argv with NoErrorLimit inserted after the program name, before every
/// argument of the user (so that a --extra-arg-before=-ferror-limit=N of
/// theirs comes later and wins).
std::vector<const char *> withNoErrorLimit(int Argc, const char **Argv) {
  std::vector<const char *> Args(Argv, Argv + Argc);
  Args.insert(Args.begin() + (Argc > 0 ? 1 : 0), NoErrorLimit);
  return Args;
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
  std::vector<const char *> Args = withNoErrorLimit(Argc, Argv);
  return clang::tidy::clangTidyMain(static_cast<int>(Args.size()), Args.data());
}
