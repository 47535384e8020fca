//===--- DeviceWrites.cpp - what may give a tensor variable another value -===//

#include "analysis/device/DeviceWrites.h"
#include "facts/SyncFacts.h"
#include "libtorch/LibTorchApi.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {

/// Whether \p Param is a forwarding reference of 'std::make_pair',
/// 'std::make_tuple' or a std::pair or std::tuple constructor, which copy or
/// move their arguments into the elements and never replace them.
bool isPairElementParameter(const ParmVarDecl &Param) {
  const auto *Function = dyn_cast<FunctionDecl>(Param.getDeclContext());
  if (!Function || !Function->isInStdNamespace() ||
      !Param.getType()->isReferenceType())
    return false;
  if (const auto *Constructor = dyn_cast<CXXConstructorDecl>(Function)) {
    const CXXRecordDecl *Record = Constructor->getParent();
    return Record->getIdentifier() &&
           (Record->getName() == "pair" || Record->getName() == "tuple");
  }
  return Function->getIdentifier() && (Function->getName() == "make_pair" ||
                                       Function->getName() == "make_tuple");
}

/// Whether a non-const reference parameter lets its function replace the
/// caller's tensor, and with it the device. Two kinds of LibTorch parameters
/// do not (LibTorchApi.h says why): the outputs of ATen's out= functions
/// ('at::add_out(out, a, b)' writes values into 'out' on its device), and the
/// forwarding references of 'ModuleHolder::operator()' and
/// 'Function<T>::apply' whose target 'forward' takes a copy; and those of
/// TensorOptions, which copy a device ('TensorOptions(T &&device)').
AST_MATCHER(ParmVarDecl, mayReplaceArgument) {
  return !isAtenOutParameter(Node) && !isForwardedAsCopy(Node) &&
         !isTensorOptionsParameter(Node) && !isPairElementParameter(Node);
}

/// Matches a type that may hold or refer to a tensor (mayCarryDevice).
AST_MATCHER(QualType, carriesDevice) { return mayCarryDevice(Node); }

/// Matches 'std::tie(a, b)' on the left of an assignment, 'std::tie(a, b) =
/// pair': the tuple of references lives for that one assignment, which
/// writes the pair's elements into the variables (matched as assignments).
/// A tie kept or passed on lets its variables change later: an escape.
AST_MATCHER(CallExpr, isTieAssigned) {
  const FunctionDecl *Callee = Node.getDirectCallee();
  if (!Callee || !Callee->isInStdNamespace() || !Callee->getIdentifier() ||
      Callee->getName() != "tie")
    return false;
  DynTypedNode Current = DynTypedNode::create(Node);
  // The temporary tuple between the call and its operator=.
  for (unsigned Steps = 0; Steps < 4; ++Steps) {
    auto Parents = Finder->getASTContext().getParents(Current);
    if (Parents.size() != 1)
      return false;
    if (const auto *Assign = Parents[0].get<CXXOperatorCallExpr>())
      return Assign->getOperator() == OO_Equal && Assign->getNumArgs() == 2 &&
             Assign->getArg(0)->IgnoreImplicit() == &Node;
    if (!Parents[0].get<MaterializeTemporaryExpr>() &&
        !Parents[0].get<ImplicitCastExpr>() &&
        !Parents[0].get<CXXBindTemporaryExpr>())
      return false;
    Current = Parents[0];
  }
  return false;
}

} // namespace

ast_matchers::internal::Matcher<Stmt>
writesTo(const ast_matchers::internal::Matcher<Expr> &Target) {
  auto Ref = ignoringParenImpCasts(Target);
  auto NonConstRef = referenceType(pointee(unless(isConstQualified())));
  return findAll(stmt(anyOf(
      // 'Tensor &r = t' lets the tensor change through another name.
      declStmt(has(varDecl(hasType(NonConstRef), hasInitializer(Ref))))
          .bind("escape"),
      cxxOperatorCallExpr(hasOverloadedOperatorName("="), hasArgument(0, Ref),
                          hasArgument(1, expr().bind("assigned")))
          .bind("assignment"),
      binaryOperator(isAssignmentOperator(), hasLHS(Ref),
                     hasRHS(expr().bind("assigned")))
          .bind("assignment"),
      // 'std::tie(a, b) = f()' gives 'a' the first element of 'f()'.
      cxxOperatorCallExpr(
          hasOverloadedOperatorName("="),
          hasArgument(
              0, ignoringImplicit(callExpr(isTieAssigned(), hasAnyArgument(Ref))
                                      .bind("tie"))),
          hasArgument(1, expr().bind("assigned")))
          .bind("assignment"),
      // '&t' lets the tensor change behind our back.
      unaryOperator(hasOperatorName("&"), hasUnaryOperand(Ref)).bind("escape"),
      callExpr(unless(isTieAssigned()),
               forEachArgumentWithParam(Ref, parmVarDecl(hasType(NonConstRef),
                                                         mayReplaceArgument())))
          .bind("escape"),
      cxxConstructExpr(
          forEachArgumentWithParam(
              Ref, parmVarDecl(hasType(NonConstRef), mayReplaceArgument())))
          .bind("escape"),
      // 'set_', 'set_data' and 'swap' replace the storage, and with it the
      // device.
      cxxMemberCallExpr(on(Ref), callee(cxxMethodDecl(hasAnyName(apiList(
                                     ApiList::StorageReplacingMethods)))))
          .bind("escape"))));
}

