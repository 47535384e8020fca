//===--- AlternativeRewrites.cpp - edits into a sync-free alternative -----===//

#include "checks/AlternativeRewrites.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"

namespace clang::tidy::torch_sync {
namespace {

/// The text of \p Range as written in a file, or std::nullopt when either
/// end comes from a macro (an edit there would change the macro's users).
std::optional<StringRef> writtenText(SourceRange Range,
                                     const ASTContext &Context) {
  if (Range.isInvalid() || Range.getBegin().isMacroID() ||
      Range.getEnd().isMacroID())
    return std::nullopt;
  StringRef Text =
      Lexer::getSourceText(CharSourceRange::getTokenRange(Range),
                           Context.getSourceManager(), Context.getLangOpts());
  if (Text.empty())
    return std::nullopt;
  return Text;
}

/// \p Text without its whitespace, to compare spellings token by token.
std::string withoutSpaces(StringRef Text) {
  std::string Out;
  for (char C : Text)
    if (!llvm::isSpace(C))
      Out += C;
  return Out;
}

/// The first argument of the argument list \p Args (the text between a
/// macro's parentheses): up to the first comma outside brackets and
/// literals.
StringRef firstArgument(StringRef Args) {
  int Depth = 0;
  char Quote = 0;
  for (size_t I = 0; I < Args.size(); ++I) {
    char C = Args[I];
    if (Quote) {
      if (C == '\\')
        ++I;
      else if (C == Quote)
        Quote = 0;
      continue;
    }
    if (C == '"' || C == '\'')
      Quote = C;
    else if (C == '(' || C == '[' || C == '{')
      ++Depth;
    else if (C == ')' || C == ']' || C == '}')
      --Depth;
    else if (C == ',' && Depth == 0)
      return Args.take_front(I);
  }
  return Args;
}

} // namespace

std::optional<AlternativeRewrite> linalgInvExRewrite(const CallExpr &Call,
                                                     const FunctionDecl &Callee,
                                                     ASTContext &Context) {
  std::string Name = Callee.getQualifiedNameAsString();
  const Expr *Operand = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    if (Name == "at::Tensor::inverse" && Member->getNumArgs() == 0)
      Operand = Member->getImplicitObjectArgument();
  } else if ((Name == "at::linalg_inv" || Name == "at::inverse" ||
              Name == "torch::linalg::inv") &&
             Call.getNumArgs() == 1) {
    Operand = Call.getArg(0);
  }
  if (!Operand || Operand->isImplicitCXXThis())
    return std::nullopt;
  std::optional<StringRef> Text =
      writtenText(Operand->IgnoreImplicit()->getSourceRange(), Context);
  std::optional<StringRef> Whole = writtenText(Call.getSourceRange(), Context);
  if (!Text || !Whole)
    return std::nullopt;
  return AlternativeRewrite{
      "'at::linalg_inv_ex' returns 'info' instead of checking it on the host "
      "(a singular matrix no longer throws here)",
      {FixItHint::CreateReplacement(
          CharSourceRange::getTokenRange(Call.getSourceRange()),
          ("std::get<0>(at::linalg_inv_ex(" + *Text + "))").str())}};
}

std::optional<AlternativeRewrite> assertAsyncRewrite(const CallExpr &Read,
                                                     ASTContext &Context) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Read);
  const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
  if (!Method || !Method->getIdentifier())
    return std::nullopt;
  const SourceManager &SM = Context.getSourceManager();
  const LangOptions &LangOpts = Context.getLangOpts();
  SourceLocation Begin = Read.getBeginLoc();
  // The read is written as the argument of a macro that user code expands.
  if (!Begin.isMacroID() || !SM.isMacroArgExpansion(Begin))
    return std::nullopt;
  CharSourceRange Macro = SM.getExpansionRange(Begin);
  if (Macro.getBegin().isMacroID() || Macro.getEnd().isMacroID())
    return std::nullopt;
  StringRef Text = Lexer::getSourceText(Macro, SM, LangOpts);
  if (!Text.consume_front("TORCH_CHECK"))
    return std::nullopt;
  Text = Text.ltrim();
  if (!Text.consume_front("(") || !Text.consume_back(")"))
    return std::nullopt;
  StringRef Condition = firstArgument(Text);
  bool HasMessage = Condition.size() < Text.size();

  const Expr *Object = Member->getImplicitObjectArgument();
  const auto *Callee = dyn_cast<MemberExpr>(Member->getCallee());
  if (!Object || Object->isImplicitCXXThis() || !Callee || Callee->isArrow())
    return std::nullopt;
  SourceRange ObjectRange = Object->IgnoreImplicit()->getSourceRange();
  StringRef Receiver = Lexer::getSourceText(
      CharSourceRange::getTokenRange(SM.getSpellingLoc(ObjectRange.getBegin()),
                                     SM.getSpellingLoc(ObjectRange.getEnd())),
      SM, LangOpts);
  if (Receiver.empty())
    return std::nullopt;
  // The condition is the read itself, nothing more.
  std::string Spelled = withoutSpaces(Condition);
  std::string Tensor = withoutSpaces(Receiver);
  bool IsRead = Method->getName() == "is_nonzero"
                    ? Spelled == Tensor + ".is_nonzero()"
                    : Spelled == Tensor + ".item<bool>()" ||
                          Spelled == Tensor + ".item().toBool()";
  if (!IsRead)
    return std::nullopt;
  return AlternativeRewrite{
      std::string("'at::_assert_async' checks on the device without waiting; "
                  "a failure surfaces at a later synchronization") +
          (HasMessage ? ", without the message" : ""),
      {FixItHint::CreateReplacement(
          Macro, ("at::_assert_async(" + Receiver + ")").str())}};
}

std::optional<AlternativeRewrite>
nonBlockingUploadRewrite(const CXXMemberCallExpr &Copy, ASTContext &Context) {
  const CXXMethodDecl *Method = Copy.getMethodDecl();
  const auto *Callee = dyn_cast<MemberExpr>(Copy.getCallee());
  if (!Method || !Method->getIdentifier() || !Callee ||
      !writtenText(Copy.getSourceRange(), Context))
    return std::nullopt;
  const SourceManager &SM = Context.getSourceManager();
  const char *Note =
      "'non_blocking' lets the host go on during an upload from pinned memory "
      "('pin_memory()'); the source must not change until the copy has run";
  if (Method->getName() == "cuda" && Copy.getNumArgs() == 0)
    return AlternativeRewrite{
        Note,
        {FixItHint::CreateReplacement(
            CharSourceRange::getTokenRange(Callee->getMemberLoc(),
                                           Copy.getRParenLoc()),
            "to(at::kCUDA, /*non_blocking=*/true)")}};
  if (Method->getName() != "to")
    return std::nullopt;
  // 'non_blocking' follows the written arguments in every overload of 'to'
  // but the one of four optionals (dtype, layout, device, pin_memory).
  unsigned Written = 0;
  while (Written < Copy.getNumArgs() &&
         !isa<CXXDefaultArgExpr>(Copy.getArg(Written)))
    ++Written;
  if (Written == 0 || Written >= Method->getNumParams() ||
      Method->getParamDecl(Written)->getName() != "non_blocking")
    return std::nullopt;
  SourceLocation AfterLast = Lexer::getLocForEndOfToken(
      Copy.getArg(Written - 1)->getEndLoc(), 0, SM, Context.getLangOpts());
  if (AfterLast.isInvalid())
    return std::nullopt;
  return AlternativeRewrite{
      Note, {FixItHint::CreateInsertion(AfterLast, ", /*non_blocking=*/true")}};
}

} // namespace clang::tidy::torch_sync
