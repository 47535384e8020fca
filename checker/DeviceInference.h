//===--- DeviceInference.h - where does a tensor live? ---------------------===//
//
// A small, function-local inference of the device a LibTorch tensor lives on.
// A host-device synchronization needs a CUDA tensor, so the checks stay silent
// on tensors that are provably on the CPU: made by a factory without a device,
// by '.cpu()' or '.to(at::kCPU)', by 'from_blob' without a device, or computed
// only from such tensors, and held in a local variable that is never given a
// tensor from elsewhere. Everything else is Unknown, and the checks treat
// Unknown as possibly CUDA unless told otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_DEVICEINFERENCE_H
#define TORCH_SYNC_DEVICEINFERENCE_H

#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"

namespace clang {
class ASTContext;
class CXXMemberCallExpr;
class CallExpr;
class VarDecl;
namespace tidy::torch_sync {

/// What is known about a device.
enum class DeviceKind {
  Unknown,     ///< could be any device, CUDA included
  CPU,         ///< provably the host
  CUDA,        ///< provably a CUDA device
  Unspecified, ///< an expression that names no device: a dtype-only
               ///< TensorOptions, an undefined tensor; inherits from context
};

/// Whether \p T (after references, cv-qualifiers and sugar such as torch::Tensor)
/// is at::Tensor or at::TensorBase.
bool isTensorType(QualType T);

/// Function-local device inference over one translation unit's AST. Results
/// for variables are cached; the object lives as long as the ASTContext.
class DeviceInference {
public:
  explicit DeviceInference(ASTContext &Context) : Context(Context) {}

  /// The device of the tensor that the expression \p E evaluates to.
  DeviceKind tensorDevice(const Expr *E) { return tensorDevice(E, 0); }

  /// The device named by \p E, an expression of type c10::Device,
  /// c10::DeviceType, c10::TensorOptions, c10::optional<Device> or a dtype.
  /// Unspecified when it names none (a dtype, default options).
  DeviceKind targetDevice(const Expr *E) { return targetDevice(E, 0); }

  /// The device that the Tensor method call \p Call ('to', 'cuda', 'cpu',
  /// 'copy_'...) copies to, Unspecified when it keeps the receiver's device.
  DeviceKind transferTarget(const CXXMemberCallExpr &Call);

  /// The value of the 'non_blocking' argument of \p Call: true or false when it
  /// is a constant (a default argument is false), std::nullopt when it is not a
  /// constant or the callee has no such parameter.
  std::optional<bool> nonBlockingArgument(const CallExpr &Call);

  /// The device of the values a call computes from: its receiver when it is
  /// a tensor method, and every tensor argument (combineInputs).
  /// Unspecified when there is none.
  DeviceKind inputsDevice(const CallExpr &Call);

  /// The initializer of local variable \p Var when nothing else in its
  /// function assigns it or lets it change (a non-const reference, its
  /// address, set_ or swap); null otherwise, and for parameters and globals.
  const Expr *singleValue(const VarDecl &Var);

private:
  DeviceKind tensorDevice(const Expr *E, unsigned Depth);
  DeviceKind targetDevice(const Expr *E, unsigned Depth);
  DeviceKind variableDevice(const VarDecl &Var, unsigned Depth);
  DeviceKind memberCallDevice(const CXXMemberCallExpr &Call, unsigned Depth);
  DeviceKind functionCallDevice(const CallExpr &Call, unsigned Depth);
  DeviceKind transferTarget(const CXXMemberCallExpr &Call, unsigned Depth);
  /// The device of a list of tensors (at::TensorList and the like): its
  /// elements' when it is a braced list at the call, else Unknown.
  DeviceKind tensorListDevice(const Expr *E, unsigned Depth);

  ASTContext &Context;
  /// Cached variable results. A variable being analysed maps to Unspecified,
  /// so that 'x = x + 1' does not change what is known about 'x'.
  llvm::DenseMap<const VarDecl *, DeviceKind> VariableCache;
};

/// The braced list written at a call for a list parameter ('{a, b}' for an
/// at::TensorList, '{mask, Slice()}' for TensorIndex indices), through the
/// implicit ArrayRef / initializer_list construction; null for anything else.
const InitListExpr *bracedList(const Expr *E);

/// Combines the devices of the inputs of an op whose result lives where its
/// inputs live: CUDA if any input is, CPU if all are, else Unknown.
DeviceKind combineInputs(DeviceKind A, DeviceKind B);

/// Joins the devices of two values that may reach the same place (the arms of
/// '?:', the assignments to a variable): the same device, or Unknown.
DeviceKind joinAlternatives(DeviceKind A, DeviceKind B);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_DEVICEINFERENCE_H