ast_matchers::internal::BindableMatcher<Stmt> refersTo(const VarDecl &Var) {
  return declRefExpr(to(varDecl(equalsNode(&Var))));
}

ast_matchers::internal::Matcher<Stmt> writesToVariable(const VarDecl &Var) {
  return writesTo(refersTo(Var));
}

std::optional<unsigned> tiedElement(const CallExpr &Tie, const VarDecl &Var) {
  for (unsigned I = 0; I < Tie.getNumArgs(); ++I)
    if (const auto *Ref =
            dyn_cast<DeclRefExpr>(Tie.getArg(I)->IgnoreParenImpCasts());
        Ref && Ref->getDecl() == &Var)
      return I;
  return std::nullopt;
}

bool mayHandOverDevice(const Expr &Arg, ASTContext &Context) {
  if (mayCarryDevice(Arg.getType()))
    return true;
  auto TakesCarrier = hasAnyArgument(hasType(qualType(carriesDevice())));
  return !match(findAll(expr(anyOf(callExpr(TakesCarrier),
                                   cxxConstructExpr(TakesCarrier)))),
                Arg, Context)
              .empty();
}

const Expr *DeviceWrites::singleValue(const VarDecl &Var) {
  if (isa<ParmVarDecl>(Var) || !Var.hasLocalStorage() || !Var.getInit() ||
      Var.getType()->isReferenceType())
    return nullptr;
  return isNeverWritten(Var) ? Var.getInit() : nullptr;
}

bool DeviceWrites::isNeverWritten(const VarDecl &Var) {
  auto Cached = NeverWrittenCache.find(&Var);
  if (Cached != NeverWrittenCache.end())
    return Cached->second;
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  bool Result =
      Function && Function->getBody() &&
      match(writesToVariable(Var), *Function->getBody(), Context).empty();
  NeverWrittenCache[&Var] = Result;
  return Result;
}

std::optional<llvm::SmallVector<const Expr *, 4>>
DeviceWrites::privateMemberValues(const FieldDecl &Field) {
  const auto *Class = dyn_cast<CXXRecordDecl>(Field.getParent());
  if (!Class || Field.getAccess() != AS_private || Class->hasFriends() ||
      Class->isDependentContext() ||
      isa<ClassTemplateSpecializationDecl>(Class))
    return std::nullopt;
  llvm::SmallVector<const Expr *, 4> Values;
  if (const Expr *Init = Field.getInClassInitializer())
    Values.push_back(Init);
  auto Member = memberExpr(member(fieldDecl(equalsNode(&Field))));
  for (const Decl *D : Class->decls()) {
    if (isa<FunctionTemplateDecl>(D))
      return std::nullopt;
    const auto *Method = dyn_cast<CXXMethodDecl>(D);
    if (!Method || Method->isImplicit() || Method->isDeleted() ||
        Method->isDefaulted())
      continue;
    QualType Returned = Method->getReturnType();
    if ((Returned->isReferenceType() || Returned->isPointerType()) &&
        !Returned->getPointeeType().isConstQualified())
      return std::nullopt;
    const FunctionDecl *Definition = Method->getDefinition();
    if (!Definition || !Definition->getBody())
      return std::nullopt;
    if (const auto *Constructor = dyn_cast<CXXConstructorDecl>(Definition))
      for (const CXXCtorInitializer *Initializer : Constructor->inits())
        if (Initializer->getMember() == &Field && Initializer->isWritten())
          Values.push_back(Initializer->getInit());
    for (const BoundNodes &Nodes :
         match(writesTo(Member), *Definition->getBody(), Context)) {
      if (Nodes.getNodeAs<Stmt>("escape") || Nodes.getNodeAs<Stmt>("tie"))
        return std::nullopt;
      if (const auto *Assigned = Nodes.getNodeAs<Expr>("assigned"))
        Values.push_back(Assigned);
    }
  }
  return Values;
}

std::optional<DeviceWrites::Writes> DeviceWrites::writesOf(const VarDecl &Var,
                                                           const Stmt &Body) {
  Writes Result;
  if (!isa<ParmVarDecl>(Var)) {
    const DeclStmt *Declaration = nullptr;
    for (const auto &Parent : Context.getParents(Var))
      if (const auto *Stmt = Parent.get<DeclStmt>())
        Declaration = Stmt;
    if (!Declaration)
      return std::nullopt;
    Result.Statements.push_back(Declaration);
    Result.Values[Declaration] = Var.getInit();
  }
  for (const BoundNodes &Nodes : match(writesToVariable(Var), Body, Context)) {
    if (Nodes.getNodeAs<Stmt>("escape"))
      return std::nullopt;
    if (const auto *Assignment = Nodes.getNodeAs<Stmt>("assignment")) {
      Result.Statements.push_back(Assignment);
      Result.Values[Assignment] = Nodes.getNodeAs<Expr>("assigned");
      if (const auto *Tie = Nodes.getNodeAs<CallExpr>("tie")) {
        std::optional<unsigned> Element = tiedElement(*Tie, Var);
        if (!Element)
          return std::nullopt;
        Result.Elements[Assignment] = *Element;
      }
    }
  }
  return Result;
}

} // namespace clang::tidy::torch_sync
