//===--- DeviceInference.cpp - where does a tensor live? ------------------===//

#include "analysis/device/DeviceInference.h"
#include "analysis/device/RankInference.h"
#include "facts/SyncFacts.h"
#include "libtorch/LibTorchApi.h"
#include "project/ProjectFacts.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {

/// Out-of-place binary tensor methods and at:: functions that are
/// element-wise TensorIterator operations (aten/src/ATen/native/
/// BinaryOps.cpp, their structured meta functions build a binary_op or
/// comparison_op iterator).
bool isElementwiseName(StringRef Name) {
  return isInApiList(ApiList::ElementwiseBinaryOps, Name);
}

} // namespace

DeviceInference::DeviceInference(ASTContext &Context, bool ProjectDatasetsOnCPU,
                                 const ProjectFacts *Facts,
                                 bool AssumeModuleStateOnCpu)
    : Context(Context), Facts(Facts),
      AssumeModuleStateOnCpu(AssumeModuleStateOnCpu), Writes(Context),
      HostReads(Context), Guards(Context, *this, Writes),
      Modules(Context, *this),
      Data(Context, Writes, ProjectDatasetsOnCPU, Facts), Sites(Context, *this),
      Lists(Context, Writes) {}

DeviceInference::~DeviceInference() = default;

DeviceKind DeviceInference::variableDevice(const VarDecl &Var, unsigned Depth) {
  // Globals and static members can hold a tensor from anywhere. A static
  // local is written only in its function: its initializer and every
  // assignment there, whichever call made it ('static auto opts =
  // TensorOptions{}.dtype(kLong)').
  if (!Var.hasLocalStorage() && !Var.isStaticLocal())
    return DeviceKind::Unknown;
  auto Cached = VariableCache.find(&Var);
  if (Cached != VariableCache.end())
    return Cached->second;

  const auto *Param = dyn_cast<ParmVarDecl>(&Var);
  const Expr *Init = Param ? nullptr : Var.getInit();
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  if (!Function || !Function->getBody())
    return DeviceKind::Unknown;
  if (Var.getType()->isReferenceType()) {
    // A local reference to another variable is an alias: its device is the
    // other variable's, which may change through either name.
    if (!Param && (!Init || isa<DeclRefExpr>(strip(Init))))
      return DeviceKind::Unknown;
    // A reference parameter may alias another one that the function writes.
    if (Param &&
        llvm::any_of(Function->parameters(), [&](const ParmVarDecl *Other) {
          QualType T = Other->getType();
          return Other != Param && T->isLValueReferenceType() &&
                 !T.getNonReferenceType().isConstQualified() &&
                 (isTensorType(T) || isTensorList(T));
        }))
      return DeviceKind::Unknown;
  }

  const bool IsTensor = isTensorType(Var.getType());
  auto Evaluate = [&](const Expr *E) {
    return IsTensor ? tensorDevice(E, Depth + 1) : targetDevice(E, Depth + 1);
  };

  VariableCache[&Var] = DeviceKind::Unspecified; // in progress
  // 'for (auto &p : x.split(3))': p is one element of the range.
  const Expr *Range = Param ? nullptr : Lists.loopRange(Var);
  DeviceKind Result = Param   ? parameterDevice(*Param, Depth)
                      : Range ? listElementDevice(Range, Depth + 1)
                      : Init  ? Evaluate(Init)
                              : DeviceKind::Unspecified;
  if (Result != DeviceKind::Unknown) {
    for (const BoundNodes &Nodes :
         match(writesToVariable(Var), *Function->getBody(), Context)) {
      if (Nodes.getNodeAs<Stmt>("escape")) {
        Result = DeviceKind::Unknown;
        break;
      }
      if (const auto *Assigned = Nodes.getNodeAs<Expr>("assigned")) {
        // 'std::tie(a, b) = v' gives each variable its element of 'v'.
        const auto *Tie = Nodes.getNodeAs<CallExpr>("tie");
        std::optional<unsigned> Element =
            Tie ? tiedElement(*Tie, Var) : std::nullopt;
        Result = joinAlternatives(
            Result, !Tie ? Evaluate(Assigned)
                    : Element && IsTensor
                        ? tupleElementDevice(Assigned, *Element, Depth + 1)
                        : DeviceKind::Unknown);
      }
      if (Result == DeviceKind::Unknown)
        break;
    }
  }
  // The function reads or writes the tensor's elements on the host, which
  // only works on a CPU tensor, and never asks its device: it is on the CPU
  // there (HostDereference.h). A known CUDA device stays: that code crashes.
  if (Result == DeviceKind::Unknown &&
      HostReads.dereferencesOnHost(Var, *Function) &&
      Writes.isNeverWritten(Var))
    Result = DeviceKind::CPU;
  VariableCache[&Var] = Result;
  return Result;
}

DeviceKind DeviceInference::inputsDevice(const CallExpr &Call) {
  DeviceKind Device = DeviceKind::Unspecified;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    if (const Expr *Receiver = Member->getImplicitObjectArgument())
      if (isTensorType(Receiver->getType()))
        Device = tensorDevice(Receiver);
  for (const Expr *Arg : Call.arguments())
    if (isTensorType(Arg->getType()))
      Device = combineInputs(Device, tensorDevice(Arg));
  return Device;
}

