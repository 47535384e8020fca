//===--- CallSync.cpp - does this call synchronize? -----------------------===//

#include "analysis/CallSync.h"
#include "analysis/ExplicitWaits.h"
#include "analysis/device/RankInference.h"
#include "libtorch/LibTorchApi.h"
#include "support/CallArguments.h"
#include "support/EnclosingContext.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/StringSet.h"

namespace clang::tidy::torch_sync {

namespace {

//===-- Arguments ---------------------------------------------------------===//

/// The argument of \p Call for the parameter named \p Name, when that
/// parameter is a tensor; null otherwise (the Scalar overload).
const Expr *tensorArgument(const CallExpr &Call, const FunctionDecl &Callee,
                           StringRef Name) {
  const ParmVarDecl *Param = namedParameter(Callee, Name);
  if (!Param || !isTensorType(Param->getType()))
    return nullptr;
  return namedArgument(Call, Callee, Name);
}

/// The receiver of a member call, or null.
const Expr *receiver(const CallExpr &Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  return Member ? Member->getImplicitObjectArgument() : nullptr;
}

/// The tensor a call computes from first: its tensor receiver, else its
/// first tensor argument; null when there is none.
const Expr *firstInput(const CallExpr &Call) {
  if (const Expr *Receiver = receiver(Call))
    if (isTensorType(Receiver->getType()))
      return Receiver;
  for (const Expr *Arg : Call.arguments())
    if (isTensorType(Arg->getType()))
      return Arg;
  return nullptr;
}

/// The value an argument is made from: through a default argument (its
/// default expression), implicit conversions and temporaries, parentheses,
/// and constructors from one value ('at::Scalar(0.5)', the conversion of '5'
/// to c10::optional<int64_t>).
const Expr *writtenValue(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    const Expr *Next = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(Next))
      Next = Default->getExpr();
    else if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(Next))
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

/// The value of the argument \p Arg when it is a constant number (a literal,
/// a constexpr variable, a default argument), as a double; std::nullopt when
/// it is not a constant.
std::optional<double> constantNumber(const Expr *Arg,
                                     const ASTContext &Context) {
  const Expr *E = Arg ? writtenValue(Arg) : nullptr;
  if (!E || E->isValueDependent() || E->isTypeDependent() ||
      E->containsErrors() || !E->getType()->isArithmeticType())
    return std::nullopt;
  Expr::EvalResult Result;
  if (!E->EvaluateAsRValue(Result, Context) || Result.HasSideEffects)
    return std::nullopt;
  const APValue &Value = Result.Val;
  if (Value.isInt())
    return Value.getInt().isSigned() ? Value.getInt().signedRoundToDouble()
                                     : Value.getInt().roundToDouble();
  // Only out-of-line APFloat members: the inline ones (copies, conversions
  // naming a semantics) refer to data that LLVM releases before 22 do not
  // export, and the plugin must still load into them to refuse them with a
  // clear message (test/tool/plugin-version.test).
  if (Value.isFloat())
    return Value.getFloat().convertToDouble();
  return std::nullopt;
}

/// Whether the c10::optional argument \p Arg is empty: 'c10::nullopt',
/// 'std::nullopt', '{}', 'c10::optional<int64_t>()', or a default argument
/// that is one of them. A variable is not known to be empty.
bool isEmptyOptional(const Expr *Arg) {
  const Expr *E = writtenValue(Arg);
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 0;
  if (const auto *List = dyn_cast<InitListExpr>(E))
    return List->getNumInits() == 0;
  const auto *Record = E->getType()->getAsCXXRecordDecl();
  return Record && Record->getIdentifier() && Record->getName() == "nullopt_t";
}

/// The variable that \p E names, after implicit nodes, or null.
const VarDecl *namedVariable(const Expr *E) {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(
      E ? E->IgnoreUnlessSpelledInSource() : nullptr);
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// Whether \p Type (after references and sugar) is the class \p Name of
/// namespace c10 ('Device').
bool isC10Class(QualType Type, StringRef Name) {
  const auto *Record = Type.getNonReferenceType()->getAsCXXRecordDecl();
  if (!Record || !Record->getIdentifier() || Record->getName() != Name)
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(Record->getDeclContext());
  return NS && NS->getIdentifier() && NS->getName() == "c10";
}

//===-- Masks (torch-sync-boolean-mask) -----------------------------------===//

/// What is known about a tensor's dtype, as far as being a mask goes.
enum class MaskKind { Mask, NotMask, Unknown };

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
/// Comparisons, logical ops, isnan and friends (api list mask_results),
/// '.to(at::kBool)' and factories with a bool dtype make masks; '&', '|',
/// '^' and '~' keep them.
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
    if (isComparisonOperator(Operator->getOperator()))
      return MaskKind::Mask;
    switch (Operator->getOperator()) {
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
  if (isInApiList(ApiList::MaskResults, Name))
    return MaskKind::Mask;
  if (isInApiList(ApiList::IndexResults, Name))
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

//===-- Copies (torch-sync-device-to-host) --------------------------------===//

/// A copy from \p Source to \p Target blocks the host when it crosses between
/// host and device. An unknown end counts as possibly CUDA; a copy between two
/// unknown ends is most often device to device (see memberTransferSync).
CopyDirection copyDirection(DeviceKind Source, DeviceKind Target) {
  if (Target == DeviceKind::Unspecified || Source == Target)
    return CopyDirection::None;
  if (Target == DeviceKind::CPU)
    return CopyDirection::DeviceToHost;
  if (Source == DeviceKind::CPU)
    return CopyDirection::HostToDevice;
  if (Target == DeviceKind::CUDA && Source == DeviceKind::Unknown)
    return CopyDirection::HostToDevice;
  // From a CUDA tensor to an unknown device: the host, or another GPU.
  if (Source == DeviceKind::CUDA && Target == DeviceKind::Unknown)
    return CopyDirection::Unknown;
  return CopyDirection::None;
}

/// Whether the torch::tensor data argument is a single value (the scalar path
/// of TensorDataContainer fills the tensor on the device without a copy).
bool isScalarTensorData(const Expr *Data) {
  const auto *Construct =
      dyn_cast_or_null<CXXConstructExpr>(Data->IgnoreImplicit());
  if (!Construct || Construct->getNumArgs() != 1)
    return false;
  QualType Param = Construct->getConstructor()
                       ->getParamDecl(0)
                       ->getType()
                       .getNonReferenceType();
  if (Param->isArithmeticType())
    return true;
  const auto *Record = Param->getAsRecordDecl();
  return Record && Record->getIdentifier() &&
         (Record->getName() == "Half" || Record->getName() == "BFloat16" ||
          Record->getName() == "complex");
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
  const VarDecl *Origin =
      Devices.deviceOrigin(Call.getImplicitObjectArgument());
  return Origin && Origin == Devices.targetOrigin(Target);
}

//===-- The conditions of each category -----------------------------------===//

/// Builds the result for \p Fact with data \p Data on \p Device; none when
/// the device is the CPU.
std::optional<CallSync> synced(const SyncFact &Fact, DeviceKind Device,
                               const Expr *Data, std::string Name) {
  if (Device == DeviceKind::CPU)
    return std::nullopt;
  CallSync Sync;
  Sync.Category = Fact.Category;
  Sync.Fact = &Fact;
  Sync.Device = Device;
  Sync.Data = Data;
  Sync.Name = std::move(Name);
  return Sync;
}

/// torch-sync-item: a value read on the host. The overloads with a tensor
/// 'value' (masked_fill_, fill_) read it only when it is a tensor on a
/// device.
std::optional<CallSync> itemSync(const CallExpr &Call,
                                 const FunctionDecl &Callee,
                                 const SyncFact &Fact, DeviceInference &Devices,
                                 const SyncRules &Rules) {
  std::string Name = diagnosticName(Callee);
  if (Fact.TensorValueParameter.empty())
    return synced(Fact, Devices.inputsDevice(Call), firstInput(Call), Name);
  const Expr *Value = tensorArgument(Call, Callee, Fact.TensorValueParameter);
  if (!Value)
    return std::nullopt;
  DeviceKind Device = Devices.tensorDevice(Value);
  if (Device == DeviceKind::CPU)
    return std::nullopt;
  // fill_ copies a same-device value on the device since 2.2 (PR #109115);
  // it reads the value on the host only across devices.
  const Expr *Receiver = receiver(Call);
  if (Callee.getName() == "fill_" && Rules.LibTorchVersion >= 202 &&
      (!Receiver || Devices.tensorDevice(Receiver) != DeviceKind::CPU))
    return std::nullopt;
  return synced(Fact, Device, Value, Name);
}

/// torch-sync-print: a tensor formatted as text, unless the text is a
/// failure's message.
std::optional<CallSync> printSync(const CallExpr &Call, const SyncFact &Fact,
                                  DeviceInference &Devices,
                                  ASTContext &Context) {
  const Expr *Tensor = firstInput(Call);
  if (!Tensor || isFailureMessage(Call, Context))
    return std::nullopt;
  std::string Name = isa<CXXOperatorCallExpr>(Call)
                         ? std::string("operator<<")
                         : Fact.Function.drop_front(2).str();
  return synced(Fact, Devices.inputsDevice(Call), Tensor, Name);
}

/// 't.to(X)', 't.cpu()', 't.cuda()', 'dst.copy_(src)': a blocking copy
/// between host and device.
std::optional<CallSync> memberTransferSync(const CXXMemberCallExpr &Call,
                                           const CXXMethodDecl &Method,
                                           const SyncFact &Fact,
                                           DeviceInference &Devices) {
  const Expr *Receiver = Call.getImplicitObjectArgument();
  if (!Receiver)
    return std::nullopt;
  StringRef Name = Method.getName();
  // A non-blocking copy is not a sync (it may be a race; that is another
  // check's business). A non-constant 'non_blocking' is given the benefit of
  // the doubt.
  if (Devices.nonBlockingArgument(Call) != std::optional<bool>(false) &&
      Name != "cpu" && Name != "cuda")
    return std::nullopt;
  if (Name == "to" && (targetIsReceiverItself(Call) ||
                       targetSharesReceiverDevice(Call, Devices)))
    return std::nullopt;
  DeviceKind Source = Devices.tensorDevice(Receiver);
  DeviceKind Target = Devices.transferTarget(Call);
  const Expr *SourceTensor = Receiver;
  if (Name == "copy_") {
    if (Call.getNumArgs() == 0)
      return std::nullopt;
    // dst.copy_(src): the data flows from the argument into the receiver.
    Target = Source;
    SourceTensor = Call.getArg(0);
    Source = Devices.tensorDevice(SourceTensor);
    if (Target == DeviceKind::Unspecified)
      Target = DeviceKind::Unknown;
  }
  CopyDirection Direction = copyDirection(Source, Target);
  // Between two unknown ends, 'to' and 'cuda' may copy between host and
  // device; 'copy_' most often copies between two device tensors.
  if (Direction == CopyDirection::None &&
      !(Source == DeviceKind::Unknown && Target == DeviceKind::Unknown &&
        Name != "copy_"))
    return std::nullopt;
  if (Direction == CopyDirection::None)
    Direction = CopyDirection::Unknown;
  DeviceKind Uncertain =
      (Source == DeviceKind::Unknown || Target == DeviceKind::Unknown)
          ? DeviceKind::Unknown
          : DeviceKind::CUDA;
  // Only a copy to the host is sync-free when its source is on the CPU.
  const Expr *Data = Target == DeviceKind::CPU ? SourceTensor : nullptr;
  std::optional<CallSync> Sync = synced(Fact, Uncertain, Data, Name.str());
  if (Sync)
    Sync->Direction = Direction;
  return Sync;
}

/// torch-sync-device-to-host's free functions and module moves.
std::optional<CallSync> transferSync(const CallExpr &Call,
                                     const FunctionDecl &Callee,
                                     const SyncFact &Fact,
                                     DeviceInference &Devices) {
  if (!Fact.Method.empty()) {
    const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
    const auto *Method = dyn_cast<CXXMethodDecl>(&Callee);
    if (!Member || !Method || !Method->getIdentifier())
      return std::nullopt;
    return memberTransferSync(*Member, *Method, Fact, Devices);
  }
  StringRef Name = Fact.Function.drop_front(2);
  if (isa<CXXMemberCallExpr>(Call)) {
    // 'model->to(device)': torch::nn::Module::to(Device, ...) and
    // torch::jit::Module::to(Device, ...) copy each parameter and buffer
    // (torch/csrc/api/src/nn/module.cpp, torch/csrc/jit/api/module.cpp); the
    // overloads taking only a dtype convert in place on the module's device.
    if (Call.getNumArgs() == 0 || Callee.getNumParams() == 0 ||
        !isC10Class(Callee.getParamDecl(0)->getType(), "Device"))
      return std::nullopt;
    // As for tensors: a non-blocking (or possibly non-blocking) move is left
    // alone.
    if (Devices.nonBlockingArgument(Call) != std::optional<bool>(false))
      return std::nullopt;
    // Modules are built on the host: a move to the CPU is most often a no-op,
    // and a move back from the device is rare enough to need a known target.
    DeviceKind Target = Devices.targetDevice(Call.getArg(0));
    if (Target == DeviceKind::Unspecified)
      return std::nullopt;
    return synced(Fact, Target, nullptr, Name.str());
  }
  if (Call.getNumArgs() < 1)
    return std::nullopt;
  if (Name == "torch::save" || Name == "torch::pickle_save") {
    // The value saved: a tensor or a module on the host is written without
    // a copy; a list of tensors, of their devices (a local vector filled
    // with host copies, a braced list of host tensors); an IValue may hold
    // device tensors.
    const Expr *Value = Call.getArg(0);
    bool IsTensor = isTensorType(Value->getType());
    DeviceKind Saved = IsTensor ? Devices.tensorDevice(Value)
                       : isTensorList(Value->getType())
                           ? Devices.tensorListDevice(Value)
                       : heldModule(Value->getType())
                           ? Devices.modules().moduleDevice(Value, /*Depth=*/0)
                           : DeviceKind::Unknown;
    return synced(Fact, Saved, IsTensor ? Value : nullptr, Name.str());
  }
  // torch::tensor and at::tensor: the data, then the options.
  if (Call.getNumArgs() < 2)
    return std::nullopt;
  // A single value is filled in on the device by torch::tensor (the scalar
  // path of TensorDataContainer); at::tensor copies it from the host all the
  // same (census-frontend.tsv: 'at::tensor | one float').
  if (Name == "torch::tensor" && isScalarTensorData(Call.getArg(0)))
    return std::nullopt;
  DeviceKind Target = Devices.targetDevice(Call.getArg(1));
  if (Target == DeviceKind::Unspecified)
    return std::nullopt;
  return synced(Fact, Target, nullptr, Name.str());
}

/// torch-sync-boolean-mask: indexing with a mask whose count of true
/// elements sizes the result.
std::optional<CallSync> maskSync(const CallExpr &Call,
                                 const FunctionDecl &Callee,
                                 const SyncFact &Fact, DeviceInference &Devices,
                                 const SyncRules &Rules) {
  std::string Name = diagnosticName(Callee);
  if (Fact.Method != "index" && Fact.Method != "index_put_")
    return synced(Fact, Devices.inputsDevice(Call), firstInput(Call), Name);
  const Expr *Self = receiver(Call);
  if (!Self || Call.getNumArgs() == 0 || !isTensorIndexListMethod(Callee))
    return std::nullopt;
  const Expr *Mask = nullptr;
  for (const Expr *Index : tensorIndexElements(Call.getArg(0))) {
    MaskKind Kind = maskKind(Index, Devices);
    if (Kind == MaskKind::Mask ||
        (Kind == MaskKind::Unknown && Rules.UnknownDtypeIsMask)) {
      Mask = Index;
      break;
    }
  }
  if (!Mask)
    return std::nullopt;
  DeviceKind SelfDevice = Devices.tensorDevice(Self);
  if (SelfDevice == DeviceKind::CPU)
    return std::nullopt;
  // A mask on the CPU indexing a device tensor: from 2.11 on (measured on the
  // GPU: samples/rules/boolean_mask.cpp), the mask's nonzero() runs on the
  // host and its indices go to the device without a wait (PyTorch PR
  // #156384). Earlier releases copied the indices with a blocking copy.
  if (Fact.Method == "index" && Rules.LibTorchVersion >= 211 &&
      Devices.tensorDevice(Mask) == DeviceKind::CPU)
    return std::nullopt;
  if (Fact.Method == "index_put_" && Call.getNumArgs() >= 2) {
    const Expr *Value = Call.getArg(1);
    if (!isTensorType(Value->getType())) {
      // A host Scalar: since 2.0 index_put_ turns the mask into masked_fill_
      // with a CPU scalar (async); up to 1.13 set_item built the scalar on the
      // tensor's device and took the nonzero path (ATen/TensorIndexing.h).
      if (Rules.LibTorchVersion >= 200)
        return std::nullopt;
    } else if (Devices.tensorDevice(Value) == DeviceKind::CPU) {
      // A CPU value goes to masked_fill_ with its one element.
      return std::nullopt;
    }
  }
  return synced(Fact, SelfDevice, Self, Name);
}

/// The first LibTorch release in which 'repeat_interleave' with an int64_t
/// 'repeats' and no 'output_size' computes the size on the host (PR #99528);
/// before, it built a repeats tensor on the input's device and took the
/// Tensor path, which reads the sum of the repeats.
constexpr unsigned ScalarRepeatsSyncFreeSince = 201;

/// Whether the arguments of \p Call leave its output size to the data:
/// false for the spellings that give the size (or range) on the host.
/// Arguments whose value is not a constant get the benefit of the doubt: an
/// 'output_size' held in a variable, a histc range or a 'num_classes'
/// computed at run time count as given.
bool sizeDependsOnData(const CallExpr &Call, const FunctionDecl &Callee,
                       ASTContext &Context, const SyncRules &Rules) {
  StringRef Name = Callee.getName();
  if (Name == "where")
    // where(cond, x, y) selects element by element, with its inputs' shape.
    return Callee.getNumParams() == 1;
  if (Name == "repeat_interleave") {
    const Expr *OutputSize = namedArgument(Call, Callee, "output_size");
    if (OutputSize && !isEmptyOptional(OutputSize))
      return false;
    // int64_t repeats: the output size is the input's times the repeats.
    const ParmVarDecl *Repeats = namedParameter(Callee, "repeats");
    if (Repeats && !isTensorType(Repeats->getType()))
      return Rules.LibTorchVersion < ScalarRepeatsSyncFreeSince;
    return true;
  }
  if (Name == "histc") {
    // With min == max (the default 0, 0) the range comes from the data.
    std::optional<double> Min =
        constantNumber(namedArgument(Call, Callee, "min"), Context);
    std::optional<double> Max =
        constantNumber(namedArgument(Call, Callee, "max"), Context);
    return Min && Max && *Min == *Max;
  }
  if (Name == "one_hot") {
    // num_classes == -1 (the default) asks for the largest index plus one;
    // any other value is either the size or an error, never a read.
    std::optional<double> Classes =
        constantNumber(namedArgument(Call, Callee, "num_classes"), Context);
    return Classes && *Classes == -1;
  }
  return true;
}

/// torch-sync-dynamic-shape: an output size read from the data. The tensor
/// whose values decide it: 'repeats' when it is a tensor
/// (repeat_interleave), else the receiver of a method call, else the first
/// tensor argument ('self', 'condition').
std::optional<CallSync> shapeSync(const CallExpr &Call,
                                  const FunctionDecl &Callee,
                                  const SyncFact &Fact,
                                  DeviceInference &Devices, ASTContext &Context,
                                  const SyncRules &Rules) {
  if (!Callee.getIdentifier() ||
      !sizeDependsOnData(Call, Callee, Context, Rules))
    return std::nullopt;
  const Expr *Data = nullptr;
  const ParmVarDecl *Repeats = namedParameter(Callee, "repeats");
  if (Repeats && isTensorType(Repeats->getType()))
    Data = namedArgument(Call, Callee, "repeats");
  else
    Data = firstInput(Call);
  if (!Data)
    return std::nullopt;
  return synced(Fact, Devices.tensorDevice(Data), Data, diagnosticName(Callee));
}

/// torch-sync-device-index: an index, bound or size read with 'item()'
/// inside LibTorch: the tensor 'start' of 'narrow', a 0-dim tensor among the
/// TensorIndex list of 'index' (ATen/TensorIndexing.h, applySlicing), the
/// tensor of 'operator[]' (TensorBody.h). 'item()' itself is
/// torch-sync-item's sync; which of the two checks reports it depends on
/// where its value goes.
std::optional<CallSync> indexSync(const CallExpr &Call,
                                  const FunctionDecl &Callee,
                                  const SyncFact &Fact,
                                  DeviceInference &Devices) {
  std::string Name = diagnosticName(Callee);
  const Expr *Index = nullptr;
  if (Fact.Method == "item")
    return synced(Fact, Devices.inputsDevice(Call), firstInput(Call), Name);
  if (Fact.Method == "narrow") {
    Index = tensorArgument(Call, Callee, "start");
  } else if (Fact.Method == "index" || Fact.Method == "index_put_") {
    if (Call.getNumArgs() == 0 || !isTensorIndexListMethod(Callee))
      return std::nullopt;
    for (const Expr *Element : tensorIndexElements(Call.getArg(0)))
      if (isZeroDimTensor(Element, Devices)) {
        Index = Element;
        break;
      }
  } else if (Fact.Method == "operator[]") {
    const auto *Operator = dyn_cast<CXXOperatorCallExpr>(&Call);
    if (Operator && Operator->getNumArgs() == 2 &&
        isTensorType(Operator->getArg(1)->getType()))
      Index = Operator->getArg(1);
  }
  if (!Index)
    return std::nullopt;
  return synced(Fact, Devices.tensorDevice(Index), Index, Name);
}

/// torch-sync-explicit: an explicit wait for the device, named by its
/// documented name under every declared one ('cudaMemcpy_ptds'). There is no
/// tensor whose device to infer: each of these calls waits for a CUDA device.
std::optional<CallSync> explicitSync(const CallExpr &Call, const SyncFact &Fact,
                                     DeviceInference &Devices,
                                     ASTContext &Context) {
  const SyncFact *Reported = explicitWaitFact(Call, Fact, Devices, Context);
  if (!Reported)
    return std::nullopt;
  return synced(*Reported, DeviceKind::CUDA, nullptr,
                Fact.Function.drop_front(2).str());
}

/// The bare names that a fact or census overload may be called by (for
/// isSyncDeclaration): the facts' method names, the last part of their
/// function names and, for the CUDA API, of the names the CUDA headers
/// declare them under, and the census's C++ names.
const llvm::StringSet<> &syncDeclarationNames() {
  static const llvm::StringSet<> Names = [] {
    llvm::StringSet<> Set;
    for (const SyncFact &Fact : syncFacts()) {
      if (!Fact.Method.empty())
        Set.insert(Fact.Method);
      if (Fact.Function.empty())
        continue;
      StringRef Last = Fact.Function.rsplit("::").second;
      Set.insert(Last);
      if (isGlobalName(Fact.Function))
        for (StringRef Suffix : apiList(ApiList::CudaApiNameSuffixes))
          Set.insert((Last + Suffix).str());
    }
    for (const MeasuredSync &Measured : measuredSyncs())
      Set.insert(Measured.CppName);
    return Set;
  }();
  return Names;
}

/// Whether the bare name of \p Callee ('item', 'operator[]') is one of
/// syncDeclarationNames().
bool mayNameSyncDeclaration(const FunctionDecl &Callee) {
  if (const IdentifierInfo *Name = Callee.getIdentifier())
    return syncDeclarationNames().contains(Name->getName());
  return syncDeclarationNames().contains(Callee.getNameAsString());
}

} // namespace

std::string diagnosticName(const FunctionDecl &Callee) {
  return isa<CXXMethodDecl>(Callee) ? Callee.getNameAsString()
                                    : Callee.getQualifiedNameAsString();
}

std::optional<CallSync> callSync(const CallExpr &Call, const SyncFact &Fact,
                                 DeviceInference &Devices, ASTContext &Context,
                                 const SyncRules &Rules) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee)
    return std::nullopt;
  switch (Fact.Category) {
  case SyncCategory::Item:
    return itemSync(Call, *Callee, Fact, Devices, Rules);
  case SyncCategory::Print:
    return printSync(Call, Fact, Devices, Context);
  case SyncCategory::DeviceToHost:
    return transferSync(Call, *Callee, Fact, Devices);
  case SyncCategory::BooleanMask:
    return maskSync(Call, *Callee, Fact, Devices, Rules);
  case SyncCategory::DynamicShape:
    return shapeSync(Call, *Callee, Fact, Devices, Context, Rules);
  case SyncCategory::DeviceIndex:
    return indexSync(Call, *Callee, Fact, Devices);
  case SyncCategory::Explicit:
    return explicitSync(Call, Fact, Devices, Context);
  }
  return std::nullopt;
}

