//===--- HostMemoryKind.cpp - what memory does a pointer point to? --------===//

#include "analysis/HostMemoryKind.h"
#include "analysis/device/DeviceWrites.h"
#include "facts/SyncFacts.h"
#include "libtorch/DeviceTypes.h"
#include "libtorch/LibTorchApi.h"
#include "support/EnclosingContext.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {

/// How deep the classifier follows variables and calls.
constexpr unsigned MaxDepth = 8;

/// The bare name of \p Call's callee with the CUDA headers' version and
/// per-thread suffixes dropped ('cuMemAllocHost_v2' is 'cuMemAllocHost'), or
/// "" when it has no identifier.
StringRef calleeName(const CallExpr &Call) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || !Callee->getIdentifier())
    return "";
  StringRef Name = Callee->getName();
  for (StringRef Suffix : apiList(ApiList::CudaApiNameSuffixes))
    if (Name.consume_back(Suffix))
      break;
  return Name;
}

/// Whether \p Call calls a function of the global namespace or of namespace
/// std (the C library's allocators, the CUDA API).
bool callsGlobalOrStd(const CallExpr &Call) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  return Callee &&
         (Callee->isInStdNamespace() ||
          Callee->getDeclContext()->getRedeclContext()->isTranslationUnit());
}

/// The kind of memory that the allocator \p Name returns (malloc) or writes
/// into its first argument (cudaMallocHost); std::nullopt for another name.
/// The CUDA reference's memory management sections and the C library.
std::optional<MemoryKind> allocatorKind(StringRef Name) {
  if (llvm::is_contained(
          {"malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign"},
          Name))
    return MemoryKind::Pageable;
  if (llvm::is_contained({"cudaMallocHost", "cudaHostAlloc", "cuMemAllocHost",
                          "cuMemHostAlloc"},
                         Name))
    return MemoryKind::Pinned;
  if (llvm::is_contained({"cudaMalloc", "cudaMallocAsync", "cudaMallocPitch",
                          "cuMemAlloc", "cuMemAllocAsync", "cuMemAllocPitch"},
                         Name))
    return MemoryKind::Device;
  return std::nullopt;
}

/// Whether \p Name registers host memory (pins it); the other calls that
/// isRegisteredBefore finds unregister it.
bool isRegistration(StringRef Name) {
  return Name == "cudaHostRegister" || Name == "cuMemHostRegister";
}

/// \p E without parentheses, implicit and explicit casts (to 'void *', to
/// CUdeviceptr) and pointer arithmetic ('p + offset' points into the memory
/// 'p' points to).
const Expr *pointerBase(const Expr *E) {
  for (unsigned Steps = 0; E && Steps < 32; ++Steps) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    if (const auto *Binary = dyn_cast<BinaryOperator>(E);
        Binary && Binary->isAdditiveOp()) {
      E = Binary->getLHS()->getType()->isPointerType() ? Binary->getLHS()
                                                       : Binary->getRHS();
      continue;
    }
    break;
  }
  return E;
}

/// The object expression of 'x[i]' (built-in or an operator[]), else null.
const Expr *subscriptedObject(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E))
    return Subscript->getBase();
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
      Operator && Operator->getOperator() == OO_Subscript &&
      Operator->getNumArgs() == 2)
    return Operator->getArg(0);
  return nullptr;
}

/// Whether \p Type is 'std::vector<T>' with the standard allocator, or
/// 'std::array' or 'std::basic_string' (with the standard allocator): a
/// container whose elements live in pageable memory of the host.
bool isPageableContainer(QualType Type) {
  const auto *Record = Type.getNonReferenceType()->getAsCXXRecordDecl();
  if (!Record || !Record->isInStdNamespace() || !Record->getIdentifier())
    return false;
  StringRef Name = Record->getName();
  if (Name == "array")
    return true;
  if (Name != "vector" && Name != "basic_string")
    return false;
  // A custom allocator may hand out pinned memory.
  const auto *Specialization =
      dyn_cast<ClassTemplateSpecializationDecl>(Record);
  if (!Specialization)
    return false;
  const TemplateArgumentList &Args = Specialization->getTemplateArgs();
  for (unsigned I = 0; I < Args.size(); ++I) {
    if (Args[I].getKind() != TemplateArgument::Type)
      continue;
    const auto *Argument = Args[I].getAsType()->getAsCXXRecordDecl();
    if (Argument && Argument->getIdentifier() &&
        Argument->getName().ends_with("allocator") &&
        !(Argument->isInStdNamespace() && Argument->getName() == "allocator"))
      return false;
  }
  return true;
}

