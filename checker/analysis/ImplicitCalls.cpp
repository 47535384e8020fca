//===--- ImplicitCalls.cpp - the calls a body makes without writing them --===//

#include "analysis/ImplicitCalls.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {

/// The name a description gives \p Decl, quoted.
std::string quoted(const NamedDecl &Decl) {
  return "'" + Decl.getNameAsString() + "'";
}

/// The variable that \p Construct initializes, or null: its initializer
/// after the implicit nodes around it ('Reader r(x)', 'Reader r = x').
const VarDecl *constructedVariable(const CXXConstructExpr &Construct,
                                   ASTContext &Context) {
  const VarDecl *Found = nullptr;
  DynTypedNode Node = DynTypedNode::create(Construct);
  for (unsigned Depth = 0; Depth < 4 && !Found; ++Depth) {
    DynTypedNodeList Parents = Context.getParents(Node);
    if (Parents.empty())
      break;
    if (const auto *Var = Parents[0].get<VarDecl>())
      Found = Var;
    else if (!Parents[0].get<ExprWithCleanups>() &&
             !Parents[0].get<ImplicitCastExpr>() &&
             !Parents[0].get<MaterializeTemporaryExpr>() &&
             !Parents[0].get<CXXBindTemporaryExpr>())
      break;
    Node = Parents[0];
  }
  return Found;
}

/// What \p Construct constructs, for diagnostics: "the constructor of 'r'",
/// "the constructor run by 'new'", "the constructor of a temporary".
std::string constructionDescription(const CXXConstructExpr &Construct,
                                    const VarDecl *Variable,
                                    ASTContext &Context) {
  if (Variable)
    return "the constructor of " + quoted(*Variable);
  DynTypedNodeList Parents = Context.getParents(Construct);
  if (!Parents.empty() && Parents[0].get<CXXNewExpr>())
    return "the constructor run by 'new'";
  return "the constructor of a temporary";
}

/// The constructions written or implied in \p Root ('Reader r(x)', 'new T',
/// 'T(x)'), appended to \p Sites. An elided copy is no call.
void addConstructions(const Stmt &Root, ASTContext &Context,
                      llvm::SmallVectorImpl<CallSite> &Sites) {
  for (const BoundNodes &Nodes :
       match(findAll(cxxConstructExpr().bind("construct")), Root, Context)) {
    const auto *Construct = Nodes.getNodeAs<CXXConstructExpr>("construct");
    if (Construct->isElidable() || !Construct->getConstructor())
      continue;
    CallSite Site;
    Site.Kind = CallSite::Construction;
    Site.Anchor = Construct;
    Site.Callee = Construct->getConstructor();
    Site.Variable = constructedVariable(*Construct, Context);
    Site.Description =
        constructionDescription(*Construct, Site.Variable, Context);
    Sites.push_back(std::move(Site));
  }
}

/// The constructions of a constructor's members and bases, written in its
/// initializers or implied ('Holder(const Tensor &x) {}' default-constructs
/// its member 'Reader r'), and whatever else its initializers construct.
void addInitializerConstructions(const CXXConstructorDecl &Constructor,
                                 ASTContext &Context,
                                 llvm::SmallVectorImpl<CallSite> &Sites) {
  for (const CXXCtorInitializer *Init : Constructor.inits()) {
    const Expr *Value = Init->getInit();
    if (!Value)
      continue;
    size_t First = Sites.size();
    addConstructions(*Value, Context, Sites);
    // The member's or base's own construction is the initializer itself, or
    // the member's default initializer ('MeanReader reader{values};').
    const Expr *Initializer = Value->IgnoreImplicit();
    if (const auto *Default = dyn_cast<CXXDefaultInitExpr>(Initializer))
      Initializer = Default->getExpr()->IgnoreImplicit();
    const auto *Own = dyn_cast<CXXConstructExpr>(Initializer);
    for (size_t I = First; I < Sites.size(); ++I) {
      if (Sites[I].Anchor != Own)
        continue;
      if (const FieldDecl *Member = Init->getMember())
        Sites[I].Description =
            "the constructor of the member " + quoted(*Member);
      else if (Init->isBaseInitializer())
        Sites[I].Description = "the constructor of the base '" +
                               QualType(Init->getBaseClass(), 0).getAsString() +
                               "'";
      // An implicit initializer has no place of its own: the constructor's.
      if (!Init->isWritten())
        Sites[I].Loc = Constructor.getLocation();
    }
  }
}

