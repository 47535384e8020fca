//===--- DeviceInference.cpp - where does a tensor live? -------------------===//

#include "DeviceInference.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {

/// Deep enough for 'a.cpu().abs().sum()' chains and a few variable hops; the
/// bound keeps pathological code cheap.
constexpr unsigned MaxDepth = 12;

/// The namespace a declaration sits in directly, when that namespace is a
/// top-level one (at, c10, torch), else empty.
StringRef topLevelNamespace(const Decl *D) {
  const auto *NS = dyn_cast_or_null<NamespaceDecl>(D->getDeclContext());
  if (!NS || !NS->getIdentifier() ||
      !NS->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return "";
  return NS->getName();
}

/// Name of a record type declared directly in namespace 'at', 'c10', 'caffe2'
/// or 'std' ("Tensor", "Device", "optional"), else empty.
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

/// Name of an enum type declared in namespace c10 or at ("DeviceType",
/// "ScalarType"), else empty.
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

/// Whether \p T only carries a dtype, layout or memory format: a value of this
/// type names no device.
bool namesNoDevice(QualType T) {
  StringRef Enum = libraryEnumName(T);
  if (Enum == "ScalarType" || Enum == "Layout" || Enum == "MemoryFormat")
    return true;
  return libraryRecordName(T) == "TypeMeta" || T->isBooleanType();
}

DeviceKind deviceFromString(StringRef Spec) {
  if (Spec == "cpu")
    return DeviceKind::CPU;
  if (Spec == "cuda" || Spec.starts_with("cuda:"))
    return DeviceKind::CUDA;
  return DeviceKind::Unknown;
}

DeviceKind deviceFromEnumerator(const EnumConstantDecl &Enumerator) {
  if (Enumerator.getName() == "CPU")
    return DeviceKind::CPU;
  if (Enumerator.getName() == "CUDA")
    return DeviceKind::CUDA;
  return DeviceKind::Unknown;
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

/// Matches the places where a function may give variable \p Var a value other
/// than its initializer: assignments (bound as "assigned"), and the escapes
/// that let unseen code change it (bound as "escape").
auto writesToVariable(const VarDecl &Var) {
  auto Ref = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(&Var)))));
  auto NonConstRef = referenceType(pointee(unless(isConstQualified())));
  return findAll(stmt(anyOf(
      // 'Tensor &r = t' lets the tensor change through another name.
      declStmt(has(varDecl(hasType(NonConstRef), hasInitializer(Ref))))
          .bind("escape"),
      cxxOperatorCallExpr(hasOverloadedOperatorName("="), hasArgument(0, Ref),
                          hasArgument(1, expr().bind("assigned"))),
      binaryOperator(isAssignmentOperator(), hasLHS(Ref),
                     hasRHS(expr().bind("assigned"))),
      // '&t' and 'Tensor &r = t' let the tensor change behind our back.
      unaryOperator(hasOperatorName("&"), hasUnaryOperand(Ref)).bind("escape"),

      callExpr(forEachArgumentWithParam(Ref, parmVarDecl(hasType(NonConstRef))))
          .bind("escape"),
      cxxConstructExpr(
          forEachArgumentWithParam(Ref, parmVarDecl(hasType(NonConstRef))))
          .bind("escape"),
      // 'set_' and 'swap' replace the storage, and with it the device.
      cxxMemberCallExpr(on(Ref), callee(cxxMethodDecl(hasAnyName(
                                     "set_", "swap", "_set_to"))))
          .bind("escape"))));
}

/// Whether \p T is a list of tensors: at::TensorList (ArrayRef<Tensor>),
/// at::ITensorListRef, std::vector<Tensor>, std::initializer_list<Tensor>.
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

} // namespace

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

