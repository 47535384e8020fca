//===--- ValueWalk.h - the steps of a walk that follows a value -----------===//
//
// The small steps that the analyses following a value through a function
// body share (ReadUse, HostValueSink): a node's parent, the nodes that only
// wrap a value, the local variable an expression names and the places that
// name it, and a declaration's identifier.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_VALUEWALK_H
#define TORCH_SYNC_VALUEWALK_H

#include "clang/AST/ASTTypeTraits.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace clang {
class ASTContext;
class DeclRefExpr;
class Expr;
class NamedDecl;
class Stmt;
class VarDecl;
namespace tidy::torch_sync {

/// How many local variables a walk follows a value through, one into the
/// next ('auto n = t.item(); auto m = n + 1; ...').
constexpr unsigned MaxValueDepth = 3;

/// The identifier of \p D ("item"); "" for an operator, a nameless
/// declaration or null.
llvm::StringRef identifierOf(const NamedDecl *D);

/// The parent of \p Node, the first where a template shares it; an empty
/// node at the top.
DynTypedNode parentOf(const DynTypedNode &Node, ASTContext &Context);

/// Whether \p Parent only wraps its child's value: an implicit conversion,
/// parentheses, a temporary, a cast, a default argument.
bool wrapsValue(const Stmt *Parent);

/// The DeclRefExprs of \p Var in \p Body.
llvm::SmallVector<const DeclRefExpr *, 8>
referencesTo(const VarDecl &Var, const Stmt &Body, ASTContext &Context);

/// The local variable (not a parameter) that \p E names, through implicit
/// nodes and parentheses; null for anything else.
const VarDecl *localVariable(const Expr *E);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_VALUEWALK_H