DeviceKind DeviceInference::reachingDevice(const VarDecl &Var,
                                           const DeclRefExpr &Use,
                                           unsigned Depth) {
  // A reference may alias a tensor that changes through another name.
  if (!Var.hasLocalStorage() || Var.getType()->isReferenceType() ||
      !isTensorType(Var.getType()))
    return DeviceKind::Unknown;
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  if (!Function || !Function->getBody())
    return DeviceKind::Unknown;
  auto Cached = ReachingCache.find(&Use);
  if (Cached != ReachingCache.end())
    return Cached->second;
  // The variable's writes; an escape lets code that is not seen write it.
  const auto *Param = dyn_cast<ParmVarDecl>(&Var);
  std::optional<DeviceWrites::Writes> Found =
      Writes.writesOf(Var, *Function->getBody());
  if (!Found)
    return DeviceKind::Unknown;
  // One value, or a parameter never assigned: variableDevice knew it.
  if (Found->Statements.size() < (Param ? 1u : 2u))
    return DeviceKind::Unknown;
  std::unique_ptr<ReachingWrites> &Flow = FunctionFlows[Function];
  if (!Flow)
    Flow = std::make_unique<ReachingWrites>(*Function, Context);
  auto Reaching = Flow->reaching(Found->Statements, Use);
  if (!Reaching || Reaching->empty())
    return DeviceKind::Unknown;

  ReachingCache[&Use] = DeviceKind::Unspecified; // in progress
  DeviceKind Result = DeviceKind::Unspecified;
  for (const Stmt *Write : *Reaching) {
    DeviceKind Device;
    if (!Write)
      Device = Param ? parameterDevice(*Param, Depth) : DeviceKind::Unknown;
    else if (const Expr *Value = Found->Values.lookup(Write))
      Device = Found->Elements.contains(Write)
                   ? tupleElementDevice(Value, Found->Elements.lookup(Write),
                                        Depth + 1)
                   : tensorDevice(Value, Depth + 1);
    else
      Device = DeviceKind::Unspecified; // 'at::Tensor t;' is undefined
    Result = joinAlternatives(Result, Device);
    if (Result == DeviceKind::Unknown)
      break;
  }
  ReachingCache[&Use] = Result;
  return Result;
}

DeviceKind DeviceInference::tensorDevice(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDeviceDepth || E->isTypeDependent() ||
      E->containsErrors())
    return DeviceKind::Unknown;

  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *Binding = dyn_cast<BindingDecl>(Ref->getDecl()))
      return bindingDevice(*Binding, Depth);
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var)
      return DeviceKind::Unknown;
    DeviceKind Device = variableDevice(*Var, Depth);
    // The values that reach this read, where the variable is assigned
    // several ('x = x.cpu()').
    if (Device == DeviceKind::Unknown)
      Device = reachingDevice(*Var, *Ref, Depth);
    // A guard or branch on the device ('TORCH_CHECK(t.is_cuda())') says
    // more about a tensor whose value is not known.
    return Device == DeviceKind::Unknown ? Guards.guardedDevice(*Var, *Ref)
                                         : Device;
  }
  // 'parts[0]', 'parts.at(1)' of 'parts = x.chunk(2)'.
  if (const Expr *List = Lists.elementList(E))
    return listElementDevice(List, Depth + 1);
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
    return memberCallDevice(*Member, Depth);
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return memberDevice(*Member, Depth);
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
    // 'm(x)' on a module holder runs the module's forward.
    if (Operator->getOperator() == OO_Call && Operator->getNumArgs() >= 1 &&
        heldModule(Operator->getArg(0)->getType()))
      return Modules.moduleForwardDevice(
          Operator->getArg(0),
          llvm::ArrayRef(Operator->getArgs() + 1, Operator->getNumArgs() - 1),
          Depth);
    const FunctionDecl *Callee = Operator->getDirectCallee();
    // Only LibTorch's operators are known to compute where their operands
    // live; a project's own operator may not.
    if (Operator->isAssignmentOp() || !Callee || !isLibraryFunction(*Callee))
      return DeviceKind::Unknown;
    SmallVector<const Expr *, 2> Operands;
    for (const Expr *Arg : Operator->arguments())
      if (isTensorType(Arg->getType()))
        Operands.push_back(Arg);
    if (Operands.empty())
      return DeviceKind::Unknown;
    if (isElementwiseOperator(Operator->getOperator()))
      return elementwiseDevice(Operands, Depth);
    // Indexing and the unary operators keep their tensor inputs' device. An
    // operand still being analysed ('x = x + 1') is Unspecified and leaves
    // the result to the other operands.
    DeviceKind Result = DeviceKind::Unspecified;
    for (const Expr *Operand : Operands)
      Result = combineInputs(Result, tensorDevice(Operand, Depth + 1));
    return Result;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return functionCallDevice(*Call, Depth);
  if (const auto *Conditional = dyn_cast<ConditionalOperator>(E))
    return joinAlternatives(
        tensorDevice(Conditional->getTrueExpr(), Depth + 1),
        tensorDevice(Conditional->getFalseExpr(), Depth + 1));
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    // 'at::Tensor t;' is undefined until assigned.
    if (Construct->getNumArgs() == 0)
      return DeviceKind::Unspecified;
    if (Construct->getNumArgs() == 1 &&
        isTensorType(Construct->getArg(0)->getType()))
      return tensorDevice(Construct->getArg(0), Depth + 1);
  }
  return DeviceKind::Unknown;
}

