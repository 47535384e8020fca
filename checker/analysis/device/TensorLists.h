//===--- TensorLists.h - where the tensors of a std::vector come from -----===//
//
// The tensors that the elements of a list of tensors are: the pieces that
// 'x.chunk(2)', 'x.split(3)', 'at::unbind(x)' and the others of api list
// tensor_list_pieces cut from 'x' (on its device), the elements of a braced
// list, the tensors pushed into a local std::vector, what a function of the
// translation unit returns; and the reads of one element ('v[i]', 'v.at(i)',
// 'v.front()', 'v.back()', the variable of a range-based for over 'v').
// A local vector counts only when every use of it in its function is one
// that neither replaces it nor writes its elements: the inference then gives
// an element the device of the tensors it may be, and a list the device of
// all of them.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_TENSORLISTS_H
#define TORCH_SYNC_TENSORLISTS_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace clang {
class ASTContext;
class Expr;
class VarDecl;
namespace tidy::torch_sync {

class DeviceWrites;

/// The lists of tensors of one translation unit, their local vectors'
/// answers cached; lives as long as the ASTContext.
class TensorLists {
public:
  /// \p Writes tells whether a loop variable is written.
  TensorLists(ASTContext &Context, DeviceWrites &Writes)
      : Context(Context), Writes(Writes) {}

  /// The tensors whose device the elements of the list \p List (a
  /// std::vector, at::TensorList or braced list of tensors) each have: the
  /// receiver or first tensor argument of a call of api list
  /// tensor_list_pieces, the elements of a braced list, the initializer's
  /// and pushed tensors of a local vector (localVectorSources), the values
  /// returned by a function of the translation unit that is not LibTorch's
  /// nor virtual. Appends them to \p Sources and returns true; false when an
  /// element may come from elsewhere (a parameter, a vector written through
  /// an element, another library's function), or past \p Depth's bound.
  bool elementSources(const Expr *List, unsigned Depth,
                      llvm::SmallVectorImpl<const Expr *> &Sources);

  /// The list whose element the expression \p E reads: 'v' of 'v[i]',
  /// 'v.at(i)', 'v.front()', 'v.back()' on a std::vector of tensors; null
  /// otherwise.
  const Expr *elementList(const Expr *E) const;

  /// The range of the range-based for whose loop variable is \p Var ('v' of
  /// 'for (auto &p : v)'), when the range is a list of tensors; null
  /// otherwise.
  const Expr *loopRange(const VarDecl &Var) const;

private:
  /// The sources of the local std::vector \p Var (not a parameter nor a
  /// reference): its initializer's and those of the tensors that
  /// 'push_back' or 'emplace_back' add, when every other use of it reads
  /// its size, hands it out by copy or const reference, returns it, reads an
  /// element that is never written (DeviceWrites' writesTo) or iterates over
  /// it with a loop variable that is a copy, a const reference or never
  /// written; false otherwise.
  bool localVectorSources(const VarDecl &Var, unsigned Depth,
                          llvm::SmallVectorImpl<const Expr *> &Sources);

  ASTContext &Context;
  DeviceWrites &Writes;
  /// Cached localVectorSources answers: the sources, or none when the
  /// vector's elements are not known. A vector being analysed maps to an
  /// empty answer, so that recursion through it finds nothing new.
  llvm::DenseMap<const VarDecl *,
                 std::optional<llvm::SmallVector<const Expr *, 4>>>
      VectorCache;
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_TENSORLISTS_H