/// Whether \p Var lives in pageable host memory wherever it is declared: a
/// variable of the stack or a global of the host, not a CUDA symbol
/// ('__device__', '__constant__', '__managed__'), not a reference.
bool isHostObject(const VarDecl &Var) {
  if (Var.getType()->isReferenceType())
    return false;
  return !Var.hasAttr<CUDADeviceAttr>() && !Var.hasAttr<CUDAConstantAttr>() &&
         !Var.hasAttr<HIPManagedAttr>() && !Var.hasAttr<CUDASharedAttr>();
}

/// The declaration a host buffer expression is rooted in, for matching it
/// with a registration: 'v' of 'v.data()', '&v[0]', 'a', '&x', 'p + 4',
/// 't.data_ptr()'; null when there is none.
const ValueDecl *memoryRoot(const Expr *E) {
  for (unsigned Steps = 0; E && Steps < 16; ++Steps) {
    E = pointerBase(E);
    if (const auto *Unary = dyn_cast<UnaryOperator>(E);
        Unary && Unary->getOpcode() == UO_AddrOf) {
      E = Unary->getSubExpr();
      if (const Expr *Object = subscriptedObject(E))
        E = Object;
      continue;
    }
    if (const Expr *Object = subscriptedObject(E)) {
      E = Object;
      continue;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      E = Member->getImplicitObjectArgument();
      continue;
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return Ref->getDecl();
    if (const auto *Member = dyn_cast<MemberExpr>(E))
      return Member->getMemberDecl();
    return nullptr;
  }
  return nullptr;
}

/// Whether \p Value (an argument) is the constant true, false, or neither.
std::optional<bool> constantBool(const Expr *Value, const ASTContext &Context) {
  if (!Value || Value->isValueDependent())
    return std::nullopt;
  bool Result = false;
  if (Value->IgnoreImplicit()->EvaluateAsBooleanCondition(Result, Context))
    return Result;
  return std::nullopt;
}

class Classifier {
public:
  Classifier(const Expr &Use, DeviceInference &Devices, ASTContext &Context)
      : Use(Use), Devices(Devices), Context(Context),
        Function(enclosingFunction(Use, Context)) {}

  MemoryKind classify(const Expr *E, unsigned Depth);
  bool isRegisteredBefore(const ValueDecl &Root);

private:
  MemoryKind pointerVariable(const VarDecl &Var, unsigned Depth);
  MemoryKind tensorData(const Expr *Tensor, unsigned Depth);
  MemoryKind tensorPinning(const Expr *Tensor, unsigned Depth);
  MemoryKind optionsPinning(const Expr *Options, unsigned Depth);

  const Expr &Use;
  DeviceInference &Devices;
  ASTContext &Context;
  const FunctionDecl *Function;
};

/// The classification of the written pointer \p E, before registration is
/// considered.
MemoryKind Classifier::classify(const Expr *E, unsigned Depth) {
  if (!E || Depth > MaxDepth || E->isTypeDependent() || E->containsErrors())
    return MemoryKind::Unknown;
  E = pointerBase(E);
  // '&x', '&a[i]', '&v[0]': a variable's address, an element of a stack
  // array or of a std::vector.
  if (const auto *Unary = dyn_cast<UnaryOperator>(E);
      Unary && Unary->getOpcode() == UO_AddrOf) {
    const Expr *Object = Unary->getSubExpr()->IgnoreParenImpCasts();
    if (const Expr *Container = subscriptedObject(Object))
      return isPageableContainer(Container->getType())
                 ? MemoryKind::Pageable
                 : classify(Container, Depth + 1); // a pointer, an array

    if (const auto *Ref = dyn_cast<DeclRefExpr>(Object))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        return isHostObject(*Var) ? MemoryKind::Pageable : MemoryKind::Unknown;
    return MemoryKind::Unknown;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var)
      return MemoryKind::Unknown;
    // A stack or global array decays to a pointer to its elements.
    if (Var->getType()->isConstantArrayType())
      return isHostObject(*Var) ? MemoryKind::Pageable : MemoryKind::Unknown;
    if (Var->getType()->isPointerType() || Var->getType()->isIntegerType())
      return pointerVariable(*Var, Depth);
    return MemoryKind::Unknown;
  }
  // 'new float[n]', 'new T' (not a placement new, which returns its
  // argument).
  if (const auto *New = dyn_cast<CXXNewExpr>(E))
    return New->getNumPlacementArgs() == 0 ? MemoryKind::Pageable
                                           : MemoryKind::Unknown;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    const Expr *Object = Member->getImplicitObjectArgument();
    if (!Method || !Method->getIdentifier() || !Object)
      return MemoryKind::Unknown;
    StringRef Name = Method->getName();
    // 'v.data()' of a std::vector, std::array or std::string.
    if (Name == "data" && isPageableContainer(Object->getType()))
      return MemoryKind::Pageable;
    // A tensor's data: 't.data_ptr()', 't.data_ptr<float>()',
    // 't.const_data_ptr<float>()', 't.mutable_data_ptr()', 't.data<T>()'.
    if (isTensorType(Object->getType()) &&
        (Name == "data_ptr" || Name == "const_data_ptr" ||
         Name == "mutable_data_ptr" || Name == "data"))
      return tensorData(Object, Depth);
    return MemoryKind::Unknown;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (!callsGlobalOrStd(*Call))
      return MemoryKind::Unknown;
    StringRef Name = calleeName(*Call);
    // 'malloc(n)' and the like return the memory ('posix_memalign' writes it
    // into its first argument: pointerVariable).
    std::optional<MemoryKind> Kind = allocatorKind(Name);
    return Kind == MemoryKind::Pageable && Name != "posix_memalign"
               ? MemoryKind::Pageable
               : MemoryKind::Unknown;
  }
  return MemoryKind::Unknown;
}

