//===--- DeviceTypes.cpp --------------------------------------------------===//
//
// The types and callees the device inference knows.

#include "libtorch/DeviceTypes.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

namespace clang::tidy::torch_sync {

StringRef topLevelNamespace(const Decl *D) {
  const auto *NS = dyn_cast_or_null<NamespaceDecl>(D->getDeclContext());
  if (!NS || !NS->getIdentifier() ||
      !NS->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return "";
  return NS->getName();
}

StringRef libraryRecordName(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  const auto *Record = T->getAsRecordDecl();
  if (!Record || !Record->getIdentifier())
    return "";
  StringRef NS = topLevelNamespace(Record);
  if (NS != "at" && NS != "c10" && NS != "caffe2" && NS != "std")
    return "";
  return Record->getName();
}

StringRef libraryEnumName(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  const auto *Enum = T->getAs<EnumType>();
  if (!Enum)
    return "";
  const EnumDecl *D = Enum->getDecl();
  StringRef NS = topLevelNamespace(D);
  if ((NS != "c10" && NS != "at") || !D->getIdentifier())
    return "";
  return D->getName();
}

bool namesNoDevice(QualType T) {
  StringRef Enum = libraryEnumName(T);
  if (Enum == "ScalarType" || Enum == "Layout" || Enum == "MemoryFormat")
    return true;
  return libraryRecordName(T) == "TypeMeta" || T->isBooleanType();
}

bool namesDeviceValue(QualType T) {
  StringRef Record = libraryRecordName(T);
  return Record == "Device" || Record == "TensorOptions" ||
         libraryEnumName(T) == "DeviceType";
}

const Expr *strip(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreUnlessSpelledInSource()->IgnoreParens();
    if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(Next))
      Next = Default->getExpr();
    // 'torch::Device("cpu")' and 'at::Tensor(t)' are written casts.
    else if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(Next))
      Next = Cast->getSubExpr();
    if (Next == E)
      break;
    E = Next;
  }
  return E;
}

bool isStdPairOrTuple(QualType T) {
  const auto *Record =
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  return Record && Record->isInStdNamespace() && Record->getIdentifier() &&
         (Record->getName() == "pair" || Record->getName() == "tuple");
}

bool isTensorList(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  const auto *Specialization =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(T->getAsRecordDecl());
  if (!Specialization || Specialization->getTemplateArgs().size() == 0)
    return false;
  const TemplateArgument &First = Specialization->getTemplateArgs()[0];
  return First.getKind() == TemplateArgument::Type &&
         isTensorType(First.getAsType());
}

bool isLibraryFunction(const FunctionDecl &Callee) {
  const Decl *Owner = &Callee;
  if (const auto *Method = dyn_cast<CXXMethodDecl>(&Callee))
    Owner = Method->getParent();
  StringRef NS = topLevelNamespace(Owner);
  return NS == "at" || NS == "c10" || NS == "torch";
}

const InitListExpr *bracedList(const Expr *E) {
  for (const Expr *Inner = E; Inner;) {
    Inner = Inner->IgnoreImplicit();
    if (const auto *List = dyn_cast<InitListExpr>(Inner))
      return List;
    if (const auto *Std = dyn_cast<CXXStdInitializerListExpr>(Inner))
      Inner = Std->getSubExpr();
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(Inner))
      Inner = Construct->getNumArgs() >= 1 ? Construct->getArg(0) : nullptr;
    else if (const auto *Temporary = dyn_cast<MaterializeTemporaryExpr>(Inner))
      Inner = Temporary->getSubExpr();
    else
      Inner = nullptr;
  }
  return nullptr;
}

bool isTensorType(QualType T) {
  if (T.isNull())
    return false;
  StringRef Name = libraryRecordName(T);
  if (Name != "Tensor" && Name != "TensorBase")
    return false;
  return topLevelNamespace(
             T.getNonReferenceType().getCanonicalType()->getAsRecordDecl()) ==
         "at";
}

llvm::SmallVector<const Expr *, 4> returnValues(const FunctionDecl &Definition,
                                                ASTContext &Context) {
  using namespace ast_matchers;
  llvm::SmallVector<const Expr *, 4> Values;
  if (!Definition.getBody())
    return Values;
  // 'forFunction' names the innermost function or lambda around the return,
  // so a lambda's returns are not the definition's.
  for (const BoundNodes &Nodes : match(
           findAll(
               returnStmt(forFunction(equalsNode(&Definition))).bind("return")),
           *Definition.getBody(), Context))
    Values.push_back(Nodes.getNodeAs<ReturnStmt>("return")->getRetValue());
  return Values;
}

} // namespace clang::tidy::torch_sync