DeviceKind DeviceInference::tupleElementDevice(const Expr *E, unsigned Index,
                                               unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDeviceDepth || E->isTypeDependent() ||
      E->containsErrors() || !isStdPairOrTuple(E->getType()))
    return DeviceKind::Unknown;
  auto Element = [&](const Expr *Value) {
    return isTensorType(Value->getType()) ? tensorDevice(Value, Depth + 1)
                                          : DeviceKind::Unknown;
  };
  // 'return {x, y};' and 'std::pair<at::Tensor, at::Tensor>(x, y)'; a copy
  // or move of another pair.
  if (const auto *List = dyn_cast<InitListExpr>(E))
    return Index < List->getNumInits() ? Element(List->getInit(Index))
                                       : DeviceKind::Unknown;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    if (Construct->getNumArgs() == 1 &&
        isStdPairOrTuple(Construct->getArg(0)->getType()))
      return tupleElementDevice(Construct->getArg(0), Index, Depth + 1);
    return Index < Construct->getNumArgs() ? Element(Construct->getArg(Index))
                                           : DeviceKind::Unknown;
  }
  // A local pair that nothing else writes: its initializer.
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    const Expr *Value = Var ? Writes.singleValue(*Var) : nullptr;
    return Value ? tupleElementDevice(Value, Index, Depth + 1)
                 : DeviceKind::Unknown;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee)
    return DeviceKind::Unknown;
  // 'std::make_pair(x, y)', 'std::make_tuple(x, y)'.
  if (Callee->isInStdNamespace() && Callee->getIdentifier() &&
      (Callee->getName() == "make_pair" || Callee->getName() == "make_tuple"))
    return Index < Call->getNumArgs() ? Element(Call->getArg(Index))
                                      : DeviceKind::Unknown;
  // A function of the translation unit (not LibTorch's, not virtual): the
  // join of what its returns give.
  const FunctionDecl *Definition = Callee->getDefinition();
  const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
  if (!Definition || !Definition->getBody() || isLibraryFunction(*Callee) ||
      Callee->isInStdNamespace() || (Method && Method->isVirtual()))
    return DeviceKind::Unknown;
  DeviceKind Result = DeviceKind::Unspecified;
  for (const Expr *Value : returnValues(*Definition, Context)) {
    Result = joinAlternatives(
        Result, Value ? tupleElementDevice(Value, Index, Depth + 1)
                      : DeviceKind::Unknown);
    if (Result == DeviceKind::Unknown)
      break;
  }
  return Result == DeviceKind::Unspecified ? DeviceKind::Unknown : Result;
}

DeviceKind DeviceInference::definedReturnDevice(const FunctionDecl &Callee,
                                                unsigned Depth) {
  const FunctionDecl *Definition = Callee.getDefinition();
  const auto *Method = dyn_cast<CXXMethodDecl>(&Callee);
  if (!Definition || !Definition->getBody() || Depth > MaxDeviceDepth ||
      Callee.isInStdNamespace() || (Method && Method->isVirtual()) ||
      Definition->isDependentContext())
    return DeviceKind::Unknown;
  auto Cached = ReturnCache.find(Definition);
  if (Cached != ReturnCache.end())
    return Cached->second == DeviceKind::Unspecified ? DeviceKind::Unknown
                                                     : Cached->second;
  ReturnCache[Definition] = DeviceKind::Unspecified; // in progress
  DeviceKind Result = DeviceKind::Unspecified;
  for (const Expr *Value : returnValues(*Definition, Context)) {
    Result = joinAlternatives(Result, Value ? tensorDevice(Value, Depth + 1)
                                            : DeviceKind::Unknown);
    if (Result == DeviceKind::Unknown)
      break;
  }
  if (Result == DeviceKind::Unspecified)
    Result = DeviceKind::Unknown;
  ReturnCache[Definition] = Result;
  return Result;
}

DeviceKind DeviceInference::privateMemberDevice(const FieldDecl &Field,
                                                unsigned Depth) {
  auto Cached = MemberCache.find(&Field);
  if (Cached != MemberCache.end())
    return Cached->second;
  MemberCache[&Field] = DeviceKind::Unspecified; // in progress
  DeviceKind Result = DeviceKind::Unknown;
  if (auto Values = Writes.privateMemberValues(Field);
      Values && !Values->empty()) {
    Result = DeviceKind::Unspecified;
    for (const Expr *Value : *Values) {
      Result = joinAlternatives(Result, tensorDevice(Value, Depth + 1));
      if (Result == DeviceKind::Unknown)
        break;
    }
    if (Result == DeviceKind::Unspecified)
      Result = DeviceKind::Unknown;
  }
  MemberCache[&Field] = Result;
  return Result;
}