/// The closing brace of the scope that \p Variable is declared in, where
/// g++ -g puts its destructor's call on every way out of the scope; the end
/// of the statement that declares it in its condition or init ('for (T x =
/// ...; ...)'); invalid when neither is found.
SourceLocation scopeEnd(const VarDecl &Variable, ASTContext &Context) {
  DynTypedNode Node = DynTypedNode::create(Variable);
  for (unsigned Depth = 0; Depth < 4; ++Depth) {
    DynTypedNodeList Parents = Context.getParents(Node);
    if (Parents.empty())
      break;
    if (const auto *Compound = Parents[0].get<CompoundStmt>())
      return Compound->getRBracLoc();
    if (const auto *Statement = Parents[0].get<Stmt>())
      if (!isa<DeclStmt>(Statement))
        return Statement->getEndLoc();
    Node = Parents[0];
  }
  return SourceLocation();
}

/// The destructors that \p Function's CFG runs implicitly (its
/// CFGImplicitDtor elements), appended to \p Sites, each once.
void addDestructions(const FunctionDecl &Function, ASTContext &Context,
                     llvm::SmallVectorImpl<CallSite> &Sites) {
  if (isInvalidCode(Function))
    return;
  CFG::BuildOptions Options;
  Options.AddImplicitDtors = true;
  Options.AddTemporaryDtors = true;
  std::unique_ptr<CFG> Graph = CFG::buildCFG(
      &Function, const_cast<Stmt *>(Function.getBody()), &Context, Options);
  if (!Graph)
    return;
  llvm::SmallPtrSet<const void *, 8> Seen;
  SourceLocation BodyEnd = Function.getBody()->getEndLoc();
  if (BodyEnd.isInvalid())
    BodyEnd = Function.getLocation();
  for (const CFGBlock *Block : *Graph) {
    for (const CFGElement &Element : *Block) {
      auto Implicit = Element.getAs<CFGImplicitDtor>();
      if (!Implicit)
        continue;
      const CXXDestructorDecl *Destructor =
          Implicit->getDestructorDecl(Context);
      if (!Destructor)
        continue;
      CallSite Site;
      Site.Callee = Destructor;
      const void *Key = nullptr;
      if (auto Automatic = Element.getAs<CFGAutomaticObjDtor>()) {
        const VarDecl *Variable = Automatic->getVarDecl();
        Key = Variable;
        Site.Kind = CallSite::ScopeEndDestruction;
        Site.Anchor = Variable->getInit();
        Site.Variable = Variable;
        Site.Loc = scopeEnd(*Variable, Context);
        Site.Description = "the destructor of " + quoted(*Variable) +
                           ", run at its scope's end";
      } else if (auto Temporary = Element.getAs<CFGTemporaryDtor>()) {
        Key = Temporary->getBindTemporaryExpr();
        Site.Kind = CallSite::TemporaryDestruction;
        Site.Anchor = Temporary->getBindTemporaryExpr();
        Site.Description = "the destructor of a temporary, run at the end of "
                           "the full-expression";
      } else if (auto Deletion = Element.getAs<CFGDeleteDtor>()) {
        Key = Deletion->getDeleteExpr();
        Site.Kind = CallSite::Deletion;
        Site.Anchor = Deletion->getDeleteExpr();
        Site.Description = "the destructor run by 'delete'";
      } else if (auto Member = Element.getAs<CFGMemberDtor>()) {
        Key = Member->getFieldDecl();
        Site.Kind = CallSite::MemberDestruction;
        Site.Loc = BodyEnd;
        Site.Description =
            "the destructor of the member " + quoted(*Member->getFieldDecl());
      } else if (auto Base = Element.getAs<CFGBaseDtor>()) {
        Key = Base->getBaseSpecifier();
        Site.Kind = CallSite::MemberDestruction;
        Site.Loc = BodyEnd;
        Site.Description = "the destructor of the base '" +
                           Base->getBaseSpecifier()->getType().getAsString() +
                           "'";
      } else {
        continue;
      }
      if (!Seen.insert(Key).second)
        continue;
      Sites.push_back(std::move(Site));
    }
  }
}