/// A local pointer variable: the kind all its values agree on, its
/// initializer, the assignments to it and the allocators given its address
/// ('cudaMallocHost(&p, n)'); Unknown when any other code may write it (a
/// non-const reference, its address passed elsewhere) or the values differ.
/// A null pointer is no value: no copy reads it.
MemoryKind Classifier::pointerVariable(const VarDecl &Var, unsigned Depth) {
  if (!Var.isLocalVarDecl() || Var.getType()->isReferenceType() || !Function ||
      !Function->getBody())
    return MemoryKind::Unknown;
  std::optional<MemoryKind> Agreed;
  auto Join = [&](MemoryKind Kind) {
    if (!Agreed)
      Agreed = Kind;
    else if (*Agreed != Kind)
      Agreed = MemoryKind::Unknown;
  };
  auto IsNull = [&](const Expr *Value) {
    return Value->IgnoreParenImpCasts()->isNullPointerConstant(
               Context, Expr::NPC_ValueDependentIsNotNull) !=
               Expr::NPCK_NotNull ||
           (Value->getType()->isIntegerType() &&
            Value->IgnoreParenImpCasts()->isIntegerConstantExpr(Context));
  };
  if (const Expr *Init = Var.getInit(); Init && !IsNull(Init))
    Join(classify(Init, Depth + 1));
  for (const BoundNodes &Write :
       match(writesToVariable(Var), *Function->getBody(), Context)) {
    if (const auto *Assigned = Write.getNodeAs<Expr>("assigned")) {
      if (!IsNull(Assigned))
        Join(classify(Assigned, Depth + 1));
      continue;
    }
    const auto *Escape = Write.getNodeAs<Stmt>("escape");
    const auto *Address = dyn_cast_or_null<UnaryOperator>(Escape);
    if (!Address)
      return MemoryKind::Unknown;
    // '&p' as the first argument of an allocator, through casts
    // ('(void **)&p', 'reinterpret_cast<void **>(&p)').
    const CallExpr *Allocation = nullptr;
    forEachAncestor(DynTypedNode::create(*Address), Context,
                    [&](const DynTypedNode &Parent, const DynTypedNode &) {
                      if (const auto *Call = Parent.get<CallExpr>()) {
                        if (Call->getNumArgs() > 0 &&
                            pointerBase(Call->getArg(0)) == Address)
                          Allocation = Call;
                        return true;
                      }
                      return !Parent.get<CastExpr>() &&
                             !Parent.get<ParenExpr>();
                    });
    std::optional<MemoryKind> Kind;
    if (Allocation && callsGlobalOrStd(*Allocation))
      Kind = allocatorKind(calleeName(*Allocation));
    if (!Kind)
      return MemoryKind::Unknown;
    Join(*Kind);
  }
  return Agreed.value_or(MemoryKind::Unknown);
}

