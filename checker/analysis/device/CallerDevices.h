//===--- CallerDevices.h - parameters' devices from their callers ---------===//
//
// What the translation unit tells about the tensors a function receives: a
// kernel registered for the CPU dispatch key with
// TORCH_LIBRARY_IMPL(ns, CPU, m) receives CPU tensors (the dispatcher picks
// it only when no tensor argument is on a device of a higher key:
// c10/core/DispatchKeySet.h), and a function private to the main file
// receives what its calls there pass. The main file is scanned once for its
// CPU kernels and 'main'; the calls are indexed once per translation unit.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_CALLERDEVICES_H
#define TORCH_SYNC_CALLERDEVICES_H

#include "libtorch/DeviceLattice.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <memory>

namespace clang {
class ASTContext;
class CallExpr;
class Expr;
class FunctionDecl;
class ParmVarDecl;
namespace tidy::torch_sync {

class DeviceQueries;

/// The function that \p Arg, a kernel argument of 'torch::Library::impl',
/// names: '&f', 'f', 'TORCH_FN(f)' (a c10::CompileTimeFunctionPointer<F, f>),
/// or a lambda's call operator; null otherwise.
const FunctionDecl *registeredKernel(const Expr *Arg);

/// Whether \p Name is the name of the function that TORCH_LIBRARY_IMPL(ns,
/// CPU, m) defines: 'TORCH_LIBRARY_IMPL_init_<ns>_CPU_<uid>'
/// (torch/library.h, _TORCH_LIBRARY_IMPL).
bool isCpuRegistrationName(llvm::StringRef Name);

/// The call-site facts of one translation unit. \p Devices gives the devices
/// of the arguments at the calls.
class CallerDevices {
public:
  /// A function's call sites in the translation unit; AddressTaken when it is
  /// also named other than as the callee of a direct call.
  struct CallSites {
    llvm::SmallVector<const CallExpr *, 4> Calls;
    bool AddressTaken = false;
  };

  CallerDevices(ASTContext &Context, DeviceQueries &Devices);
  ~CallerDevices();

  /// Whether \p Function is registered for the CPU dispatch key with
  /// TORCH_LIBRARY_IMPL(ns, CPU, m) in the main file ('m.impl("op", &f)').
  bool isCpuKernel(const FunctionDecl &Function);

  /// Whether every call of \p Function is in this translation unit: it has
  /// internal linkage, or every declaration is in the main file and that file
  /// is a program's (it defines 'main') or registers CPU kernels. Never for
  /// methods, 'main', templates' patterns and extern "C" functions.
  bool isFilePrivate(const FunctionDecl &Function);

  /// The calls of \p Function in the translation unit (outside system
  /// headers), or null when it is not private to the file or its address is
  /// taken.
  const CallSites *privateCallSites(const FunctionDecl &Function);

  /// The device that the tensor parameter \p Param receives at the calls of
  /// its function when that is private to the file: the join of the
  /// arguments (joinAlternatives); Unknown when the function is not private,
  /// has no call, or an argument is missing or still being analysed.
  DeviceKind callSiteDevice(const ParmVarDecl &Param, unsigned Depth);

private:
  /// Finds the CPU kernels and 'main' of the main file, once.
  void scanMainFile();

  ASTContext &Context;
  DeviceQueries &Devices;
  bool MainFileScanned = false;
  bool MainFileDefinesMain = false;
  llvm::DenseSet<const FunctionDecl *> CpuKernels;
  std::unique_ptr<llvm::DenseMap<const FunctionDecl *, CallSites>> CallIndex;
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_CALLERDEVICES_H
