//===--- DeviceInference.cpp - where does a tensor live? -------------------===//

#include "DeviceInference.h"
#include "LibTorchApi.h"
#include "RankInference.h"
#include "SyncFacts.h"
#include "TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/Builtins.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <functional>
#include <tuple>

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

/// Whether a value of type \p T names a device: c10::Device, c10::DeviceType,
/// c10::TensorOptions.
bool namesDeviceValue(QualType T) {
  StringRef Record = libraryRecordName(T);
  return Record == "Device" || Record == "TensorOptions" ||
         libraryEnumName(T) == "DeviceType";
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

/// Whether a non-const reference parameter lets its function replace the
/// caller's tensor, and with it the device. Two kinds of LibTorch parameters
/// do not (LibTorchApi.h says why): the outputs of ATen's out= functions
/// ('at::add_out(out, a, b)' writes values into 'out' on its device), and the
/// forwarding references of 'ModuleHolder::operator()' and
/// 'Function<T>::apply' whose target 'forward' takes a copy; and those of
/// TensorOptions, which copy a device ('TensorOptions(T &&device)').
AST_MATCHER(ParmVarDecl, mayReplaceArgument) {
  return !isAtenOutParameter(Node) && !isForwardedAsCopy(Node) &&
         !isTensorOptionsParameter(Node);
}

/// Matches a type that may hold or refer to a tensor (mayCarryDevice).
AST_MATCHER(QualType, carriesDevice) { return mayCarryDevice(Node); }

/// Matches a class of namespace torch::optim (the optimizers).
AST_MATCHER(CXXRecordDecl, isTorchOptimizer) {
  return isInNamespace(&Node, {"torch", "optim"});
}

/// Matches the places where a function may give the tensor that \p Target
/// names (a variable, a module's member) a value other than the one it has:
/// assignments (the expression bound as "assignment", its value as
/// "assigned"), and the escapes that let unseen code change it (bound as
/// "escape").
auto writesTo(const ast_matchers::internal::Matcher<Expr> &Target) {
  auto Ref = ignoringParenImpCasts(Target);
  auto NonConstRef = referenceType(pointee(unless(isConstQualified())));
  return findAll(stmt(anyOf(
      // 'Tensor &r = t' lets the tensor change through another name.
      declStmt(has(varDecl(hasType(NonConstRef), hasInitializer(Ref))))
          .bind("escape"),
      cxxOperatorCallExpr(hasOverloadedOperatorName("="), hasArgument(0, Ref),
                          hasArgument(1, expr().bind("assigned")))
          .bind("assignment"),
      binaryOperator(isAssignmentOperator(), hasLHS(Ref),
                     hasRHS(expr().bind("assigned")))
          .bind("assignment"),
      // '&t' lets the tensor change behind our back.
      unaryOperator(hasOperatorName("&"), hasUnaryOperand(Ref)).bind("escape"),
      callExpr(forEachArgumentWithParam(
                   Ref, parmVarDecl(hasType(NonConstRef), mayReplaceArgument())))
          .bind("escape"),
      cxxConstructExpr(forEachArgumentWithParam(
                           Ref, parmVarDecl(hasType(NonConstRef),
                                            mayReplaceArgument())))
          .bind("escape"),
      // 'set_', 'set_data' and 'swap' replace the storage, and with it the
      // device.
      cxxMemberCallExpr(on(Ref), callee(cxxMethodDecl(hasAnyName(apiList(
                                     ApiList::StorageReplacingMethods)))))
          .bind("escape"))));
}

/// A reference to variable \p Var.
auto refersTo(const VarDecl &Var) {
  return declRefExpr(to(varDecl(equalsNode(&Var))));
}

auto writesToVariable(const VarDecl &Var) { return writesTo(refersTo(Var)); }

/// 'm->' on the torch::nn::ModuleHolder variable \p Var ('m' bound as "ref").
auto holderArrow(const VarDecl &Var) {
  return cxxOperatorCallExpr(
      hasOverloadedOperatorName("->"),
      hasArgument(0, ignoringParenImpCasts(refersTo(Var).bind("ref"))));
}

/// The uses of the module held by \p Var that keep its parameters and
/// buffers where they are, each binding the reference as "ref"; a move,
/// 'm->to(...)', is also bound as "move". Any other use (passing the holder
/// on, 'm->apply(...)', 'm->reset()', 'torch::load(m, ...)', handing out its
/// parameters or submodules) may move the module.
auto moduleUses(const VarDecl &Var) {
  auto Ref = ignoringParenImpCasts(refersTo(Var).bind("ref"));
  auto Arrow = holderArrow(Var);
  auto Parameters = cxxMemberCallExpr(
      on(Arrow), callee(cxxMethodDecl(
                     hasAnyName(apiList(ApiList::ModuleParameterAccessors)))));
  return findAll(stmt(anyOf(
      // 'm(x)': ModuleHolder::operator() calls forward (torch/nn/pimpl.h).
      cxxOperatorCallExpr(hasOverloadedOperatorName("()"), hasArgument(0, Ref)),
      // 'os << m' prints the module's description (torch/nn/pimpl.h).
      cxxOperatorCallExpr(hasOverloadedOperatorName("<<"), hasArgument(1, Ref)),
      // forward() and the torch::nn::Module methods that read, or update in
      // place, the parameters and buffers (torch/nn/module.h).
      cxxMemberCallExpr(on(Arrow),
                        callee(cxxMethodDecl(hasAnyName(
                            apiList(ApiList::ModuleMethodsKeepingDevice))))),
      // 'm->to(device)' moves every parameter and buffer (module.cpp).
      cxxMemberCallExpr(on(Arrow), callee(cxxMethodDecl(hasName("to"))))
          .bind("move"),
      // 'Optimizer(m->parameters(), options)': the optimizers of torch::optim
      // update the parameters in place (torch/csrc/api/src/optim/*.cpp).
      cxxConstructExpr(
          hasDeclaration(cxxConstructorDecl(ofClass(isTorchOptimizer()))),
          hasAnyArgument(ignoringImplicit(anyOf(
              Parameters,
              cxxConstructExpr(hasArgument(0, ignoringImplicit(Parameters))))))),
      // 'm->weight': a read of a tensor member; writes are looked for apart.
      memberExpr(hasObjectExpression(ignoringParenImpCasts(Arrow)),
                 member(fieldDecl(hasType(qualType(isTorchTensor()))))))));
}

/// Whether \p Arg, an argument for a module's constructor or an options
/// argument, may hand a tensor or a module over: its type may carry a device
/// (mayCarryDevice), or a call inside it takes such an argument
/// ('EmbeddingOptions(10, 3)._weight(w)'). 'Linear(w.size(0), 1)' does not.
bool mayHandOverDevice(const Expr &Arg, ASTContext &Context) {
  if (mayCarryDevice(Arg.getType()))
    return true;
  auto TakesCarrier = hasAnyArgument(hasType(qualType(carriesDevice())));
  return !match(findAll(expr(anyOf(callExpr(TakesCarrier),
                                   cxxConstructExpr(TakesCarrier)))),
                Arg, Context)
              .empty();
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

/// Whether \p Callee is one of LibTorch's own functions or operators: in
/// namespace at, c10 or torch, or a member of a class there (at::Tensor).
bool isLibraryFunction(const FunctionDecl &Callee) {
  const Decl *Owner = &Callee;
  if (const auto *Method = dyn_cast<CXXMethodDecl>(&Callee))
    Owner = Method->getParent();
  StringRef NS = topLevelNamespace(Owner);
  return NS == "at" || NS == "c10" || NS == "torch";
}

/// ATen's binary operators that are element-wise TensorIterator operations
/// (aten/src/ATen/TensorOperators.h): arithmetic, comparisons, bitwise.
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

/// Out-of-place binary tensor methods and at:: functions that are
/// element-wise TensorIterator operations (aten/src/ATen/native/
/// BinaryOps.cpp, their structured meta functions build a binary_op or
/// comparison_op iterator).
bool isElementwiseName(StringRef Name) {
  return isInApiList(ApiList::ElementwiseBinaryOps, Name);
}

/// The local tensor variable that \p E names, directly or as 't.device()' or
/// 't.device().type()' (the forms a device test is written with); null
/// otherwise.
const VarDecl *testedTensor(const Expr *E) {
  E = strip(E);
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    return Var && Var->hasLocalStorage() && isTensorType(Var->getType()) ? Var
                                                                         : nullptr;
  }
  const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(E);
  const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
  if (!Method || !Method->getIdentifier() || Member->getNumArgs() != 0 ||
      (Method->getName() != "device" && Method->getName() != "type"))
    return nullptr;
  return testedTensor(Member->getImplicitObjectArgument());
}

/// A device that a condition, when it is \p Truth, gives a variable.
using DeviceTest = std::pair<const VarDecl *, DeviceKind>;

/// Whether a statement never completes normally: it returns, throws, calls a
/// [[noreturn]] function (torchCheckFail, torchInternalAssertFail), breaks or
/// continues, in all its paths that the checks can see (a block with such a
/// statement, an 'if' whose branches all do, a 'do { ... } while (0)' around
/// one).
bool neverFallsThrough(const Stmt *S, ASTContext &Context) {
  if (!S)
    return false;
  if (isa<ReturnStmt, BreakStmt, ContinueStmt>(S))
    return true;
  if (const auto *Attributed = dyn_cast<AttributedStmt>(S))
    return neverFallsThrough(Attributed->getSubStmt(), Context);
  if (const auto *E = dyn_cast<Expr>(S)) {
    E = E->IgnoreImplicit();
    if (isa<CXXThrowExpr>(E))
      return true;
    const auto *Call = dyn_cast<CallExpr>(E);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    return Callee && Callee->isNoReturn();
  }
  if (const auto *Block = dyn_cast<CompoundStmt>(S))
    return llvm::any_of(Block->body(), [&](const Stmt *Child) {
      return neverFallsThrough(Child, Context);
    });
  auto ConstantCondition = [&](const Expr *Cond) -> std::optional<bool> {
    bool Value = false;
    if (Cond && !Cond->isValueDependent() &&
        Cond->EvaluateAsBooleanCondition(Value, Context))
      return Value;
    return std::nullopt;
  };
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    std::optional<bool> Constant = ConstantCondition(If->getCond());
    if (Constant)
      return neverFallsThrough(*Constant ? If->getThen() : If->getElse(),
                               Context);
    return neverFallsThrough(If->getThen(), Context) &&
           neverFallsThrough(If->getElse(), Context);
  }
  // 'do { ... } while (0)', the body of statement-like macros (AT_ERROR), when
  // nothing in it breaks out.
  if (const auto *Do = dyn_cast<DoStmt>(S))
    return ConstantCondition(Do->getCond()) == std::optional<bool>(false) &&
           match(findAll(stmt(anyOf(breakStmt(), continueStmt()))),
                 *Do->getBody(), Context)
               .empty() &&
           neverFallsThrough(Do->getBody(), Context);
  return false;
}

