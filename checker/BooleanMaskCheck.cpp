//===--- BooleanMaskCheck.cpp - torch-sync-boolean-mask --------------------===//

#include "BooleanMaskCheck.h"
#include "RankInference.h"
#include "TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral IndexingId = "indexing";
constexpr llvm::StringLiteral MaskedSelectId = "masked-select";

/// What is known about a tensor's dtype, as far as being a mask goes.
enum class MaskKind { Mask, NotMask, Unknown };

/// Ops whose result is a bool tensor whatever their inputs.
bool returnsMask(StringRef Name) {
  return isInApiList(ApiList::MaskResults, Name);
}

/// Ops whose result is an integer index tensor, never a mask.
bool returnsIndices(StringRef Name) {
  return isInApiList(ApiList::IndexResults, Name);
}

/// Whether \p E names the bool or byte (uint8) scalar type: at::kBool,
/// torch::kByte, at::ScalarType::Bool.
bool namesMaskScalarType(const Expr *E) {
  E = E->IgnoreUnlessSpelledInSource();
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  if (!Ref)
    return false;
  if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
    if (Var->isConstexpr() && Var->getInit() && !Var->hasLocalStorage())
      return namesMaskScalarType(Var->getInit());
  const auto *Enumerator = dyn_cast<EnumConstantDecl>(Ref->getDecl());
  return Enumerator &&
         (Enumerator->getName() == "Bool" || Enumerator->getName() == "Byte");
}

/// Whether a TensorOptions / ScalarType argument \p E asks for a mask dtype:
/// 'at::kBool', 'TensorOptions().dtype(at::kBool)'.
bool optionsAskForMask(const Expr *E) {
  E = E->IgnoreUnlessSpelledInSource();
  if (namesMaskScalarType(E))
    return true;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() >= 1 &&
           optionsAskForMask(Construct->getArg(0));
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    if (Method && Method->getIdentifier() && Method->getName() == "dtype" &&
        Member->getNumArgs() == 1)
      return optionsAskForMask(Member->getArg(0));
    if (const Expr *Receiver = Member->getImplicitObjectArgument())
      return optionsAskForMask(Receiver);
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (const FunctionDecl *Callee = Call->getDirectCallee())
      if (Callee->getIdentifier() && Callee->getName() == "dtype" &&
          Call->getNumArgs() == 1)
        return optionsAskForMask(Call->getArg(0));
  return false;
}

/// A small dtype inference: is the tensor \p E a boolean (or byte) mask?
/// Comparisons, logical ops, isnan and friends, '.to(at::kBool)' and
/// factories with a bool dtype make masks; '&', '|', '^' and '~' keep them.
MaskKind maskKind(const Expr *E, DeviceInference &Devices, unsigned Depth = 0) {
  if (!E || Depth > 8)
    return MaskKind::Unknown;
  E = E->IgnoreUnlessSpelledInSource();
  if (E->isTypeDependent())
    return MaskKind::Unknown;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    const Expr *Value = Var ? Devices.singleValue(*Var) : nullptr;
    return Value ? maskKind(Value, Devices, Depth + 1) : MaskKind::Unknown;
  }
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
    switch (Operator->getOperator()) {
    case OO_EqualEqual:
    case OO_ExclaimEqual:
    case OO_Less:
    case OO_Greater:
    case OO_LessEqual:
    case OO_GreaterEqual:
      return MaskKind::Mask;
    case OO_Amp:
    case OO_Pipe:
    case OO_Caret:
    case OO_Tilde: {
      // A bitwise op of masks is a mask; of integers, an integer tensor.
      MaskKind Result = MaskKind::Mask;
      for (const Expr *Arg : Operator->arguments()) {
        if (!isTensorType(Arg->getType()))
          continue;
        MaskKind Operand = maskKind(Arg, Devices, Depth + 1);
        if (Operand != MaskKind::Mask)
          Result = Operand;
      }
      return Result;
    }
    default:
      return MaskKind::Unknown;
    }
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->getIdentifier() || !isTensorType(Call->getType()))
    return MaskKind::Unknown;
  StringRef Name = Callee->getName();
  if (returnsMask(Name))
    return MaskKind::Mask;
  if (returnsIndices(Name))
    return MaskKind::NotMask;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    if (Name == "to" && Member->getNumArgs() >= 1)
      return optionsAskForMask(Member->getArg(0)) ? MaskKind::Mask
                                                  : MaskKind::Unknown;
    // any(dim) / all(dim) reduce to bool; most other methods keep the dtype.
    if ((Name == "any" || Name == "all") && Member->getNumArgs() >= 1)
      return MaskKind::Mask;
    return MaskKind::Unknown;
  }
  // Factories: a bool dtype argument makes a mask; without one, ATen's and
  // the C++ frontend's factories make floating-point or integer tensors.
  bool HasTensorArgument = false;
  for (const Expr *Arg : Call->arguments()) {
    if (isTensorType(Arg->getType()))
      HasTensorArgument = true;
    else if (optionsAskForMask(Arg))
      return MaskKind::Mask;
  }
  const auto *NS = dyn_cast<NamespaceDecl>(Callee->getDeclContext());
  if (!HasTensorArgument && NS && NS->getIdentifier() &&
      (NS->getName() == "at" || NS->getName() == "torch"))
    return MaskKind::NotMask;
  return MaskKind::Unknown;
}

} // namespace

