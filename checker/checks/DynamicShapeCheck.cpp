//===--- DynamicShapeCheck.cpp - torch-sync-dynamic-shape -----------------===//

#include "checks/DynamicShapeCheck.h"
#include "libtorch/TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

void DynamicShapeCheck::registerSyncMatchers(MatchFinder *Finder) {
  Finder->addMatcher(cxxMemberCallExpr(callee(tensorMethod(methodNames(
                                           SyncCategory::DynamicShape))))
                         .bind(CallId),
                     this);
  Finder->addMatcher(callExpr(callee(functionDecl(hasAnyName(
                                  functionNames(SyncCategory::DynamicShape)))))
                         .bind(CallId),
                     this);
}

} // namespace clang::tidy::torch_sync
