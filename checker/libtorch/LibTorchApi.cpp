//===--- LibTorchApi.cpp - what the checks know about LibTorch's classes --===//

#include "libtorch/LibTorchApi.h"
#include "facts/SyncFacts.h"
#include "libtorch/DeviceTypes.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch_sync {

namespace {

/// The class template specialization that \p T names (through references,
/// pointers to it when \p ThroughPointers, and sugar), or null.
const ClassTemplateSpecializationDecl *specialization(QualType T,
                                                      bool ThroughPointers) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType().getCanonicalType();
  if (ThroughPointers && T->isPointerType())
    T = T->getPointeeType().getCanonicalType();
  return dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsRecordDecl());
}

/// The type of template argument \p Index of \p Specialization, or null.
QualType typeArgument(const ClassTemplateSpecializationDecl &Specialization,
                      unsigned Index) {
  const TemplateArgumentList &Args = Specialization.getTemplateArgs();
  if (Index >= Args.size() || Args[Index].getKind() != TemplateArgument::Type)
    return QualType();
  return Args[Index].getAsType();
}

/// \p Record and its bases, depth first, each once at most (a bounded walk).
void collectClassAndBases(const CXXRecordDecl *Record,
                          SmallVectorImpl<const CXXRecordDecl *> &Out) {
  if (!Record || !Record->hasDefinition() || Out.size() > 32 ||
      llvm::is_contained(Out, Record))
    return;
  Record = Record->getDefinition();
  Out.push_back(Record);
  for (const CXXBaseSpecifier &Base : Record->bases())
    collectClassAndBases(Base.getType()->getAsCXXRecordDecl(), Out);
}

/// Whether every 'forward' member that \p Module declares or inherits (the
/// nearest class that declares one) takes its parameter \p Index by value or
/// by const reference. False when there is none, when one is a template, or
/// when the parameter is a non-const lvalue reference.
bool forwardTakesCopy(const CXXRecordDecl *Module, unsigned Index) {
  if (!Module)
    return false;
  // SequentialImpl::forward(InputTypes&&...) hands its inputs to
  // AnyModule::any_forward, which copies them (torch/nn/modules/container/
  // sequential.h, any.h).
  if (isNamedClass(Module, "SequentialImpl", {"torch", "nn"}))
    return true;
  SmallVector<const CXXRecordDecl *, 8> Classes;
  collectClassAndBases(Module, Classes);
  for (const CXXRecordDecl *Class : Classes) {
    bool Declared = false;
    for (const Decl *Member : Class->decls()) {
      const auto *Named = dyn_cast<NamedDecl>(Member);
      if (!Named || !Named->getIdentifier() || Named->getName() != "forward")
        continue;
      Declared = true;
      const auto *Method = dyn_cast<CXXMethodDecl>(Member);
      if (!Method) // a member template: its parameters are not known here
        return false;
      if (Index >= Method->getNumParams())
        continue;
      QualType Type = Method->getParamDecl(Index)->getType();
      if (Type->isLValueReferenceType() &&
          !Type.getNonReferenceType().isConstQualified())
        return false;
    }
    if (Declared)
      return true;
  }
  return false;
}

/// Whether \p Record derives from torch::data::datasets::BatchDataset (as
/// Dataset<Self> does).
bool isProjectDataset(const CXXRecordDecl *Record) {
  SmallVector<const CXXRecordDecl *, 8> Classes;
  collectClassAndBases(Record, Classes);
  return llvm::any_of(Classes, [](const CXXRecordDecl *Class) {
    return isNamedClass(Class, "BatchDataset", {"torch", "data", "datasets"});
  });
}

} // namespace

bool isNamedClass(const CXXRecordDecl *Record, StringRef Name,
                  ArrayRef<StringRef> Path) {
  return Record && Record->getIdentifier() && Record->getName() == Name &&
         isInNamespace(Record, Path);
}

bool isInNamespace(const Decl *D, ArrayRef<StringRef> Path) {
  if (!D)
    return false;
  SmallVector<StringRef, 4> Namespaces;
  for (const DeclContext *Context = D->getDeclContext(); Context;
       Context = Context->getParent()) {
    if (const auto *NS = dyn_cast<NamespaceDecl>(Context)) {
      if (!NS->getIdentifier())
        return false;
      Namespaces.push_back(NS->getName());
    }
  }
  if (Namespaces.size() < Path.size())
    return false;
  // Namespaces holds the innermost first.
  for (unsigned I = 0; I < Path.size(); ++I)
    if (Namespaces[Namespaces.size() - 1 - I] != Path[I])
      return false;
  return true;
}

