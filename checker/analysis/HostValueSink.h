//===--- HostValueSink.h - where a value read on the host ends up ---------===//
//
// A value that a sync reads from the device ('item()', a copy to the host, a
// device-to-host 'cudaMemcpy') is better passed in when it sizes something,
// and better reduced on the device when the host adds it up. This file follows
// such a value up through conversions, arithmetic, size lists and local
// variables to where it ends (ReadUse picks the advice from it).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_HOSTVALUESINK_H
#define TORCH_SYNC_HOSTVALUESINK_H

namespace clang {
class ASTContext;
class Expr;
class Stmt;
namespace tidy::torch_sync {

/// Where a host value ends up, in increasing order of what the advice makes
/// of it.
enum class HostValueSink {
  /// Nowhere this file tells.
  None,
  /// A value that the host folds it into, on the right of a compound
  /// assignment other than '-=' and '/=' ('total += v', 'flags |= v').
  Accumulate,
  /// A size: a tensor factory's or shape method's size, 'resize' or
  /// 'reserve', a 'std::vector', an allocation ('malloc', 'cudaMalloc',
  /// 'new[]'), a copy's or fill's byte count, a slice's, 'narrow''s or a
  /// loop's bound, a kernel launch's configuration.
  Size
};

/// Where the host value \p Value, an expression in \p Body, ends up: the
/// furthest sink of its uses, followed through conversions, arithmetic, size
/// lists, 'std::max' and the like, and up to MaxValueDepth local variables
/// initialised or assigned with it.
HostValueSink hostValueSink(const Expr &Value, const Stmt &Body,
                            ASTContext &Context);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_HOSTVALUESINK_H