/// The devices that condition \p Cond, when it evaluates to \p Truth, gives
/// to local tensor variables: 't.is_cuda()' and 't.device().is_cuda()' (CUDA
/// when true, not CUDA when false), 't.is_cpu()' (CPU when true),
/// 't.device() == at::kCUDA' and 't.device().type() != c10::kCPU'-style
/// comparisons with a named device, through '!', '&&', '||', parentheses,
/// casts to bool and '__builtin_expect' (C10_UNLIKELY in TORCH_CHECK). A
/// tensor that is not on CUDA counts as on the CPU: the checks are about
/// CUDA synchronizations.
void collectDeviceTests(const Expr *Cond, bool Truth, DeviceInference &Devices,
                        SmallVectorImpl<DeviceTest> &Out) {
  if (!Cond)
    return;
  const Expr *E = Cond->IgnoreParenImpCasts();
  if (const auto *Call = dyn_cast<CallExpr>(E);
      Call && Call->getBuiltinCallee() == Builtin::BI__builtin_expect &&
      Call->getNumArgs() >= 1)
    return collectDeviceTests(Call->getArg(0), Truth, Devices, Out);
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E);
      Cast && Cast->getType()->isBooleanType())
    return collectDeviceTests(Cast->getSubExpr(), Truth, Devices, Out);
  if (const auto *Unary = dyn_cast<UnaryOperator>(E);
      Unary && Unary->getOpcode() == UO_LNot)
    return collectDeviceTests(Unary->getSubExpr(), !Truth, Devices, Out);
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    // 'a && b' true, or 'a || b' false, makes both sides so.
    if ((Binary->getOpcode() == BO_LAnd && Truth) ||
        (Binary->getOpcode() == BO_LOr && !Truth)) {
      collectDeviceTests(Binary->getLHS(), Truth, Devices, Out);
      collectDeviceTests(Binary->getRHS(), Truth, Devices, Out);
      return;
    }
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    if (!Method || !Method->getIdentifier() || Member->getNumArgs() != 0)
      return;
    const VarDecl *Var = testedTensor(Member->getImplicitObjectArgument());
    if (!Var)
      return;
    if (Method->getName() == "is_cuda")
      Out.emplace_back(Var, Truth ? DeviceKind::CUDA : DeviceKind::CPU);
    else if (Method->getName() == "is_cpu" && Truth)
      Out.emplace_back(Var, DeviceKind::CPU);
    return;
  }
  // 't.device() == at::kCUDA', 't.device().type() != c10::DeviceType::CPU'.
  const Expr *LHS = nullptr, *RHS = nullptr;
  bool Equal = true;
  if (const auto *Binary = dyn_cast<BinaryOperator>(E);
      Binary && Binary->isEqualityOp()) {
    LHS = Binary->getLHS();
    RHS = Binary->getRHS();
    Equal = Binary->getOpcode() == BO_EQ;
  } else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
             Operator && Operator->getNumArgs() == 2 &&
             (Operator->getOperator() == OO_EqualEqual ||
              Operator->getOperator() == OO_ExclaimEqual)) {
    LHS = Operator->getArg(0);
    RHS = Operator->getArg(1);
    Equal = Operator->getOperator() == OO_EqualEqual;
  }
  if (!LHS)
    return;
  const VarDecl *Var = testedTensor(LHS);
  const Expr *Named = RHS;
  if (!Var) {
    Var = testedTensor(RHS);
    Named = LHS;
  }
  // 'a == b' between tensors is an element-wise comparison, no device test.
  if (!Var || isTensorType(Named->getType()))
    return;
  DeviceKind Device = Devices.targetDevice(Named);
  if (Device != DeviceKind::CPU && Device != DeviceKind::CUDA)
    return;
  if (Equal == Truth)
    Out.emplace_back(Var, Device);
  else if (Device == DeviceKind::CUDA)
    Out.emplace_back(Var, DeviceKind::CPU);
}

