//===--- DeviceToHostCheck.cpp - torch-sync-device-to-host -----------------===//

#include "DeviceToHostCheck.h"
#include "TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral TransferId = "transfer";
constexpr llvm::StringLiteral FactoryId = "factory";
constexpr llvm::StringLiteral CopyBeforeReadId = "copy-before-read";
constexpr llvm::StringLiteral ModuleTransferId = "module-transfer";

/// The direction of a copy, as far as the devices of both ends are known.
enum class Direction { None, DeviceToHost, HostToDevice, Unknown };

/// A copy from \p Source to \p Target blocks the host when it crosses between
/// host and device. An unknown end counts as possibly CUDA; a copy between two
/// unknown ends is most often device to device, and is not reported.
Direction copyDirection(DeviceKind Source, DeviceKind Target) {
  if (Target == DeviceKind::Unspecified || Source == Target)
    return Direction::None;
  if (Target == DeviceKind::CPU)
    return Direction::DeviceToHost;
  if (Source == DeviceKind::CPU)
    return Direction::HostToDevice;
  if (Target == DeviceKind::CUDA && Source == DeviceKind::Unknown)
    return Direction::HostToDevice;
  // From a CUDA tensor to an unknown device: the host, or another GPU.
  if (Source == DeviceKind::CUDA && Target == DeviceKind::Unknown)
    return Direction::Unknown;
  return Direction::None;
}

/// Whether the torch::tensor data argument is a single value (the scalar path
/// of TensorDataContainer fills the tensor on the device without a copy).
bool isScalarTensorData(const Expr *Data) {
  const auto *Construct =
      dyn_cast_or_null<CXXConstructExpr>(Data->IgnoreImplicit());
  if (!Construct || Construct->getNumArgs() != 1)
    return false;
  QualType Param =
      Construct->getConstructor()->getParamDecl(0)->getType().getNonReferenceType();
  if (Param->isArithmeticType())
    return true;
  const auto *Record = Param->getAsRecordDecl();
  return Record && Record->getIdentifier() &&
         (Record->getName() == "Half" || Record->getName() == "BFloat16" ||
          Record->getName() == "complex");
}
/// The variable that \p E names, after implicit nodes, or null.
const VarDecl *namedVariable(const Expr *E) {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreUnlessSpelledInSource()
                                                   : nullptr);
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// Whether the target of 't.to(X)' is taken from 't' itself: 't.to(t)',
/// 't.to(t.device())', 't.to(t.options())'. Such a call copies nothing.
bool targetIsReceiverItself(const CXXMemberCallExpr &Call) {
  const VarDecl *Receiver = namedVariable(Call.getImplicitObjectArgument());
  if (!Receiver || Call.getNumArgs() == 0)
    return false;
  const Expr *Target = Call.getArg(0)->IgnoreUnlessSpelledInSource();
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Target))
    Target = Member->getImplicitObjectArgument();
  return namedVariable(Target) == Receiver;
}

/// Whether 't.to(X)' converts between two tensors that provably share one
/// device: 'X' is 'u', 'u.options()' or 'u.device()' (or the dtype-only
/// variations of such options), and 't' and 'u' are both computed, on their
/// device, from the same variable (DeviceInference::deviceOrigin), as in
/// '(x - y).to(x.options())' or 'x.sum(0).to(torch::empty(n, x.options()))'.
bool targetSharesReceiverDevice(const CXXMemberCallExpr &Call,
                                DeviceInference &Devices) {
  const CXXMethodDecl *Method = Call.getMethodDecl();
  if (!Method || Call.getNumArgs() == 0 || Method->getNumParams() == 0)
    return false;
  // The argument that names the target: the first (a tensor, TensorOptions
  // or Device), else the one for the 'device' parameter.
  const Expr *Target = Call.getArg(0);
  for (const ParmVarDecl *Param : Method->parameters())
    if (Param->getIdentifier() && Param->getName() == "device" &&
        Param->getFunctionScopeIndex() < Call.getNumArgs() &&
        Param->getFunctionScopeIndex() != 0)
      Target = Call.getArg(Param->getFunctionScopeIndex());
  const VarDecl *Origin = Devices.deviceOrigin(Call.getImplicitObjectArgument());
  return Origin && Origin == Devices.targetOrigin(Target);
}
} // namespace

void DeviceToHostCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The census-measured overloads classified under this check.
  registerMeasuredSyncMatchers(Finder, SyncCategory::DeviceToHost);
  Finder->addMatcher(
      cxxMemberCallExpr(
          callee(tensorMethod(methodNames(SyncCategory::DeviceToHost))))
          .bind(TransferId),
      this);
  // The free functions: torch::tensor and at::tensor from host data, and
  // torch::save and torch::pickle_save of tensors.
  Finder->addMatcher(
      callExpr(callee(functionDecl(
                   hasAnyName(functionNames(SyncCategory::DeviceToHost)))),
               unless(cxxMemberCallExpr()))
          .bind(FactoryId),
      this);
  // 'model->to(device)': torch::nn::Module::to(Device, ...) and
  // torch::jit::Module::to(Device, ...) copy each parameter and buffer
  // (torch/csrc/api/src/nn/module.cpp, torch/csrc/jit/api/module.cpp); the
  // overloads taking only a dtype convert in place on the module's device.
  Finder->addMatcher(
      cxxMemberCallExpr(
          callee(cxxMethodDecl(hasAnyName(functionNames(SyncCategory::DeviceToHost)),
                               hasParameter(0, hasType(hasUnqualifiedDesugaredType(
                                                   recordType(hasDeclaration(
                                                       namedDecl(hasName("::c10::Device"))))))))))
          .bind(ModuleTransferId),
      this);
  // 't.cpu().item()': the copy of the whole tensor only serves to read one
  // element, which item() on the device tensor copies by itself. The read is
  // matched (and the copy remembered) before the copy inside it.
  Finder->addMatcher(
      cxxMemberCallExpr(
          callee(tensorMethod({"item"})),
          on(ignoringImplicit(
              cxxMemberCallExpr(callee(tensorMethod({"cpu"})), argumentCountIs(0))
                  .bind(CopyBeforeReadId)))),
      this);
}

void DeviceToHostCheck::onStartOfTranslationUnit() {
  SyncCheckBase::onStartOfTranslationUnit();
  CopiesBeforeRead.clear();
}

void DeviceToHostCheck::checkSync(const MatchFinder::MatchResult &Result) {
  if (const auto *Copy =
          Result.Nodes.getNodeAs<CXXMemberCallExpr>(CopyBeforeReadId)) {
    CopiesBeforeRead.insert(Copy);
    return;
  }
  if (const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>(TransferId))
    checkMemberTransfer(*Call, *Result.Context);
  else if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>(FactoryId))
    checkTensorFactory(*Call, *Result.Context);
  else if (const auto *Call =
               Result.Nodes.getNodeAs<CXXMemberCallExpr>(ModuleTransferId))
    checkModuleTransfer(*Call, *Result.Context);
}

