//===--- StaticLinkShims.cpp - definitions for the static link ------------===//
//
// Linked into torch-sync-tidy and torch-sync-clangd only when they are linked
// against LLVM's static archives (TORCH_SYNC_STATIC_LLVM, StaticLLVM.cmake).
// Each function here is defined the way LLVM defines it in a build without the
// optional library behind it, so that the linker takes this definition and
// never pulls in the archive member that needs the library:
//
// - llvm::CreateZ3Solver: Debian builds LLVM with Z3, which only the static
//   analyzer's optional cross-check (-analyzer-config crosscheck-with-z3)
//   uses. As in llvm/lib/Support/Z3Solver.cpp without LLVM_WITH_Z3, asking
//   for it is a fatal error; the SMT classes' dump() methods, which that file
//   also defines, print as they do there.
// - clang::clangd::remote::getClient: Debian builds clangd with its remote
//   index, which needs gRPC. As in clangd's index/remote/unimplemented/
//   UnimplementedClient.cpp, there is no remote index (an editor config that
//   names one gets a log line and the local index).
//
//
// And one for the C library: libstdc++'s std::random_device, linked in
// statically, calls arc4random, which glibc has only from 2.36 on. Defined
// here from getrandom(2) (glibc 2.25), the tools need nothing newer than
// glibc 2.34, the manylinux_2_34 tag (Ubuntu 22.04, RHEL 9, Debian 12).
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/SMTAPI.h"
#include "llvm/Support/raw_ostream.h"
#include <cerrno>
#include <cstdint>
#include <memory>
#include <sys/random.h>

/// Returns 32 random bits from the kernel's generator, as glibc's arc4random.
extern "C" uint32_t arc4random(void) {
  uint32_t Value = 0;
  // getrandom blocks only until the kernel's pool is first seeded; a signal
  // interrupts it with EINTR (retried).
  while (getrandom(&Value, sizeof Value, 0) !=
         static_cast<ssize_t>(sizeof Value)) {
    if (errno != EINTR)
      llvm::report_fatal_error("getrandom failed");
  }
  return Value;
}

namespace llvm {
void SMTSort::dump() const { print(llvm::errs()); }
void SMTExpr::dump() const { print(llvm::errs()); }
void SMTSolver::dump() const { print(llvm::errs()); }
void SMTSolverStatistics::dump() const { print(llvm::errs()); }

/// Never returns: this build has no Z3 (see the file comment).
SMTSolverRef CreateZ3Solver() {
  llvm::report_fatal_error(
      "torch-sync was linked without Z3: the static analyzer's "
      "crosscheck-with-z3 option is not available");
}
} // namespace llvm

namespace clang {
namespace clangd {
class SymbolIndex;
namespace remote {

/// Returns nullptr: this build has no remote index (see the file comment).
std::unique_ptr<clangd::SymbolIndex> getClient(llvm::StringRef Address,
                                               llvm::StringRef IndexRoot) {
  return nullptr;
}

} // namespace remote
} // namespace clangd
} // namespace clang