DeviceKind DeviceInference::bindingDevice(const BindingDecl &Binding,
                                          unsigned Depth) {
  // 'auto [x, y] = f();' over a std::pair or std::tuple by value: element k
  // of the initializer, when the name is not written. The pair itself has
  // no name; only the bindings' own 'get' calls refer to it.
  const auto *Decomposition =
      dyn_cast_or_null<DecompositionDecl>(Binding.getDecomposedDecl());
  if (!Decomposition || !isTensorType(Binding.getType()) ||
      Decomposition->getType()->isReferenceType())
    return DeviceKind::Unknown;
  const auto *Function = dyn_cast_or_null<FunctionDecl>(
      Decomposition->getParentFunctionOrMethod());
  if (!Function || !Function->getBody() ||
      !match(writesTo(declRefExpr(to(bindingDecl(equalsNode(&Binding))))),
             *Function->getBody(), Context)
           .empty())
    return DeviceKind::Unknown;
  auto Bindings = Decomposition->bindings();
  const auto *Position = llvm::find(Bindings, &Binding);
  if (Position == Bindings.end())
    return DeviceKind::Unknown;
  return tupleElementDevice(Decomposition->getInit(),
                            std::distance(Bindings.begin(), Position),
                            Depth + 1);
}

DeviceKind
DeviceInference::elementwiseDevice(llvm::ArrayRef<const Expr *> Operands,
                                   unsigned Depth) {
  SmallVector<DeviceKind, 2> Devices;
  DeviceKind Result = DeviceKind::Unspecified;
  for (const Expr *Operand : Operands) {
    Devices.push_back(tensorDevice(Operand, Depth + 1));
    Result = combineInputs(Result, Devices.back());
  }
  if (Result != DeviceKind::Unknown)
    return Result;
  // TensorIterator takes the first operand that is not on the CPU as the
  // common device, and then accepts a CPU operand only when it is a 0-dim
  // input (aten/src/ATen/TensorIterator.cpp, compute_types): a CPU operand
  // of rank >= 1 leaves the CPU as the only device the operation runs on.
  for (unsigned I = 0; I < Operands.size(); ++I)
    if (Devices[I] == DeviceKind::CPU &&
        isPositiveRankTensor(Operands[I], *this))
      return DeviceKind::CPU;
  return Result;
}

DeviceKind DeviceInference::memberCallDevice(const CXXMemberCallExpr &Call,
                                             unsigned Depth) {
  const CXXMethodDecl *Method = Call.getMethodDecl();
  const Expr *Receiver = Call.getImplicitObjectArgument();
  if (!Method || !Receiver || !Method->getIdentifier())
    return DeviceKind::Unknown;
  StringRef Name = Method->getName();
  if (!isTensorType(Receiver->getType())) {
    // 'm->forward(x)' on a module holder.
    const auto *Arrow =
        dyn_cast<CXXOperatorCallExpr>(Receiver->IgnoreParenImpCasts());
    if (Name == "forward" && Arrow && Arrow->getOperator() == OO_Arrow &&
        isTensorType(Call.getType()))
      return Modules.moduleForwardDevice(
          Arrow->getArg(0), llvm::ArrayRef(Call.getArgs(), Call.getNumArgs()),
          Depth);
    // 'stats.mean()' of one of the project's classes (not a module, whose
    // tensors 'to()' moves): what its returns give, its private members being
    // the join of what its members give them (privateMemberDevice); a virtual
    // one, or one whose body is not seen, stays unknown (definedReturnDevice).
    if (isTensorType(Call.getType()) && !isLibraryFunction(*Method) &&
        !isProjectModule(*Method->getParent()))
      return definedReturnDevice(*Method, Depth + 1);
    return DeviceKind::Unknown;
  }
  if (Name == "set_")
    return DeviceKind::Unknown;
  DeviceKind Target = transferTarget(Call, Depth);
  if (Target != DeviceKind::Unspecified)
    return Target;
  // Other tensor methods compute where their receiver lives.
  if (!isTensorType(Call.getType()))
    return DeviceKind::Unknown;
  // 'a.add(b)', 'a.eq(b)': a 0-dim CPU receiver follows its operand.
  if (isElementwiseName(Name)) {
    SmallVector<const Expr *, 2> Operands{Receiver};
    for (const Expr *Arg : Call.arguments())
      if (isTensorType(Arg->getType()))
        Operands.push_back(Arg);
    if (Operands.size() > 1)
      return elementwiseDevice(Operands, Depth);
  }
  // 'x.new_zeros(sizes, options)' allocates on the options' device, if any.
  if (Name.starts_with("new_")) {
    DeviceKind Options = DeviceKind::Unspecified;
    for (const Expr *Arg : Call.arguments()) {
      StringRef Record = libraryRecordName(Arg->getType());
      if (Record == "TensorOptions" || Record == "Device" ||
          libraryEnumName(Arg->getType()) == "DeviceType")
        Options = joinAlternatives(Options, targetDevice(Arg, Depth + 1));
    }
    if (Options != DeviceKind::Unspecified)
      return Options;
  }
  return tensorDevice(Receiver, Depth + 1);
}

