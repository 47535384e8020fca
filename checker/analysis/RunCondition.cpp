//===--- RunCondition.cpp - the flag a sync runs under --------------------===//

#include "analysis/RunCondition.h"
#include "analysis/device/DeviceInference.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Token.h"
#include "llvm/Support/raw_ostream.h"

namespace clang::tidy::torch_sync {

namespace {

/// Conditions longer than this are not quoted in a diagnostic.
constexpr size_t MaxConditionLength = 60;

/// The text of the tokens of \p Range (one file), with runs of white space
/// made one space; empty when the range spans files.
std::string conditionText(SourceRange Range, const SourceManager &SM) {
  if (Range.isInvalid())
    return "";
  bool Invalid = false;
  StringRef Source = Lexer::getSourceText(CharSourceRange::getTokenRange(Range),
                                          SM, LangOptions(), &Invalid);
  if (Invalid)
    return "";
  std::string Text;
  for (char C : Source) {
    bool Space = C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\\';
    if (Space && (Text.empty() || Text.back() == ' '))
      continue;
    Text += Space ? ' ' : C;
  }
  while (!Text.empty() && Text.back() == ' ')
    Text.pop_back();
  return Text;
}

/// Whether \p E reads a variable, parameter or member and nothing else:
/// 'debug', 'this->debug_', 'options.verbose'.
bool isPlainFlag(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (isTensorType(E->getType()))
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return isa<VarDecl>(Ref->getDecl());
  if (isa<CXXThisExpr>(E))
    return true;
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return isa<FieldDecl>(Member->getMemberDecl()) &&
           isPlainFlag(Member->getBase());
  return false;
}

/// Whether any part of \p S is a tensor: a test of a tensor decides with
/// data, not with a flag.
bool mentionsTensor(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *E = dyn_cast<Expr>(S))
    if (isTensorType(E->getType()))
      return true;
  for (const Stmt *Child : S->children())
    if (mentionsTensor(Child))
      return true;
  return false;
}

/// What the condition \p Cond must be for the branch to run (\p Truth), when
/// it is a flag: a plain variable, parameter or member, or a condition
/// written as a macro's argument that tests no tensor. std::nullopt
/// otherwise.
std::optional<std::string> flagDescription(const Expr *Cond, bool Truth,
                                           ASTContext &Context) {
  const Expr *E = Cond->IgnoreParenImpCasts();
  while (const auto *Not = dyn_cast<UnaryOperator>(E)) {
    if (Not->getOpcode() != UO_LNot)
      break;
    Truth = !Truth;
    E = Not->getSubExpr()->IgnoreParenImpCasts();
  }
  bool Plain = isPlainFlag(E);
  if (!Plain &&
      !(Context.getSourceManager().isMacroArgExpansion(Cond->getBeginLoc()) &&
        !mentionsTensor(Cond)))
    return std::nullopt;
  PrintingPolicy Policy = Context.getPrintingPolicy();
  Policy.SuppressImplicitBase = true;
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  E->printPretty(OS, nullptr, Policy);
  OS.flush();
  if (Text.empty() || Text.size() > MaxConditionLength)
    return std::nullopt;
  std::string Quoted = "'" + Text + "'";
  if (!Plain)
    return "only when " + Quoted + (Truth ? " holds" : " does not hold");
  QualType Type = E->getType();
  if (Type->isBooleanType())
    return "only when " + Quoted + (Truth ? " is true" : " is false");
  if (Type->isPointerType())
    return "only when " + Quoted + (Truth ? " is not null" : " is null");
  return "only when " + Quoted + (Truth ? " is not zero" : " is zero");
}

} // namespace

bool ConditionalBranches::openConditional(SourceLocation Loc) {
  Stack.emplace_back();
  Stack.back().Ignored = SM.isInSystemHeader(Loc);
  return !Stack.back().Ignored;
}

void ConditionalBranches::openBranch(SourceLocation Loc,
                                     std::optional<std::string> Description) {
  Open &Current = Stack.back();
  if (Current.Ignored)
    return;
  Current.BranchBegin = Loc;
  Current.Taken.reset();
  if (Description)
    Current.Taken = RunCondition{Loc, std::move(*Description)};
}

void ConditionalBranches::closeBranch(SourceLocation Loc) {
  Open &Current = Stack.back();
  if (!Current.Taken)
    return;
  auto [BeginFile, Begin] = SM.getDecomposedExpansionLoc(Current.BranchBegin);
  auto [EndFile, End] = SM.getDecomposedExpansionLoc(Loc);
  if (BeginFile == EndFile && Begin < End)
    Branches.push_back({BeginFile, Begin, End, *Current.Taken});
}

void ConditionalBranches::If(SourceLocation Loc, SourceRange ConditionRange,
                             ConditionValueKind ConditionValue) {
  if (!openConditional(Loc))
    return;
  std::string Text = conditionText(ConditionRange, SM);
  // '#if 0' and '#if 1' name no configuration.
  bool Named = !Text.empty() && Text.size() <= MaxConditionLength &&
               Text != "0" && Text != "1";
  if (Named)
    Stack.back().ElseDescription =
        "only in builds where '" + Text + "' does not hold";
  openBranch(Loc, Named ? std::optional<std::string>("only in builds where '" +
                                                     Text + "' holds")
                        : std::nullopt);
}

