//===--- BooleanMaskCheck.cpp - torch-sync-boolean-mask -------------------===//

#include "checks/BooleanMaskCheck.h"
#include "libtorch/TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

BooleanMaskCheck::BooleanMaskCheck(StringRef Name, ClangTidyContext *Context)
    : SyncCheckBase(Name, Context, SyncCategory::BooleanMask),
      ReportUnknownDtype(Options.get("ReportUnknownDtype", false)) {}

void BooleanMaskCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  SyncCheckBase::storeOptions(Opts);
  Options.store(Opts, "ReportUnknownDtype", ReportUnknownDtype);
}

void BooleanMaskCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The C++ indexing API (Tensor::index and Tensor::index_put_ with a list of
  // TensorIndex: isTensorIndexListMethod) and masked_select.
  Finder->addMatcher(
      callExpr(callee(functionDecl(
                   anyOf(tensorMethod({"index", "index_put_", "masked_select"}),
                         hasName("::at::masked_select")))))
          .bind(CallId),
      this);
}

// Whether an index is a mask, and whether the mask's count is read on the
// host in this LibTorch version (CallSync.h).
SyncRules BooleanMaskCheck::callRules() const {
  SyncRules Rules = syncRules();
  Rules.UnknownDtypeIsMask = ReportUnknownDtype;
  return Rules;
}

} // namespace clang::tidy::torch_sync
