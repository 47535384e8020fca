//===--- PrintCheck.cpp - torch-sync-print ---------------------------------===//

#include "PrintCheck.h"
#include "TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CallId = "call";
constexpr llvm::StringLiteral FailureMessageId = "failure-message";

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
  // The formatting functions of ATen/core/Formatting.h and c10/util/StringUtil.h
  // with a tensor argument. 'TensorBase::print()' and 'toString()' print only
  // metadata and are members, so they do not match. The message of
  // TORCH_CHECK goes through c10::detail::torchCheckMsgImpl and is formatted
  // only when the check fails, so it does not match either.
  auto Formatting =
      callExpr(callee(functionDecl(hasAnyName(functionNames(SyncCategory::Print)))),
               hasAnyArgument(hasType(isTorchTensor())));
  Finder->addMatcher(
      callExpr(unless(isExpansionInSystemHeader()), Formatting).bind(CallId),
      this);
  // A message for a failure (an argument of a noreturn function such as
  // TORCH_INTERNAL_ASSERT's torchInternalAssertFail, or of a throw) is
  // formatted only when the program is failing anyway. The traversal reaches
  // the failure before the formatting call inside it, which is then skipped.
  // Failures in system headers are never reported places: the cheap test
  // comes first (clang-tidy before 21 matches inside system headers).
  Finder->addMatcher(
      callExpr(unless(isExpansionInSystemHeader()),
               callee(functionDecl(isNoReturn())),
               forEachDescendant(Formatting.bind(FailureMessageId))),
      this);
  Finder->addMatcher(
      cxxThrowExpr(unless(isExpansionInSystemHeader()),
                   forEachDescendant(Formatting.bind(FailureMessageId))),
      this);
}

void PrintCheck::onStartOfTranslationUnit() {
  SyncCheckBase::onStartOfTranslationUnit();
  FailureMessages.clear();
}

void PrintCheck::checkSync(const MatchFinder::MatchResult &Result) {
  if (const auto *Message = Result.Nodes.getNodeAs<CallExpr>(FailureMessageId)) {
    FailureMessages.insert(Message);
    return;
  }
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || FailureMessages.contains(Call))
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::Print, *Callee);
  ASTContext &Context = *Result.Context;
  if (!Fact || !isReportablePlace(*Call, Context))
    return;

  // 'os << t << u' is two calls; each formats one tensor. c10::str formats
  // all of its arguments.
  if (!isReportableDevice(devices(Context).inputsDevice(*Call)))
    return;

  std::string Name = Fact->Function.drop_front(2).str();
  if (Fact->Function == "::c10::str") {
    StringRef Macro = outermostMacroName(Call->getBeginLoc(),
                                         *Result.SourceManager, getLangOpts());
    if (!Macro.empty())
      Name = Macro.str();
  } else if (isa<CXXOperatorCallExpr>(Call)) {
    Name = "operator<<";
  }
  reportSync(*Call, Name, Fact->Effect, Advice::of(*Fact), Context);
}

} // namespace clang::tidy::torch_sync
