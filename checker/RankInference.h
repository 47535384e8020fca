//===--- RankInference.h - tensors known to have zero dimensions -----------===//
//
// A small rank inference for the one question the checks ask about shapes:
// is a tensor a 0-dim (scalar) tensor? LibTorch's C++ indexing API reads a
// 0-dim integer or bool index with 'item()' (aten/src/ATen/TensorIndexing.h,
// applySlicing), so 'x.index({t0})' synchronizes when 't0' lives on the device.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_RANKINFERENCE_H
#define TORCH_SYNC_RANKINFERENCE_H

#include "llvm/ADT/SmallVector.h"

namespace clang {
class Expr;
namespace tidy::torch_sync {

class DeviceInference;

/// Whether the tensor expression \p E is provably a 0-dim tensor: a reduction
/// over all elements ('sum()', 'argmax()', 'max()', 'count_nonzero()', ...),
/// 'torch::tensor(<a single number>)', 'scalar_tensor', a factory with an
/// empty size ('zeros({})'), an element-wise op or conversion of 0-dim
/// tensors and host numbers, or a local variable whose only value is one of
/// these. False when unknown. Comparisons are not followed: a 0-dim bool
/// index is a mask, which torch-sync-boolean-mask reports.
bool isZeroDimTensor(const Expr *E, DeviceInference &Devices);

/// The tensors among the elements of a braced TensorIndex list written at a
/// call ('{t0, Slice()}' gives 't0'); empty when the indices are not written
/// as a list there.
llvm::SmallVector<const Expr *, 4> tensorIndexElements(const Expr *Indices);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_RANKINFERENCE_H