std::optional<CallSync> measuredCallSync(const CallExpr &Call,
                                         const MeasuredSync &Measured,
                                         DeviceInference &Devices) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  DeviceKind Device = Devices.inputsDevice(Call);
  if (!Callee || Device == DeviceKind::CPU)
    return std::nullopt;
  CallSync Sync;
  Sync.Category = Measured.Category;
  Sync.Measured = &Measured;
  Sync.Device = Device;
  Sync.Data = firstInput(Call);
  Sync.Name = diagnosticName(*Callee);
  return Sync;
}

std::optional<CallSync> findCallSync(const CallExpr &Call,
                                     DeviceInference &Devices,
                                     ASTContext &Context,
                                     const SyncRules &Rules) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || !mayNameSyncDeclaration(*Callee))
    return std::nullopt;
  bool HasFact = false;
  for (SyncCategory Category : AllSyncCategories) {
    const SyncFact *Fact = findSyncFact(Category, *Callee);
    if (!Fact)
      continue;
    HasFact = true;
    if (std::optional<CallSync> Sync =
            callSync(Call, *Fact, Devices, Context, Rules))
      return Sync;
  }
  if (HasFact)
    return std::nullopt;
  if (const MeasuredSync *Measured = findMeasuredSync(*Callee))
    return measuredCallSync(Call, *Measured, Devices);
  return std::nullopt;
}