DeviceKind DeviceInference::functionCallDevice(const CallExpr &Call,
                                               unsigned Depth) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || !isTensorType(Call.getType()))
    return DeviceKind::Unknown;
  // 'std::move(t)' is 't'.
  if (Callee->isInStdNamespace() && Callee->getIdentifier() &&
      (Callee->getName() == "move" || Callee->getName() == "forward") &&
      Call.getNumArgs() == 1)
    return tensorDevice(Call.getArg(0), Depth + 1);
  // The functional API of torch::nn ('torch::nn::functional::mse_loss')
  // computes with ATen on its tensor inputs, and on the tensors its options
  // carry, if any.
  if (isInNamespace(Callee, {"torch", "nn", "functional"})) {
    DeviceKind Inputs = DeviceKind::Unspecified;
    for (const Expr *Arg : Call.arguments()) {
      if (isTensorType(Arg->getType()))
        Inputs = combineInputs(Inputs, tensorDevice(Arg, Depth + 1));
      else if (mayHandOverDevice(*Arg, Context))
        return DeviceKind::Unknown;
    }
    return Inputs == DeviceKind::Unspecified ? DeviceKind::Unknown : Inputs;
  }
  // A function of the project returns what the project facts say, or what
  // its returns in this translation unit give.
  if (!isLibraryFunction(*Callee)) {
    std::optional<DeviceKind> Device =
        Facts ? projectReturnDevice(Call, Depth) : std::nullopt;
    if (!Device || *Device == DeviceKind::Unknown)
      Device = definedReturnDevice(*Callee, Depth);
    return *Device;
  }
  // Only ATen's and the C++ frontend's own functions are known to put their
  // result where their inputs or options say; a user's function may not.
  StringRef NS = topLevelNamespace(Callee);
  if (NS != "at" && NS != "torch")
    return DeviceKind::Unknown;

  DeviceKind Options = DeviceKind::Unspecified;
  DeviceKind Inputs = DeviceKind::Unspecified;
  SmallVector<const Expr *, 2> Tensors;
  for (const Expr *Arg : Call.arguments()) {
    QualType T = Arg->getType();
    if (isTensorType(T)) {
      Tensors.push_back(Arg);
      Inputs = combineInputs(Inputs, tensorDevice(Arg, Depth + 1));
      continue;
    }
    if (isTensorList(T)) {
      Inputs = combineInputs(Inputs, tensorListDevice(Arg, Depth + 1));
      continue;
    }
    StringRef Record = libraryRecordName(T);
    if (Record == "TensorOptions" || Record == "Device" ||
        libraryEnumName(T) == "DeviceType")
      Options = joinAlternatives(Options, targetDevice(Arg, Depth + 1));
  }
  if (Options != DeviceKind::Unspecified)
    return Options;
  // 'at::mul(a, b)' with a CPU operand of rank >= 1 (elementwiseDevice).
  if (Inputs == DeviceKind::Unknown && Tensors.size() > 1 &&
      Callee->getIdentifier() && isElementwiseName(Callee->getName()))
    return elementwiseDevice(Tensors, Depth);
  // A factory ('zeros', 'from_blob', 'torch::tensor') without a device
  // allocates on the CPU: C++ has no default-device setting.
  return Inputs == DeviceKind::Unspecified ? DeviceKind::CPU : Inputs;
}

std::optional<DeviceKind>
DeviceInference::projectReturnDevice(const CallExpr &Call, unsigned Depth) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  const ProjectFacts::ReturnDevice *Returns =
      Callee ? Facts->returnDevice(projectFunctionKey(*Callee, Context))
             : nullptr;
  if (!Returns)
    return std::nullopt;
  DeviceKind Result = Returns->Device;
  for (unsigned Index : Returns->Parameters) {
    // A free function's arguments are its parameters, in order.
    DeviceKind Argument = Index < Call.getNumArgs()
                              ? tensorDevice(Call.getArg(Index), Depth + 1)
                              : DeviceKind::Unknown;
    // Unspecified: an argument still being analysed (recursion).
    Result = joinAlternatives(Result, Argument == DeviceKind::Unspecified
                                          ? DeviceKind::Unknown
                                          : Argument);
  }
  return Result == DeviceKind::Unspecified ? DeviceKind::Unknown : Result;
}