/// The expansion range of \p S in its file: (file, begin offset, end offset).
std::optional<std::tuple<FileID, unsigned, unsigned>>
expansionOffsets(SourceLocation Begin, SourceLocation End,
                 const SourceManager &SM) {
  Begin = SM.getExpansionLoc(Begin);
  End = SM.getExpansionRange(End).getEnd();
  if (Begin.isInvalid() || End.isInvalid())
    return std::nullopt;
  auto [BeginFile, BeginOffset] = SM.getDecomposedLoc(Begin);
  auto [EndFile, EndOffset] = SM.getDecomposedLoc(End);
  if (BeginFile != EndFile || EndOffset < BeginOffset)
    return std::nullopt;
  return std::make_tuple(BeginFile, BeginOffset, EndOffset);
}

/// Whether \p Name is the name of the function that TORCH_LIBRARY_IMPL(ns,
/// CPU, m) defines: 'TORCH_LIBRARY_IMPL_init_<ns>_CPU_<uid>'
/// (torch/library.h, _TORCH_LIBRARY_IMPL).
bool isCpuRegistrationName(StringRef Name) {
  return Name.starts_with("TORCH_LIBRARY_IMPL_init_") &&
         Name.rtrim("0123456789").ends_with("_CPU_");
}

/// The function that \p Arg, a kernel argument of 'Library::impl', names:
/// '&f', 'f', 'TORCH_FN(f)' (a c10::CompileTimeFunctionPointer<F, f>), or a
/// lambda's call operator; null otherwise.
const FunctionDecl *registeredKernel(const Expr *Arg) {
  const Expr *E = Arg->IgnoreUnlessSpelledInSource()->IgnoreParens();
  if (const auto *Unary = dyn_cast<UnaryOperator>(E);
      Unary && Unary->getOpcode() == UO_AddrOf)
    E = Unary->getSubExpr()->IgnoreUnlessSpelledInSource()->IgnoreParens();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<FunctionDecl>(Ref->getDecl());
  if (const auto *Lambda = dyn_cast<LambdaExpr>(E))
    return Lambda->getCallOperator();
  const auto *Pointer = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      E->getType().getNonReferenceType()->getAsRecordDecl());
  if (!Pointer || !Pointer->getIdentifier() ||
      Pointer->getName() != "CompileTimeFunctionPointer" ||
      Pointer->getTemplateArgs().size() < 2)
    return nullptr;
  const TemplateArgument &Function = Pointer->getTemplateArgs()[1];
  return Function.getKind() == TemplateArgument::Declaration
             ? dyn_cast<FunctionDecl>(Function.getAsDecl())
             : nullptr;
}