bool isSyncDeclaration(const FunctionDecl &Callee) {
  return mayNameSyncDeclaration(Callee) &&
         (findAnySyncFact(Callee) || findMeasuredSync(Callee));
}

bool isFailureMessage(const CallExpr &Call, ASTContext &Context) {
  bool Failure = false;
  forEachAncestor(DynTypedNode::create(Call), Context,
                  [&](const DynTypedNode &Parent, const DynTypedNode &) {
                    // The enclosing function, lambda or variable ends the walk.
                    if (Parent.get<Decl>())
                      return true;
                    if (Parent.get<CXXThrowExpr>())
                      Failure = true;
                    if (const auto *Outer = Parent.get<CallExpr>())
                      if (const FunctionDecl *Callee = Outer->getDirectCallee())
                        Failure = Callee->isNoReturn();
                    return Failure;
                  });
  return Failure;
}

bool isTensorIndexListMethod(const FunctionDecl &Method) {
  if (Method.getNumParams() == 0)
    return false;
  const auto *Record = Method.getParamDecl(0)
                           ->getType()
                           .getNonReferenceType()
                           ->getAsCXXRecordDecl();
  return Record && Record->getIdentifier() &&
         (Record->getName() == "ArrayRef" ||
          Record->getName() == "initializer_list");
}

} // namespace clang::tidy::torch_sync
