//===--- CcclNamespaces.h - Thrust and CUB however they are namespaced ----===//
//
// CCCL's Thrust and CUB live in the top-level namespaces 'thrust' and 'cub'
// unless a project wraps them: with THRUST_CUB_WRAPPED_NAMESPACE=dgl (or the
// older THRUST_NS_PREFIX / CUB_NS_PREFIX pair) their headers open
// 'namespace dgl { namespace thrust {' and 'namespace dgl { namespace cub {'
// (CUB_NAMESPACE_BEGIN and THRUST_NAMESPACE_BEGIN), so that two copies of the
// libraries can coexist in one program. libcu++ lives in 'cuda::std'. The
// checks name Thrust's algorithms by their unwrapped names ("::thrust::reduce")
// and must recognise them, and keep out of their bodies, under any wrapper.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_CCCLNAMESPACES_H
#define TORCH_SYNC_CCCLNAMESPACES_H

#include "clang/AST/Decl.h"
#include <string>

namespace clang::tidy::torch_sync {

/// The namespace 'thrust' or 'cub' of CCCL that \p D is declared in, or null.
/// It is the outermost namespace of that name around \p D whose enclosing
/// contexts are all namespaces (a wrapper such as 'dgl', or none). A
/// top-level one is CCCL's by its name alone; a wrapped one only where \p D
/// is declared in a system header (the checks mark Thrust's and CUB's headers
/// as such when they are included with -I, by their ThirdPartyHeaderRegex),
/// so that a project's own 'mylib::thrust' helpers are not taken for them.
const NamespaceDecl *ccclNamespaceOf(const Decl &D);

/// Whether \p D is declared in libcu++'s standard library, 'cuda::std'.
bool isInLibcudacxxStd(const Decl &D);

/// The qualified name of \p D without the namespaces wrapped around CCCL's
/// 'thrust' or 'cub' ("thrust::reduce" for 'dgl::thrust::reduce'), or its
/// plain qualified name outside them. Inline (ABI) namespaces are left out,
/// as getQualifiedNameAsString leaves them out.
std::string unwrappedQualifiedName(const NamedDecl &D);

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_CCCLNAMESPACES_H
