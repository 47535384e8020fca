//===--- ReadUse.cpp - how the code uses what a sync reads or uploads -----===//

#include "analysis/ReadUse.h"
#include "libtorch/DeviceTypes.h"
#include "libtorch/LibTorchApi.h"
#include "support/EnclosingContext.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {

/// How far the analysis follows a value through local variables.
constexpr unsigned MaxDepth = 3;

/// The bare name of \p Callee, "" when it has none (an operator).
StringRef bareName(const FunctionDecl *Callee) {
  return Callee && Callee->getIdentifier() ? Callee->getName() : "";
}

/// The identifier of \p D, "" for an operator or a nameless declaration.
StringRef identifierOf(const NamedDecl *D) {
  return D && D->getIdentifier() ? D->getName() : "";
}

/// The parent of \p Node, the first where a template shares it; none at the
/// top.
DynTypedNode parentOf(const DynTypedNode &Node, ASTContext &Context) {
  DynTypedNodeList Parents = Context.getParents(Node);
  return Parents.empty() ? DynTypedNode() : Parents[0];
}

/// Whether \p Parent only wraps \p Child's value: an implicit conversion,
/// parentheses, a temporary, a cast.
bool wrapsValue(const Stmt *Parent) {
  return isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
             CXXBindTemporaryExpr, ExprWithCleanups, ExplicitCastExpr,
             CXXDefaultArgExpr>(Parent);
}

/// The DeclRefExprs of \p Var in \p Body.
llvm::SmallVector<const DeclRefExpr *, 8>
referencesTo(const VarDecl &Var, const Stmt &Body, ASTContext &Context) {
  llvm::SmallVector<const DeclRefExpr *, 8> Refs;
  for (const BoundNodes &Nodes :
       match(findAll(declRefExpr(to(varDecl(equalsNode(&Var)))).bind("ref")),
             Body, Context))
    Refs.push_back(Nodes.getNodeAs<DeclRefExpr>("ref"));
  return Refs;
}

/// The local variable that \p E names, ignoring implicit nodes; null else.
const VarDecl *localVariable(const Expr *E) {
  const auto *Ref =
      E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && Var->hasLocalStorage() && !isa<ParmVarDecl>(Var) ? Var
                                                                 : nullptr;
}

//===-- What kind of call ------------------------------------------------===//

/// The direction a CUDA runtime or driver copy names: its 'cudaMemcpyKind'
/// argument, or the 'HtoD' / 'DtoH' in a driver copy's name.
CopyDirection memcpyDirection(const CallExpr &Call) {
  StringRef Name = bareName(Call.getDirectCallee());
  if (Name.starts_with("cuMemcpy")) {
    if (Name.contains("HtoD"))
      return CopyDirection::HostToDevice;
    if (Name.contains("DtoH"))
      return CopyDirection::DeviceToHost;
    return CopyDirection::Unknown;
  }
  if (!Name.starts_with("cudaMemcpy"))
    return CopyDirection::None;
  for (const Expr *Arg : Call.arguments()) {
    const auto *Ref = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts());
    const auto *Kind =
        Ref ? dyn_cast<EnumConstantDecl>(Ref->getDecl()) : nullptr;
    if (!Kind)
      continue;
    if (identifierOf(Kind) == "cudaMemcpyHostToDevice")
      return CopyDirection::HostToDevice;
    if (Kind->getName() == "cudaMemcpyDeviceToHost")
      return CopyDirection::DeviceToHost;
    if (Kind->getName() == "cudaMemcpyDeviceToDevice" ||
        Kind->getName() == "cudaMemcpyHostToHost")
      return CopyDirection::None;
  }
  // 'cudaMemcpyDefault', or a kind that is not a constant.
  return CopyDirection::Unknown;
}

/// Whether \p Call is an asynchronous CUDA copy ('cudaMemcpyAsync',
/// 'cuMemcpyHtoDAsync').
bool isAsyncMemcpy(const CallExpr &Call) {
  StringRef Name = bareName(Call.getDirectCallee());
  return (Name.starts_with("cudaMemcpy") || Name.starts_with("cuMemcpy")) &&
         Name.contains("Async");
}