void DeviceToHostCheck::checkMemberTransfer(const CXXMemberCallExpr &Call,
                                            ASTContext &Context) {
  const CXXMethodDecl *Method = Call.getMethodDecl();
  const Expr *Receiver = Call.getImplicitObjectArgument();
  if (!Method || !Receiver)
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::DeviceToHost, *Method);
  if (!Fact || !isReportablePlace(Call, Context))
    return;
  DeviceInference &Devices = devices(Context);
  // A non-blocking copy is not a sync (it may be a race; that is another
  // check's business). A non-constant 'non_blocking' is given the benefit of
  // the doubt.
  if (Devices.nonBlockingArgument(Call) != std::optional<bool>(false) &&
      Method->getName() != "cpu" && Method->getName() != "cuda")
    return;

  if (Method->getName() == "to" &&
      (targetIsReceiverItself(Call) || targetSharesReceiverDevice(Call, Devices)))
    return;
  DeviceKind Source = Devices.tensorDevice(Receiver);
  DeviceKind Target = Devices.transferTarget(Call);
  if (Method->getName() == "copy_") {
    if (Call.getNumArgs() == 0)
      return;
    // dst.copy_(src): the data flows from the argument into the receiver.
    Target = Source;
    Source = Devices.tensorDevice(Call.getArg(0));
    if (Target == DeviceKind::Unspecified)
      Target = DeviceKind::Unknown;
  }

  Direction Dir = copyDirection(Source, Target);
  DeviceKind Uncertain =
      (Source == DeviceKind::Unknown || Target == DeviceKind::Unknown)
          ? DeviceKind::Unknown
          : DeviceKind::CUDA;
  if (Dir == Direction::None && !(Source == DeviceKind::Unknown &&
                                  Target == DeviceKind::Unknown &&
                                  Method->getName() != "copy_"))
    return;
  if (!isReportableDevice(Uncertain))
    return;

  StringRef Effect = Fact->Effect;
  if (Method->getName() == "to" || Method->getName() == "copy_") {
    if (Dir == Direction::DeviceToHost)
      Effect = Method->getName() == "to" ? "copies the tensor to the host"
                                         : "copies device memory into a host "
                                           "tensor";
    else if (Dir == Direction::HostToDevice)
      Effect = Method->getName() == "to" ? "copies a host tensor to the device"
                                         : "copies host memory to the device";
    else
      Effect = "may copy the tensor between host and device";
  }
  // Dropping '.cpu()' before item() keeps every value and copies one element
  // instead of the tensor: a safe fix. The wait itself stays (item's).
  std::optional<FixItHint> Fix;
  if (CopiesBeforeRead.contains(&Call))
    if (const auto *Member = dyn_cast<MemberExpr>(Call.getCallee()))
      if (!Call.getBeginLoc().isMacroID() && !Call.getEndLoc().isMacroID())
        Fix = FixItHint::CreateRemoval(CharSourceRange::getTokenRange(
            Member->getOperatorLoc(), Call.getEndLoc()));
  reportSync(Call, Method->getName(), Effect, Advice::of(*Fact), Context, Fix);
}

void DeviceToHostCheck::checkTensorFactory(const CallExpr &Call,
                                           ASTContext &Context) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || Call.getNumArgs() < 1)
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::DeviceToHost, *Callee);
  if (!Fact || !isReportablePlace(Call, Context))
    return;
  DeviceInference &Devices = devices(Context);
  StringRef Name = Fact->Function.drop_front(2);
  if (Name == "torch::save" || Name == "torch::pickle_save") {
    // The value saved: a tensor on the host is written without a copy; a
    // module, a list or an IValue may hold device tensors.
    const Expr *Value = Call.getArg(0);
    DeviceKind Device = isTensorType(Value->getType())
                            ? Devices.tensorDevice(Value)
                            : DeviceKind::Unknown;
    if (Device == DeviceKind::CPU || !isReportableDevice(Device))
      return;
    reportSync(Call, Name, Fact->Effect, Advice::of(*Fact), Context);
    return;
  }
  // torch::tensor and at::tensor: the data, then the options.
  if (Call.getNumArgs() < 2)
    return;
  // A single value is filled in on the device by torch::tensor (the scalar
  // path of TensorDataContainer); at::tensor copies it from the host all the
  // same (census-frontend.tsv: 'at::tensor | one float').
  if (Name == "torch::tensor" && isScalarTensorData(Call.getArg(0)))
    return;
  DeviceKind Target = Devices.targetDevice(Call.getArg(1));
  if (Target == DeviceKind::Unspecified || !isReportableDevice(Target))
    return;
  reportSync(Call, Name, Fact->Effect, Advice::of(*Fact), Context);
}

void DeviceToHostCheck::checkModuleTransfer(const CXXMemberCallExpr &Call,
                                            ASTContext &Context) {
  const CXXMethodDecl *Method = Call.getMethodDecl();
  if (!Method || Call.getNumArgs() == 0 || !isReportablePlace(Call, Context))
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::DeviceToHost, *Method);
  if (!Fact)
    return;
  DeviceInference &Devices = devices(Context);
  // As for tensors: a non-blocking (or possibly non-blocking) move is left
  // alone.
  if (Devices.nonBlockingArgument(Call) != std::optional<bool>(false))
    return;
  // Modules are built on the host: a move to the CPU is most often a no-op,
  // and a move back from the device is rare enough to need a known target.
  DeviceKind Target = Devices.targetDevice(Call.getArg(0));
  if (Target == DeviceKind::Unspecified || Target == DeviceKind::CPU ||
      !isReportableDevice(Target))
    return;
  reportSync(Call, Fact->Function.drop_front(2), Fact->Effect,
             Advice::of(*Fact), Context);
}

} // namespace clang::tidy::torch_sync
