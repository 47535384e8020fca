//===--- CallArguments.h - a call's argument for a named parameter --------===//
//
// The facts name the arguments whose values decide a sync by their
// parameter's name ('output_size', 'kind', 'dst'), as the declarations in
// LibTorch's and CUDA's headers spell them, which holds across the overloads
// and versions that put them at different positions.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_CALLARGUMENTS_H
#define TORCH_SYNC_CALLARGUMENTS_H

#include "llvm/ADT/StringRef.h"

namespace clang {
class CallExpr;
class Expr;
class FunctionDecl;
class ParmVarDecl;
namespace tidy::torch_sync {

/// The parameter of \p Callee named \p Name, or null.
const ParmVarDecl *namedParameter(const FunctionDecl &Callee,
                                  llvm::StringRef Name);

/// The argument \p Call passes for the parameter of \p Callee named \p Name:
/// the written one, or a CXXDefaultArgExpr when it is left out. Null when
/// the callee has no such parameter, or the call passes fewer arguments (a
/// variadic or ill-formed call).
const Expr *namedArgument(const CallExpr &Call, const FunctionDecl &Callee,
                          llvm::StringRef Name);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_CALLARGUMENTS_H