/// Whether \p Sync is a blocking upload: a tensor copy to the device, a
/// 'torch::tensor' on the device, a host-to-device 'cudaMemcpy'.
bool isUpload(const CallExpr &Call, const CallSync &Sync) {
  if (Sync.Direction == CopyDirection::HostToDevice)
    return true;
  if (!Sync.Fact)
    return false;
  if (Sync.Fact->Function == "::torch::tensor" ||
      Sync.Fact->Function == "::at::tensor")
    return true;
  return Sync.Category == SyncCategory::Explicit &&
         memcpyDirection(Call) == CopyDirection::HostToDevice;
}

/// Whether \p Sync waits for the device, a stream or an event.
bool isWait(const CallSync &Sync) {
  return Sync.Category == SyncCategory::Explicit &&
         StringRef(Sync.Name).contains_insensitive("synchronize");
}

/// Whether \p Sync reads one value ('item()', 'at::_local_scalar_dense').
bool isValueRead(const CallSync &Sync) {
  return Sync.Fact && (Sync.Fact->Method == "item" ||
                       Sync.Fact->Function == "::at::_local_scalar_dense");
}

/// Whether \p Sync copies a tensor to the host and returns the copy ('cpu()',
/// 'to(kCPU)'; not 'copy_', whose copy is its receiver).
bool isCopyToHost(const CallSync &Sync) {
  return Sync.Fact && Sync.Category == SyncCategory::DeviceToHost &&
         (Sync.Fact->Method == "cpu" ||
          (Sync.Fact->Method == "to" &&
           Sync.Direction == CopyDirection::DeviceToHost));
}

//===-- The values read --------------------------------------------------===//

/// The host values read out of the copy \p Copy to the host: the end of a
/// chain of calls, subscripts and dereferences on it that gives a number
/// ('.data_ptr<int64_t>()[0]', '[-1].item<int64_t>()', '*...data_ptr<T>()'),
/// also through a local variable that holds the copy or its pointer.
void collectScalarReads(const Expr &Copy, const Stmt &Body, ASTContext &Context,
                        unsigned Depth,
                        llvm::SmallVectorImpl<const Expr *> &Reads) {
  const Expr *E = &Copy;
  for (unsigned Steps = 0; Steps < 32; ++Steps) {
    DynTypedNode Parent = parentOf(DynTypedNode::create(*E), Context);
    const auto *P = Parent.get<Expr>();
    if (P && (wrapsValue(P) || isa<MemberExpr>(P))) {
      E = P;
      continue;
    }
    // A member call on the value ('.data_ptr<T>()', '.item()') is reached
    // through its MemberExpr; an operator[] or a subscript takes it as its
    // first operand; '*p' dereferences it.
    if (const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(P)) {
      if (Call->getCallee() == E) {
        E = P;
        continue;
      }
    }
    if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P)) {
      if (Op->getNumArgs() >= 1 && Op->getArg(0) == E &&
          (Op->getOperator() == OO_Subscript || Op->getOperator() == OO_Star)) {
        E = P;
        continue;
      }
    }
    if (const auto *Subscript = dyn_cast_or_null<ArraySubscriptExpr>(P)) {
      if (Subscript->getBase() == E) {
        E = P;
        continue;
      }
    }
    if (const auto *Unary = dyn_cast_or_null<UnaryOperator>(P)) {
      if (Unary->getOpcode() == UO_Deref) {
        E = P;
        continue;
      }
    }
    QualType Type = E->getType().getNonReferenceType();
    if (Type->isArithmeticType() || libraryRecordName(Type) == "Scalar") {
      Reads.push_back(E);
      return;
    }
    // 'auto host = t.cpu();', 'int64_t *p = t.cpu().data_ptr<int64_t>();':
    // the reads go through the variable.
    if (const auto *Var = Parent.get<VarDecl>())
      if (Var->hasLocalStorage() && Depth < MaxDepth)
        for (const DeclRefExpr *Ref : referencesTo(*Var, Body, Context))
          collectScalarReads(*Ref, Body, Context, Depth + 1, Reads);
    return;
  }
}

//===-- Size uses --------------------------------------------------------===//

/// Whether \p Param takes a size, a bound or an index: an integer or an
/// integer list ('IntArrayRef', 'SymInt', 'optional<int64_t>'), not a fill
/// value or a tensor.
bool isShapeParameter(const ParmVarDecl *Param) {
  if (!Param)
    return true; // a variadic argument
  QualType Type = Param->getType().getNonReferenceType();
  if (Type->isIntegerType())
    return true;
  StringRef Record = libraryRecordName(Type);
  const auto *Decl = Type->getAsRecordDecl();
  StringRef Name = Decl && Decl->getIdentifier() ? Decl->getName() : Record;
  return llvm::is_contained({"ArrayRef", "SymInt", "SymIntArrayRef", "optional",
                             "OptionalArrayRef", "initializer_list"},
                            Name);
}

