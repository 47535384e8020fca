//===--- PrintCheck.cpp - torch-sync-print --------------------------------===//

#include "checks/PrintCheck.h"
#include "libtorch/TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CallId = "call";

/// The outermost macro that \p Loc was expanded from ("TORCH_WARN"), or empty.
StringRef outermostMacroName(SourceLocation Loc, const SourceManager &SM,
                             const LangOptions &LangOpts) {
  StringRef Name;
  while (Loc.isMacroID()) {
    StringRef Immediate = Lexer::getImmediateMacroName(Loc, SM, LangOpts);
    if (!Immediate.empty())
      Name = Immediate;
    Loc = SM.getImmediateMacroCallerLoc(Loc);
  }
  return Name;
}
} // namespace

void PrintCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The census-measured overloads classified under this check.
  registerMeasuredSyncMatchers(Finder, SyncCategory::Print);
  // The formatting functions of ATen/core/Formatting.h and
  // c10/util/StringUtil.h with a tensor argument. 'TensorBase::print()' and
  // 'toString()' print only metadata and are members, so they do not match. The
  // message of TORCH_CHECK goes through c10::detail::torchCheckMsgImpl and is
  // formatted only when the check fails, so it does not match either; nor does
  // a message built for another failure (isFailureMessage, in CallSync.h).
  Finder->addMatcher(callExpr(unless(isExpansionInSystemHeader()),
                              callee(functionDecl(hasAnyName(
                                  functionNames(SyncCategory::Print)))),
                              hasAnyArgument(hasType(isTorchTensor())))
                         .bind(CallId),
                     this);
}

void PrintCheck::checkSync(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee)
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::Print, *Callee);
  ASTContext &Context = *Result.Context;
  if (!Fact || !isReportablePlace(*Call, Context))
    return;

  // 'os << t << u' is two calls; each formats one tensor. c10::str formats
  // all of its arguments.
  std::optional<CallSync> Sync =
      callSync(*Call, *Fact, devices(Context), Context, syncRules());
  if (!Sync || !isReportableDevice(Sync->Device))
    return;

  std::string Name = Sync->Name;
  if (Fact->Function == "::c10::str") {
    StringRef Macro = outermostMacroName(Call->getBeginLoc(),
                                         *Result.SourceManager, getLangOpts());
    if (!Macro.empty())
      Name = Macro.str();
  }
  reportSync(*Call, Name, Fact->Effect, Advice::of(*Fact), Context);
}

} // namespace clang::tidy::torch_sync