const CXXRecordDecl *heldModule(QualType T) {
  if (T.isNull())
    return nullptr;
  SmallVector<const CXXRecordDecl *, 8> Classes;
  collectClassAndBases(T.getNonReferenceType()->getAsCXXRecordDecl(), Classes);
  for (const CXXRecordDecl *Class : Classes) {
    const auto *Holder = dyn_cast<ClassTemplateSpecializationDecl>(Class);
    if (!Holder || !isNamedClass(Holder, "ModuleHolder", {"torch", "nn"}))
      continue;
    QualType Contained = typeArgument(*Holder, 0);
    return Contained.isNull() ? nullptr : Contained->getAsCXXRecordDecl();
  }
  return nullptr;
}

bool isLibraryLeafModule(const CXXRecordDecl &Module) {
  if (!Module.getIdentifier() || !isInNamespace(&Module, {"torch", "nn"}))
    return false;
  return !isInApiList(ApiList::ContainerModules, Module.getName());
}

bool isLibraryModuleSequence(const CXXRecordDecl &Module) {
  return Module.getIdentifier() && isInNamespace(&Module, {"torch", "nn"}) &&
         isInApiList(ApiList::ModuleSequences, Module.getName());
}

bool isProjectModule(const CXXRecordDecl &Module) {
  const CXXRecordDecl *Definition = Module.getDefinition();
  if (!Definition)
    return false;
  for (const DeclContext *Context = Definition->getDeclContext(); Context;
       Context = Context->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(Context);
        NS && NS->getIdentifier() && NS->getName() == "torch" &&
        NS->getParent()->isTranslationUnit())
      return false;
  SmallVector<const CXXRecordDecl *, 8> Classes;
  collectClassAndBases(Definition, Classes);
  return llvm::any_of(Classes, [](const CXXRecordDecl *Class) {
    return isNamedClass(Class, "Module", {"torch", "nn"});
  });
}

bool mayCarryDevice(QualType T) {
  if (T.isNull())
    return false;
  QualType Canonical = T.getNonReferenceType().getCanonicalType();
  if (Canonical->isNullPtrType() || isTensorType(Canonical))
    return true;
  if (Canonical->isPointerType())
    Canonical = Canonical->getPointeeType().getCanonicalType();
  const auto *Record = Canonical->getAsCXXRecordDecl();
  if (!Record || !Record->getIdentifier())
    return false;
  StringRef Name = Record->getName();
  if (Name == "shared_ptr" || Name == "AnyModule" || Name == "Module" ||
      heldModule(Canonical))
    return true;
  // A list or optional of tensors (TensorList, std::vector<Tensor>,
  // c10::optional<Tensor>), or a module class.
  if (const auto *Specialization =
          dyn_cast<ClassTemplateSpecializationDecl>(Record))
    for (const TemplateArgument &Arg :
         Specialization->getTemplateArgs().asArray())
      if (Arg.getKind() == TemplateArgument::Type &&
          mayCarryDevice(Arg.getAsType()))
        return true;
  SmallVector<const CXXRecordDecl *, 8> Classes;
  collectClassAndBases(Record, Classes);
  return llvm::any_of(Classes, [](const CXXRecordDecl *Class) {
    return Class->getIdentifier() && Class->getName() == "Module" &&
           isInNamespace(Class, {"torch", "nn"});
  });
}

QualType loaderDataset(QualType Loader) {
  const ClassTemplateSpecializationDecl *Specialization =
      specialization(Loader, /*ThroughPointers=*/true);
  // std::unique_ptr<StatelessDataLoader<...>>, as make_data_loader returns it.
  if (Specialization && isNamedClass(Specialization, "unique_ptr", {"std"}))
    Specialization = specialization(typeArgument(*Specialization, 0), false);
  if (!Specialization)
    return QualType();
  for (StringRef Name : apiList(ApiList::DataLoaderClasses))
    if (isNamedClass(Specialization, Name, {"torch", "data"}))
      return typeArgument(*Specialization, 0);
  return QualType();
}

bool isProjectDatasetClass(const CXXRecordDecl &Record) {
  return !isInNamespace(&Record, {"torch"}) && isProjectDataset(&Record);
}