/// The value a std::function is made from: through implicit nodes, casts
/// and the converting constructor.
const Expr *heldValue(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    const Expr *Next = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Next))
      Next = Cast->getSubExpr();
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(Next);
             Construct && Construct->getNumArgs() == 1)
      Next = Construct->getArg(0);
    if (Next == E)
      break;
    E = Next;
  }
  return E;
}

/// Whether \p Type is a std::function.
bool isStdFunction(const CXXRecordDecl &Record) {
  return Record.getIdentifier() && Record.getName() == "function" &&
         Record.isInStdNamespace();
}

} // namespace

bool isInvalidCode(const FunctionDecl &Function) {
  if (Function.isInvalidDecl())
    return true;
  const auto *Method = dyn_cast<CXXMethodDecl>(&Function);
  if (!Method)
    return false;
  const CXXRecordDecl *Record = Method->getParent();
  return Record->isInvalidDecl() ||
         llvm::any_of(Record->fields(), [](const FieldDecl *Field) {
           return Field->isInvalidDecl();
         });
}

llvm::SmallVector<CallSite, 8> implicitCalls(const FunctionDecl &Function,
                                             ASTContext &Context) {
  llvm::SmallVector<CallSite, 8> Sites;
  const Stmt *Body = Function.getBody();
  // A template's pattern has no calls to resolve: its instantiations do.
  if (!Body || Function.isDependentContext())
    return Sites;
  addConstructions(*Body, Context, Sites);
  if (const auto *Constructor = dyn_cast<CXXConstructorDecl>(&Function))
    addInitializerConstructions(*Constructor, Context, Sites);
  addDestructions(Function, Context, Sites);
  return Sites;
}

const CXXMethodDecl *storedLambda(const CallExpr &Call, ASTContext &Context) {
  const auto *Operator = dyn_cast<CXXOperatorCallExpr>(&Call);
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Call.getDirectCallee());
  if (!Operator || Operator->getOperator() != OO_Call || !Method ||
      !isStdFunction(*Method->getParent()) || Operator->getNumArgs() < 1)
    return nullptr;
  const auto *Ref =
      dyn_cast<DeclRefExpr>(Operator->getArg(0)->IgnoreParenImpCasts());
  const auto *Variable = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Variable || !Variable->hasLocalStorage() || !Variable->getInit())
    return nullptr;
  const auto *Lambda = dyn_cast<LambdaExpr>(heldValue(Variable->getInit()));
  const auto *Enclosing =
      dyn_cast_or_null<FunctionDecl>(Variable->getParentFunctionOrMethod());
  if (!Lambda || !Enclosing || !Enclosing->getBody())
    return nullptr;
  // Another value assigned to the variable may be called instead.
  auto Assigned = cxxOperatorCallExpr(
      hasOverloadedOperatorName("="),
      hasArgument(0, ignoringParenImpCasts(
                         declRefExpr(to(varDecl(equalsNode(Variable)))))));
  if (!match(findAll(Assigned.bind("assign")), *Enclosing->getBody(), Context)
           .empty())
    return nullptr;
  return Lambda->getCallOperator();
}

CallSite writtenCallSite(const CallExpr &Call, ASTContext &Context) {
  CallSite Site;
  Site.Anchor = &Call;
  Site.Callee = Call.getDirectCallee();
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    if (const auto *Conversion =
            dyn_cast_or_null<CXXConversionDecl>(Member->getMethodDecl())) {
      Site.Kind = CallSite::Conversion;
      Site.Description = "the conversion to '" +
                         Conversion->getConversionType().getAsString() + "'";
    }
    return Site;
  }
  if (const CXXMethodDecl *Lambda = storedLambda(Call, Context)) {
    Site.Kind = CallSite::StoredLambda;
    Site.Callee = Lambda;
    const auto *Ref = cast<DeclRefExpr>(
        cast<CXXOperatorCallExpr>(Call).getArg(0)->IgnoreParenImpCasts());
    Site.Description = "the lambda stored in " + quoted(*Ref->getDecl());
  }
  return Site;
}

} // namespace clang::tidy::torch_sync