/// Whether argument \p Index of \p Call sizes something: a factory's or a
/// shape method's size, 'resize' or 'reserve', an allocation, a copy's or a
/// fill's byte count, a kernel launch's configuration.
bool isSizeArgument(const CallExpr &Call, unsigned Index) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  StringRef Name = bareName(Callee);
  if (Name.empty())
    return false;
  const ParmVarDecl *Param =
      Index < Callee->getNumParams() ? Callee->getParamDecl(Index) : nullptr;
  // A kernel launch's '<<<grid, block>>>' (its configuration call).
  if (Name == "__cudaPushCallConfiguration" || Name == "cudaConfigureCall")
    return true;
  // std::vector and other containers, and Tensor::resize_.
  if (llvm::is_contained({"resize", "reserve", "resize_"}, Name))
    return true;
  if (const auto *Method = dyn_cast<CXXMethodDecl>(Callee)) {
    // 'select' and 'index_select' pick elements: an index, not a size.
    if ((isNamedClass(Method->getParent(), "Tensor", {"at"}) ||
         isNamedClass(Method->getParent(), "TensorBase", {"at"})) &&
        isInApiList(ApiList::ShapeArgumentMethods, Name) && Name != "select" &&
        Name != "index_select")
      return isShapeParameter(Param);
    if (Name == "allocate" || Name == "raw_alloc" ||
        Name == "raw_alloc_with_stream")
      return true;
  }
  std::string Qualified = "::" + Callee->getQualifiedNameAsString();
  if (isInApiList(ApiList::ShapeArgumentFunctions, Qualified) ||
      Qualified == "::torch::from_blob" || Qualified == "::at::from_blob")
    return isShapeParameter(Param);
  // Allocations and the byte counts of copies and fills.
  if (llvm::is_contained({"malloc", "calloc", "aligned_alloc", "realloc"},
                         Name) ||
      Name.starts_with("cudaMalloc") || Name.starts_with("cudaHostAlloc") ||
      Name.starts_with("cuMemAlloc") || Name.starts_with("cuMemHostAlloc"))
    return true;
  if (Name == "memcpy" || Name == "memset" || Name.starts_with("cudaMemcpy") ||
      Name.starts_with("cudaMemset") || Name.starts_with("cuMemcpy"))
    return Param && Param->getType()->isIntegerType();
  return false;
}

/// Whether \p Call passes its arguments' value on unchanged in kind: a
/// function of std that computes a number from numbers ('std::max').
bool passesValueOn(const CallExpr &Call) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  return Callee && Callee->isInStdNamespace() &&
         llvm::is_contained({"max", "min", "abs", "clamp"}, bareName(Callee));
}

/// Whether \p Record is one whose construction carries a size on: a list of
/// sizes ('IntArrayRef', 'SymInt'), CUDA's 'dim3'.
bool carriesSize(const CXXRecordDecl *Record) {
  if (!Record || !Record->getIdentifier())
    return false;
  return llvm::is_contained({"ArrayRef", "SymInt", "SymIntArrayRef", "optional",
                             "OptionalArrayRef", "initializer_list", "dim3",
                             "SmallVector"},
                            Record->getName());
}

/// Whether \p Cond is the condition of the loop \p Loop.
bool isLoopCondition(const Stmt *Loop, const Stmt *Cond) {
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    return For->getCond() == Cond;
  if (const auto *While = dyn_cast<WhileStmt>(Loop))
    return While->getCond() == Cond;
  if (const auto *Do = dyn_cast<DoStmt>(Loop))
    return Do->getCond() == Cond;
  return false;
}

/// Where a host value ends up: nowhere this file tells, a size, or a sum that
/// the host adds it to ('total += v').
enum class Sink { None, Accumulate, Size };

Sink sinkOf(const Expr &Value, const Stmt &Body, ASTContext &Context,
            unsigned Depth);

