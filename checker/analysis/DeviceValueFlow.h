//===--- DeviceValueFlow.h - host values read from the device -------------===//
//
// Where a value read from the device with 'item()' goes. A read whose value
// sizes, slices or indexes a tensor (a dynamic shape) is reported once, by
// torch-sync-device-index, with that explanation; torch-sync-item then leaves
// it alone.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_DEVICEVALUEFLOW_H
#define TORCH_SYNC_DEVICEVALUEFLOW_H

#include "llvm/ADT/DenseMap.h"

namespace clang {
class ASTContext;
class Expr;
class Stmt;
namespace tidy::torch_sync {

/// What a read value does to a tensor's shape.
enum class ShapeUse {
  Size,  ///< sizes an output: a factory size, 'view', 'reshape', 'expand'...
  Index, ///< indexes or bounds it: a Slice, a TensorIndex, 'narrow', 'select'
};

/// The 'item()' calls in \p Body whose value becomes a slice bound
/// (at::indexing::Slice), an integer index (a TensorIndex), an argument of a
/// shape-taking Tensor method ('narrow', 'slice', 'select', 'view',
/// 'reshape', 'expand', 'repeat', 'topk', ...) or a size of an ATen factory
/// ('zeros', 'empty', 'arange', ...): directly, through arithmetic, through
/// 'toLong()'-style conversions, or through a local variable initialized with
/// it; each with its use (Size when any use sizes an output).
llvm::DenseMap<const Expr *, ShapeUse> findShapeReads(const Stmt &Body,
                                                      ASTContext &Context);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_DEVICEVALUEFLOW_H
