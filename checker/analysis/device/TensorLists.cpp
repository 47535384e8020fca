//===--- TensorLists.cpp - where the tensors of a std::vector come from ---===//

#include "analysis/device/TensorLists.h"
#include "analysis/device/DeviceWrites.h"
#include "facts/SyncFacts.h"
#include "libtorch/DeviceTypes.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {

/// Whether \p T is a std::vector of tensors.
bool isTensorVector(QualType T) {
  return isTensorList(T) && libraryRecordName(T) == "vector";
}

/// The tensor that the call \p Call of api list tensor_list_pieces cuts into
/// pieces: the receiver of 'x.chunk(2)', the first tensor argument of
/// 'at::split(x, 3)'; null for any other call.
const Expr *piecesSource(const CallExpr &Call) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || !Callee->getIdentifier() || !isLibraryFunction(*Callee) ||
      !isInApiList(ApiList::TensorListPieces, Callee->getName()))
    return nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const Expr *Receiver = Member->getImplicitObjectArgument();
    return Receiver && isTensorType(Receiver->getType()) ? Receiver : nullptr;
  }
  StringRef NS = topLevelNamespace(Callee);
  if (NS != "at" && NS != "torch")
    return nullptr;
  for (const Expr *Arg : Call.arguments())
    if (isTensorType(Arg->getType()))
      return Arg;
  return nullptr;
}

} // namespace

bool TensorLists::elementSources(const Expr *List, unsigned Depth,
                                 SmallVectorImpl<const Expr *> &Sources) {
  const Expr *E = strip(List);
  if (!E || Depth > MaxDeviceDepth || E->isTypeDependent() ||
      E->containsErrors())
    return false;
  // '{a, b}' for a vector or an at::TensorList.
  if (const InitListExpr *Braced = bracedList(E)) {
    for (const Expr *Element : Braced->inits()) {
      if (!isTensorType(Element->getType()))
        return false;
      Sources.push_back(Element);
    }
    return Braced->getNumInits() > 0;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    return Var && localVectorSources(*Var, Depth + 1, Sources);
  }
  // A copy or move of another vector.
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 1 &&
           isTensorList(Construct->getArg(0)->getType()) &&
           elementSources(Construct->getArg(0), Depth + 1, Sources);
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee)
    return false;
  // 'x.chunk(2)', 'at::unbind(x)': pieces on x's device.
  if (const Expr *Source = piecesSource(*Call)) {
    Sources.push_back(Source);
    return true;
  }
  // A function of the translation unit (not LibTorch's, not the standard
  // library's, not virtual): what each of its returns holds.
  const FunctionDecl *Definition = Callee->getDefinition();
  const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
  if (!Definition || !Definition->getBody() || isLibraryFunction(*Callee) ||
      Callee->isInStdNamespace() || (Method && Method->isVirtual()) ||
      Definition->isDependentContext() ||
      Callee->getReturnType()->isReferenceType())
    return false;
  SmallVector<const Expr *, 4> Returns = returnValues(*Definition, Context);
  for (const Expr *Value : Returns)
    if (!Value || !elementSources(Value, Depth + 1, Sources))
      return false;
  return !Returns.empty();
}