DeviceKind combineInputs(DeviceKind A, DeviceKind B) {
  if (A == DeviceKind::Unspecified)
    return B;
  if (B == DeviceKind::Unspecified)
    return A;
  if (A == DeviceKind::CUDA || B == DeviceKind::CUDA)
    return DeviceKind::CUDA;
  if (A == DeviceKind::CPU && B == DeviceKind::CPU)
    return DeviceKind::CPU;
  return DeviceKind::Unknown;
}

DeviceKind joinAlternatives(DeviceKind A, DeviceKind B) {
  if (A == DeviceKind::Unspecified)
    return B;
  if (B == DeviceKind::Unspecified)
    return A;
  return A == B ? A : DeviceKind::Unknown;
}

DeviceKind DeviceInference::variableDevice(const VarDecl &Var, unsigned Depth) {
  // Parameters, globals and statics can hold a tensor from anywhere.
  if (isa<ParmVarDecl>(Var) || !Var.hasLocalStorage())
    return DeviceKind::Unknown;
  auto Cached = VariableCache.find(&Var);
  if (Cached != VariableCache.end())
    return Cached->second;

  const Expr *Init = Var.getInit();
  // A reference to another variable is an alias: its device is the other
  // variable's, which may change through either name.
  if (Var.getType()->isReferenceType() &&
      (!Init || isa<DeclRefExpr>(strip(Init))))
    return DeviceKind::Unknown;
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  if (!Function || !Function->getBody())
    return DeviceKind::Unknown;

  const bool IsTensor = isTensorType(Var.getType());
  auto Evaluate = [&](const Expr *E) {
    return IsTensor ? tensorDevice(E, Depth + 1) : targetDevice(E, Depth + 1);
  };

  VariableCache[&Var] = DeviceKind::Unspecified; // in progress
  DeviceKind Result = Init ? Evaluate(Init) : DeviceKind::Unspecified;
  if (Result != DeviceKind::Unknown) {
    for (const BoundNodes &Nodes :
         match(writesToVariable(Var), *Function->getBody(), Context)) {
      if (Nodes.getNodeAs<Stmt>("escape")) {
        Result = DeviceKind::Unknown;
        break;
      }
      if (const auto *Assigned = Nodes.getNodeAs<Expr>("assigned"))
        Result = joinAlternatives(Result, Evaluate(Assigned));
      if (Result == DeviceKind::Unknown)
        break;
    }
  }
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

const Expr *DeviceInference::singleValue(const VarDecl &Var) {
  if (isa<ParmVarDecl>(Var) || !Var.hasLocalStorage() || !Var.getInit() ||
      Var.getType()->isReferenceType())
    return nullptr;
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  if (!Function || !Function->getBody())
    return nullptr;
  if (!match(writesToVariable(Var), *Function->getBody(), Context).empty())
    return nullptr;
  return Var.getInit();
}

DeviceKind DeviceInference::tensorDevice(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDepth || E->isTypeDependent() || E->containsErrors())
    return DeviceKind::Unknown;

  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      return variableDevice(*Var, Depth);
    return DeviceKind::Unknown;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
    return memberCallDevice(*Member, Depth);
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Operator->isAssignmentOp())
      return DeviceKind::Unknown;
    // Arithmetic, comparison and indexing keep their tensor inputs' device.
    // An operand still being analysed ('x = x + 1') is Unspecified and
    // leaves the result to the other operands.
    DeviceKind Result = DeviceKind::Unspecified;
    bool HasTensorOperand = false;
    for (const Expr *Arg : Operator->arguments()) {
      if (!isTensorType(Arg->getType()))
        continue;
      HasTensorOperand = true;
      Result = combineInputs(Result, tensorDevice(Arg, Depth + 1));
    }
    return HasTensorOperand ? Result : DeviceKind::Unknown;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return functionCallDevice(*Call, Depth);
  if (const auto *Conditional = dyn_cast<ConditionalOperator>(E))
    return joinAlternatives(tensorDevice(Conditional->getTrueExpr(), Depth + 1),
                            tensorDevice(Conditional->getFalseExpr(), Depth + 1));
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    // 'at::Tensor t;' is undefined until assigned.
    if (Construct->getNumArgs() == 0)
      return DeviceKind::Unspecified;
    if (Construct->getNumArgs() == 1 && isTensorType(Construct->getArg(0)->getType()))
      return tensorDevice(Construct->getArg(0), Depth + 1);
  }
  return DeviceKind::Unknown;
}

