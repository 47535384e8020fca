//===--- DynamicShapeCheck.cpp - torch-sync-dynamic-shape -----------------===//

#include "DynamicShapeCheck.h"
#include "TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CallId = "call";
constexpr llvm::StringLiteral ReceiverId = "receiver";

/// The first LibTorch release in which 'repeat_interleave' with an int64_t
/// 'repeats' and no 'output_size' computes the size on the host (PR #99528);
/// before, it built a repeats tensor on the input's device and took the
/// Tensor path, which reads the sum of the repeats.
constexpr unsigned ScalarRepeatsSyncFreeSince = 201;

/// The parameter of \p Callee named \p Name, or null.
const ParmVarDecl *parameter(const FunctionDecl &Callee, StringRef Name) {
  for (const ParmVarDecl *Param : Callee.parameters())
    if (Param->getIdentifier() && Param->getName() == Name)
      return Param;
  return nullptr;
}

/// The argument \p Call passes for the parameter of \p Callee named \p Name:
/// the written one, or a CXXDefaultArgExpr when it is left out. Null when
/// the callee has no such parameter.
const Expr *argument(const CallExpr &Call, const FunctionDecl &Callee,
                     StringRef Name) {
  const ParmVarDecl *Param = parameter(Callee, Name);
  if (!Param || Param->getFunctionScopeIndex() >= Call.getNumArgs())
    return nullptr;
  return Call.getArg(Param->getFunctionScopeIndex());
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

/// The tensor whose values decide the output size: 'repeats' when it is a
/// tensor (repeat_interleave), else the receiver of a method call, else the
/// first tensor argument ('self', 'condition').
const Expr *dataArgument(const CallExpr &Call, const FunctionDecl &Callee,
                         const Expr *Receiver) {
  const ParmVarDecl *Repeats = parameter(Callee, "repeats");
  if (Repeats && isTensorType(Repeats->getType()))
    return argument(Call, Callee, "repeats");
  if (Receiver)
    return Receiver;
  for (const Expr *Arg : Call.arguments())
    if (isTensorType(Arg->getType()))
      return Arg;
  return nullptr;
}
} // namespace

void DynamicShapeCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The census-measured overloads classified under this check.
  registerMeasuredSyncMatchers(Finder, SyncCategory::DynamicShape);
  Finder->addMatcher(
      cxxMemberCallExpr(
          callee(tensorMethod(methodNames(SyncCategory::DynamicShape))),
          on(expr().bind(ReceiverId)))
          .bind(CallId),
      this);
  Finder->addMatcher(
      callExpr(callee(functionDecl(
                   hasAnyName(functionNames(SyncCategory::DynamicShape)))))
          .bind(CallId),
      this);
}

bool DynamicShapeCheck::sizeDependsOnData(const CallExpr &Call,
                                          const FunctionDecl &Callee,
                                          ASTContext &Context) const {
  StringRef Name = Callee.getName();
  // Arguments whose value is not a constant get the benefit of the doubt:
  // an 'output_size' held in a variable, a histc range or a 'num_classes'
  // computed at run time count as given.
  if (Name == "where")
    // where(cond, x, y) selects element by element, with its inputs' shape.
    return Callee.getNumParams() == 1;
  if (Name == "repeat_interleave") {
    const Expr *OutputSize = argument(Call, Callee, "output_size");
    if (OutputSize && !isEmptyOptional(OutputSize))
      return false;
    // int64_t repeats: the output size is the input's times the repeats.
    const ParmVarDecl *Repeats = parameter(Callee, "repeats");
    if (Repeats && !isTensorType(Repeats->getType()))
      return libTorchVersion() < ScalarRepeatsSyncFreeSince;
    return true;
  }
  if (Name == "histc") {
    // With min == max (the default 0, 0) the range comes from the data.
    std::optional<double> Min =
        constantNumber(argument(Call, Callee, "min"), Context);
    std::optional<double> Max =
        constantNumber(argument(Call, Callee, "max"), Context);
    return Min && Max && *Min == *Max;
  }
  if (Name == "one_hot") {
    // num_classes == -1 (the default) asks for the largest index plus one;
    // any other value is either the size or an error, never a read.
    std::optional<double> Classes =
        constantNumber(argument(Call, Callee, "num_classes"), Context);
    return Classes && *Classes == -1;
  }
  return true;
}

void DynamicShapeCheck::checkSync(const MatchFinder::MatchResult &Result) {
  ASTContext &Context = *Result.Context;
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->getIdentifier())
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::DynamicShape, *Callee);
  if (!Fact || !isReportablePlace(*Call, Context) ||
      !sizeDependsOnData(*Call, *Callee, Context))
    return;

  const Expr *Data = dataArgument(*Call, *Callee,
                                  Result.Nodes.getNodeAs<Expr>(ReceiverId));
  if (!Data || !isReportableDevice(devices(Context).tensorDevice(Data)))
    return;
  reportSync(*Call, calleeName(*Call, *Callee), Fact->Effect,
             Advice::of(*Fact), Context);
}

} // namespace clang::tidy::torch_sync