/// Where a variable that holds the value read takes it: a size where one of
/// its uses sizes something, else a sum where one adds it up.
Sink variableSink(const VarDecl &Var, const Stmt &Body, ASTContext &Context,
                  unsigned Depth) {
  Sink Found = Sink::None;
  if (Depth >= MaxDepth)
    return Found;
  for (const DeclRefExpr *Ref : referencesTo(Var, Body, Context))
    Found = std::max(Found, sinkOf(*Ref, Body, Context, Depth + 1));
  return Found;
}

/// Where the host value \p Value ends up (see valueUse's Size and
/// Accumulated): follows it up through conversions, arithmetic, size lists
/// and local variables initialised or assigned with it.
Sink sinkOf(const Expr &Value, const Stmt &Body, ASTContext &Context,
            unsigned Depth) {
  const Expr *E = &Value;
  for (unsigned Steps = 0; Steps < 32; ++Steps) {
    DynTypedNode Parent = parentOf(DynTypedNode::create(*E), Context);
    if (const auto *Var = Parent.get<VarDecl>())
      return Var->hasLocalStorage() ? variableSink(*Var, Body, Context, Depth)
                                    : Sink::None;
    const auto *P = Parent.get<Stmt>();
    if (!P)
      return Sink::None;
    if (wrapsValue(P) || isa<InitListExpr, CXXStdInitializerListExpr>(P)) {
      E = cast<Expr>(P);
      continue;
    }
    // A scalar's conversion: 'item().toLong()', 'item().to<int64_t>()'.
    if (const auto *Member = dyn_cast<MemberExpr>(P)) {
      if (Member->getBase() == E &&
          libraryRecordName(E->getType().getNonReferenceType()) == "Scalar") {
        DynTypedNode Call = parentOf(Parent, Context);
        if (const auto *C = Call.get<CXXMemberCallExpr>()) {
          E = C;
          continue;
        }
      }
      return Sink::None;
    }
    if (const auto *Binary = dyn_cast<BinaryOperator>(P)) {
      if (Binary->isCompoundAssignmentOp())
        // 'total += v': the host adds the values up.
        return Binary->getRHS() == E && Binary->getOpcode() != BO_SubAssign &&
                       Binary->getOpcode() != BO_DivAssign
                   ? Sink::Accumulate
                   : Sink::None;
      if (Binary->isAssignmentOp()) {
        // 'n = t.item<int64_t>()': the variable carries the value on.
        const VarDecl *Var = localVariable(Binary->getLHS());
        return Binary->getRHS() == E && Var
                   ? variableSink(*Var, Body, Context, Depth)
                   : Sink::None;
      }
      if (Binary->isComparisonOp()) {
        // 'i < n' bounds a loop where it is the loop's condition.
        DynTypedNode Up = parentOf(Parent, Context);
        while (Up.get<Expr>() && wrapsValue(Up.get<Expr>()))
          Up = parentOf(Up, Context);
        const auto *Loop = Up.get<Stmt>();
        return Loop && isLoopCondition(Loop, Binary) &&
                       !Up.get<CXXForRangeStmt>()
                   ? Sink::Size
                   : Sink::None;
      }
      if (Binary->isAdditiveOp() || Binary->isMultiplicativeOp() ||
          Binary->isShiftOp()) {
        E = Binary;
        continue;
      }
      return Sink::None;
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(P)) {
      if (Unary->getOpcode() == UO_Minus || Unary->getOpcode() == UO_Plus) {
        E = Unary;
        continue;
      }
      return Sink::None;
    }
    if (const auto *Conditional = dyn_cast<ConditionalOperator>(P)) {
      if (Conditional->getCond() == E)
        return Sink::None;
      E = Conditional;
      continue;
    }
    if (const auto *New = dyn_cast<CXXNewExpr>(P))
      return New->isArray() && New->getArraySize() && *New->getArraySize() == E
                 ? Sink::Size
                 : Sink::None;
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(P)) {
      const CXXRecordDecl *Record = Construct->getConstructor()->getParent();
      // 'Slice(0, n)' bounds a slice; a TensorIndex of an integer picks an
      // element, which is no size.
      if (isNamedClass(Record, "Slice", {"at", "indexing"}))
        return Sink::Size;
      if (carriesSize(Record)) {
        E = Construct;
        continue;
      }
      // 'std::vector<T> v(n)': a size, where a braced list holds values.
      if (Record && Record->getIdentifier() && Record->getName() == "vector" &&
          !Construct->isListInitialization())
        return Construct->getNumArgs() >= 1 && Construct->getArg(0) == E
                   ? Sink::Size
                   : Sink::None;
      return Sink::None;
    }
    if (const auto *Call = dyn_cast<CallExpr>(P)) {
      for (unsigned I = 0, N = Call->getNumArgs(); I < N; ++I)
        if (Call->getArg(I) == E) {
          // A member call's arguments do not count its receiver.
          if (isSizeArgument(*Call, I))
            return Sink::Size;
          if (passesValueOn(*Call)) {
            E = Call;
            break;
          }
          return Sink::None;
        }
      if (E == Call)
        continue;
      return Sink::None;
    }
    if (isLoopCondition(P, E) && !isa<CXXForRangeStmt>(P))
      return Sink::Size;
    return Sink::None;
  }
  return Sink::None;
}

