//===--- PrintCheck.cpp - torch-sync-print --------------------------------===//

#include "checks/PrintCheck.h"
#include "libtorch/TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
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

// 'os << t << u' is two calls; each formats one tensor. c10::str formats all
// of its arguments. In a LibTorch macro ('TORCH_WARN'), the macro is named.
void PrintCheck::reportCallSync(const CallExpr &Call, const CallSync &Sync,
                                const MatchFinder::MatchResult &Result) {
  std::string Name = Sync.Name;
  if (Sync.Fact->Function == "::c10::str") {
    StringRef Macro = outermostMacroName(Call.getBeginLoc(),
                                         *Result.SourceManager, getLangOpts());
    if (!Macro.empty())
      Name = Macro.str();
  }
  reportSync(Call, Name, Sync.Fact->Effect, Advice::of(*Sync.Fact),
             *Result.Context);
}

} // namespace clang::tidy::torch_sync
