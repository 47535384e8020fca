//===--- ValueWalk.cpp - the steps of a walk that follows a value ---------===//

#include "support/ValueWalk.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

llvm::StringRef identifierOf(const NamedDecl *D) {
  return D && D->getIdentifier() ? D->getName() : "";
}

DynTypedNode parentOf(const DynTypedNode &Node, ASTContext &Context) {
  DynTypedNodeList Parents = Context.getParents(Node);
  return Parents.empty() ? DynTypedNode() : Parents[0];
}

bool wrapsValue(const Stmt *Parent) {
  return isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
             CXXBindTemporaryExpr, ExprWithCleanups, ExplicitCastExpr,
             CXXDefaultArgExpr>(Parent);
}

llvm::SmallVector<const DeclRefExpr *, 8>
referencesTo(const VarDecl &Var, const Stmt &Body, ASTContext &Context) {
  llvm::SmallVector<const DeclRefExpr *, 8> Refs;
  for (const BoundNodes &Nodes :
       match(findAll(declRefExpr(to(varDecl(equalsNode(&Var)))).bind("ref")),
             Body, Context))
    Refs.push_back(Nodes.getNodeAs<DeclRefExpr>("ref"));
  return Refs;
}

const VarDecl *localVariable(const Expr *E) {
  const auto *Ref =
      E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && Var->hasLocalStorage() && !isa<ParmVarDecl>(Var) ? Var
                                                                 : nullptr;
}

} // namespace clang::tidy::torch_sync