/// Matches a function that may be private to the main file: not a member,
/// not 'main', with internal linkage or declared in the main file only.
AST_MATCHER(FunctionDecl, mayBeFilePrivate) {
  if (isa<CXXMethodDecl>(Node) || Node.isMain())
    return false;
  if (!Node.isExternallyVisible())
    return true;
  const SourceManager &SM = Finder->getASTContext().getSourceManager();
  return llvm::all_of(Node.redecls(), [&](const FunctionDecl *Redecl) {
    return SM.isInMainFile(SM.getExpansionLoc(Redecl->getLocation()));
  });
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
  // Globals and statics can hold a tensor from anywhere.
  if (!Var.hasLocalStorage())
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
    if (Param && llvm::any_of(Function->parameters(), [&](const ParmVarDecl *Other) {
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
  DeviceKind Result = Param ? parameterDevice(*Param, Depth)
                            : Init ? Evaluate(Init)
                                   : DeviceKind::Unspecified;
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
  llvm::SmallVector<const Stmt *, 4> Writes;
  llvm::DenseMap<const Stmt *, const Expr *> Values;
  const auto *Param = dyn_cast<ParmVarDecl>(&Var);
  if (!Param) {
    const DeclStmt *Declaration = nullptr;
    for (const auto &Parent : Context.getParents(Var))
      if (const auto *Stmt = Parent.get<DeclStmt>())
        Declaration = Stmt;
    if (!Declaration)
      return DeviceKind::Unknown;
    Writes.push_back(Declaration);
    Values[Declaration] = Var.getInit();
  }
  for (const BoundNodes &Nodes :
       match(writesToVariable(Var), *Function->getBody(), Context)) {
    if (Nodes.getNodeAs<Stmt>("escape"))
      return DeviceKind::Unknown;
    if (const auto *Assignment = Nodes.getNodeAs<Stmt>("assignment")) {
      Writes.push_back(Assignment);
      Values[Assignment] = Nodes.getNodeAs<Expr>("assigned");
    }
  }
  // One value, or a parameter never assigned: variableDevice knew it.
  if (Writes.size() < (Param ? 1u : 2u))
    return DeviceKind::Unknown;
  std::unique_ptr<ReachingWrites> &Flow = FunctionFlows[Function];
  if (!Flow)
    Flow = std::make_unique<ReachingWrites>(*Function, Context);
  auto Reaching = Flow->reaching(Writes, Use);
  if (!Reaching || Reaching->empty())
    return DeviceKind::Unknown;

  ReachingCache[&Use] = DeviceKind::Unspecified; // in progress
  DeviceKind Result = DeviceKind::Unspecified;
  for (const Stmt *Write : *Reaching) {
    DeviceKind Device;
    if (!Write)
      Device = Param ? parameterDevice(*Param, Depth) : DeviceKind::Unknown;
    else if (const Expr *Value = Values.lookup(Write))
      Device = tensorDevice(Value, Depth + 1);
    else
      Device = DeviceKind::Unspecified; // 'at::Tensor t;' is undefined
    Result = joinAlternatives(Result, Device);
    if (Result == DeviceKind::Unknown)
      break;
  }
  ReachingCache[&Use] = Result;
  return Result;
}

const Expr *DeviceInference::singleValue(const VarDecl &Var) {
  if (isa<ParmVarDecl>(Var) || !Var.hasLocalStorage() || !Var.getInit() ||
      Var.getType()->isReferenceType())
    return nullptr;
  return isNeverWritten(Var) ? Var.getInit() : nullptr;
}

bool DeviceInference::isNeverWritten(const VarDecl &Var) {
  auto Cached = NeverWrittenCache.find(&Var);
  if (Cached != NeverWrittenCache.end())
    return Cached->second;
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  bool Result = Function && Function->getBody() &&
                match(writesToVariable(Var), *Function->getBody(), Context)
                    .empty();
  NeverWrittenCache[&Var] = Result;
  return Result;
}

DeviceKind DeviceInference::tensorDevice(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDepth || E->isTypeDependent() || E->containsErrors())
    return DeviceKind::Unknown;

  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
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
    return Device == DeviceKind::Unknown ? guardedDevice(*Var, *Ref) : Device;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
    return memberCallDevice(*Member, Depth);
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return memberDevice(*Member, Depth);
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
    // 'm(x)' on a module holder runs the module's forward.
    if (Operator->getOperator() == OO_Call && Operator->getNumArgs() >= 1 &&
        heldModule(Operator->getArg(0)->getType()))
      return moduleForwardDevice(
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
      return moduleForwardDevice(
          Arrow->getArg(0), llvm::ArrayRef(Call.getArgs(), Call.getNumArgs()),
          Depth);
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

DeviceKind DeviceInference::memberDevice(const MemberExpr &Member,
                                         unsigned Depth) {
  const auto *Field = dyn_cast<FieldDecl>(Member.getMemberDecl());
  if (!Field || !isTensorType(Field->getType()))
    return DeviceKind::Unknown;
  // 'm->weight': a parameter or buffer of a module held by 'm'.
  const auto *Arrow =
      dyn_cast<CXXOperatorCallExpr>(Member.getBase()->IgnoreParenImpCasts());
  if (Member.isArrow() && Arrow && Arrow->getOperator() == OO_Arrow) {
    const CXXRecordDecl *Module = heldModule(Arrow->getArg(0)->getType());
    return Module && isLibraryLeafModule(*Module)
               ? moduleDevice(Arrow->getArg(0), Depth + 1)
               : DeviceKind::Unknown;
  }
  // 'batch.data', 'example.target' of a torch::data::Example from a dataset
  // whose examples are made on the CPU; 'batch.data' after a Normalize
  // transform of any dataset.
  const auto *Example = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!isNamedClass(Example, "Example", {"torch", "data"}))
    return DeviceKind::Unknown;
  if (datasetYieldsCpu(exampleDataset(Member.getBase()), ProjectDatasetsOnCPU))
    return DeviceKind::CPU;
  bool IsLoader = false;
  const Expr *Source = exampleSource(Member.getBase(), IsLoader);
  return Field->getName() == "data" && Source && dataNormalizedOnCpu(Source)
             ? DeviceKind::CPU
             : DeviceKind::Unknown;
}

const Expr *DeviceInference::exampleSource(const Expr *E, bool &IsLoader) {
  IsLoader = false;
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = strip(E);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      if (!Var)
        return nullptr;
      // 'for (auto &batch : *loader)': the loader.
      const auto *Function =
          dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
      if (Function && Function->getBody())
        for (const BoundNodes &Nodes :
             match(findAll(cxxForRangeStmt(hasLoopVariable(equalsNode(Var)))
                               .bind("for")),
                   *Function->getBody(), Context))
          if (const Expr *Range =
                  Nodes.getNodeAs<CXXForRangeStmt>("for")->getRangeInit()) {
            IsLoader = true;
            return Range;
          }
      E = singleValue(*Var);
      continue;
    }
    // '*loader->begin()'.
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
      const auto *Begin = Operator->getOperator() == OO_Star
                              ? dyn_cast<CXXMemberCallExpr>(strip(Operator->getArg(0)))
                              : nullptr;
      const CXXMethodDecl *Method = Begin ? Begin->getMethodDecl() : nullptr;
      if (!Method || !Method->getIdentifier() || Method->getName() != "begin")
        return nullptr;
      IsLoader = true;
      return Begin->getImplicitObjectArgument();
    }
    // 'dataset.get_batch(i)', 'dataset.get(i)'.
    const auto *Member = dyn_cast<CXXMemberCallExpr>(E);
    const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
    if (!Method || !Method->getIdentifier() ||
        (Method->getName() != "get_batch" && Method->getName() != "get"))
      return nullptr;
    return Member->getImplicitObjectArgument();
  }
  return nullptr;
}