//===-- What the value is read from ---------------------------------------===//

/// The tensor methods that select, reshape, convert or reduce their receiver:
/// what their result holds comes from it.
bool isDerivingMethod(StringRef Name) {
  return llvm::is_contained({"to",
                             "cpu",
                             "cuda",
                             "contiguous",
                             "clone",
                             "detach",
                             "long",
                             "int",
                             "float",
                             "double",
                             "index",
                             "select",
                             "narrow",
                             "slice",
                             "squeeze",
                             "view",
                             "reshape",
                             "flatten",
                             "sum",
                             "max",
                             "min",
                             "amax",
                             "amin",
                             "cumsum",
                             "item",
                             "data_ptr",
                             "const_data_ptr",
                             "mutable_data_ptr",
                             "pin_memory"},
                            Name);
}

/// The receiver of a member call or an operator[] on a tensor, through
/// implicit nodes; null for anything else.
const Expr *tensorReceiver(const Expr *E, StringRef &Name) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    Name = bareName(Member->getMethodDecl());
    return Member->getImplicitObjectArgument();
  }
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E))
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() >= 1) {
      Name = "operator[]";
      return Op->getArg(0);
    }
  return nullptr;
}

/// Whether \p E is made on the host from host values and moved to the device
/// ('torch::tensor(v).to(kCUDA)', 'torch::from_blob(p, n).cuda()',
/// 'torch::full({1}, n, options)'), here or in a local variable that nothing
/// changes after its initialisation.
bool isMadeFromHostValues(const Expr *E, const Stmt &Body, ASTContext &Context,
                          unsigned Depth) {
  for (unsigned Steps = 0; E && Steps < 16; ++Steps) {
    E = strip(E);
    if (!E)
      return false;
    StringRef Name;
    if (const Expr *Receiver = tensorReceiver(E, Name)) {
      if (Name != "operator[]" && !isDerivingMethod(Name))
        return false;
      E = Receiver;
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (!Callee)
        return false;
      std::string Qualified = "::" + Callee->getQualifiedNameAsString();
      return llvm::is_contained({"::torch::tensor", "::at::tensor",
                                 "::torch::from_blob", "::at::from_blob",
                                 "::torch::full", "::at::full"},
                                Qualified);
    }
    const VarDecl *Var = localVariable(E);
    if (!Var || !Var->getInit() || Depth >= MaxDepth)
      return false;
    // Nothing may write the variable, nor change its tensor in place.
    for (const DeclRefExpr *Ref : referencesTo(*Var, Body, Context)) {
      DynTypedNode Parent = parentOf(DynTypedNode::create(*Ref), Context);
      while (Parent.get<Expr>() && wrapsValue(Parent.get<Expr>()))
        Parent = parentOf(Parent, Context);
      if (const auto *Member = Parent.get<MemberExpr>())
        if (identifierOf(Member->getMemberDecl()).ends_with("_"))
          return false;
      if (const auto *Op = Parent.get<CXXOperatorCallExpr>())
        if (Op->isAssignmentOp() && Op->getArg(0)->IgnoreParenImpCasts() == Ref)
          return false;
      if (const auto *Binary = Parent.get<BinaryOperator>())
        if (Binary->isAssignmentOp())
          return false;
    }
    return isMadeFromHostValues(Var->getInit(), Body, Context, Depth + 1);
  }
  return false;
}

