//===--- HostValueSink.cpp - where a value read on the host ends up -------===//

#include "analysis/HostValueSink.h"
#include "facts/SyncFacts.h"
#include "libtorch/DeviceTypes.h"
#include "libtorch/LibTorchApi.h"
#include "support/ValueWalk.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>

namespace clang::tidy::torch_sync {

namespace {

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
  StringRef Name = identifierOf(Callee);
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
         llvm::is_contained({"max", "min", "abs", "clamp"},
                            identifierOf(Callee));
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

HostValueSink sinkOf(const Expr &Value, const Stmt &Body, ASTContext &Context,
                     unsigned Depth);

/// Where a variable that holds the value read takes it: a size where one of
/// its uses sizes something, else a sum where one adds it up.
HostValueSink variableSink(const VarDecl &Var, const Stmt &Body,
                           ASTContext &Context, unsigned Depth) {
  HostValueSink Found = HostValueSink::None;
  if (Depth >= MaxValueDepth)
    return Found;
  for (const DeclRefExpr *Ref : referencesTo(Var, Body, Context))
    Found = std::max(Found, sinkOf(*Ref, Body, Context, Depth + 1));
  return Found;
}

/// Where the host value \p Value ends up (see valueUse's Size and
/// Accumulated): follows it up through conversions, arithmetic, size lists
/// and local variables initialised or assigned with it.
HostValueSink sinkOf(const Expr &Value, const Stmt &Body, ASTContext &Context,
                     unsigned Depth) {
  const Expr *E = &Value;
  for (unsigned Steps = 0; Steps < 32; ++Steps) {
    DynTypedNode Parent = parentOf(DynTypedNode::create(*E), Context);
    if (const auto *Var = Parent.get<VarDecl>())
      return Var->hasLocalStorage() ? variableSink(*Var, Body, Context, Depth)
                                    : HostValueSink::None;
    const auto *P = Parent.get<Stmt>();
    if (!P)
      return HostValueSink::None;
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
      return HostValueSink::None;
    }
    if (const auto *Binary = dyn_cast<BinaryOperator>(P)) {
      if (Binary->isCompoundAssignmentOp())
        // 'total += v': the host adds the values up.
        return Binary->getRHS() == E && Binary->getOpcode() != BO_SubAssign &&
                       Binary->getOpcode() != BO_DivAssign
                   ? HostValueSink::Accumulate
                   : HostValueSink::None;
      if (Binary->isAssignmentOp()) {
        // 'n = t.item<int64_t>()': the variable carries the value on.
        const VarDecl *Var = localVariable(Binary->getLHS());
        return Binary->getRHS() == E && Var
                   ? variableSink(*Var, Body, Context, Depth)
                   : HostValueSink::None;
      }
      if (Binary->isComparisonOp()) {
        // 'i < n' bounds a loop where it is the loop's condition.
        DynTypedNode Up = parentOf(Parent, Context);
        while (Up.get<Expr>() && wrapsValue(Up.get<Expr>()))
          Up = parentOf(Up, Context);
        const auto *Loop = Up.get<Stmt>();
        return Loop && isLoopCondition(Loop, Binary) &&
                       !Up.get<CXXForRangeStmt>()
                   ? HostValueSink::Size
                   : HostValueSink::None;
      }
      if (Binary->isAdditiveOp() || Binary->isMultiplicativeOp() ||
          Binary->isShiftOp()) {
        E = Binary;
        continue;
      }
      return HostValueSink::None;
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(P)) {
      if (Unary->getOpcode() == UO_Minus || Unary->getOpcode() == UO_Plus) {
        E = Unary;
        continue;
      }
      return HostValueSink::None;
    }
    if (const auto *Conditional = dyn_cast<ConditionalOperator>(P)) {
      if (Conditional->getCond() == E)
        return HostValueSink::None;
      E = Conditional;
      continue;
    }
    if (const auto *New = dyn_cast<CXXNewExpr>(P))
      return New->isArray() && New->getArraySize() && *New->getArraySize() == E
                 ? HostValueSink::Size
                 : HostValueSink::None;
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(P)) {
      const CXXRecordDecl *Record = Construct->getConstructor()->getParent();
      // 'Slice(0, n)' bounds a slice; a TensorIndex of an integer picks an
      // element, which is no size.
      if (isNamedClass(Record, "Slice", {"at", "indexing"}))
        return HostValueSink::Size;
      if (carriesSize(Record)) {
        E = Construct;
        continue;
      }
      // 'std::vector<T> v(n)': a size, where a braced list holds values.
      if (Record && Record->getIdentifier() && Record->getName() == "vector" &&
          !Construct->isListInitialization())
        return Construct->getNumArgs() >= 1 && Construct->getArg(0) == E
                   ? HostValueSink::Size
                   : HostValueSink::None;
      return HostValueSink::None;
    }
    if (const auto *Call = dyn_cast<CallExpr>(P)) {
      for (unsigned I = 0, N = Call->getNumArgs(); I < N; ++I)
        if (Call->getArg(I) == E) {
          // A member call's arguments do not count its receiver.
          if (isSizeArgument(*Call, I))
            return HostValueSink::Size;
          if (passesValueOn(*Call)) {
            E = Call;
            break;
          }
          return HostValueSink::None;
        }
      if (E == Call)
        continue;
      return HostValueSink::None;
    }
    if (isLoopCondition(P, E) && !isa<CXXForRangeStmt>(P))
      return HostValueSink::Size;
    return HostValueSink::None;
  }
  return HostValueSink::None;
}

} // namespace

HostValueSink hostValueSink(const Expr &Value, const Stmt &Body,
                            ASTContext &Context) {
  return sinkOf(Value, Body, Context, 0);
}

} // namespace clang::tidy::torch_sync