QualType DeviceInference::exampleDataset(const Expr *E) {
  bool IsLoader = false;
  const Expr *Source = exampleSource(E, IsLoader);
  if (!Source)
    return QualType();
  return IsLoader ? loaderDataset(Source->getType())
                  : strip(Source)->getType().getNonReferenceType();
}

const Expr *DeviceInference::datasetConstruction(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 12; ++Depth) {
    E = strip(E);
    // '*loader', 'loader->': the object that a std::unique_ptr holds.
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
      if ((Operator->getOperator() != OO_Star &&
           Operator->getOperator() != OO_Arrow) ||
          Operator->getNumArgs() != 1)
        return nullptr;
      E = Operator->getArg(0);
      continue;
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      const auto *Function =
          Var ? dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod())
              : nullptr;
      if (!Function || !Function->getBody() || isa<ParmVarDecl>(Var) ||
          !Var->hasLocalStorage() || !Var->getInit() ||
          Var->getType()->isReferenceType())
        return nullptr;
      // Never assigned, reset or swapped; moving it into a data loader (its
      // last use: a moved-from dataset holds nothing) is no escape.
      for (const BoundNodes &Nodes :
           match(writesToVariable(*Var), *Function->getBody(), Context)) {
        const auto *Escape = Nodes.getNodeAs<CallExpr>("escape");
        const FunctionDecl *Callee = Escape ? Escape->getDirectCallee() : nullptr;
        if (!Callee || !Callee->getIdentifier() || Callee->getName() != "move" ||
            !isInNamespace(Callee, {"std"}))
          return nullptr;
      }
      if (!match(findAll(cxxMemberCallExpr(
                     on(refersTo(*Var)),
                     callee(cxxMethodDecl(hasAnyName("reset", "release"))))),
                 *Function->getBody(), Context)
               .empty())
        return nullptr;
      E = Var->getInit();
      continue;
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    if (!Callee || !Callee->getIdentifier())
      return nullptr;
    // 'std::move(dataset)', 'torch::data::make_data_loader(dataset, ...)'.
    if ((Callee->getName() == "move" && isInNamespace(Callee, {"std"})) ||
        (Callee->getName() == "make_data_loader" &&
         isInNamespace(Callee, {"torch", "data"}))) {
      if (Call->getNumArgs() == 0)
        return nullptr;
      E = Call->getArg(0);
      continue;
    }
    return E; // the dataset built here: 'MNIST(path).map(...)'
  }
  return nullptr;
}

bool DeviceInference::dataNormalizedOnCpu(const Expr *Source) {
  const Expr *E = datasetConstruction(Source);
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    // 'source.map(transform)'.
    const auto *Map = dyn_cast<CXXMemberCallExpr>(strip(E));
    const CXXMethodDecl *Method = Map ? Map->getMethodDecl() : nullptr;
    if (!Method || !Method->getIdentifier() || Method->getName() != "map" ||
        Map->getNumArgs() != 1)
      return false;
    const Expr *Transform = strip(Map->getArg(0));
    const CXXRecordDecl *Record =
        Transform->getType().getNonReferenceType()->getAsCXXRecordDecl();
    // Stack keeps the device (torch::stack).
    if (isNamedClass(Record, "Stack", {"torch", "data", "transforms"})) {
      E = Map->getImplicitObjectArgument();
      continue;
    }
    // A Normalize built here holds the CPU tensors its constructor made;
    // one taken from a variable may have had them replaced.
    const auto *Construct = dyn_cast<CXXConstructExpr>(Transform);
    return isNamedClass(Record, "Normalize", {"torch", "data", "transforms"}) &&
           Construct &&
           llvm::none_of(Construct->arguments(), [&](const Expr *Arg) {
             return mayHandOverDevice(*Arg, Context);
           });
  }
  return false;
}

