//===--- DynamicShapeCheck.cpp - torch-sync-dynamic-shape -----------------===//

#include "checks/DynamicShapeCheck.h"
#include "libtorch/TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CallId = "call";
} // namespace

void DynamicShapeCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The census-measured overloads classified under this check.
  registerMeasuredSyncMatchers(Finder, SyncCategory::DynamicShape);
  Finder->addMatcher(cxxMemberCallExpr(callee(tensorMethod(methodNames(
                                           SyncCategory::DynamicShape))))
                         .bind(CallId),
                     this);
  Finder->addMatcher(callExpr(callee(functionDecl(hasAnyName(
                                  functionNames(SyncCategory::DynamicShape)))))
                         .bind(CallId),
                     this);
}

void DynamicShapeCheck::checkSync(const MatchFinder::MatchResult &Result) {
  ASTContext &Context = *Result.Context;
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->getIdentifier())
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::DynamicShape, *Callee);
  if (!Fact || !isReportablePlace(*Call, Context))
    return;
  // Whether the arguments leave the output size to the data, and the device
  // of the tensor whose values decide it (CallSync.h).
  std::optional<CallSync> Sync =
      callSync(*Call, *Fact, devices(Context), Context, syncRules());
  if (!Sync || !isReportableDevice(Sync->Device))
    return;
  reportSync(*Call, Sync->Name, Fact->Effect, Advice::of(*Fact), Context);
}

} // namespace clang::tidy::torch_sync