BooleanMaskCheck::BooleanMaskCheck(StringRef Name, ClangTidyContext *Context)
    : SyncCheckBase(Name, Context),
      ReportUnknownDtype(Options.get("ReportUnknownDtype", false)) {}

void BooleanMaskCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  SyncCheckBase::storeOptions(Opts);
  Options.store(Opts, "ReportUnknownDtype", ReportUnknownDtype);
}

void BooleanMaskCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The census-measured overloads classified under this check.
  registerMeasuredSyncMatchers(Finder, SyncCategory::BooleanMask);
  // The C++ indexing API: Tensor::index and Tensor::index_put_ with a list of
  // TensorIndex. The ATen-level overloads taking c10::List<optional<Tensor>>
  // are not matched (their index list is rarely written at the call).
  Finder->addMatcher(
      cxxMemberCallExpr(
          callee(cxxMethodDecl(tensorMethod({"index", "index_put_"}),
                               hasParameter(0, hasType(hasUnqualifiedDesugaredType(
                                                   recordType(hasDeclaration(
                                                       namedDecl(hasAnyName(
                                                           "ArrayRef",
                                                           "initializer_list"))))))))))
          .bind(IndexingId),
      this);
  Finder->addMatcher(
      callExpr(callee(functionDecl(anyOf(tensorMethod({"masked_select"}),
                                         hasName("::at::masked_select")))))
          .bind(MaskedSelectId),
      this);
}

void BooleanMaskCheck::checkSync(const MatchFinder::MatchResult &Result) {
  if (const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>(IndexingId))
    checkIndexing(*Call, *Result.Context);
  else if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>(MaskedSelectId))
    checkMaskedSelect(*Call, *Result.Context);
}

void BooleanMaskCheck::checkIndexing(const CXXMemberCallExpr &Call,
                                     ASTContext &Context) {
  const CXXMethodDecl *Method = Call.getMethodDecl();
  const Expr *Self = Call.getImplicitObjectArgument();
  if (!Method || !Self || Call.getNumArgs() == 0 ||
      !isReportablePlace(Call, Context))
    return;
  DeviceInference &Devices = devices(Context);
  const Expr *Mask = nullptr;
  for (const Expr *Index : tensorIndexElements(Call.getArg(0))) {
    MaskKind Kind = maskKind(Index, Devices);
    if (Kind == MaskKind::Mask ||
        (Kind == MaskKind::Unknown && ReportUnknownDtype)) {
      Mask = Index;
      break;
    }
  }
  if (!Mask)
    return;

  DeviceKind SelfDevice = Devices.tensorDevice(Self);
  if (SelfDevice == DeviceKind::CPU)
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::BooleanMask, *Method);
  if (!Fact)
    return;

  // A mask on the CPU indexing a device tensor: from 2.11 on (measured on the
  // GPU: samples/rules/boolean_mask.cpp), the mask's nonzero() runs on the
  // host and its indices go to the device without a wait (PyTorch PR
  // #156384). Earlier releases copied the indices with a blocking copy.
  if (Method->getName() == "index" && libTorchVersion() >= 211 &&
      Devices.tensorDevice(Mask) == DeviceKind::CPU)
    return;
  if (Method->getName() == "index_put_" && Call.getNumArgs() >= 2) {
    const Expr *Value = Call.getArg(1);
    if (!isTensorType(Value->getType())) {
      // A host Scalar: since 2.0 index_put_ turns the mask into masked_fill_
      // with a CPU scalar (async); up to 1.13 set_item built the scalar on the
      // tensor's device and took the nonzero path (ATen/TensorIndexing.h).
      if (libTorchVersion() >= 200)
        return;
    } else if (Devices.tensorDevice(Value) == DeviceKind::CPU) {
      // A CPU value goes to masked_fill_ with its one element.
      return;
    }
  }
  if (!isReportableDevice(SelfDevice))
    return;
  reportSync(Call, Method->getName(), Fact->Effect, Advice::of(*Fact), Context);
}

void BooleanMaskCheck::checkMaskedSelect(const CallExpr &Call,
                                         ASTContext &Context) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || !isReportablePlace(Call, Context))
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::BooleanMask, *Callee);
  if (!Fact)
    return;
  if (!isReportableDevice(devices(Context).inputsDevice(Call)))
    return;
  reportSync(Call, calleeName(Call, *Callee), Fact->Effect, Advice::of(*Fact),
             Context);
}

} // namespace clang::tidy::torch_sync