DeviceKind DeviceInference::memberDevice(const MemberExpr &Member,
                                         unsigned Depth) {
  const auto *Field = dyn_cast<FieldDecl>(Member.getMemberDecl());
  if (!Field || !isTensorType(Field->getType()))
    return DeviceKind::Unknown;
  // 'pair.first', 'pair.second' of a std::pair.
  if (!Member.isArrow() && isStdPairOrTuple(Member.getBase()->getType()) &&
      Field->getIdentifier() &&
      (Field->getName() == "first" || Field->getName() == "second"))
    return tupleElementDevice(Member.getBase(),
                              Field->getName() == "first" ? 0 : 1, Depth + 1);
  // 'this->images_', a private member of a class all of whose members this
  // translation unit defines: the join of what they give it. Not in a
  // module: 'to()' moves the tensors it registered, members included
  // (set_data, torch/csrc/api/src/nn/module.cpp).
  const auto *Class = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!AssumeModuleStateOnCpu && Class && !isProjectModule(*Class) &&
      isa<CXXThisExpr>(Member.getBase()->IgnoreParenImpCasts()))
    return privateMemberDevice(*Field, Depth);
  // 'this->weight' under the project pass's hypothesis.
  if (AssumeModuleStateOnCpu &&
      isa<CXXThisExpr>(Member.getBase()->IgnoreParenImpCasts()) &&
      isa<CXXRecordDecl>(Field->getParent()) &&
      isProjectModule(*cast<CXXRecordDecl>(Field->getParent())))
    return DeviceKind::CPU;
  // 'm->weight': a parameter or buffer of a module held by 'm'.
  const auto *Arrow =
      dyn_cast<CXXOperatorCallExpr>(Member.getBase()->IgnoreParenImpCasts());
  if (Member.isArrow() && Arrow && Arrow->getOperator() == OO_Arrow) {
    const CXXRecordDecl *Module = heldModule(Arrow->getArg(0)->getType());
    return Module && isLibraryLeafModule(*Module)
               ? Modules.moduleDevice(Arrow->getArg(0), Depth + 1)
               : DeviceKind::Unknown;
  }
  // 'batch.data', 'example.target' of a torch::data::Example.
  return Data.exampleMemberDevice(Member);
}

DeviceKind DeviceInference::parameterDevice(const ParmVarDecl &Param,
                                            unsigned Depth) {
  const auto *Function = dyn_cast<FunctionDecl>(Param.getDeclContext());
  if (!Function || !isTensorType(Param.getType()))
    return DeviceKind::Unknown;
  // The dispatcher calls a CPU kernel only when no tensor argument is on a
  // device of a higher dispatch key, CUDA among them
  // (c10/core/DispatchKeySet.h, highestPriorityTypeId).
  if (Sites.isCpuKernel(*Function))
    return DeviceKind::CPU;
  // The hypothesis of the project pass: a project module's forward given
  // CPU inputs.
  if (AssumeModuleStateOnCpu)
    if (const auto *Method = dyn_cast<CXXMethodDecl>(Function);
        Method && Method->getIdentifier() && Method->getName() == "forward" &&
        isProjectModule(*Method->getParent()))
      return DeviceKind::CPU;
  // The join of the arguments at every call in the project, where the
  // project facts know one.
  if (Facts)
    if (std::optional<DeviceKind> Device =
            Facts->parameterDevice(projectFunctionKey(*Function, Context),
                                   Param.getFunctionScopeIndex());
        Device && *Device != DeviceKind::Unknown)
      return *Device;
  // The join of the arguments at every call of a function private to the
  // file.
  return Sites.callSiteDevice(Param, Depth);
}

const VarDecl *DeviceInference::deviceOrigin(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDeviceDepth || E->isTypeDependent() ||
      !isTensorType(E->getType()))
    return nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var || !Var->hasLocalStorage())
      return nullptr;
    // The variable of a range-based for over pieces, never written.
    if (const Expr *Range = Lists.loopRange(*Var))
      return Writes.isNeverWritten(*Var) ? listElementOrigin(Range, Depth + 1)
                                         : nullptr;
    if (Var->getType()->isReferenceType() && !isa<ParmVarDecl>(Var))
      return nullptr;
    if (const Expr *Value = Writes.singleValue(*Var))
      if (const VarDecl *Origin = deviceOrigin(Value, Depth + 1))
        return Origin;
    return Writes.isNeverWritten(*Var) ? Var : nullptr;
  }
  if (const Expr *List = Lists.elementList(E))
    return listElementOrigin(List, Depth + 1);
  // Every tensor operand, and every device that the call names, must come
  // from the same variable.
  const VarDecl *Origin = nullptr;
  bool Conflict = false;
  auto Merge = [&](const VarDecl *Other) {
    if (!Other || (Origin && Origin != Other))
      Conflict = true;
    else
      Origin = Other;
  };
  auto MergeArguments = [&](const CallExpr &Call) {
    for (const Expr *Arg : Call.arguments()) {
      QualType T = Arg->getType();
      if (isTensorType(T))
        Merge(deviceOrigin(Arg, Depth + 1));
      else if (libraryRecordName(T) == "TensorOptions" ||
               libraryRecordName(T) == "Device" ||
               libraryEnumName(T) == "DeviceType")
        // A dtype-only option keeps the device; a device may change it.
        if (targetDevice(Arg, Depth + 1) != DeviceKind::Unspecified)
          Merge(targetOrigin(Arg, Depth + 1));
    }
  };
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    const Expr *Receiver = Member->getImplicitObjectArgument();
    if (!Method || !Method->getIdentifier() || !Receiver ||
        !isTensorType(Receiver->getType()))
      return nullptr;
    StringRef Name = Method->getName();
    // Copies and conversions may change the device.
    if (isInApiList(ApiList::DeviceChangingMethods, Name))
      return nullptr;
    Merge(deviceOrigin(Receiver, Depth + 1));
    MergeArguments(*Member);
    return Conflict ? nullptr : Origin;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !isLibraryFunction(*Callee) ||
      (isa<CXXOperatorCallExpr>(Call) &&
       cast<CXXOperatorCallExpr>(Call)->isAssignmentOp()))
    return nullptr;
  MergeArguments(*Call);
  return Conflict ? nullptr : Origin;
}

