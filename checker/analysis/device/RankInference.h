//===--- RankInference.h - tensors known to have zero dimensions, or more -===//
//
// A small rank inference for the two questions the checks ask about shapes.
// Is a tensor a 0-dim (scalar) tensor? LibTorch's C++ indexing API reads a
// 0-dim integer or bool index with 'item()' (aten/src/ATen/TensorIndexing.h,
// applySlicing), so 'x.index({t0})' synchronizes when 't0' lives on the device.
// Does a tensor have at least one dimension? An element-wise operation accepts
// a CPU operand next to CUDA ones only when it is 0-dim
// (aten/src/ATen/TensorIterator.cpp), so a CPU operand of rank >= 1 puts the
// whole operation on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_RANKINFERENCE_H
#define TORCH_SYNC_RANKINFERENCE_H

#include "llvm/ADT/SmallVector.h"

namespace clang {
class Expr;
namespace tidy::torch_sync {

class DeviceQueries;

/// Whether the tensor expression \p E is provably a 0-dim tensor: a reduction
/// over all elements ('sum()', 'argmax()', 'max()', 'count_nonzero()', ...),
/// 'torch::tensor(<a single number>)', 'scalar_tensor', a factory with an
/// empty size ('zeros({})'), an element-wise op or conversion of 0-dim
/// tensors and host numbers, or a local variable whose only value is one of
/// these. False when unknown. Comparisons are not followed: a 0-dim bool
/// index is a mask, which torch-sync-boolean-mask reports.
bool isZeroDimTensor(const Expr *E, DeviceQueries &Devices);

/// Whether the tensor expression \p E provably has at least one dimension: a
/// factory with a non-empty size ('randn({10, 3})', 'randint(0, 10, {4})',
/// 'ones(5)'), 'arange', 'linspace', 'randperm', 'eye', 'torch::tensor' of a
/// braced list or a vector, 'stack' and 'cat', 'view'/'reshape' to a
/// non-empty size, 'unsqueeze' and 'flatten', the data or target of a
/// stacked batch of torch::data, a shape-keeping method or an element-wise
/// operation with such an operand, or a local variable whose only value is
/// one of these. False when unknown.
bool isPositiveRankTensor(const Expr *E, DeviceQueries &Devices);

/// The tensors among the elements of a braced TensorIndex list written at a
/// call ('{t0, Slice()}' gives 't0'); empty when the indices are not written
/// as a list there.
llvm::SmallVector<const Expr *, 4> tensorIndexElements(const Expr *Indices);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_RANKINFERENCE_H