bool datasetYieldsCpu(
    QualType Dataset,
    llvm::function_ref<bool(const CXXRecordDecl &)> ProjectDatasetOnCpu) {
  for (unsigned Depth = 0; Depth < 16; ++Depth) {
    if (Dataset.isNull())
      return false;
    const auto *Record = Dataset.getNonReferenceType()->getAsCXXRecordDecl();
    if (!Record)
      return false;
    if (Record->getIdentifier() && Record->getName() == "MNIST" &&
        isInNamespace(Record, {"torch", "data", "datasets"}))
      return true;
    const auto *Map = dyn_cast<ClassTemplateSpecializationDecl>(Record);
    if (!Map || !isNamedClass(Map, "MapDataset", {"torch", "data", "datasets"}))
      return !isInNamespace(Record, {"torch"}) && isProjectDataset(Record) &&
             ProjectDatasetOnCpu(*Record);
    const auto *Transform = typeArgument(*Map, 1).isNull()
                                ? nullptr
                                : typeArgument(*Map, 1)->getAsCXXRecordDecl();
    if (!isNamedClass(Transform, "Normalize",
                      {"torch", "data", "transforms"}) &&
        !isNamedClass(Transform, "Stack", {"torch", "data", "transforms"}))
      return false;
    Dataset = typeArgument(*Map, 0);
  }
  return false;
}

bool datasetStacksBatches(QualType Dataset) {
  const ClassTemplateSpecializationDecl *Map = specialization(Dataset, false);
  if (!Map || !isNamedClass(Map, "MapDataset", {"torch", "data", "datasets"}))
    return false;
  QualType Transform = typeArgument(*Map, 1);
  return !Transform.isNull() &&
         isNamedClass(Transform->getAsCXXRecordDecl(), "Stack",
                      {"torch", "data", "transforms"});
}

bool isAtenOutParameter(const ParmVarDecl &Param) {
  const auto *Function = dyn_cast<FunctionDecl>(Param.getDeclContext());
  if (!Function || !Function->getIdentifier() || !isTensorType(Param.getType()))
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(Function->getDeclContext());
  if (!NS || !NS->getIdentifier() ||
      (NS->getName() != "at" && NS->getName() != "torch") ||
      !NS->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return false;
  StringRef Name = Function->getName();
  return Name.ends_with("_out") || Name.ends_with("_outf");
}

bool isTensorOptionsParameter(const ParmVarDecl &Param) {
  const auto *Method = dyn_cast<CXXMethodDecl>(Param.getDeclContext());
  const CXXRecordDecl *Class = Method ? Method->getParent() : nullptr;
  return Class && Class->getIdentifier() &&
         Class->getName() == "TensorOptions" && isInNamespace(Class, {"c10"});
}

bool isForwardedAsCopy(const ParmVarDecl &Param) {
  const auto *Method = dyn_cast<CXXMethodDecl>(Param.getDeclContext());
  if (!Method || !Method->getPrimaryTemplate())
    return false;
  const auto *Class =
      dyn_cast<ClassTemplateSpecializationDecl>(Method->getParent());
  const CXXRecordDecl *Parent = Method->getParent();
  unsigned Index = Param.getFunctionScopeIndex();
  // AnyModule::forward and any_forward: AnyValue(std::forward<T>(argument))
  // stores a decayed copy.
  if (isNamedClass(Parent, "AnyModule", {"torch", "nn"}))
    return true;
  if (isNamedClass(Parent, "SequentialImpl", {"torch", "nn"}) &&
      Method->getIdentifier() && Method->getName() == "forward")
    return true;
  if (!Class)
    return false;
  // ModuleHolder<M>::operator()(Args&&... args) returns
  // impl_->forward(std::forward<Args>(args)...).
  if (isNamedClass(Class, "ModuleHolder", {"torch", "nn"}) &&
      Method->getOverloadedOperator() == OO_Call) {
    QualType Module = typeArgument(*Class, 0);
    return !Module.isNull() &&
           forwardTakesCopy(Module->getAsCXXRecordDecl(), Index);
  }
  // Function<T>::apply(Args&&... args) calls
  // T::forward(&node->ctx_, std::forward<Args>(args)...).
  if (isNamedClass(Class, "Function", {"torch", "autograd"}) &&
      Method->getIdentifier() && Method->getName() == "apply") {
    QualType Derived = typeArgument(*Class, 0);
    return !Derived.isNull() &&
           forwardTakesCopy(Derived->getAsCXXRecordDecl(), Index + 1);
  }
  return false;
}

bool isComparisonOperator(OverloadedOperatorKind Kind) {
  switch (Kind) {
  case OO_EqualEqual:
  case OO_ExclaimEqual:
  case OO_Less:
  case OO_Greater:
  case OO_LessEqual:
  case OO_GreaterEqual:
    return true;
  default:
    return false;
  }
}

bool isElementwiseOperator(OverloadedOperatorKind Kind) {
  switch (Kind) {
  case OO_Plus:
  case OO_Minus:
  case OO_Star:
  case OO_Slash:
  case OO_Percent:
  case OO_Amp:
  case OO_Pipe:
  case OO_Caret:
    return true;
  default:
    return isComparisonOperator(Kind);
  }
}

} // namespace clang::tidy::torch_sync
