//===--- ExplicitSyncCheck.cpp - torch-sync-explicit ----------------------===//

#include "checks/ExplicitSyncCheck.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <string>

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CallId = "call";
} // namespace

void ExplicitSyncCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The census-measured overloads classified under this check.
  registerMeasuredSyncMatchers(Finder, SyncCategory::Explicit);
  std::vector<std::string> Names =
      declaredFunctionNames(SyncCategory::Explicit);
  // Free functions and member calls ('stream.synchronize()') alike. A call in
  // a LibTorch header, or in a function where syncs are intended, is left out
  // by isReportablePlace(); one in a system header already here, the cheap
  // test first (clang-tidy before 21 matches inside system headers).
  Finder->addMatcher(
      callExpr(unless(isExpansionInSystemHeader()),
               callee(functionDecl(hasAnyName(
                   std::vector<StringRef>(Names.begin(), Names.end())))))
          .bind(CallId),
      this);
}

void ExplicitSyncCheck::checkSync(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !isReportablePlace(*Call, *Result.Context))
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::Explicit, *Callee);
  if (!Fact)
    return;
  // A free of a null pointer and a device-to-device cudaMemcpy do not wait
  // (CallSync.h). There is no tensor whose device to infer: each of the other
  // calls waits for a CUDA device, so isReportableDevice() is not asked.
  std::optional<CallSync> Sync = callSync(
      *Call, *Fact, devices(*Result.Context), *Result.Context, syncRules());
  if (!Sync)
    return;
  // Each effect names what the call waits for: the device, a stream or an
  // event.
  reportSync(*Call, Sync->Name, Fact->Effect, Advice::of(*Fact),
             *Result.Context, std::nullopt, HostWait::StatedInEffect);
}

} // namespace clang::tidy::torch_sync