void ConditionalBranches::Elif(SourceLocation Loc, SourceRange ConditionRange,
                               ConditionValueKind ConditionValue,
                               SourceLocation IfLoc) {
  if (Stack.empty() || Stack.back().Ignored)
    return;
  closeBranch(Loc);
  // An '#else' after an '#elif' needs every earlier condition to fail: not
  // named.
  Stack.back().ElseDescription.clear();
  std::string Text = conditionText(ConditionRange, SM);
  bool Named = !Text.empty() && Text.size() <= MaxConditionLength;
  openBranch(Loc, Named ? std::optional<std::string>("only in builds where '" +
                                                     Text + "' holds")
                        : std::nullopt);
}

void ConditionalBranches::openMacroTest(SourceLocation Loc,
                                        const Token &MacroNameTok,
                                        bool WhenDefined) {
  if (!openConditional(Loc))
    return;
  std::string Name = MacroNameTok.getIdentifierInfo()
                         ? MacroNameTok.getIdentifierInfo()->getName().str()
                         : std::string();
  if (Name.empty()) {
    openBranch(Loc, std::nullopt);
    return;
  }
  std::string Defined = "only in builds that define '" + Name + "'";
  std::string NotDefined = "only in builds that do not define '" + Name + "'";
  Stack.back().ElseDescription = WhenDefined ? NotDefined : Defined;
  openBranch(Loc, WhenDefined ? Defined : NotDefined);
}

void ConditionalBranches::Ifdef(SourceLocation Loc, const Token &MacroNameTok,
                                const MacroDefinition &MD) {
  openMacroTest(Loc, MacroNameTok, /*WhenDefined=*/true);
}

void ConditionalBranches::Ifndef(SourceLocation Loc, const Token &MacroNameTok,
                                 const MacroDefinition &MD) {
  openMacroTest(Loc, MacroNameTok, /*WhenDefined=*/false);
}

void ConditionalBranches::Else(SourceLocation Loc, SourceLocation IfLoc) {
  if (Stack.empty() || Stack.back().Ignored)
    return;
  closeBranch(Loc);
  std::string Description = Stack.back().ElseDescription;
  openBranch(Loc, Description.empty()
                      ? std::nullopt
                      : std::optional<std::string>(Description));
}

void ConditionalBranches::Endif(SourceLocation Loc, SourceLocation IfLoc) {
  if (Stack.empty())
    return;
  closeBranch(Loc);
  Stack.pop_back();
}

const RunCondition *
ConditionalBranches::branchAround(SourceLocation Loc,
                                  SourceRange Within) const {
  auto [File, Offset] = SM.getDecomposedExpansionLoc(Loc);
  auto [WithinFile, WithinBegin] =
      SM.getDecomposedExpansionLoc(Within.getBegin());
  auto [WithinEndFile, WithinEnd] =
      SM.getDecomposedExpansionLoc(Within.getEnd());
  if (File != WithinFile || File != WithinEndFile)
    return nullptr;
  const Branch *Innermost = nullptr;
  for (const Branch &B : Branches)
    if (B.File == File && WithinBegin < B.Begin && B.End < WithinEnd &&
        B.Begin <= Offset && Offset <= B.End &&
        (!Innermost || Innermost->Begin < B.Begin))
      Innermost = &B;
  return Innermost ? &Innermost->Guard : nullptr;
}

RunConditionResult findRunCondition(const Stmt &Call, ASTContext &Context,
                                    const ConditionalBranches *Branches,
                                    const Stmt *Body) {
  RunConditionResult Result;
  // The branch of 'Cond' that must be taken, \p Truth, for the call to run.
  auto Needs = [&](const Expr *Cond, bool Truth) {
    if (!Cond || Cond->isValueDependent() || Cond->isTypeDependent())
      return;
    bool Value = false;
    if (Cond->EvaluateAsBooleanCondition(Value, Context)) {
      if (Value != Truth)
        Result.Never = true;
      return;
    }
    if (!Result.Guard)
      if (std::optional<std::string> Description =
              flagDescription(Cond, Truth, Context))
        Result.Guard =
            RunCondition{Cond->getBeginLoc(), std::move(*Description)};
  };
  const Stmt *Within = Body;
  DynTypedNode Child = DynTypedNode::create(Call);
  for (unsigned Depth = 0; Depth < 256; ++Depth) {
    if (Body && Child.get<Stmt>() == Body)
      break;
    DynTypedNodeList Parents = Context.getParents(Child);
    if (Parents.empty())
      break;
    const DynTypedNode Parent = Parents[0];
    if (const auto *Function = Parent.get<FunctionDecl>()) {
      if (!Body)
        Within = Function->getBody();
      break;
    }
    if (const auto *Lambda = Parent.get<LambdaExpr>(); Lambda && !Body) {
      Within = Lambda->getBody();
      break;
    }
    const Stmt *Inner = Child.get<Stmt>();
    if (const auto *If = Parent.get<IfStmt>()) {
      if (Inner && !If->getConditionVariable() &&
          (If->getThen() == Inner || If->getElse() == Inner))
        Needs(If->getCond(), If->getThen() == Inner);
    } else if (const auto *Choice = Parent.get<ConditionalOperator>()) {
      if (Inner &&
          (Choice->getTrueExpr() == Inner || Choice->getFalseExpr() == Inner))
        Needs(Choice->getCond(), Choice->getTrueExpr() == Inner);
    } else if (const auto *Logical = Parent.get<BinaryOperator>()) {
      if (Inner && Logical->isLogicalOp() && Logical->getRHS() == Inner)
        Needs(Logical->getLHS(), Logical->getOpcode() == BO_LAnd);
    }
    Child = Parent;
  }
  if (!Result.Guard && Branches && Within)
    if (const RunCondition *Branch = Branches->branchAround(
            Call.getBeginLoc(), Within->getSourceRange()))
      Result.Guard = *Branch;
  return Result;
}

} // namespace clang::tidy::torch_sync
