//===--- DeviceGuards.cpp - guards and branches on a tensor's device ------===//

#include "DeviceGuards.h"
#include "DeviceInference.h"
#include "DeviceTypes.h"
#include "DeviceWrites.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/Builtins.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <functional>

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

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

DeviceKind DeviceGuards::guardedDevice(const VarDecl &Var, const Expr &Use) {
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
  if (Result == DeviceKind::Unspecified || !Writes.isNeverWritten(Var))
    return DeviceKind::Unknown;
  return Result;
}

llvm::ArrayRef<DeviceGuards::DeviceFact>
DeviceGuards::deviceFacts(const FunctionDecl &Function) {
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
            collectDeviceTests(If->getCond(), /*Truth=*/ElseExits, Devices, Out);
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
      collectDeviceTests(If->getCond(), true, Devices, WhenTrue);
      collectDeviceTests(If->getCond(), false, Devices, WhenFalse);
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

} // namespace clang::tidy::torch_sync
