//===--- HostDereference.h - tensors whose data the host reads or writes --===//
//
// Evidence that a tensor is on the CPU: code that reads or writes its
// elements through a host pointer ('t.data_ptr<float>()[i]', '*p' for
// 'float *p = t.data_ptr<float>()', 'a[i][j]' for 'auto a =
// t.accessor<float, 2>()') only works on a CPU tensor (on a CUDA tensor it
// reads device memory from the host and crashes). A function that does so,
// outside device code, without ever asking the tensor's device, takes it to be
// on the CPU. 'packed_accessor' is left out: it is made to be passed to a
// kernel.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_HOSTDEREFERENCE_H
#define TORCH_SYNC_HOSTDEREFERENCE_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace clang {
class ASTContext;
class FunctionDecl;
class VarDecl;
namespace tidy::torch_sync {

/// The variables whose elements each function dereferences on the host,
/// computed once per function; lives as long as the ASTContext.
class HostDereferences {
public:
  explicit HostDereferences(ASTContext &Context) : Context(Context) {}

  /// Whether the body of \p Function (lambdas written in it included, but not
  /// those marked __device__) dereferences a pointer or accessor to the
  /// elements of the tensor variable \p Var (data_ptr<T>(), data<T>(),
  /// mutable_data_ptr<T>(), const_data_ptr<T>(), accessor<T, N>()): a
  /// subscript or '*' of the call, or of a local pointer or accessor
  /// initialized from it; and never asks Var's device (is_cuda(), is_cpu(),
  /// device(), get_device(), options(), ...), which would let the
  /// dereference sit in the branch for CPU tensors only.
  bool dereferencesOnHost(const VarDecl &Var, const FunctionDecl &Function);

private:
  struct Found {
    llvm::DenseSet<const VarDecl *> Dereferenced;
    llvm::DenseSet<const VarDecl *> DeviceAsked;
  };
  const Found &find(const FunctionDecl &Function);

  ASTContext &Context;
  llvm::DenseMap<const FunctionDecl *, Found> Cache;
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_HOSTDEREFERENCE_H