/// Whether \p E is a boolean mask: a comparison, an op that makes a mask
/// (api list mask_results), a conversion to bool, or a local variable
/// initialised with one.
bool isMask(const Expr *E, unsigned Depth = 0) {
  E = strip(E);
  if (!E || Depth > MaxDepth)
    return false;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    return isComparisonOperator(Op->getOperator()) ||
           Op->getOperator() == OO_Exclaim;
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    StringRef Name = bareName(Call->getDirectCallee());
    if (isInApiList(ApiList::MaskResults, Name) || Name == "bool")
      return true;
    // 'x.to(torch::kBool)'.
    if (Name == "to" && Call->getNumArgs() >= 1)
      if (const auto *Ref =
              dyn_cast<DeclRefExpr>(Call->getArg(0)->IgnoreParenImpCasts()))
        return identifierOf(Ref->getDecl()) == "kBool" ||
               identifierOf(Ref->getDecl()) == "Bool";
    return false;
  }
  const VarDecl *Var = localVariable(E);
  return Var && Var->getInit() && isMask(Var->getInit(), Depth + 1);
}

/// Whether \p E, what a value is read from, is a count of true elements: a
/// 'sum' of a mask or a 'count_nonzero', through selections and conversions
/// ('mask.sum().item()', 'at::count_nonzero(m)[0]', 'mask.sum(0).cpu()').
bool isCount(const Expr *E) {
  for (unsigned Steps = 0; E && Steps < 16; ++Steps) {
    E = strip(E);
    if (!E)
      return false;
    const auto *Call = dyn_cast<CallExpr>(E);
    StringRef Name = Call ? bareName(Call->getDirectCallee()) : "";
    if (Name == "count_nonzero")
      return true;
    if (Name == "sum" || Name == "nansum") {
      const Expr *Summed = nullptr;
      if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
        Summed = Member->getImplicitObjectArgument();
      else if (Call->getNumArgs() >= 1)
        Summed = Call->getArg(0);
      // 'mask.to(torch::kLong).sum()', 'mask.long().sum()'.
      StringRef Conversion;
      while (const Expr *Inner = tensorReceiver(Summed, Conversion)) {
        if (!llvm::is_contained({"to", "long", "int", "float"}, Conversion))
          break;
        if (isMask(Summed))
          break;
        Summed = Inner;
      }
      return isMask(Summed);
    }
    StringRef Method;
    const Expr *Receiver = tensorReceiver(E, Method);
    if (!Receiver ||
        !llvm::is_contained({"to", "cpu", "cuda", "long", "int", "item",
                             "operator[]", "index", "select", "squeeze",
                             "contiguous", "data_ptr", "const_data_ptr"},
                            Method))
      return false;
    E = Receiver;
  }
  return false;
}

/// Whether the result of \p Call, a 'nonzero', serves only for its size
/// ('t.nonzero().size(0)', or a local variable read only with 'size' or
/// 'numel').
bool onlySized(const CallExpr &Call, const Stmt &Body, ASTContext &Context) {
  auto SizedAt = [&](const Expr &E) {
    DynTypedNode Parent = parentOf(DynTypedNode::create(E), Context);
    while (Parent.get<Expr>() && wrapsValue(Parent.get<Expr>()))
      Parent = parentOf(Parent, Context);
    const auto *Member = Parent.get<MemberExpr>();
    return Member && llvm::is_contained({"size", "numel", "sizes", "sym_size"},
                                        identifierOf(Member->getMemberDecl()));
  };
  if (SizedAt(Call))
    return true;
  DynTypedNode Parent = parentOf(DynTypedNode::create(Call), Context);
  while (Parent.get<Expr>() && wrapsValue(Parent.get<Expr>()))
    Parent = parentOf(Parent, Context);
  const auto *Var = Parent.get<VarDecl>();
  if (!Var || !Var->hasLocalStorage())
    return false;
  auto Refs = referencesTo(*Var, Body, Context);
  return !Refs.empty() && llvm::all_of(Refs, [&](const DeclRefExpr *Ref) {
    return SizedAt(*Ref);
  });
}

//===-- Uploads and waits -------------------------------------------------===//

