//===--- BooleanMaskCheck.cpp - torch-sync-boolean-mask -------------------===//

#include "checks/BooleanMaskCheck.h"
#include "libtorch/TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CallId = "call";
} // namespace

BooleanMaskCheck::BooleanMaskCheck(StringRef Name, ClangTidyContext *Context)
    : SyncCheckBase(Name, Context),
      ReportUnknownDtype(Options.get("ReportUnknownDtype", false)) {}

void BooleanMaskCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  SyncCheckBase::storeOptions(Opts);
  Options.store(Opts, "ReportUnknownDtype", ReportUnknownDtype);
}

void BooleanMaskCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The census-measured overloads classified under this check.
  registerMeasuredSyncMatchers(Finder, SyncCategory::BooleanMask);
  // The C++ indexing API (Tensor::index and Tensor::index_put_ with a list of
  // TensorIndex: isTensorIndexListMethod) and masked_select.
  Finder->addMatcher(
      callExpr(callee(functionDecl(
                   anyOf(tensorMethod({"index", "index_put_", "masked_select"}),
                         hasName("::at::masked_select")))))
          .bind(CallId),
      this);
}

void BooleanMaskCheck::checkSync(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  ASTContext &Context = *Result.Context;
  if (!Callee || !isReportablePlace(*Call, Context))
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::BooleanMask, *Callee);
  if (!Fact)
    return;
  // Whether an index is a mask, and whether the mask's count is read on the
  // host in this LibTorch version (CallSync.h).
  SyncRules Rules = syncRules();
  Rules.UnknownDtypeIsMask = ReportUnknownDtype;
  std::optional<CallSync> Sync =
      callSync(*Call, *Fact, devices(Context), Context, Rules);
  if (!Sync || !isReportableDevice(Sync->Device))
    return;
  reportSync(*Call, Sync->Name, Fact->Effect, Advice::of(*Fact), Context);
}

} // namespace clang::tidy::torch_sync
