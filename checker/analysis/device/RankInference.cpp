//===--- RankInference.cpp - tensors known to have zero dimensions --------===//

#include "analysis/device/RankInference.h"
#include "analysis/device/DeviceQueries.h"
#include "facts/SyncFacts.h"
#include "libtorch/DeviceTypes.h"
#include "libtorch/LibTorchApi.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::torch_sync {

namespace {
/// Methods and at:: functions that, called with the tensor alone, reduce over
/// every element to a 0-dim tensor.
bool reducesToScalar(llvm::StringRef Name) {
  return isInApiList(ApiList::FullReductions, Name);
}

/// Element-wise methods and conversions: the result has the receiver's shape
/// when every other tensor argument is 0-dim too (broadcasting).
bool keepsShape(llvm::StringRef Name) {
  return isInApiList(ApiList::ShapeKeepingMethods, Name);
}

/// Whether \p Call passes a 'dim' (or 'dims') argument to \p Callee, other
/// than its default: 'sum(1)', 'argmax(0)', 'amax({0, 1})'.
bool passesDimension(const CallExpr &Call, const FunctionDecl &Callee) {
  for (const ParmVarDecl *Param : Callee.parameters()) {
    if (!Param->getIdentifier() ||
        (Param->getName() != "dim" && Param->getName() != "dims"))
      continue;
    unsigned Index = Param->getFunctionScopeIndex();
    if (Index < Call.getNumArgs() &&
        !isa<CXXDefaultArgExpr>(Call.getArg(Index)))
      return true;
  }
  return false;
}

/// Whether \p E is an empty braced size list ('{}') written at the call.
bool isEmptySizeList(const Expr *E) {
  // '{}' for an IntArrayRef is its default constructor, list-initialized.
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E->IgnoreImplicit()))
    if (Construct->getNumArgs() == 0 && Construct->isListInitialization())
      return true;
  const InitListExpr *List = bracedList(E);
  return List && List->getNumInits() == 0;
}

bool isZeroDim(const Expr *E, DeviceQueries &Devices, unsigned Depth);

/// Every tensor argument of \p Call (and its receiver, when \p Receiver) is
/// 0-dim; host numbers do not count.
bool tensorOperandsAreZeroDim(const CallExpr &Call, const Expr *Receiver,
                              DeviceQueries &Devices, unsigned Depth) {
  if (Receiver && !isZeroDim(Receiver, Devices, Depth + 1))
    return false;
  bool SawTensor = Receiver != nullptr;
  for (const Expr *Arg : Call.arguments()) {
    if (!isTensorType(Arg->getType()))
      continue;
    if (!isZeroDim(Arg, Devices, Depth + 1))
      return false;
    SawTensor = true;
  }
  return SawTensor;
}

bool isZeroDim(const Expr *E, DeviceQueries &Devices, unsigned Depth) {
  if (!E || Depth > 8)
    return false;
  E = E->IgnoreUnlessSpelledInSource();
  if (E->isTypeDependent())
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    const Expr *Value = Var ? Devices.singleValue(*Var) : nullptr;
    return Value && isZeroDim(Value, Devices, Depth + 1);
  }
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
    switch (Operator->getOperator()) {
    // Arithmetic of 0-dim tensors and host numbers stays 0-dim. Comparisons
    // make masks, left to torch-sync-boolean-mask.
    case OO_Plus:
    case OO_Minus:
    case OO_Star:
    case OO_Slash:
    case OO_Percent:
      return tensorOperandsAreZeroDim(*Operator, nullptr, Devices, Depth);
    default:
      return false;
    }
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->getIdentifier() || !isTensorType(Call->getType()))
    return false;
  llvm::StringRef Name = Callee->getName();
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    const Expr *Receiver = Member->getImplicitObjectArgument();
    if (!Receiver || !isTensorType(Receiver->getType()))
      return false;
    // 't.sum()', 't.argmax()': the overload or call without a dimension.
    if (reducesToScalar(Name))
      return !passesDimension(*Member, *Callee);
    if (keepsShape(Name))
      return tensorOperandsAreZeroDim(*Member, Receiver, Devices, Depth);
    return false;
  }
  const auto *NS = dyn_cast<NamespaceDecl>(Callee->getDeclContext());
  if (!NS || !NS->getIdentifier() ||
      (NS->getName() != "at" && NS->getName() != "torch"))
    return false;
  // 'torch::tensor(3)': a single number (not a braced list or a vector).
  if ((Name == "tensor" || Name == "scalar_tensor") &&
      Call->getNumArgs() >= 1) {
    const Expr *Value = Call->getArg(0)->IgnoreImplicit();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Value))
      if (Construct->getNumArgs() == 1)
        Value = Construct->getArg(0)->IgnoreImplicit();
    return Name == "scalar_tensor" || (!bracedList(Call->getArg(0)) &&
                                       Value->getType()->isArithmeticType());
  }
  // 'zeros({})', 'full({}, 7)', 'randint(10, {})': an empty size list.
  if (isInApiList(ApiList::SizeListFactories, Name))
    return llvm::any_of(Call->arguments(), isEmptySizeList);
  if (reducesToScalar(Name))
    return Call->getNumArgs() >= 1 && !passesDimension(*Call, *Callee);
  return false;
}

/// Whether \p E, a size argument (IntArrayRef), is a non-empty braced list
/// ('{10, 3}') or a single integer ('randn(10)'): at least one dimension.
bool isNonEmptySize(const Expr *E) {
  if (const InitListExpr *List = bracedList(E))
    return List->getNumInits() > 0;
  const auto *Construct = dyn_cast<CXXConstructExpr>(E->IgnoreImplicit());
  return Construct && Construct->getNumArgs() == 1 &&
         Construct->getArg(0)->getType()->isIntegerType();
}