/// Whether another call than \p Call in the statements of its block uploads.
bool blockHasOtherUpload(const CallExpr &Call, DeviceInference &Devices,
                         ASTContext &Context, const SyncRules &Rules) {
  // The statement of the innermost block that holds the call.
  const CompoundStmt *Block = nullptr;
  forEachAncestor(DynTypedNode::create(Call), Context,
                  [&](const DynTypedNode &Parent, const DynTypedNode &) {
                    if (Parent.get<FunctionDecl>() || Parent.get<LambdaExpr>())
                      return true;
                    Block = Parent.get<CompoundStmt>();
                    return Block != nullptr;
                  });
  if (!Block)
    return false;
  SourceRange Own = Call.getSourceRange();
  const SourceManager &SM = Context.getSourceManager();
  auto Overlaps = [&](SourceRange Other) {
    return !SM.isBeforeInTranslationUnit(Other.getEnd(), Own.getBegin()) &&
           !SM.isBeforeInTranslationUnit(Own.getEnd(), Other.getBegin());
  };
  for (const Stmt *Child : Block->body())
    for (const BoundNodes &Nodes :
         match(findAll(callExpr().bind("call")), *Child, Context)) {
      const auto *Other = Nodes.getNodeAs<CallExpr>("call");
      // The call itself, its arguments' calls, the calls it is part of.
      if (Other == &Call || Overlaps(Other->getSourceRange()))
        continue;
      std::optional<CallSync> Sync =
          findCallSync(*Other, Devices, Context, Rules);
      if (Sync && Sync->Device != DeviceKind::CPU && isUpload(*Other, *Sync))
        return true;
    }
  return false;
}

/// Whether \p Copy, a tensor copy with 'non_blocking' true, runs from the
/// host to the device (\p ToHost false) or from the device to the host.
bool isNonBlockingTensorCopy(const CXXMemberCallExpr &Copy, bool ToHost,
                             DeviceInference &Devices) {
  StringRef Name = bareName(Copy.getMethodDecl());
  if (!llvm::is_contained({"to", "cuda", "cpu", "copy_"}, Name) ||
      Devices.nonBlockingArgument(Copy) != true)
    return false;
  const Expr *Receiver = Copy.getImplicitObjectArgument();
  if (Name == "copy_") {
    if (Copy.getNumArgs() < 1)
      return false;
    DeviceKind Target = Devices.tensorDevice(Receiver);
    DeviceKind Source = Devices.tensorDevice(Copy.getArg(0));
    return ToHost ? Target == DeviceKind::CPU && Source != DeviceKind::CPU
                  : Source == DeviceKind::CPU && Target != DeviceKind::CPU;
  }
  DeviceKind Target = Name == "cpu"    ? DeviceKind::CPU
                      : Name == "cuda" ? DeviceKind::CUDA
                                       : Devices.transferTarget(Copy);
  DeviceKind Source = Devices.tensorDevice(Receiver);
  return ToHost ? Target == DeviceKind::CPU && Source != DeviceKind::CPU
                : Target == DeviceKind::CUDA && Source != DeviceKind::CUDA;
}

/// What the wait \p Wait waits for: a copy to the host (ResultWait) where an
/// asynchronous one comes before it in its function; else the host buffer of
/// an upload (StagingWait) where the function uploads from host memory
/// asynchronously.
std::optional<ValueUse> waitShape(const CallExpr &Wait, const Stmt &Body,
                                  DeviceInference &Devices,
                                  ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  bool Uploads = false;
  for (const BoundNodes &Nodes :
       match(findAll(callExpr().bind("call")), Body, Context)) {
    const auto *Call = Nodes.getNodeAs<CallExpr>("call");
    bool ToHost = false, ToDevice = false;
    if (isAsyncMemcpy(*Call)) {
      CopyDirection Direction = memcpyDirection(*Call);
      ToDevice = Direction == CopyDirection::HostToDevice;
      ToHost = Direction == CopyDirection::DeviceToHost ||
               Direction == CopyDirection::Unknown;
    } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
      ToDevice = isNonBlockingTensorCopy(*Member, /*ToHost=*/false, Devices);
      ToHost = isNonBlockingTensorCopy(*Member, /*ToHost=*/true, Devices);
    }
    if (ToHost &&
        SM.isBeforeInTranslationUnit(Call->getBeginLoc(), Wait.getBeginLoc()))
      return ValueUse::ResultWait;
    Uploads = Uploads || ToDevice;
  }
  if (Uploads)
    return ValueUse::StagingWait;
  return std::nullopt;
}

/// Whether nothing reads the result of \p Copy: the statement drops it, or it
/// initialises a local variable that no code names.
bool isUnusedResult(const Expr &Copy, const Stmt &Body, ASTContext &Context) {
  DynTypedNode Parent = parentOf(DynTypedNode::create(Copy), Context);
  while (true) {
    const auto *P = Parent.get<Expr>();
    const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(P);
    if (!P || !(wrapsValue(P) ||
                (Construct && Construct->getNumArgs() == 1 &&
                 Construct->getConstructor()->isCopyOrMoveConstructor())))
      break;
    Parent = parentOf(Parent, Context);
  }
  if (Parent.get<CompoundStmt>())
    return true;
  const auto *Var = Parent.get<VarDecl>();
  return Var && Var->hasLocalStorage() &&
         referencesTo(*Var, Body, Context).empty();
}

} // namespace

