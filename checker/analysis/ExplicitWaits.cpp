//===--- ExplicitWaits.cpp - when a CUDA call or Thrust algorithm waits ---===//

#include "analysis/ExplicitWaits.h"
#include "analysis/HostMemoryKind.h"
#include "analysis/device/DeviceInference.h"
#include "facts/SyncFacts.h"
#include "libtorch/ThrustPolicy.h"
#include "support/CallArguments.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"

namespace clang::tidy::torch_sync {

namespace {

/// Whether a CUDA runtime copy names 'cudaMemcpyDeviceToDevice' as its kind.
/// Such a copy does not wait for the host, according to the CUDA reference's
/// "API synchronization behavior".
bool isDeviceToDeviceCopy(const CallExpr &Call) {
  for (const Expr *Arg : Call.arguments()) {
    const auto *Ref = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts());
    const auto *Kind =
        Ref ? dyn_cast<EnumConstantDecl>(Ref->getDecl()) : nullptr;
    if (Kind && Kind->getName() == "cudaMemcpyDeviceToDevice")
      return true;
  }
  return false;
}

/// Whether a free ('cudaFree', 'cuMemFree', 'cudaFreeHost') is given a null
/// pointer, which frees nothing and does not wait: CUDA libraries call
/// 'cudaFree(nullptr)' to create the context.
bool freesNullPointer(const CallExpr &Call, ASTContext &Context) {
  if (Call.getNumArgs() == 0)
    return false;
  return Call.getArg(0)->IgnoreParenImpCasts()->isNullPointerConstant(
             Context, Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull;
}

/// Whether the Thrust search \p Callee ('thrust::lower_bound', 'upper_bound',
/// 'binary_search') is the vector form, which writes a result per value into
/// an output range: (first, last, values_first, values_last, result
/// [, comp]) after the policy, where the one-value form takes (first, last,
/// value [, comp]).
bool isThrustVectorSearch(const FunctionDecl &Callee) {
  unsigned Parameters = Callee.getNumParams();
  if (Parameters > 0) {
    const CXXRecordDecl *First = Callee.getParamDecl(0)
                                     ->getType()
                                     .getNonReferenceType()
                                     ->getAsCXXRecordDecl();
    // The policy parameter: 'thrust::detail::execution_policy_base<P>'.
    if (First && First->getIdentifier() &&
        First->getName().contains("execution_policy"))
      --Parameters;
  }
  return Parameters >= 5;
}

/// What the Thrust call \p Call of \p Fact does with a CUDA policy: a
/// search's vector form only launches, its one-value form returns to the host.
ThrustKind thrustCallKind(const CallExpr &Call, const SyncFact &Fact) {
  if (Fact.Thrust != ThrustKind::Searches)
    return Fact.Thrust;
  const FunctionDecl *Callee = Call.getDirectCallee();
  return Callee && isThrustVectorSearch(*Callee) ? ThrustKind::Launches
                                                 : ThrustKind::ReturnsToHost;
}

/// The first Thrust fact of an algorithm that only launches: its effect and
/// alternative are those of every such algorithm (sync-facts.yaml's
/// ThrustLaunchEffect and ThrustLaunchAlternative).
const SyncFact *thrustLaunchFact() {
  for (const SyncFact &F : syncFacts())
    if (F.Thrust == ThrustKind::Launches)
      return &F;
  return nullptr;
}

/// The enumerator of cudaMemcpyKind that the argument for the 'kind'
/// parameter of \p Call names ("cudaMemcpyDeviceToHost"), written or by
/// default; "" when the callee has no such parameter or the value is not a
/// constant.
StringRef copyKind(const CallExpr &Call, const FunctionDecl &Callee,
                   const ASTContext &Context) {
  const ParmVarDecl *Param = namedParameter(Callee, "kind");
  const Expr *Arg = namedArgument(Call, Callee, "kind");
  const auto *Enum = Param ? Param->getType()->getAs<EnumType>() : nullptr;
  Expr::EvalResult Value;
  if (!Arg || !Enum || Arg->isValueDependent() ||
      !Arg->EvaluateAsInt(Value, Context))
    return "";
  const EnumDecl *Decl = Enum->getDecl();
  if (const EnumDecl *Definition = Decl->getDefinition())
    Decl = Definition;
  for (const EnumConstantDecl *Kind : Decl->enumerators())
    if (llvm::APSInt::isSameValue(Kind->getInitVal(), Value.Val.getInt()))
      return Kind->getName();
  return "";
}

/// Whether the asynchronous copy \p Call (a fact with AsyncCopy) waits: it
/// copies from the device into pageable host memory (census-frontend.tsv:
/// 'cudaMemcpyAsync DtoH 1 MiB into pageable memory' waited; from pageable
/// memory to the device and with pinned memory it did not). The direction is
/// the 'kind' argument; with 'cudaMemcpyDefault', and for 'cuMemcpyAsync',
/// which takes none, the source must be device memory (a symbol or a CUDA
/// array always is). The target is the 'dst' (or 'dstHost') argument.
bool asyncCopyWaits(const CallExpr &Call, const FunctionDecl &Callee,
                    const SyncFact &Fact, DeviceInference &Devices,
                    ASTContext &Context) {
  const Expr *Target = namedArgument(Call, Callee, "dst");
  if (!Target)
    Target = namedArgument(Call, Callee, "dstHost");
  if (!Target)
    return false;
  bool SourceOnDevice = Fact.Function.contains("Symbol") ||
                        Fact.Function.contains("Array") ||
                        Fact.Function.contains("DtoH");
  if (namedParameter(Callee, "kind")) {
    StringRef Kind = copyKind(Call, Callee, Context);
    if (Kind != "cudaMemcpyDeviceToHost" && Kind != "cudaMemcpyDefault")
      return false;
    if (Kind == "cudaMemcpyDeviceToHost")
      SourceOnDevice = true;
  }
  if (!SourceOnDevice) {
    const Expr *Source = namedArgument(Call, Callee, "src");
    if (!Source ||
        hostMemoryKind(*Source, Devices, Context) != MemoryKind::Device)
      return false;
  }
  return hostMemoryKind(*Target, Devices, Context) == MemoryKind::Pageable;
}

} // namespace

const SyncFact *explicitWaitFact(const CallExpr &Call, const SyncFact &Fact,
                                 DeviceInference &Devices,
                                 ASTContext &Context) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee)
    return nullptr;
  if (Fact.NullPointerIsNoOp && freesNullPointer(Call, Context))
    return nullptr;
  if (Fact.AsyncCopy && !asyncCopyWaits(Call, *Callee, Fact, Devices, Context))
    return nullptr;
  // A Thrust algorithm waits only on the CUDA system, and one that returns
  // nothing from the device not with 'par_nosync' (ThrustPolicy.h).
  if (Fact.Thrust != ThrustKind::None) {
    ThrustPolicy Policy = thrustPolicy(Call);
    if (Policy == ThrustPolicy::Unknown || Policy == ThrustPolicy::Host ||
        (Policy == ThrustPolicy::CudaNoSync &&
         thrustCallKind(Call, Fact) == ThrustKind::Launches))
      return nullptr;
  }
  // A search's vector form says what a launch says (the Thrust launch facts
  // share their texts).
  if (Fact.Thrust == ThrustKind::Searches &&
      thrustCallKind(Call, Fact) == ThrustKind::Launches)
    if (const SyncFact *Launch = thrustLaunchFact())
      return Launch;
  // 'c10::cuda::memcpy_and_sync' waits for its stream whatever the kind.
  if (isGlobalName(Fact.Function) && isDeviceToDeviceCopy(Call))
    return nullptr;
  return &Fact;
}

} // namespace clang::tidy::torch_sync