DeviceKind DeviceInference::moduleDevice(const Expr *Holder, unsigned Depth) {
  const Expr *E = strip(Holder);
  if (!E || Depth > MaxDepth)
    return DeviceKind::Unknown;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    return Var ? moduleVariableDevice(*Var, Depth) : DeviceKind::Unknown;
  }
  // A module made where it is used: 'torch::nn::MSELoss()(a, b)'.
  const auto *Construct = dyn_cast<CXXConstructExpr>(E);
  if (!Construct)
    return DeviceKind::Unknown;
  const CXXRecordDecl *Module = heldModule(Construct->getType());
  if (!Module || !isLibraryLeafModule(*Module))
    return DeviceKind::Unknown;
  // Its constructor creates the parameters and buffers on the CPU, unless an
  // argument hands it a tensor or a module (EmbeddingOptions::_weight, a
  // holder to share).
  for (const Expr *Arg : Construct->arguments())
    if (mayHandOverDevice(*Arg, Context))
      return DeviceKind::Unknown;
  return DeviceKind::CPU;
}

DeviceKind DeviceInference::moduleVariableDevice(const VarDecl &Var,
                                                 unsigned Depth) {
  if (isa<ParmVarDecl>(Var) || !Var.hasLocalStorage() || !Var.getInit() ||
      Var.getType()->isReferenceType())
    return DeviceKind::Unknown;
  auto Cached = ModuleCache.find(&Var);
  if (Cached != ModuleCache.end())
    return Cached->second;
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  ModuleCache[&Var] = DeviceKind::Unknown; // in progress
  if (!Function || !Function->getBody() ||
      !isa<CXXConstructExpr>(strip(Var.getInit())))
    return DeviceKind::Unknown;
  DeviceKind Result = moduleDevice(Var.getInit(), Depth + 1);
  const Stmt &Body = *Function->getBody();
  if (Result != DeviceKind::Unknown) {
    // Every use of the holder must be one that keeps the module where it is,
    // or a move to a known device.
    llvm::SmallPtrSet<const DeclRefExpr *, 8> Kept;
    for (const BoundNodes &Nodes : match(moduleUses(Var), Body, Context)) {
      Kept.insert(Nodes.getNodeAs<DeclRefExpr>("ref"));
      if (const auto *Move = Nodes.getNodeAs<CXXMemberCallExpr>("move"))
        Result = joinAlternatives(
            Result, Move->getNumArgs() == 0
                        ? DeviceKind::Unknown
                        : targetDevice(Move->getArg(0), Depth + 1));
    }
    for (const BoundNodes &Nodes :
         match(findAll(refersTo(Var).bind("ref")), Body, Context))
      if (!Kept.contains(Nodes.getNodeAs<DeclRefExpr>("ref")))
        Result = DeviceKind::Unknown;
    // 'm->weight = t', 'm->weight.set_data(t)': a member given another tensor.
    if (Result != DeviceKind::Unknown &&
        !match(writesTo(memberExpr(
                   hasObjectExpression(ignoringParenImpCasts(holderArrow(Var))),
                   member(fieldDecl()))),
               Body, Context)
             .empty())
      Result = DeviceKind::Unknown;
  }
  ModuleCache[&Var] = Result;
  return Result;
}

DeviceKind DeviceInference::moduleForwardDevice(
    const Expr *Holder, llvm::ArrayRef<const Expr *> Args, unsigned Depth) {
  const CXXRecordDecl *Module = heldModule(Holder->getType());
  if (!Module || !isLibraryLeafModule(*Module))
    return DeviceKind::Unknown;
  // A leaf module's forward computes from its inputs, parameters and
  // buffers, which ATen requires on one device: a CUDA input makes a CUDA
  // result whatever the module's device.
  DeviceKind Result = moduleDevice(Holder, Depth + 1);
  for (const Expr *Arg : Args) {
    if (isTensorType(Arg->getType()))
      Result = combineInputs(Result, tensorDevice(Arg, Depth + 1));
    else if (mayHandOverDevice(*Arg, Context))
      Result = combineInputs(Result, DeviceKind::Unknown); // a state, a list
  }
  return Result;
}

DeviceKind DeviceInference::guardedDevice(const VarDecl &Var, const Expr &Use) {
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  if (!Function || !Function->getBody() || !isTensorType(Var.getType()))
    return DeviceKind::Unknown;
  llvm::ArrayRef<DeviceFact> Facts = deviceFacts(*Function);
  if (Facts.empty())
    return DeviceKind::Unknown;
  const SourceManager &SM = Context.getSourceManager();
  auto [File, Offset] = SM.getDecomposedLoc(SM.getExpansionLoc(Use.getBeginLoc()));
  DeviceKind Result = DeviceKind::Unspecified;
  for (const DeviceFact &Fact : Facts)
    if (Fact.Var == &Var && Fact.File == File && Fact.Begin < Offset &&
        Offset <= Fact.End)
      Result = joinAlternatives(Result, Fact.Device);
  // The facts hold only for a variable that nothing reassigns between the
  // test and the use.
  if (Result == DeviceKind::Unspecified || !isNeverWritten(Var))
    return DeviceKind::Unknown;
  return Result;
}

