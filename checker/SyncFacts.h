//===--- SyncFacts.h - the table of synchronizing LibTorch calls -----------===//
//
// One table of facts that every torch-sync check reads: which LibTorch
// declaration blocks the host, what it does, where PyTorch does it, and what to
// write instead. The documentation under docs/checks and the lit tests are
// checked against the same entries. Facts come from PyTorch's sources (the
// Source column) and are confirmed on a GPU by runtime-verify/.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_SYNCFACTS_H
#define TORCH_SYNC_SYNCFACTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <vector>

namespace clang {
class FunctionDecl;
namespace tidy::torch_sync {

/// The check that reports a fact.
enum class SyncCategory {
  Item,         ///< a tensor value read on the host (torch-sync-item)
  Print,        ///< a tensor formatted as text (torch-sync-print)
  DeviceToHost, ///< a blocking transfer between host and device
                ///< (torch-sync-device-to-host)
  BooleanMask,  ///< indexing with a boolean mask (torch-sync-boolean-mask)
  DynamicShape, ///< an output size read from device data
                ///< (torch-sync-dynamic-shape)
  DeviceIndex,  ///< an index, bound or size read from the device
                ///< (torch-sync-device-index)
  Explicit,     ///< an explicit wait for the device (torch-sync-explicit)
};

/// One synchronizing LibTorch call.
struct SyncFact {
  SyncCategory Category;
  /// Member function name of at::Tensor or at::TensorBase ("item"), or empty.
  llvm::StringRef Method;
  /// Fully qualified free function name ("::at::equal"), or the qualified
  /// name of a member of a class other than at::Tensor
  /// ("::c10::cuda::CUDAStream::synchronize"), or empty.
  llvm::StringRef Function;
  /// What the call does, phrased to follow the call's name in a diagnostic
  /// ("copies a tensor element to the host").
  llvm::StringRef Effect;
  /// The sync-free alternative, phrased to follow "consider ".
  llvm::StringRef Alternative;
  /// Where the synchronization happens, as a path in the pytorch/pytorch tree
  /// (for the CUDA runtime and driver APIs, the CUDA reference).
  llvm::StringRef Source;
  /// For a call that syncs only in the overload that takes a tensor for this
  /// parameter ("value" of masked_fill_): the parameter's name; the check
  /// then looks at that argument's device. Empty for the other facts.
  llvm::StringRef TensorValueParameter = "";
};

/// All facts, in table order. The storage is static.
llvm::ArrayRef<SyncFact> syncFacts();

/// Tensor method names of the facts in \p Category (for hasAnyName).
std::vector<llvm::StringRef> methodNames(SyncCategory Category);

/// Qualified free function names of the facts in \p Category.
std::vector<llvm::StringRef> functionNames(SyncCategory Category);

/// The fact in \p Category for the called declaration \p Callee (a Tensor
/// method by its name, any other function or member by its qualified name),
/// or null when there is none.
const SyncFact *findSyncFact(SyncCategory Category, const FunctionDecl &Callee);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_SYNCFACTS_H
