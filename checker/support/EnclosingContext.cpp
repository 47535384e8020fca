//===--- EnclosingContext.cpp - where a statement runs in its function ----===//

#include "support/EnclosingContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"

namespace clang::tidy::torch_sync {

namespace {

/// Whether \p Condition is the literal 0 or false of 'do { ... } while (0)'.
bool isFalseLiteral(const Expr *Condition) {
  if (!Condition)
    return false;
  Condition = Condition->IgnoreParenImpCasts();
  if (const auto *Integer = dyn_cast<IntegerLiteral>(Condition))
    return Integer->getValue().isZero();
  if (const auto *Bool = dyn_cast<CXXBoolLiteralExpr>(Condition))
    return !Bool->getValue();
  return false;
}

/// Whether \p Child, a child of \p Loop, runs on each of its iterations.
/// std::nullopt when \p Loop is no loop.
std::optional<bool> runsPerIteration(const Stmt &Loop,
                                     const DynTypedNode &Child) {
  const auto *ChildStmt = Child.get<Stmt>();
  if (const auto *For = dyn_cast<ForStmt>(&Loop))
    return ChildStmt && ChildStmt != For->getInit();
  if (const auto *RangeFor = dyn_cast<CXXForRangeStmt>(&Loop))
    return ChildStmt && ChildStmt == RangeFor->getBody();
  if (isa<WhileStmt>(Loop))
    return true;
  if (const auto *Do = dyn_cast<DoStmt>(&Loop))
    return !isFalseLiteral(Do->getCond());
  return std::nullopt;
}

/// Whether \p Method is 'value_or' of std::optional or c10::optional.
bool isOptionalValueOr(const CXXMethodDecl *Method) {
  if (!Method || !Method->getIdentifier() || Method->getName() != "value_or")
    return false;
  const CXXRecordDecl *Optional = Method->getParent();
  if (!Optional->getIdentifier() || Optional->getName() != "optional")
    return false;
  if (Optional->isInStdNamespace())
    return true;
  const auto *Namespace = dyn_cast<NamespaceDecl>(Optional->getDeclContext());
  return Namespace && Namespace->getIdentifier() &&
         Namespace->getName() == "c10" &&
         Namespace->getParent()->isTranslationUnit();
}

} // namespace

const Expr *optionalWithDefaultFrom(const Expr &E, ASTContext &Context) {
  const Expr *Optional = nullptr;
  forEachAncestor(DynTypedNode::create(E), Context,
                  [&](const DynTypedNode &Parent, const DynTypedNode &Child) {
                    // Only the expression that holds the call: a statement,
                    // a declaration or a lambda ends the walk.
                    const auto *ParentExpr = Parent.get<Expr>();
                    if (!ParentExpr || isa<LambdaExpr>(ParentExpr))
                      return true;
                    const auto *Call = dyn_cast<CXXMemberCallExpr>(ParentExpr);
                    if (!Call || !isOptionalValueOr(Call->getMethodDecl()))
                      return false;
                    // The default argument, not the receiver.
                    if (Call->getNumArgs() == 1 &&
                        Child.get<Stmt>() == Call->getArg(0))
                      Optional = Call->getImplicitObjectArgument();
                    return true;
                  });
  return Optional;
}

const FunctionDecl *enclosingFunction(const Stmt &S, ASTContext &Context) {
  const FunctionDecl *Found = nullptr;
  forEachAncestor(DynTypedNode::create(S), Context,
                  [&](const DynTypedNode &Parent, const DynTypedNode &) {
                    if (const auto *Lambda = Parent.get<LambdaExpr>()) {
                      Found = Lambda->getCallOperator();
                      return true;
                    }
                    if (const auto *Function = Parent.get<FunctionDecl>()) {
                      Found = Function;
                      return true;
                    }
                    // A global's or a member's initializer is in no function.
                    return Parent.get<Decl>() != nullptr &&
                           !Parent.get<VarDecl>();
                  });
  return Found;
}

const Stmt *perIterationLoop(const Stmt &S, ASTContext &Context) {
  const Stmt *Found = nullptr;
  forEachAncestor(DynTypedNode::create(S), Context,
                  [&](const DynTypedNode &Parent, const DynTypedNode &Child) {
                    // A function or lambda boundary: its loops are not ours.
                    if (Parent.get<LambdaExpr>() ||
                        Parent.get<FunctionDecl>() || Parent.get<BlockExpr>())
                      return true;
                    if (const auto *Loop = Parent.get<Stmt>())
                      if (std::optional<bool> PerIteration =
                              runsPerIteration(*Loop, Child))
                        if (*PerIteration) {
                          Found = Loop;
                          return true;
                        }
                    return false;
                  });
  return Found;
}

bool runsOnEveryLoopIteration(const Stmt &S, ASTContext &Context) {
  return perIterationLoop(S, Context) != nullptr;
}

} // namespace clang::tidy::torch_sync