llvm::ArrayRef<DeviceInference::DeviceFact>
DeviceInference::deviceFacts(const FunctionDecl &Function) {
  auto Cached = FactCache.find(&Function);
  if (Cached != FactCache.end())
    return Cached->second;
  SmallVector<DeviceFact, 4> &Facts = FactCache[&Function];
  const SourceManager &SM = Context.getSourceManager();
  auto AddRegion = [&](SourceLocation Begin, SourceLocation End,
                       llvm::ArrayRef<DeviceTest> Tests) {
    auto Range = expansionOffsets(Begin, End, SM);
    if (!Range)
      return;
    for (const DeviceTest &Test : Tests)
      Facts.push_back({Test.first, std::get<0>(*Range), std::get<1>(*Range),
                       std::get<2>(*Range), Test.second});
  };
  // What holds after a statement that completes normally: the negation of
  // a guard's test ('if (!t.is_cuda()) throw ...;', TORCH_CHECK, which
  // expands to such an 'if'), also from inside a 'do { ... } while (0)' of a
  // statement macro around it (AT_ASSERTM, CHECK_CPU).
  std::function<void(const Stmt *, SmallVectorImpl<DeviceTest> &)> After =
      [&](const Stmt *S, SmallVectorImpl<DeviceTest> &Out) {
        if (const auto *Attributed = dyn_cast_or_null<AttributedStmt>(S))
          return After(Attributed->getSubStmt(), Out);
        if (const auto *If = dyn_cast_or_null<IfStmt>(S)) {
          bool ThenExits = neverFallsThrough(If->getThen(), Context);
          bool ElseExits = neverFallsThrough(If->getElse(), Context);
          if (ThenExits != ElseExits)
            collectDeviceTests(If->getCond(), /*Truth=*/ElseExits, *this, Out);
          return;
        }
        const auto *Do = dyn_cast_or_null<DoStmt>(S);
        bool Constant = false;
        if (!Do || Do->getCond()->isValueDependent() ||
            !Do->getCond()->EvaluateAsBooleanCondition(Constant, Context) ||
            Constant ||
            !match(findAll(stmt(anyOf(breakStmt(), continueStmt()))),
                   *Do->getBody(), Context)
                 .empty())
          return;
        if (const auto *Body = dyn_cast<CompoundStmt>(Do->getBody()))
          for (const Stmt *Child : Body->body())
            After(Child, Out);
      };

  auto Nodes = match(
      findAll(stmt(anyOf(compoundStmt().bind("block"), ifStmt().bind("if"),
                         switchStmt().bind("switch"), labelStmt().bind("label")))),
      *Function.getBody(), Context);
  llvm::SmallPtrSet<const Stmt *, 4> SwitchBodies;
  for (const BoundNodes &Node : Nodes) {
    // A label may be reached past a guard: no facts at all.
    if (Node.getNodeAs<LabelStmt>("label")) {
      Facts.clear();
      return Facts;
    }
    if (const auto *Switch = Node.getNodeAs<SwitchStmt>("switch"))
      SwitchBodies.insert(Switch->getBody());
  }
  for (const BoundNodes &Node : Nodes) {
    if (const auto *If = Node.getNodeAs<IfStmt>("if")) {
      // Inside the branches of 'if (t.is_cuda()) { ... } else { ... }'
      // written in the source (a macro's branches are not).
      if (If->getBeginLoc().isMacroID())
        continue;
      SmallVector<DeviceTest, 2> WhenTrue, WhenFalse;
      collectDeviceTests(If->getCond(), true, *this, WhenTrue);
      collectDeviceTests(If->getCond(), false, *this, WhenFalse);
      if (const Stmt *Then = If->getThen())
        AddRegion(Then->getBeginLoc(), Then->getEndLoc(), WhenTrue);
      if (const Stmt *Else = If->getElse())
        AddRegion(Else->getBeginLoc(), Else->getEndLoc(), WhenFalse);
      continue;
    }
    // The rest of a block after a guard; a switch's cases may be entered
    // past it.
    const auto *Block = Node.getNodeAs<CompoundStmt>("block");
    if (!Block || SwitchBodies.contains(Block))
      continue;
    for (const Stmt *Child : Block->body()) {
      SmallVector<DeviceTest, 2> Tests;
      After(Child, Tests);
      if (!Tests.empty())
        AddRegion(SM.getExpansionRange(Child->getEndLoc()).getEnd(),
                  Block->getRBracLoc(), Tests);
    }
  }
  return Facts;
}

DeviceKind DeviceInference::parameterDevice(const ParmVarDecl &Param,
                                            unsigned Depth) {
  const auto *Function = dyn_cast<FunctionDecl>(Param.getDeclContext());
  if (!Function || !isTensorType(Param.getType()))
    return DeviceKind::Unknown;
  // The dispatcher calls a CPU kernel only when no tensor argument is on a
  // device of a higher dispatch key, CUDA among them
  // (c10/core/DispatchKeySet.h, highestPriorityTypeId).
  if (isCpuKernel(*Function))
    return DeviceKind::CPU;
  const CallSites *Sites = privateCallSites(*Function);
  if (!Sites || Sites->Calls.empty())
    return DeviceKind::Unknown;
  unsigned Index = Param.getFunctionScopeIndex();
  DeviceKind Result = DeviceKind::Unspecified;
  for (const CallExpr *Call : Sites->Calls) {
    if (Index >= Call->getNumArgs())
      return DeviceKind::Unknown;
    DeviceKind Argument = tensorDevice(Call->getArg(Index), Depth + 1);
    // A real argument is a defined tensor: Unspecified here is a parameter
    // still being analysed (recursion), whose device is not known yet.
    if (Argument == DeviceKind::Unspecified)
      return DeviceKind::Unknown;
    Result = joinAlternatives(Result, Argument);
    if (Result == DeviceKind::Unknown)
      break;
  }
  return Result;
}

