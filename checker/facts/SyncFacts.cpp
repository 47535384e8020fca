//===--- SyncFacts.cpp - the table of synchronizing LibTorch calls --------===//
//
// The lookups over the generated table (SyncFactsTable.inc, made at build time
// by checker/facts/generate_facts.py from the text files in checker/facts/).
//
//===----------------------------------------------------------------------===//

#include "facts/SyncFacts.h"
#include "support/CcclNamespaces.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include <optional>

namespace clang::tidy::torch_sync {

namespace {

/// The advice of one use (sync-facts.yaml 'advice_by_use').
struct UseAdvice {
  ValueUse Use;
  llvm::StringRef Alternative;
};

// The generated initialisers name each field (designated initialisers, in
// the order of SyncFacts.h): one out of order or missing is an error here.
#pragma clang diagnostic push
#pragma clang diagnostic error "-Wreorder-init-list"
#pragma clang diagnostic error "-Wmissing-field-initializers"
#include "SyncFactsTable.inc"
#pragma clang diagnostic pop

bool isTensorClass(const CXXRecordDecl *Record) {
  if (!Record || !Record->getIdentifier())
    return false;
  StringRef Name = Record->getName();
  if (Name != "Tensor" && Name != "TensorBase")
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(Record->getDeclContext());
  return NS && NS->getName() == "at" &&
         NS->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

/// The template or class name of \p Type's declaration, after sugar and
/// qualifiers ("optional" of std::optional<at::Tensor>), with its first
/// template argument's type when there is one.
std::pair<StringRef, QualType> recordName(QualType Type) {
  const auto *Record = Type->getAsCXXRecordDecl();
  if (!Record || !Record->getIdentifier())
    return {"", QualType()};
  QualType First;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(Record)) {
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    if (Args.size() > 0 && Args[0].getKind() == TemplateArgument::Type)
      First = Args[0].getAsType();
  }
  return {Record->getName(), First};
}

/// The kind of a scalar or tensor element type ("T", "S", "i", "f", "b",
/// "dt"), without the optional or list decoration, or "" when it is none.
std::string elementKind(QualType Type) {
  Type = Type.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (Type->isBooleanType())
    return "b";
  if (Type->isIntegerType() && !Type->isEnumeralType())
    return "i";
  if (Type->isRealFloatingType())
    return "f";
  auto [Name, First] = recordName(Type);
  if (Name == "Tensor" || Name == "TensorBase")
    return "T";
  if (Name == "Scalar")
    return "S";
  if (Name == "SymInt")
    return "i";
  if (const auto *Enum = Type->getAs<EnumType>())
    if (Enum->getDecl()->getName() == "ScalarType")
      return "dt";
  return "";
}

} // namespace

std::string parameterKind(QualType Type) {
  if (Type.isNull())
    return "o";
  QualType Bare =
      Type.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  std::string Element = elementKind(Bare);
  if (!Element.empty())
    return Element;
  auto [Name, First] = recordName(Bare);
  if (Name == "TensorOptions")
    return "opts";
  // std::optional<X> and c10::optional<X>: X?; c10::OptionalArrayRef<int64_t>
  // and OptionalArrayRef<SymInt>: i[]?.
  if (Name == "optional" && !First.isNull()) {
    std::string Inner = parameterKind(First);
    return Inner == "o" ? "o" : Inner + "?";
  }
  if (Name == "OptionalArrayRef" && !First.isNull() &&
      elementKind(First) == "i")
    return "i[]?";
  // c10::ArrayRef<X> (IntArrayRef, SymIntArrayRef, TensorList),
  // c10::IListRef<Tensor> (ITensorListRef) and c10::List<optional<Tensor>>.
  if ((Name == "ArrayRef" || Name == "IListRef" || Name == "List") &&
      !First.isNull()) {
    std::string Inner = parameterKind(First);
    if (Inner == "i" || Inner == "T" || Inner == "T?")
      return Inner + "[]";
  }
  return "o";
}

llvm::ArrayRef<SyncFact> syncFacts() { return GeneratedFacts; }

llvm::ArrayRef<MeasuredSync> measuredSyncs() { return GeneratedMeasuredSyncs; }

llvm::StringRef useAlternative(ValueUse Use) {
  for (const UseAdvice &Advice : GeneratedUseAdvice)
    if (Advice.Use == Use)
      return Advice.Alternative;
  return "";
}

llvm::ArrayRef<llvm::StringRef> apiList(ApiList List) {
  return generatedApiList(List);
}

bool isInApiList(ApiList List, llvm::StringRef Name) {
  return llvm::is_contained(apiList(List), Name);
}

std::vector<llvm::StringRef> methodNames(SyncCategory Category) {
  std::vector<llvm::StringRef> Names;
  for (const SyncFact &F : syncFacts())
    if (F.Category == Category && !F.Method.empty())
      Names.push_back(F.Method);
  return Names;
}

std::vector<llvm::StringRef> functionNames(SyncCategory Category) {
  std::vector<llvm::StringRef> Names;
  for (const SyncFact &F : syncFacts())
    if (F.Category == Category && !F.Function.empty())
      Names.push_back(F.Function);
  return Names;
}

bool isGlobalName(StringRef QualifiedName) {
  return QualifiedName.starts_with("::") &&
         !QualifiedName.drop_front(2).contains("::");
}

std::vector<std::string> declaredFunctionNames(SyncCategory Category) {
  std::vector<std::string> Names;
  for (StringRef Name : functionNames(Category)) {
    // Thrust's and CUB's names match under any wrapping namespace
    // ('dgl::thrust::reduce'); findSyncFact tells CCCL's from others.
    if (Name.starts_with("::thrust::") || Name.starts_with("::cub::")) {
      Names.push_back(Name.drop_front(2).str());
      continue;
    }
    Names.push_back(Name.str());
    if (isGlobalName(Name))
      for (StringRef Suffix : apiList(ApiList::CudaApiNameSuffixes))
        Names.push_back((Name + Suffix).str());
  }
  return Names;
}

namespace {
/// The documented qualified name of a CUDA API function declared under a
/// suffixed name ('::cuMemcpyDtoH' of 'cuMemcpyDtoH_v2'; api list
/// cuda_api_name_suffixes), or std::nullopt for any other function.
std::optional<std::string> documentedCudaName(const FunctionDecl &Callee) {
  if (!Callee.getIdentifier() ||
      !Callee.getDeclContext()->getRedeclContext()->isTranslationUnit())
    return std::nullopt;
  StringRef Name = Callee.getName();
  for (StringRef Suffix : apiList(ApiList::CudaApiNameSuffixes))
    if (Name.consume_back(Suffix))
      return ("::" + Name).str();
  return std::nullopt;
}
} // namespace

const SyncFact *findSyncFact(SyncCategory Category,
                             const FunctionDecl &Callee) {
  const auto *Method = dyn_cast<CXXMethodDecl>(&Callee);
  if (Method && isTensorClass(Method->getParent())) {
    // Operators have no identifier: "operator[]".
    std::string Name = Method->getNameAsString();
    for (const SyncFact &F : syncFacts())
      if (F.Category == Category && F.Method == Name)
        return &F;
    return nullptr;
  }
  // A member of another class is named by its qualified name, like a free
  // function ("::c10::cuda::CUDAStream::synchronize"); Thrust's algorithms by
  // their unwrapped one ("::thrust::reduce" for 'dgl::thrust::reduce').
  std::string Qualified = "::" + unwrappedQualifiedName(Callee);
  for (const SyncFact &F : syncFacts())
    if (F.Category == Category && F.Function == Qualified)
      return &F;
  // A CUDA API function declared under a suffixed name (cuMemcpyDtoH_v2).
  std::optional<std::string> Documented = documentedCudaName(Callee);
  if (!Documented)
    return nullptr;
  for (const SyncFact &F : syncFacts())
    if (F.Category == Category && F.Function == *Documented)
      return &F;
  return nullptr;
}

const SyncFact *findAnySyncFact(const FunctionDecl &Callee) {
  for (SyncCategory Category : AllSyncCategories)
    if (const SyncFact *Fact = findSyncFact(Category, Callee))
      return Fact;
  return nullptr;
}

const MeasuredSync *findMeasuredSync(const FunctionDecl &Callee) {
  if (!Callee.getIdentifier() || findAnySyncFact(Callee))
    return nullptr;
  const auto *Method = dyn_cast<CXXMethodDecl>(&Callee);
  bool IsTensorMethod = Method && isTensorClass(Method->getParent());
  if (Method && !IsTensorMethod)
    return nullptr;
  if (!IsTensorMethod) {
    // A function of namespace at or torch itself.
    const auto *NS = dyn_cast<NamespaceDecl>(Callee.getDeclContext());
    if (!NS || !NS->getIdentifier() ||
        (NS->getName() != "at" && NS->getName() != "torch") ||
        !NS->getDeclContext()->getRedeclContext()->isTranslationUnit())
      return nullptr;
  }
  StringRef Name = Callee.getName();
  std::string Kinds;
  for (const ParmVarDecl *Param : Callee.parameters()) {
    if (!Kinds.empty())
      Kinds += ",";
    Kinds += parameterKind(Param->getType());
  }
  for (const MeasuredSync &M : measuredSyncs())
    if (M.Method == IsTensorMethod && M.CppName == Name && M.Kinds == Kinds)
      return &M;
  return nullptr;
}

llvm::ArrayRef<CaptureFact> captureFacts() { return GeneratedCaptureFacts; }

const CaptureFact *findCaptureFact(const FunctionDecl &Callee) {
  std::string Qualified = "::" + Callee.getQualifiedNameAsString();
  std::optional<std::string> Documented = documentedCudaName(Callee);
  for (const CaptureFact &F : captureFacts())
    if (!F.Function.empty() &&
        (F.Function == Qualified || (Documented && F.Function == *Documented)))
      return &F;
  return nullptr;
}

const CaptureFact *findCaptureLaunchFact(CaptureLaunch Launch) {
  for (const CaptureFact &F : captureFacts())
    if (F.Launch == Launch)
      return &F;
  return nullptr;
}

bool isApiListFunction(ApiList List, const FunctionDecl &Callee) {
  if (!Callee.getIdentifier())
    return false;
  if (isInApiList(List, "::" + Callee.getQualifiedNameAsString()))
    return true;
  std::optional<std::string> Documented = documentedCudaName(Callee);
  return Documented && isInApiList(List, *Documented);
}

} // namespace clang::tidy::torch_sync