const VarDecl *DeviceInference::targetOrigin(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDeviceDepth || E->isTypeDependent())
    return nullptr;
  if (isTensorType(E->getType()))
    return deviceOrigin(E, Depth);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var)
      return nullptr;
    if (const Expr *Value = Writes.singleValue(*Var))
      if (const VarDecl *Origin = targetOrigin(Value, Depth + 1))
        return Origin;
    // A Device or TensorOptions variable that nothing reassigns is the
    // origin itself: tensors made with it share its device, whatever that
    // is ('auto a = torch::zeros(n, dev); auto b = torch::ones(n, dev);').
    // So is a parameter that is a const reference to one.
    QualType T = Var->getType();
    bool ConstParameter = isa<ParmVarDecl>(Var) && T->isReferenceType() &&
                          T.getNonReferenceType().isConstQualified();
    if (Var->hasLocalStorage() && (!T->isReferenceType() || ConstParameter) &&
        namesDeviceValue(T) && Writes.isNeverWritten(*Var))
      return Var;
    return nullptr;
  }
  // 'at::device(d)' and 'torch::dtype(k).device(d)' name the device d does.
  if (const auto *Call = dyn_cast<CallExpr>(E);
      Call && !isa<CXXMemberCallExpr>(Call) && Call->getNumArgs() == 1)
    if (const FunctionDecl *Callee = Call->getDirectCallee())
      if (isLibraryFunction(*Callee) && Callee->getIdentifier() &&
          Callee->getName() == "device")
        return targetOrigin(Call->getArg(0), Depth + 1);
  const auto *Member = dyn_cast<CXXMemberCallExpr>(E);
  const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
  const Expr *Receiver = Member ? Member->getImplicitObjectArgument() : nullptr;
  if (!Method || !Method->getIdentifier() || !Receiver)
    return nullptr;
  StringRef Name = Method->getName();
  // 't.options()', 't.device()'.
  if (isTensorType(Receiver->getType()))
    return Name == "options" || Name == "device"
               ? deviceOrigin(Receiver, Depth + 1)
               : nullptr;
  // 'options.dtype(k)' and the other setters that keep the device.
  if (libraryRecordName(Receiver->getType()) == "TensorOptions" &&
      isInApiList(ApiList::TensorOptionsSetters, Name))
    return targetOrigin(Receiver, Depth + 1);
  // 'options.device(d)' names d's device.
  if (libraryRecordName(Receiver->getType()) == "TensorOptions" &&
      Name == "device" && Member->getNumArgs() == 1)
    return targetOrigin(Member->getArg(0), Depth + 1);
  return nullptr;
}

DeviceKind DeviceInference::tensorListDevice(const Expr *E, unsigned Depth) {
  SmallVector<const Expr *, 4> Sources;
  if (Depth > MaxDeviceDepth || !Lists.elementSources(E, Depth, Sources))
    return DeviceKind::Unknown;
  DeviceKind Result = DeviceKind::Unspecified;
  for (const Expr *Source : Sources)
    Result = combineInputs(Result, tensorDevice(Source, Depth + 1));
  // Nothing pushed, or only what is being analysed.
  return Result == DeviceKind::Unspecified ? DeviceKind::Unknown : Result;
}

DeviceKind DeviceInference::listElementDevice(const Expr *List,
                                              unsigned Depth) {
  SmallVector<const Expr *, 4> Sources;
  if (Depth > MaxDeviceDepth || !Lists.elementSources(List, Depth, Sources))
    return DeviceKind::Unknown;
  DeviceKind Result = DeviceKind::Unspecified;
  for (const Expr *Source : Sources) {
    Result = joinAlternatives(Result, tensorDevice(Source, Depth + 1));
    if (Result == DeviceKind::Unknown)
      break;
  }
  return Result == DeviceKind::Unspecified ? DeviceKind::Unknown : Result;
}

const VarDecl *DeviceInference::listElementOrigin(const Expr *List,
                                                  unsigned Depth) {
  SmallVector<const Expr *, 4> Sources;
  if (Depth > MaxDeviceDepth || !Lists.elementSources(List, Depth, Sources))
    return nullptr;
  const VarDecl *Origin = nullptr;
  for (const Expr *Source : Sources) {
    const VarDecl *Other = deviceOrigin(Source, Depth + 1);
    if (!Other || (Origin && Origin != Other))
      return nullptr;
    Origin = Other;
  }
  return Origin;
}

DeviceKind DeviceInference::transferTarget(const CXXMemberCallExpr &Call) {
  return transferTarget(Call, 0);
}

