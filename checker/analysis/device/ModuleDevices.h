//===--- ModuleDevices.h - the devices of torch::nn modules ---------------===//
//
// The device of the parameters and buffers of a torch::nn module that the
// function itself makes: one of LibTorch's leaf modules (LibTorchApi.h,
// isLibraryLeafModule) constructed there without a tensor or module argument
// creates them on the CPU, and keeps them there when every use of its holder
// keeps or names their device (forward, printing, reading parameters, an
// optimizer over them, 'm->to(device)'). The result of such a module's
// forward combines the module's device with its tensor arguments'.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_MODULEDEVICES_H
#define TORCH_SYNC_MODULEDEVICES_H

#include "analysis/device/ReachingWrites.h"
#include "libtorch/DeviceLattice.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include <memory>

namespace clang {
class ASTContext;
class CXXRecordDecl;
class DeclRefExpr;
class FunctionDecl;
class Stmt;
class Expr;
class VarDecl;
namespace tidy::torch_sync {

class DeviceQueries;

/// The devices of the modules of one translation unit, cached per holder
/// variable. \p Devices gives the devices of forward's arguments and of the
/// targets of 'm->to(...)'; \p Depth is the inference's recursion depth.
class ModuleDevices {
public:
  ModuleDevices(ASTContext &Context, DeviceQueries &Devices)
      : Context(Context), Devices(Devices) {}

  /// The device of the parameters and buffers of the module that the
  /// torch::nn::ModuleHolder \p Holder (a local variable, or a temporary
  /// built there) holds: CPU when it is one of LibTorch's leaf modules,
  /// constructed there without a tensor or module argument, and every use
  /// in its function is one that keeps or names its device.
  DeviceKind moduleDevice(const Expr *Holder, unsigned Depth);

  /// moduleDevice of the holder variable \p Var (a local variable
  /// initialized by a construction); Unknown for parameters, references and
  /// globals.
  DeviceKind moduleVariableDevice(const VarDecl &Var, unsigned Depth);

  /// moduleVariableDevice of \p Var read at \p Use: where the holder is
  /// given another module or loaded ('m = Net()', 'torch::load(m, path)'),
  /// the join of the writes that reach \p Use (its construction, moves,
  /// assignments; a load is Unknown), along the function's CFG.
  DeviceKind moduleVariableDevice(const VarDecl &Var, const DeclRefExpr *Use,
                                  unsigned Depth);

  /// The device of the result of the library module \p Holder's forward on
  /// the arguments \p Args: combineInputs of the module's device and the
  /// tensor arguments'; Unknown when \p Holder holds no library leaf module.
  DeviceKind moduleForwardDevice(const Expr *Holder,
                                 llvm::ArrayRef<const Expr *> Args,
                                 unsigned Depth);

private:
  /// CPU when the project facts hold fact \p Fact (ProjectModules.h) of
  /// the project module \p Module, and say CPU; Unknown otherwise.
  DeviceKind projectModuleFact(const CXXRecordDecl &Module,
                               llvm::StringRef Fact);

  ASTContext &Context;
  DeviceQueries &Devices;
  llvm::DenseMap<const VarDecl *, DeviceKind> ModuleCache;
  /// The writes of a holder variable that is given another module or
  /// loaded, and the device each leaves the module on.
  struct VariableWrites {
    llvm::SmallVector<const Stmt *, 4> Statements;
    llvm::DenseMap<const Stmt *, DeviceKind> Devices;
  };
  llvm::DenseMap<const VarDecl *, VariableWrites> Replaced;
  /// The CFG of each function that a flow query asked.
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<ReachingWrites>> Flows;
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_MODULEDEVICES_H
