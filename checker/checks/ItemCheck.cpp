//===--- ItemCheck.cpp - torch-sync-item ----------------------------------===//

#include "checks/ItemCheck.h"
#include "analysis/CallSync.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "libtorch/TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral UserSyncCallId = "user-sync-call";
} // namespace

ItemCheck::ItemCheck(StringRef Name, ClangTidyContext *Context)
    : SyncCheckBase(Name, Context, SyncCategory::Item),
      SyncFunctions(Options.getLocalOrGlobal("SyncFunctions", "")),
      DeviceIndexEnabled(Context->isCheckEnabled("torch-sync-device-index")) {}

void ItemCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  SyncCheckBase::storeOptions(Opts);
  Options.store(Opts, "SyncFunctions", SyncFunctions);
}

void ItemCheck::registerSyncMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      cxxMemberCallExpr(callee(tensorMethod(methodNames(SyncCategory::Item))))
          .bind(CallId),
      this);
  Finder->addMatcher(
      callExpr(
          callee(functionDecl(hasAnyName(functionNames(SyncCategory::Item)))),
          // Tensor methods are the matcher above's; other members
          // ('torch::optim::LBFGS::step') are functions of the table.
          unless(cxxMemberCallExpr(
              callee(tensorMethod(methodNames(SyncCategory::Item))))))
          .bind(CallId),
      this);
  auto UserFunctions = std::make_shared<std::vector<llvm::Regex>>(
      parseRegexList("SyncFunctions", SyncFunctions));
  if (!UserFunctions->empty())
    Finder->addMatcher(
        callExpr(callee(functionDecl(qualifiedNameMatchesAny(UserFunctions))))
            .bind(UserSyncCallId),
        this);
}

void ItemCheck::checkSync(const MatchFinder::MatchResult &Result) {
  ASTContext &Context = *Result.Context;
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>(UserSyncCallId)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    // The user declared the function synchronizing: there is no device to
    // infer, and ReportUnknownDevice does not apply.
    if (!Callee || !isReportablePlace(*Call, Context))
      return;
    reportSync(*Call, Callee->getQualifiedNameAsString(),
               "is declared as synchronizing (option 'SyncFunctions')",
               "moving it out of the hot path", Context);
    return;
  }

  // The value read is computed from the receiver (t.item()) or from every
  // tensor argument (at::equal(a, b)); the overloads with a tensor 'value'
  // (masked_fill_, fill_) read that value (CallSync.h).
  SyncCheckBase::checkSync(Result);
}

// A read that becomes a size, bound or index is torch-sync-device-index's.
bool ItemCheck::skipsCall(const CallExpr &Call, const SyncFact &Fact,
                          ASTContext &Context) {
  return DeviceIndexEnabled && Fact.Method == "item" &&
         isShapeRead(Call, Context);
}

void ItemCheck::reportCallSync(const CallExpr &Call, const CallSync &Sync,
                               const MatchFinder::MatchResult &Result) {
  ASTContext &Context = *Result.Context;
  std::optional<AlternativeRewrite> Rewrite;
  if (Sync.Fact->Method == "item" || Sync.Fact->Method == "is_nonzero")
    Rewrite = assertAsyncRewrite(Call, Context);
  else if (const FunctionDecl *Callee = Call.getDirectCallee())
    Rewrite = linalgInvExRewrite(Call, *Callee, Context);
  reportSync(Call, Sync.Name, Sync.Fact->Effect, adviceFor(Call, Sync, Context),
             Context, std::nullopt, HostWait::CurrentStream, Rewrite);
}

} // namespace clang::tidy::torch_sync