/// The argument of \p Call for the parameter named \p Name, or null.
const Expr *argumentFor(const CallExpr &Call, const FunctionDecl &Callee,
                        llvm::StringRef Name) {
  for (const ParmVarDecl *Param : Callee.parameters())
    if (Param->getIdentifier() && Param->getName() == Name &&
        Param->getFunctionScopeIndex() < Call.getNumArgs())
      return Call.getArg(Param->getFunctionScopeIndex());
  return nullptr;
}

/// Element-wise methods and functions whose result has the broadcast shape of
/// their tensor operands, and conversions that keep the shape.
bool keepsOrBroadcastsShape(llvm::StringRef Name) {
  return isInApiList(ApiList::ShapeOrBroadcastOps, Name);
}

bool isPositiveRank(const Expr *E, DeviceQueries &Devices, unsigned Depth);

/// Whether one of the tensor operands of \p Call (its receiver \p Receiver
/// included) has rank >= 1: broadcasting keeps it.
bool anyOperandPositiveRank(const CallExpr &Call, const Expr *Receiver,
                            DeviceQueries &Devices, unsigned Depth) {
  if (Receiver && isPositiveRank(Receiver, Devices, Depth + 1))
    return true;
  return llvm::any_of(Call.arguments(), [&](const Expr *Arg) {
    return isTensorType(Arg->getType()) &&
           isPositiveRank(Arg, Devices, Depth + 1);
  });
}

bool isPositiveRank(const Expr *E, DeviceQueries &Devices, unsigned Depth) {
  if (!E || Depth > 8)
    return false;
  E = E->IgnoreUnlessSpelledInSource();
  if (E->isTypeDependent())
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    const Expr *Value = Var ? Devices.singleValue(*Var) : nullptr;
    return Value && isPositiveRank(Value, Devices, Depth + 1);
  }
  // 'batch.target' of a stacked batch (torch/data/transforms/stack.h).
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    const auto *Example =
        dyn_cast<CXXRecordDecl>(Member->getMemberDecl()->getDeclContext());
    return Example && Example->getIdentifier() &&
           Example->getName() == "Example" &&
           isInNamespace(Example, {"torch", "data"}) &&
           datasetStacksBatches(Devices.exampleDataset(Member->getBase()));
  }
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E))
    return isElementwiseOperator(Operator->getOperator()) &&
           anyOperandPositiveRank(*Operator, nullptr, Devices, Depth);
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->getIdentifier() || !isTensorType(Call->getType()))
    return false;
  llvm::StringRef Name = Callee->getName();
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    const Expr *Receiver = Member->getImplicitObjectArgument();
    if (!Receiver || !isTensorType(Receiver->getType()))
      return false;
    if (Name == "unsqueeze" || Name == "flatten")
      return true;
    if (Name == "view" || Name == "reshape")
      return Member->getNumArgs() >= 1 && isNonEmptySize(Member->getArg(0));
    return keepsOrBroadcastsShape(Name) &&
           anyOperandPositiveRank(*Member, Receiver, Devices, Depth);
  }
  const auto *NS = dyn_cast<NamespaceDecl>(Callee->getDeclContext());
  if (!NS || !NS->getIdentifier() ||
      (NS->getName() != "at" && NS->getName() != "torch"))
    return false;
  if (isInApiList(ApiList::PositiveRankResults, Name))
    return true;
  // 'torch::tensor({1, 2})', 'torch::tensor(values)': a list or a vector.
  if (Name == "tensor" && Call->getNumArgs() >= 1) {
    if (bracedList(Call->getArg(0)))
      return true;
    const auto *Data =
        dyn_cast<CXXConstructExpr>(Call->getArg(0)->IgnoreImplicit());
    if (!Data || Data->getNumArgs() != 1)
      return false;
    const auto *Record = Data->getArg(0)->getType()->getAsRecordDecl();
    return Record && Record->getIdentifier() &&
           (Record->getName() == "vector" || Record->getName() == "ArrayRef");
  }
  if (isInApiList(ApiList::SizedFactories, Name)) {
    const Expr *Size = argumentFor(*Call, *Callee, "size");
    if (!Size)
      Size = argumentFor(*Call, *Callee, "sizes");
    return Size && isNonEmptySize(Size);
  }
  return keepsOrBroadcastsShape(Name) &&
         anyOperandPositiveRank(*Call, nullptr, Devices, Depth);
}
} // namespace

bool isZeroDimTensor(const Expr *E, DeviceQueries &Devices) {
  return isZeroDim(E, Devices, 0);
}

bool isPositiveRankTensor(const Expr *E, DeviceQueries &Devices) {
  return isPositiveRank(E, Devices, 0);
}

llvm::SmallVector<const Expr *, 4> tensorIndexElements(const Expr *Indices) {
  llvm::SmallVector<const Expr *, 4> Tensors;
  const InitListExpr *List = bracedList(Indices);
  if (!List)
    return Tensors;
  for (const Expr *Element : List->inits()) {
    // Each element is a TensorIndex built from an int, a Slice, None,
    // Ellipsis, a bool or a Tensor.
    const auto *Construct =
        dyn_cast<CXXConstructExpr>(Element->IgnoreImplicit());
    if (Construct && Construct->getNumArgs() == 1 &&
        isTensorType(Construct->getArg(0)->getType()))
      Tensors.push_back(Construct->getArg(0));
  }
  return Tensors;
}

} // namespace clang::tidy::torch_sync
