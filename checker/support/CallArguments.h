//===--- CallArguments.h - a call's argument for a named parameter --------===//
//
// An argument found by its parameter's name ('output_size', 'kind', 'dst'),
// as a declaration spells it: the name holds across the overloads and
// versions of a library that put the parameter at different positions.
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
/// the callee has no such parameter, or the call has fewer arguments (code
/// with errors). \p Call must number its arguments as \p Callee its
/// parameters: not a member operator call (a CXXOperatorCallExpr counts the
/// object as argument 0).
const Expr *namedArgument(const CallExpr &Call, const FunctionDecl &Callee,
                          llvm::StringRef Name);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_CALLARGUMENTS_H