DeviceKind DeviceInference::transferTarget(const CXXMemberCallExpr &Call,
                                           unsigned Depth) {
  const CXXMethodDecl *Method = Call.getMethodDecl();
  if (!Method || !Method->getIdentifier())
    return DeviceKind::Unspecified;
  StringRef Name = Method->getName();
  if (Name == "cpu" || Name == "pin_memory")
    return DeviceKind::CPU;
  if (Name == "cuda")
    return DeviceKind::CUDA;
  if (Name != "to" || Call.getNumArgs() == 0)
    return DeviceKind::Unspecified;
  // The overloads of Tensor::to differ in their first parameter.
  const Expr *First = Call.getArg(0);
  if (isTensorType(Method->getParamDecl(0)->getType()))
    return tensorDevice(First, Depth + 1);
  // to(optional<ScalarType> dtype, optional<Layout>, optional<Device> device,
  // ...)
  for (const ParmVarDecl *Param : Method->parameters())
    if (Param->getName() == "device" &&
        libraryRecordName(Param->getType()) == "optional")
      return targetDevice(Call.getArg(Param->getFunctionScopeIndex()),
                          Depth + 1);
  return targetDevice(First, Depth + 1);
}

DeviceKind DeviceInference::targetDevice(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDeviceDepth || E->isTypeDependent() ||
      E->containsErrors())
    return DeviceKind::Unknown;
  if (namesNoDevice(E->getType()))
    return DeviceKind::Unspecified;

  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *Enumerator = dyn_cast<EnumConstantDecl>(Ref->getDecl()))
      return deviceFromEnumerator(*Enumerator);
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var)
      return DeviceKind::Unknown;
    // at::kCPU, torch::kCUDA: constexpr DeviceType constants in c10.
    if (Var->isConstexpr() && Var->getInit() && !Var->hasLocalStorage())
      return targetDevice(Var->getInit(), Depth + 1);
    return variableDevice(*Var, Depth);
  }
  if (const auto *Literal = dyn_cast<StringLiteral>(E))
    return Literal->getCharByteWidth() == 1
               ? deviceFromString(Literal->getString())
               : DeviceKind::Unknown;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    // Device(kCUDA), Device("cuda:0"), TensorOptions(kCUDA), optional<Device>.
    if (Construct->getNumArgs() == 0)
      return DeviceKind::Unspecified;
    return targetDevice(Construct->getArg(0), Depth + 1);
  }
  if (const auto *Init = dyn_cast<InitListExpr>(E))
    return Init->getNumInits() == 0 ? DeviceKind::Unspecified
                                    : targetDevice(Init->getInit(0), Depth + 1);
  if (isa<CXXScalarValueInitExpr, ImplicitValueInitExpr, CXXNullPtrLiteralExpr>(
          E))
    return DeviceKind::Unspecified;
  if (const auto *Conditional = dyn_cast<ConditionalOperator>(E))
    return joinAlternatives(
        targetDevice(Conditional->getTrueExpr(), Depth + 1),
        targetDevice(Conditional->getFalseExpr(), Depth + 1));
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    const Expr *Receiver = Member->getImplicitObjectArgument();
    if (!Method || !Method->getIdentifier() || !Receiver)
      return DeviceKind::Unknown;
    StringRef Name = Method->getName();
    // t.device(), t.options(): where the tensor lives.
    if (isTensorType(Receiver->getType()))
      return Name == "device" || Name == "options"
                 ? tensorDevice(Receiver, Depth + 1)
                 : DeviceKind::Unknown;
    if (libraryRecordName(Receiver->getType()) != "TensorOptions")
      return DeviceKind::Unknown;
    // options.device(kCUDA) sets the device; options.device() reads it;
    // options.dtype(...) and the other setters keep it.
    if (Name == "device" && Member->getNumArgs() == 1)
      return targetDevice(Member->getArg(0), Depth + 1);
    if (Name == "device" || isInApiList(ApiList::TensorOptionsSetters, Name))
      return targetDevice(Receiver, Depth + 1);
    return DeviceKind::Unknown;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier())
      return DeviceKind::Unknown;
    StringRef NS = topLevelNamespace(Callee);
    if (NS != "at" && NS != "c10" && NS != "torch")
      return DeviceKind::Unknown;
    StringRef Name = Callee->getName();
    if (Name == "device" && Call->getNumArgs() == 1)
      return targetDevice(Call->getArg(0), Depth + 1);
    if (isInApiList(ApiList::TensorOptionsFunctions, Name))
      return DeviceKind::Unspecified;
  }
  return DeviceKind::Unknown;
}

std::optional<bool> DeviceInference::nonBlockingArgument(const CallExpr &Call) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee)
    return std::nullopt;
  for (const ParmVarDecl *Param : Callee->parameters()) {
    if (Param->getName() != "non_blocking")
      continue;
    unsigned Index = Param->getFunctionScopeIndex();
    if (Index >= Call.getNumArgs())
      return std::nullopt;
    const Expr *Arg = Call.getArg(Index);
    if (isa<CXXDefaultArgExpr>(Arg))
      return false;
    if (Arg->isValueDependent() || Arg->containsErrors())
      return std::nullopt;
    bool Value = false;
    if (Arg->EvaluateAsBooleanCondition(Value, Context))
      return Value;
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace clang::tidy::torch_sync