std::optional<ValueUse> valueUse(const CallExpr &Call, const CallSync &Sync,
                                 DeviceInference &Devices, ASTContext &Context,
                                 const SyncRules &Rules) {
  const FunctionDecl *Function = enclosingFunction(Call, Context);
  const Stmt *Body = Function ? Function->getBody() : nullptr;
  if (!Body)
    return std::nullopt;

  // The host values read, and the tensor (or device pointer) read from.
  llvm::SmallVector<const Expr *, 4> Reads;
  const Expr *Source = nullptr;
  if (isValueRead(Sync)) {
    Reads.push_back(&Call);
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
      Source = Member->getImplicitObjectArgument();
    else if (Call.getNumArgs() >= 1)
      Source = Call.getArg(0);
  } else if (isCopyToHost(Sync)) {
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
      Source = Member->getImplicitObjectArgument();
    collectScalarReads(Call, *Body, Context, 0, Reads);
  } else if (Sync.Category == SyncCategory::Explicit &&
             memcpyDirection(Call) == CopyDirection::DeviceToHost &&
             Call.getNumArgs() >= 2) {
    // 'cudaMemcpy(&n, device_count, sizeof(n), cudaMemcpyDeviceToHost)':
    // the reads are those of 'n' after the copy.
    // 'cudaMemcpy(host.data(), ...)' copies into a local container.
    const Expr *Target = Call.getArg(0)->IgnoreParenImpCasts();
    if (const auto *Address = dyn_cast<UnaryOperator>(Target))
      if (Address->getOpcode() == UO_AddrOf)
        Target = Address->getSubExpr();
    if (const auto *Data = dyn_cast<CXXMemberCallExpr>(Target))
      if (bareName(Data->getMethodDecl()) == "data")
        Target = Data->getImplicitObjectArgument();
    if (const VarDecl *Var = localVariable(Target)) {
      const SourceManager &SM = Context.getSourceManager();
      for (const DeclRefExpr *Ref : referencesTo(*Var, *Body, Context))
        if (SM.isBeforeInTranslationUnit(Call.getEndLoc(), Ref->getBeginLoc()))
          Reads.push_back(Ref);
      // Nothing names the variable after the copy.
      if (Reads.empty())
        return ValueUse::Unused;
    }
    Source = Call.getArg(1);
  } else if (Sync.Category == SyncCategory::DynamicShape && Sync.Fact &&
             (Sync.Fact->Method == "nonzero" ||
              Sync.Fact->Function == "::at::nonzero" ||
              Sync.Fact->Method == "argwhere" ||
              Sync.Fact->Function == "::at::argwhere")) {
    if (onlySized(Call, *Body, Context))
      return ValueUse::Count;
    return std::nullopt;
  }

  if (isCopyToHost(Sync) && Reads.empty() &&
      isUnusedResult(Call, *Body, Context))
    return ValueUse::Unused;
  if (Source || !Reads.empty()) {
    if (Source && isMadeFromHostValues(Source, *Body, Context, 0))
      return ValueUse::HostValue;
    Sink Found = Sink::None;
    for (const Expr *Read : Reads)
      Found = std::max(Found, sinkOf(*Read, *Body, Context, 0));
    // Added up over a loop's iterations: one reduction on the device serves
    // them all, a count or not.
    if (Found == Sink::Accumulate && runsOnEveryLoopIteration(Call, Context))
      return ValueUse::Accumulated;
    if (Source && isCount(Source))
      return ValueUse::Count;
    if (Found == Sink::Size)
      return ValueUse::Size;
    return std::nullopt;
  }
  if (isUpload(Call, Sync)) {
    if (runsOnEveryLoopIteration(Call, Context) ||
        blockHasOtherUpload(Call, Devices, Context, Rules))
      return ValueUse::RepeatedUpload;
    return std::nullopt;
  }
  if (isWait(Sync))
    return waitShape(Call, *Body, Devices, Context);
  return std::nullopt;
}

} // namespace clang::tidy::torch_sync