/// The data of the tensor \p Tensor: on a CUDA device, device memory; on the
/// CPU, pinned or pageable as tensorPinning says.
MemoryKind Classifier::tensorData(const Expr *Tensor, unsigned Depth) {
  switch (Devices.tensorDevice(Tensor)) {
  case DeviceKind::CUDA:
    return MemoryKind::Device;
  case DeviceKind::CPU:
    return tensorPinning(Tensor, Depth + 1);
  default:
    return MemoryKind::Unknown;
  }
}

/// Whether the CPU tensor \p Tensor is pinned (Pinned), provably not
/// (Pageable), or neither is known: '.pin_memory()' and a factory given
/// 'pinned_memory(true)' pin; a factory without it, '.cpu()' or a blocking
/// '.to(...)' of a CUDA tensor do not; 'from_blob' wraps its pointer's
/// memory. Any other tensor is Unknown.
MemoryKind Classifier::tensorPinning(const Expr *Tensor, unsigned Depth) {
  if (!Tensor || Depth > MaxDepth)
    return MemoryKind::Unknown;
  const Expr *E = Tensor->IgnoreUnlessSpelledInSource();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    const Expr *Value = Var ? Devices.singleValue(*Var) : nullptr;
    return Value ? tensorPinning(Value, Depth + 1) : MemoryKind::Unknown;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    const Expr *Receiver = Member->getImplicitObjectArgument();
    if (!Method || !Method->getIdentifier() || !Receiver)
      return MemoryKind::Unknown;
    StringRef Name = Method->getName();
    if (Name == "pin_memory")
      return MemoryKind::Pinned;
    // A copy from a CUDA tensor into a new CPU tensor: pageable, unless
    // non_blocking, for which '_to_copy' pins the result.
    if ((Name == "cpu" || Name == "to") &&
        Devices.tensorDevice(Receiver) == DeviceKind::CUDA &&
        (Name == "cpu" || Devices.nonBlockingArgument(*Member) == false))
      return MemoryKind::Pageable;
    return MemoryKind::Unknown;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->getIdentifier() ||
      !(isInNamespace(Callee, {"at"}) || isInNamespace(Callee, {"torch"})))
    return MemoryKind::Unknown;
  if (Callee->getName() == "from_blob") {
    if (Call->getNumArgs() == 0)
      return MemoryKind::Unknown;
    MemoryKind Kind = classify(Call->getArg(0), Depth + 1);
    return Kind == MemoryKind::Device ? MemoryKind::Unknown : Kind;
  }
  // A factory: no tensor argument, and its options decide.
  MemoryKind Result = MemoryKind::Pageable;
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    const Expr *Arg = Call->getArg(I);
    if (isTensorType(Arg->getType()))
      return MemoryKind::Unknown;
    const ParmVarDecl *Param =
        I < Callee->getNumParams() ? Callee->getParamDecl(I) : nullptr;
    // The unpacked overloads' 'pin_memory' (c10::optional<bool>).
    if (Param && Param->getIdentifier() && Param->getName() == "pin_memory") {
      const Expr *Value = Arg->IgnoreUnlessSpelledInSource();
      if (isa<CXXDefaultArgExpr>(Arg) ||
          (isa<DeclRefExpr>(Value) && Value->getType()->getAsCXXRecordDecl() &&
           Value->getType()->getAsCXXRecordDecl()->getName() == "nullopt_t"))
        continue;
      std::optional<bool> Pin = constantBool(Value, Context);
      if (!Pin)
        return MemoryKind::Unknown;
      if (*Pin)
        Result = MemoryKind::Pinned;
      continue;
    }
    MemoryKind Options = optionsPinning(Arg, Depth + 1);
    if (Options != MemoryKind::Pageable)
      Result = Options;
    if (Result == MemoryKind::Unknown)
      return Result;
  }
  return Result;
}