DeviceKind DeviceInference::memberCallDevice(const CXXMemberCallExpr &Call,
                                             unsigned Depth) {
  const CXXMethodDecl *Method = Call.getMethodDecl();
  const Expr *Receiver = Call.getImplicitObjectArgument();
  if (!Method || !Receiver || !Method->getIdentifier() ||
      !isTensorType(Receiver->getType()))
    return DeviceKind::Unknown;
  StringRef Name = Method->getName();
  if (Name == "set_")
    return DeviceKind::Unknown;
  DeviceKind Target = transferTarget(Call, Depth);
  if (Target != DeviceKind::Unspecified)
    return Target;
  // Other tensor methods compute where their receiver lives.
  if (!isTensorType(Call.getType()))
    return DeviceKind::Unknown;
  return tensorDevice(Receiver, Depth + 1);
}

DeviceKind DeviceInference::functionCallDevice(const CallExpr &Call,
                                               unsigned Depth) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || !isTensorType(Call.getType()))
    return DeviceKind::Unknown;
  // Only ATen's and the C++ frontend's own functions are known to put their
  // result where their inputs or options say; a user's function may not.
  StringRef NS = topLevelNamespace(Callee);
  if (NS != "at" && NS != "torch")
    return DeviceKind::Unknown;

  DeviceKind Options = DeviceKind::Unspecified;
  DeviceKind Inputs = DeviceKind::Unspecified;
  for (const Expr *Arg : Call.arguments()) {
    QualType T = Arg->getType();
    if (isTensorType(T)) {
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
  // A factory ('zeros', 'from_blob', 'torch::tensor') without a device
  // allocates on the CPU: C++ has no default-device setting.
  return Inputs == DeviceKind::Unspecified ? DeviceKind::CPU : Inputs;
}

DeviceKind DeviceInference::tensorListDevice(const Expr *E, unsigned Depth) {
  // A braced list written at the call ('at::cat({a, b})'): its elements.
  const InitListExpr *List = bracedList(E);
  if (!List || List->getNumInits() == 0)
    return DeviceKind::Unknown;
  DeviceKind Result = DeviceKind::Unspecified;
  for (const Expr *Element : List->inits())
    Result = combineInputs(Result, tensorDevice(Element, Depth + 1));
  return Result;
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
  // to(optional<ScalarType> dtype, optional<Layout>, optional<Device> device, ...)
  for (const ParmVarDecl *Param : Method->parameters())
    if (Param->getName() == "device" &&
        libraryRecordName(Param->getType()) == "optional")
      return targetDevice(Call.getArg(Param->getFunctionScopeIndex()),
                          Depth + 1);
  return targetDevice(First, Depth + 1);
}

DeviceKind DeviceInference::targetDevice(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDepth || E->isTypeDependent() || E->containsErrors())
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
  if (isa<CXXScalarValueInitExpr, ImplicitValueInitExpr, CXXNullPtrLiteralExpr>(E))
    return DeviceKind::Unspecified;
  if (const auto *Conditional = dyn_cast<ConditionalOperator>(E))
    return joinAlternatives(targetDevice(Conditional->getTrueExpr(), Depth + 1),
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
    if (Name == "device" || Name == "dtype" || Name == "layout" ||
        Name == "requires_grad" || Name == "pinned_memory" ||
        Name == "memory_format")
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
    if (Name == "dtype" || Name == "layout" || Name == "requires_grad" ||
        Name == "memory_format")
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