void DeviceInference::scanMainFile() {
  if (MainFileScanned)
    return;
  MainFileScanned = true;
  const SourceManager &SM = Context.getSourceManager();
  SmallVector<const DeclContext *, 8> Work{Context.getTranslationUnitDecl()};
  while (!Work.empty()) {
    const DeclContext *Scope = Work.pop_back_val();
    for (const Decl *D : Scope->decls()) {
      if (!SM.isInMainFile(SM.getExpansionLoc(D->getLocation())))
        continue;
      if (isa<NamespaceDecl, LinkageSpecDecl>(D)) {
        Work.push_back(cast<DeclContext>(D));
        continue;
      }
      const auto *Function = dyn_cast<FunctionDecl>(D);
      if (!Function || !Function->doesThisDeclarationHaveABody())
        continue;
      if (Function->isMain())
        MainFileDefinesMain = true;
      if (!Function->getIdentifier() ||
          !isCpuRegistrationName(Function->getName()))
        continue;
      // 'm.impl("op", &kernel)' in TORCH_LIBRARY_IMPL(ns, CPU, m).
      for (const BoundNodes &Nodes : match(
               findAll(cxxMemberCallExpr(
                           callee(cxxMethodDecl(hasName("impl"),
                                                ofClass(hasName("::torch::Library")))))
                           .bind("impl")),
               *Function->getBody(), Context)) {
        const auto *Impl = Nodes.getNodeAs<CXXMemberCallExpr>("impl");
        for (unsigned I = 1; I < Impl->getNumArgs(); ++I)
          if (const FunctionDecl *Kernel = registeredKernel(Impl->getArg(I)))
            CpuKernels.insert(Kernel->getCanonicalDecl());
      }
    }
  }
}

bool DeviceInference::isCpuKernel(const FunctionDecl &Function) {
  scanMainFile();
  return !CpuKernels.empty() &&
         CpuKernels.contains(Function.getCanonicalDecl());
}

bool DeviceInference::isFilePrivate(const FunctionDecl &Function) {
  if (isa<CXXMethodDecl>(Function) || Function.isMain() ||
      Function.isDependentContext() || Function.isExternC())
    return false;
  if (!Function.isExternallyVisible())
    return true;
  // A function declared only in the main file, with external linkage, can be
  // called from elsewhere only by a declaration repeated there; in a
  // program's main file or a file of CPU kernels, its helpers are taken to be
  // the file's own.
  scanMainFile();
  if (!MainFileDefinesMain && CpuKernels.empty())
    return false;
  const SourceManager &SM = Context.getSourceManager();
  auto InMainFile = [&](const Decl *D) {
    return SM.isInMainFile(SM.getExpansionLoc(D->getLocation()));
  };
  if (!llvm::all_of(Function.redecls(), InMainFile))
    return false;
  if (const FunctionTemplateDecl *Template = Function.getPrimaryTemplate())
    return llvm::all_of(Template->redecls(), InMainFile);
  return true;
}

const DeviceInference::CallSites *
DeviceInference::privateCallSites(const FunctionDecl &Function) {
  if (!isFilePrivate(Function))
    return nullptr;
  if (!CallIndex) {
    // Every call and other reference to a possibly private function, outside
    // system headers, indexed once per translation unit.
    CallIndex = std::make_unique<llvm::DenseMap<const FunctionDecl *, CallSites>>();
    auto Private = functionDecl(mayBeFilePrivate()).bind("function");
    auto Uses = decl(forEachDescendant(stmt(anyOf(
        callExpr(callee(expr(ignoringParenImpCasts(
                     declRefExpr(to(Private)).bind("callee")))))
            .bind("call"),
        declRefExpr(to(Private)).bind("ref")))));
    const SourceManager &SM = Context.getSourceManager();
    llvm::SmallPtrSet<const DeclRefExpr *, 16> Callees;
    SmallVector<std::pair<const FunctionDecl *, const DeclRefExpr *>, 16> Refs;
    for (const Decl *D : Context.getTranslationUnitDecl()->decls()) {
      if (SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
        continue;
      for (const BoundNodes &Nodes : match(Uses, *D, Context)) {
        const auto *Target = Nodes.getNodeAs<FunctionDecl>("function");
        if (const auto *Call = Nodes.getNodeAs<CallExpr>("call")) {
          (*CallIndex)[Target->getCanonicalDecl()].Calls.push_back(Call);
          Callees.insert(Nodes.getNodeAs<DeclRefExpr>("callee"));
        } else if (const auto *Ref = Nodes.getNodeAs<DeclRefExpr>("ref")) {
          Refs.emplace_back(Target->getCanonicalDecl(), Ref);
        }
      }
    }
    // A reference other than a direct call's callee takes the address.
    for (const auto &[Target, Ref] : Refs)
      if (!Callees.contains(Ref))
        (*CallIndex)[Target].AddressTaken = true;
  }
  static const CallSites None;
  auto Found = CallIndex->find(Function.getCanonicalDecl());
  if (Found == CallIndex->end())
    return &None;
  return Found->second.AddressTaken ? nullptr : &Found->second;
}

const VarDecl *DeviceInference::deviceOrigin(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDepth || E->isTypeDependent() ||
      !isTensorType(E->getType()))
    return nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var || !Var->hasLocalStorage() ||
        (Var->getType()->isReferenceType() && !isa<ParmVarDecl>(Var)))
      return nullptr;
    if (const Expr *Value = singleValue(*Var))
      if (const VarDecl *Origin = deviceOrigin(Value, Depth + 1))
        return Origin;
    return isNeverWritten(*Var) ? Var : nullptr;
  }
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
  if (!E || Depth > MaxDepth || E->isTypeDependent())
    return nullptr;
  if (isTensorType(E->getType()))
    return deviceOrigin(E, Depth);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var)
      return nullptr;
    if (const Expr *Value = singleValue(*Var))
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
        namesDeviceValue(T) && isNeverWritten(*Var))
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
