//===--- ThrustPolicy.cpp - where a Thrust algorithm call runs ------------===//

#include "libtorch/ThrustPolicy.h"
#include "support/CcclNamespaces.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch_sync {

namespace {

/// The names of the namespaces around \p D, innermost first, inline ones
/// (Thrust's ABI namespaces) left out, up to (and without) \p Outermost when
/// it is given.
llvm::SmallVector<StringRef, 4>
namespacesOf(const Decl &D, const NamespaceDecl *Outermost = nullptr) {
  llvm::SmallVector<StringRef, 4> Names;
  for (const DeclContext *Context = D.getDeclContext(); Context;
       Context = Context->getParent()) {
    if (Context == Outermost)
      break;
    if (const auto *Namespace = dyn_cast<NamespaceDecl>(Context))
      if (!Namespace->isInline() && Namespace->getIdentifier())
        Names.push_back(Namespace->getName());
  }
  return Names;
}

/// Whether \p Record is declared in Thrust's namespace, however a project
/// wraps it (CcclNamespaces.h), and, unless \p Systems is empty, inside one of
/// \p Systems there (Thrust's 'cuda_cub', 'cpp', 'omp', 'tbb', 'sequential').
bool isThrustRecordIn(const CXXRecordDecl &Record,
                      llvm::ArrayRef<StringRef> Systems) {
  const NamespaceDecl *Thrust = ccclNamespaceOf(Record);
  if (!Thrust || Thrust->getName() != "thrust")
    return false;
  if (Systems.empty())
    return true;
  return llvm::any_of(namespacesOf(Record, Thrust), [&](StringRef Name) {
    return llvm::is_contained(Systems, Name);
  });
}

/// \p Record and its bases, as far as their definitions are known.
llvm::SmallVector<const CXXRecordDecl *, 8>
recordAndBases(const CXXRecordDecl &Record) {
  llvm::SmallVector<const CXXRecordDecl *, 8> Records = {&Record};
  for (unsigned I = 0; I < Records.size(); ++I) {
    const CXXRecordDecl *Current = Records[I]->getDefinition();
    if (!Current || Records.size() > 32)
      continue;
    for (const CXXBaseSpecifier &Base : Current->bases())
      if (const CXXRecordDecl *BaseRecord =
              Base.getType()->getAsCXXRecordDecl())
        if (!llvm::is_contained(Records, BaseRecord))
          Records.push_back(BaseRecord);
  }
  return Records;
}

/// The policy that an execution policy type \p Record gives; Unknown when it
/// is none of Thrust's.
ThrustPolicy policyOfRecord(const CXXRecordDecl &Record) {
  bool Cuda = false, NoSync = false, Host = false;
  for (const CXXRecordDecl *R : recordAndBases(Record)) {
    if (!R->getIdentifier())
      continue;
    StringRef Name = R->getName();
    if (isThrustRecordIn(*R, {"cuda_cub"})) {
      // par_nosync_t and what its '.on(stream)' returns.
      if (Name == "par_nosync_t" ||
          Name.starts_with("execute_on_stream_nosync"))
        NoSync = true;
      if (Name == "execution_policy")
        Cuda = true;
    } else if (Name == "execution_policy" &&
               isThrustRecordIn(*R, {"cpp", "omp", "tbb", "sequential"})) {
      Host = true;
    }
  }
  if (Cuda)
    return NoSync ? ThrustPolicy::CudaNoSync : ThrustPolicy::CudaSynchronous;
  return Host ? ThrustPolicy::Host : ThrustPolicy::Unknown;
}

/// Whether \p Record is 'thrust::device_ptr<T>', or an iterator of
/// 'thrust::device_vector' ('thrust::detail::normal_iterator' over one).
bool isDeviceIterator(const CXXRecordDecl &Record) {
  if (!Record.getIdentifier() || !isThrustRecordIn(Record, {}))
    return false;
  if (Record.getName() == "device_ptr")
    return true;
  const auto *Iterator = dyn_cast<ClassTemplateSpecializationDecl>(&Record);
  if (!Iterator || Record.getName() != "normal_iterator" ||
      Iterator->getTemplateArgs().size() == 0 ||
      Iterator->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return false;
  const CXXRecordDecl *Pointer =
      Iterator->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  return Pointer && Pointer->getIdentifier() &&
         Pointer->getName() == "device_ptr" && isThrustRecordIn(*Pointer, {});
}

} // namespace

ThrustPolicy thrustPolicy(const CallExpr &Call) {
  if (Call.getNumArgs() == 0)
    return ThrustPolicy::Unknown;
  // The argument as written, before its conversion to the parameter's
  // 'execution_policy_base<Derived>' or a temporary's materialization.
  QualType Type = Call.getArg(0)->IgnoreParenImpCasts()->getType();
  if (Type.isNull() || Type->isDependentType())
    return ThrustPolicy::Unknown;
  Type = Type.getNonReferenceType();
  if (Type->isPointerType())
    return ThrustPolicy::Host; // a raw pointer is a host iterator
  const CXXRecordDecl *Record = Type->getAsCXXRecordDecl();
  if (!Record)
    return ThrustPolicy::Unknown;
  ThrustPolicy Policy = policyOfRecord(*Record);
  if (Policy != ThrustPolicy::Unknown)
    return Policy;
  if (isDeviceIterator(*Record))
    return ThrustPolicy::CudaSynchronous;
  // The iterators of the standard library's containers are host iterators.
  if (Record->isInStdNamespace() ||
      llvm::is_contained(namespacesOf(*Record), "__gnu_cxx"))
    return ThrustPolicy::Host;
  return ThrustPolicy::Unknown;
}

} // namespace clang::tidy::torch_sync