bool TensorLists::localVectorSources(const VarDecl &Var, unsigned Depth,
                                     SmallVectorImpl<const Expr *> &Sources) {
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  if (isa<ParmVarDecl>(Var) || !Var.hasLocalStorage() ||
      Var.getType()->isReferenceType() || !isTensorVector(Var.getType()) ||
      !Function || !Function->getBody() || !Var.getInit() ||
      Depth > MaxDeviceDepth)
    return false;
  auto Cached = VectorCache.find(&Var);
  if (Cached != VectorCache.end()) {
    if (!Cached->second)
      return false;
    Sources.append(Cached->second->begin(), Cached->second->end());
    return true;
  }
  VectorCache[&Var] = SmallVector<const Expr *, 4>(); // in progress
  SmallVector<const Expr *, 4> Found;
  bool Known = true;
  // Its initializer: none for 'std::vector<at::Tensor> v;'.
  const auto *Init =
      dyn_cast<CXXConstructExpr>(Var.getInit()->IgnoreImplicit());
  if (!Init || Init->getNumArgs() != 0)
    Known = elementSources(Var.getInit(), Depth + 1, Found);

  const Stmt &Body = *Function->getBody();
  auto Ref = ignoringParenImpCasts(refersTo(Var).bind("ref"));
  auto ReadOnly = parmVarDecl(
      hasType(qualType(anyOf(referenceType(pointee(isConstQualified())),
                             unless(anyOf(referenceType(), pointerType()))))));
  // The reads of one element; their writes are looked for below.
  auto Element = expr(anyOf(
      cxxOperatorCallExpr(hasOverloadedOperatorName("[]"), hasArgument(0, Ref)),
      cxxMemberCallExpr(
          on(Ref), callee(cxxMethodDecl(hasAnyName("at", "front", "back"))))));
  // The uses that neither replace the vector nor write its elements: a push
  // of a tensor, its size, a copy or const reference for a callee
  // (at::TensorList, at::ITensorListRef), a read of an element, a range-based
  // for over it, its return.
  auto Uses = findAll(stmt(anyOf(
      cxxMemberCallExpr(
          on(Ref),
          callee(cxxMethodDecl(hasAnyName("push_back", "emplace_back"))),
          argumentCountIs(1), hasArgument(0, expr().bind("element"))),
      cxxMemberCallExpr(on(Ref), callee(cxxMethodDecl(hasAnyName(
                                     "size", "empty", "reserve", "capacity")))),
      callExpr(forEachArgumentWithParam(Ref, ReadOnly)),
      cxxConstructExpr(forEachArgumentWithParam(Ref, ReadOnly)),
      // The list views of c10 refer to the vector and never write it
      // (c10/util/ArrayRef.h, c10/core/IListRef.h), whatever the constructor
      // takes.
      cxxConstructExpr(hasDeclaration(cxxConstructorDecl(ofClass(
                           hasAnyName("::c10::ArrayRef", "::c10::IListRef",
                                      "::c10::OptionalArrayRef")))),
                       hasArgument(0, Ref)),
      Element,
      cxxForRangeStmt(hasRangeInit(Ref),
                      hasLoopVariable(varDecl().bind("loop"))),
      // 'return v;', through the (elided) copy or move.
      returnStmt(hasReturnValue(ignoringImplicit(anyOf(
          Ref, cxxConstructExpr(argumentCountIs(1), hasArgument(0, Ref)))))))));
  llvm::SmallPtrSet<const DeclRefExpr *, 8> Kept;
  for (const BoundNodes &Nodes : match(Uses, Body, Context)) {
    Kept.insert(Nodes.getNodeAs<DeclRefExpr>("ref"));
    if (const auto *Pushed = Nodes.getNodeAs<Expr>("element")) {
      if (isTensorType(Pushed->getType()))
        Found.push_back(Pushed);
      else
        Known = false;
    }
    // A loop variable that is a non-const reference writes the elements
    // when it is written.
    if (const auto *Loop = Nodes.getNodeAs<VarDecl>("loop")) {
      QualType T = Loop->getType();
      if (T->isLValueReferenceType() &&
          !T.getNonReferenceType().isConstQualified() &&
          !Writes.isNeverWritten(*Loop))
        Known = false;
    }
  }
  for (const BoundNodes &Nodes :
       match(findAll(refersTo(Var).bind("ref")), Body, Context))
    if (!Kept.contains(Nodes.getNodeAs<DeclRefExpr>("ref")))
      Known = false;
  // 'v[0] = y', 'v.at(0).set_(y)', 'at::Tensor &r = v.front()'.
  if (Known && !match(writesTo(Element), Body, Context).empty())
    Known = false;
  if (!Known) {
    VectorCache[&Var] = std::nullopt;
    return false;
  }
  VectorCache[&Var] = Found;
  Sources.append(Found.begin(), Found.end());
  return true;
}

const Expr *TensorLists::elementList(const Expr *E) const {
  if (!E || !isTensorType(E->getType()))
    return nullptr;
  const Expr *List = nullptr;
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
      Operator && Operator->getOperator() == OO_Subscript &&
      Operator->getNumArgs() == 2)
    List = Operator->getArg(0);
  else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
    if (const CXXMethodDecl *Method = Member->getMethodDecl();
        Method && Method->getIdentifier() &&
        (Method->getName() == "at" || Method->getName() == "front" ||
         Method->getName() == "back"))
      List = Member->getImplicitObjectArgument();
  return List && isTensorVector(List->getType()) ? List : nullptr;
}

const Expr *TensorLists::loopRange(const VarDecl &Var) const {
  for (const DynTypedNode &Parent : Context.getParents(Var)) {
    const auto *Declaration = Parent.get<DeclStmt>();
    if (!Declaration)
      continue;
    for (const DynTypedNode &Loop : Context.getParents(*Declaration))
      if (const auto *For = Loop.get<CXXForRangeStmt>();
          For && For->getLoopVariable() == &Var && For->getRangeInit() &&
          isTensorList(For->getRangeInit()->getType()))
        return For->getRangeInit();
  }
  return nullptr;
}

} // namespace clang::tidy::torch_sync