/// Whether the argument \p Options of a factory asks for pinned memory: a
/// 'pinned_memory(b)' call inside it, b true (Pinned) or false; a local
/// TensorOptions variable is followed to its value. Pageable when it names no
/// pinning; Unknown when it is not seen (a parameter, b not a constant).
MemoryKind Classifier::optionsPinning(const Expr *Options, unsigned Depth) {
  if (!Options || Depth > MaxDepth)
    return MemoryKind::Unknown;
  const Expr *E = Options->IgnoreImplicit();
  if (isa<CXXDefaultArgExpr>(E))
    return MemoryKind::Pageable;
  MemoryKind Result = MemoryKind::Pageable;
  // The 'pinned_memory' calls and the variables inside the argument.
  auto Pinning = callExpr(callee(functionDecl(hasName("pinned_memory"))),
                          argumentCountIs(1))
                     .bind("pin");
  for (const BoundNodes &Node :
       match(findAll(expr(anyOf(Pinning, declRefExpr().bind("ref")))), *E,
             Context)) {
    if (const auto *Pin = Node.getNodeAs<CallExpr>("pin")) {
      std::optional<bool> Value = constantBool(Pin->getArg(0), Context);
      if (!Value)
        return MemoryKind::Unknown;
      if (*Value)
        Result = MemoryKind::Pinned;
      continue;
    }
    const auto *Ref = Node.getNodeAs<DeclRefExpr>("ref");
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Var)
      continue;
    const auto *Record =
        Var->getType().getNonReferenceType()->getAsCXXRecordDecl();
    if (Record && Record->getIdentifier() &&
        Record->getName() == "TensorOptions") {
      // A TensorOptions variable: its one value, when it has one.
      const Expr *Value = Devices.singleValue(*Var);
      MemoryKind Kind =
          Value ? optionsPinning(Value, Depth + 1) : MemoryKind::Unknown;
      if (Kind == MemoryKind::Unknown)
        return Kind;
      if (Kind == MemoryKind::Pinned)
        Result = Kind;
      continue;
    }
    // Options or a device held in a parameter of another type
    // ('c10::optional<bool> pin'): not seen. Sizes and dtypes do not pin.
    if (isa<ParmVarDecl>(Var) && !Var->getType()->isArithmeticType() &&
        !Var->getType()->isEnumeralType())
      return MemoryKind::Unknown;
  }
  return Result;
}

/// Whether the memory of \p Root was registered with cudaHostRegister (or
/// cuMemHostRegister) in the use's function, before the use, and not
/// unregistered between.
bool Classifier::isRegisteredBefore(const ValueDecl &Root) {
  if (!Function || !Function->getBody())
    return false;
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation UseLoc = Use.getBeginLoc();
  const CallExpr *Latest = nullptr;
  auto Calls = callExpr(callee(functionDecl(hasAnyName(
                            "cudaHostRegister", "cuMemHostRegister",
                            "cuMemHostRegister_v2", "cudaHostUnregister",
                            "cuMemHostUnregister"))))
                   .bind("call");
  for (const BoundNodes &Node :
       match(findAll(Calls), *Function->getBody(), Context)) {
    const auto *Call = Node.getNodeAs<CallExpr>("call");
    if (Call->getNumArgs() == 0 || memoryRoot(Call->getArg(0)) != &Root ||
        !SM.isBeforeInTranslationUnit(Call->getBeginLoc(), UseLoc))
      continue;
    if (!Latest || SM.isBeforeInTranslationUnit(Latest->getBeginLoc(),
                                                Call->getBeginLoc()))
      Latest = Call;
  }
  return Latest && isRegistration(calleeName(*Latest));
}

} // namespace

MemoryKind hostMemoryKind(const Expr &Pointer, DeviceInference &Devices,
                          ASTContext &Context) {
  Classifier Classify(Pointer, Devices, Context);
  MemoryKind Kind = Classify.classify(&Pointer, 0);
  if (Kind != MemoryKind::Pageable)
    return Kind;
  const ValueDecl *Root = memoryRoot(&Pointer);
  if (Root && Classify.isRegisteredBefore(*Root))
    return MemoryKind::Pinned;
  return Kind;
}

} // namespace clang::tidy::torch_sync
