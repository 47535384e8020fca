//===--- CallSync.h - does this call synchronize? -------------------------===//
//
// The one question every torch-sync check asks of a call: given its
// arguments (their types, their devices, the values written there) and the
// LibTorch version, does the call block the host? The facts table
// (SyncFacts.h) names the declarations that may synchronize; the argument
// conditions of each (a boolean mask among the indices, a missing
// 'output_size', a tensor 'value', the direction of a copy; for the CUDA API
// and Thrust, ExplicitWaits.h) are decided here, once. Each direct check asks
// them of the calls it reports where they are written; torch-sync-transitive
// asks them of every call in the function bodies it follows.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_CALLSYNC_H
#define TORCH_SYNC_CALLSYNC_H

#include "analysis/device/DeviceInference.h"
#include "facts/SyncFacts.h"
#include <optional>
#include <string>

namespace clang {
class ASTContext;
class CallExpr;
class CXXMemberCallExpr;
class FunctionDecl;
namespace tidy::torch_sync {

/// What the argument conditions depend on besides the call.
struct SyncRules {
  /// The LibTorch version analysed against, as major * 100 + minor
  /// (SyncCheckBase::libTorchVersion).
  unsigned LibTorchVersion = 0;
  /// Whether an index tensor of unknown dtype counts as a boolean mask
  /// (torch-sync-boolean-mask's option ReportUnknownDtype).
  bool UnknownDtypeIsMask = false;
};

/// The direction of a copy, as far as the devices of both ends are known.
enum class CopyDirection { None, DeviceToHost, HostToDevice, Unknown };

/// How a call synchronizes.
struct CallSync {
  SyncCategory Category = SyncCategory::Item;
  /// The fact that names the callee, or null for a census overload.
  const SyncFact *Fact = nullptr;
  /// The census overload the call spells, or null for a fact.
  const MeasuredSync *Measured = nullptr;
  /// The device of the data the host waits for: CUDA, Unknown, or
  /// Unspecified when the call names none (an optimizer's step); CUDA for an
  /// explicit wait, which always waits for a CUDA device. Never CPU: a call
  /// whose data is provably on the host is no sync.
  DeviceKind Device = DeviceKind::Unknown;
  /// The tensor whose device decides the wait, when there is one such that
  /// the call does not synchronize with it on the CPU and does on a CUDA
  /// device (the receiver of 'item', the mask's tensor, the 'start' of
  /// 'narrow'); null otherwise (an explicit wait, a copy to the device).
  const Expr *Data = nullptr;
  /// The direction of a tensor copy ('to', 'cuda', 'copy_'), else None.
  CopyDirection Direction = CopyDirection::None;
  /// The callee as diagnostics name it ('item', 'at::nonzero',
  /// 'cudaMemcpy' for the declared 'cudaMemcpy_ptds').
  std::string Name;
};

/// The sync of \p Call under \p Fact, a fact of the declaration it calls
/// (findSyncFact), decided from its arguments; std::nullopt when they make
/// it sync-free or put its data on the CPU.
std::optional<CallSync> callSync(const CallExpr &Call, const SyncFact &Fact,
                                 DeviceInference &Devices, ASTContext &Context,
                                 const SyncRules &Rules);

/// The sync of \p Call of the census overload \p Measured (findMeasuredSync):
/// std::nullopt when its inputs are provably on the CPU.
std::optional<CallSync> measuredCallSync(const CallExpr &Call,
                                         const MeasuredSync &Measured,
                                         DeviceInference &Devices);

/// The sync of \p Call under any fact of its callee, in the order of the
/// categories (SyncCategory), or of the census overload it spells.
std::optional<CallSync> findCallSync(const CallExpr &Call,
                                     DeviceInference &Devices,
                                     ASTContext &Context,
                                     const SyncRules &Rules);

/// Whether a fact or a census overload names \p Callee, synchronizing or
/// not with the arguments of a given call: such a call is a direct finding
/// of another check, never a call to follow. A bare-name lookup first
/// (syncDeclarationNames) keeps it cheap.
bool isSyncDeclaration(const FunctionDecl &Callee);

/// Whether the formatting call \p Call builds the message of a failure: it
/// is an argument of a function that does not return (TORCH_CHECK's
/// c10::detail::torchCheckFail) or of a throw, so that it runs only when the
/// program is failing anyway.
bool isFailureMessage(const CallExpr &Call, ASTContext &Context);

/// The name diagnostics give a callee: the bare name of a member ('item',
/// 'operator[]'), the qualified name of a free function ('at::equal').
std::string diagnosticName(const FunctionDecl &Callee);

/// Whether the Tensor method \p Method is the C++ indexing API: 'index' and
/// 'index_put_' taking a list of TensorIndex (ATen/TensorIndexing.h), not
/// the ATen-level overloads taking c10::List<optional<Tensor>>.
bool isTensorIndexListMethod(const FunctionDecl &Method);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_CALLSYNC_H
