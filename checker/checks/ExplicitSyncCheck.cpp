//===--- ExplicitSyncCheck.cpp - torch-sync-explicit ----------------------===//

#include "checks/ExplicitSyncCheck.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <string>

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

void ExplicitSyncCheck::registerSyncMatchers(MatchFinder *Finder) {
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

// A free of a null pointer and a device-to-device cudaMemcpy do not wait
// (ExplicitWaits.h). There is no tensor whose device to infer: each of the
// other calls waits for a CUDA device (needsTensorDevice), and each effect
// names what it waits for: the device, a stream or an event.
void ExplicitSyncCheck::reportCallSync(const CallExpr &Call,
                                       const CallSync &Sync,
                                       const MatchFinder::MatchResult &Result) {
  reportSync(Call, Sync.Name, Sync.Fact->Effect,
             adviceFor(Call, Sync, *Result.Context), *Result.Context,
             std::nullopt, HostWait::StatedInEffect);
}

} // namespace clang::tidy::torch_sync
