//===--- DeviceConditions.cpp - guards and branches on a tensor's device --===//

#include "analysis/device/DeviceConditions.h"
#include "analysis/device/DeviceQueries.h"
#include "analysis/device/DeviceWrites.h"
#include "clang-tidy/utils/ExprSequence.h"
#include "libtorch/DeviceTypes.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Analysis/Analyses/Dominators.h"
#include "clang/Analysis/CFG.h"
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
    return Var && Var->hasLocalStorage() && isTensorType(Var->getType())
               ? Var
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

void collectDeviceTests(const Expr *Cond, bool Truth, DeviceQueries &Devices,
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
  DeviceKind Device = Devices.targetDevice(Named, /*Depth=*/0);
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

/// The CFG of a function, its dominator tree and the block of each statement.
struct DeviceConditions::Flow {
  std::unique_ptr<CFG> Graph;
  std::unique_ptr<CFGDomTree> Dominators;
  std::unique_ptr<utils::StmtToBlockMap> Blocks;
};

DeviceConditions::DeviceConditions(ASTContext &Context, DeviceQueries &Devices,
                                   DeviceWrites &Writes)
    : Context(Context), Devices(Devices), Writes(Writes) {}

DeviceConditions::~DeviceConditions() = default;

bool DeviceConditions::outcomeDominates(const FunctionDecl &Function,
                                        const IfStmt &Test, bool Outcome,
                                        const Stmt &Use) {
  std::unique_ptr<Flow> &F = Flows[&Function];
  if (!F) {
    F = std::make_unique<Flow>();
    CFG::BuildOptions Options;
    Options.AddImplicitDtors = true;
    Options.AddTemporaryDtors = true;
    F->Graph = CFG::buildCFG(nullptr, const_cast<Stmt *>(Function.getBody()),
                             &Context, Options);
    if (F->Graph) {
      F->Dominators = std::make_unique<CFGDomTree>(F->Graph.get());
      F->Blocks =
          std::make_unique<utils::StmtToBlockMap>(F->Graph.get(), &Context);
    }
  }
  if (!F->Graph)
    return false;
  const CFGBlock *UseBlock = F->Blocks->blockContainingStmt(&Use);
  if (!UseBlock)
    return false;
  for (const CFGBlock *Block : *F->Graph) {
    if (Block->getTerminatorStmt() != &Test || Block->succ_size() != 2)
      continue;
    const CFGBlock *Taken = *(Block->succ_begin() + (Outcome ? 0 : 1));
    const CFGBlock *Other = *(Block->succ_begin() + (Outcome ? 1 : 0));
    if (!Taken || Taken == Other)
      return false;
    // The edge Block -> Taken dominates UseBlock: Taken does, and every other
    // way into Taken comes from a block that Taken dominates (a loop back).
    if (!F->Dominators->dominates(Taken, UseBlock))
      return false;
    return llvm::all_of(Taken->preds(),
                        [&](const CFGBlock::AdjacentBlock &Pred) {
                          const CFGBlock *From = Pred.getReachableBlock();
                          return !From || From == Block ||
                                 F->Dominators->dominates(Taken, From);
                        });
  }
  return false;
}

DeviceKind DeviceConditions::guardedDevice(const VarDecl &Var,
                                           const Expr &Use) {
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  if (!Function || !Function->getBody() || !isTensorType(Var.getType()))
    return DeviceKind::Unknown;
  llvm::ArrayRef<DeviceFact> Facts = deviceFacts(*Function);
  if (Facts.empty())
    return DeviceKind::Unknown;
  const SourceManager &SM = Context.getSourceManager();
  auto [File, Offset] =
      SM.getDecomposedLoc(SM.getExpansionLoc(Use.getBeginLoc()));
  DeviceKind Result = DeviceKind::Unspecified;
  const bool Labels = HasLabel.lookup(Function);
  for (const DeviceFact &Fact : Facts)
    if (Fact.Var == &Var && Fact.File == File && Fact.Begin < Offset &&
        Offset <= Fact.End &&
        (!Labels || outcomeDominates(*Function, *Fact.Test, Fact.Outcome, Use)))
      Result = joinAlternatives(Result, Fact.Device);
  // The facts hold only for a variable that nothing reassigns between the
  // test and the use.
  if (Result == DeviceKind::Unspecified || !Writes.isNeverWritten(Var))
    return DeviceKind::Unknown;
  return Result;
}

llvm::ArrayRef<DeviceConditions::DeviceFact>
DeviceConditions::deviceFacts(const FunctionDecl &Function) {
  auto Cached = FactCache.find(&Function);
  if (Cached != FactCache.end())
    return Cached->second;
  SmallVector<DeviceFact, 4> &Facts = FactCache[&Function];
  const SourceManager &SM = Context.getSourceManager();
  /// The tests that hold after one outcome of an 'if'.
  struct Outcome {
    const IfStmt *If;
    bool Truth;
    SmallVector<DeviceTest, 2> Tests;
  };
  auto AddRegion = [&](SourceLocation Begin, SourceLocation End,
                       llvm::ArrayRef<Outcome> Outcomes) {
    auto Range = expansionOffsets(Begin, End, SM);
    if (!Range)
      return;
    for (const Outcome &O : Outcomes)
      for (const DeviceTest &Test : O.Tests)
        Facts.push_back({Test.first, std::get<0>(*Range), std::get<1>(*Range),
                         std::get<2>(*Range), Test.second, O.If, O.Truth});
  };
  // What holds after a statement that completes normally: the negation of
  // a guard's test ('if (!t.is_cuda()) throw ...;', TORCH_CHECK, which
  // expands to such an 'if'), also from inside a 'do { ... } while (0)' of a
  // statement macro around it (AT_ASSERTM, CHECK_CPU).
  std::function<void(const Stmt *, SmallVectorImpl<Outcome> &)> After =
      [&](const Stmt *S, SmallVectorImpl<Outcome> &Out) {
        if (const auto *Attributed = dyn_cast_or_null<AttributedStmt>(S))
          return After(Attributed->getSubStmt(), Out);
        if (const auto *If = dyn_cast_or_null<IfStmt>(S)) {
          bool ThenExits = neverFallsThrough(If->getThen(), Context);
          bool ElseExits = neverFallsThrough(If->getElse(), Context);
          if (ThenExits != ElseExits) {
            Outcome O{If, /*Truth=*/ElseExits, {}};
            collectDeviceTests(If->getCond(), O.Truth, Devices, O.Tests);
            if (!O.Tests.empty())
              Out.push_back(std::move(O));
          }
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

  auto Nodes =
      match(findAll(stmt(anyOf(compoundStmt().bind("block"),
                               ifStmt().bind("if"), switchStmt().bind("switch"),
                               labelStmt().bind("label")))),
            *Function.getBody(), Context);
  llvm::SmallPtrSet<const Stmt *, 4> SwitchBodies;
  for (const BoundNodes &Node : Nodes) {
    // A label may be reached past a guard: its facts need the CFG.
    if (Node.getNodeAs<LabelStmt>("label"))
      HasLabel[&Function] = true;
    if (const auto *Switch = Node.getNodeAs<SwitchStmt>("switch"))
      SwitchBodies.insert(Switch->getBody());
  }
  for (const BoundNodes &Node : Nodes) {
    if (const auto *If = Node.getNodeAs<IfStmt>("if")) {
      // Inside the branches of 'if (t.is_cuda()) { ... } else { ... }'
      // written in the source (a macro's branches are not).
      if (If->getBeginLoc().isMacroID())
        continue;
      Outcome WhenTrue{If, true, {}}, WhenFalse{If, false, {}};
      collectDeviceTests(If->getCond(), true, Devices, WhenTrue.Tests);
      collectDeviceTests(If->getCond(), false, Devices, WhenFalse.Tests);
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
      SmallVector<Outcome, 2> Outcomes;
      After(Child, Outcomes);
      if (!Outcomes.empty())
        AddRegion(SM.getExpansionRange(Child->getEndLoc()).getEnd(),
                  Block->getRBracLoc(), Outcomes);
    }
  }
  return Facts;
}

} // namespace clang::tidy::torch_sync
