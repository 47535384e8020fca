//===--- ModuleDevices.cpp - the devices of torch::nn modules -------------===//

#include "analysis/device/ModuleDevices.h"
#include "analysis/device/DeviceQueries.h"
#include "analysis/device/DeviceWrites.h"
#include "facts/SyncFacts.h"
#include "libtorch/DeviceTypes.h"
#include "libtorch/LibTorchApi.h"
#include "libtorch/TorchMatchers.h"
#include "project/ProjectFacts.h"
#include "project/ProjectModules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {

/// Matches a class of namespace torch::optim (the optimizers).
AST_MATCHER(CXXRecordDecl, isTorchOptimizer) {
  return isInNamespace(&Node, {"torch", "optim"});
}

/// 'm->' on the torch::nn::ModuleHolder variable \p Var ('m' bound as "ref").
auto holderArrow(const VarDecl &Var) {
  return cxxOperatorCallExpr(
      hasOverloadedOperatorName("->"),
      hasArgument(0, ignoringParenImpCasts(refersTo(Var).bind("ref"))));
}

/// 'm->fc->' on a submodule 'fc' of the module held by \p Var.
auto submoduleArrow(const VarDecl &Var) {
  return cxxOperatorCallExpr(
      hasOverloadedOperatorName("->"),
      hasArgument(0, ignoringParenImpCasts(memberExpr(hasObjectExpression(
                         ignoringParenImpCasts(holderArrow(Var)))))));
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
      cxxMemberCallExpr(on(Arrow), callee(cxxMethodDecl(hasAnyName(apiList(
                                       ApiList::ModuleMethodsKeepingDevice))))),
      // 'torch::save(m, path)' writes copies of the parameters and buffers
      // (torch/serialize.h, Module::save).
      callExpr(callee(functionDecl(
                   hasAnyName("::torch::save", "::torch::pickle_save"))),
               hasArgument(0, Ref)),
      // 'm->to(device)' moves every parameter and buffer (module.cpp).
      cxxMemberCallExpr(on(Arrow), callee(cxxMethodDecl(hasName("to"))))
          .bind("move"),
      // 'm = Net()' gives the holder another module; 'torch::load(m, path)'
      // may move its tensors to the saved ones' devices
      // (torch/csrc/api/src/serialize/input-archive.cpp, set_data). Both are
      // read in program order (ReachingWrites).
      cxxOperatorCallExpr(hasOverloadedOperatorName("="), hasArgument(0, Ref),
                          hasArgument(1, expr().bind("assigned")))
          .bind("replace"),
      callExpr(callee(functionDecl(hasName("::torch::load"))),
               hasArgument(0, Ref))
          .bind("replace"),
      // 'Optimizer(m->parameters(), options)': the optimizers of torch::optim
      // update the parameters in place (torch/csrc/api/src/optim/*.cpp).
      cxxConstructExpr(
          hasDeclaration(cxxConstructorDecl(ofClass(isTorchOptimizer()))),
          hasAnyArgument(ignoringImplicit(
              anyOf(Parameters, cxxConstructExpr(hasArgument(
                                    0, ignoringImplicit(Parameters))))))),
      // 'm->weight': a read of a tensor member; writes are looked for apart.
      memberExpr(hasObjectExpression(ignoringParenImpCasts(Arrow)),
                 member(fieldDecl(hasType(qualType(isTorchTensor()))))),
      // 'm->fc->weight': a tensor member of a submodule.
      memberExpr(
          member(fieldDecl(hasType(qualType(isTorchTensor())))),
          hasObjectExpression(ignoringParenImpCasts(submoduleArrow(Var)))),
      // 'auto ps = m->parameters();' where 'ps' is read for sizes only.
      declStmt(has(varDecl(hasInitializer(ignoringImplicit(Parameters)),
                           hasLocalStorage(), unless(hasType(referenceType())))
                       .bind("list"))))));
}

/// Whether every use of the local list \p List of a module's parameters, in
/// \p Body, reads only sizes: 'ps.size()', 'ps.empty()', and metadata of an
/// element ('ps.at(0).sizes()', 'ps[0].numel()').
bool readsOnlySizes(const VarDecl &List, const Stmt &Body,
                    ASTContext &Context) {
  auto Ref = ignoringParenImpCasts(refersTo(List).bind("ref"));
  auto Element = ignoringImplicit(
      anyOf(cxxMemberCallExpr(on(Ref), callee(cxxMethodDecl(hasName("at")))),
            cxxOperatorCallExpr(hasOverloadedOperatorName("[]"),
                                hasArgument(0, Ref))));
  auto Reads = findAll(stmt(anyOf(
      cxxMemberCallExpr(on(Ref),
                        callee(cxxMethodDecl(hasAnyName("size", "empty")))),
      cxxMemberCallExpr(on(Element),
                        callee(cxxMethodDecl(hasAnyName(
                            "sizes", "size", "dim", "numel", "dtype",
                            "scalar_type", "requires_grad", "defined")))))));
  llvm::SmallPtrSet<const DeclRefExpr *, 8> Read;
  for (const BoundNodes &Nodes : match(Reads, Body, Context))
    Read.insert(Nodes.getNodeAs<DeclRefExpr>("ref"));
  for (const BoundNodes &Nodes :
       match(findAll(refersTo(List).bind("ref")), Body, Context))
    if (!Read.contains(Nodes.getNodeAs<DeclRefExpr>("ref")))
      return false;
  return true;
}

} // namespace

DeviceKind ModuleDevices::moduleDevice(const Expr *Holder, unsigned Depth) {
  const Expr *E = strip(Holder);
  if (!E || Depth > MaxDeviceDepth)
    return DeviceKind::Unknown;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    return Var ? moduleVariableDevice(*Var, Ref, Depth) : DeviceKind::Unknown;
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    // 'this->fc' under the project pass's hypothesis.
    if (isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
      return Devices.assumesModuleStateOnCpu() ? DeviceKind::CPU
                                               : DeviceKind::Unknown;
    // 'net->fc', a submodule of a project module: built with the module and
    // moved with it (a project module whose constructors make its state on
    // the CPU, ProjectModules.h).
    const auto *Arrow =
        dyn_cast<CXXOperatorCallExpr>(Member->getBase()->IgnoreParenImpCasts());
    const CXXRecordDecl *Outer = Arrow && Arrow->getOperator() == OO_Arrow
                                     ? heldModule(Arrow->getArg(0)->getType())
                                     : nullptr;
    return Outer && isProjectModule(*Outer)
               ? moduleDevice(Arrow->getArg(0), Depth + 1)
               : DeviceKind::Unknown;
  }
  // A module made where it is used: 'torch::nn::MSELoss()(a, b)'.
  const auto *Construct = dyn_cast<CXXConstructExpr>(E);
  if (!Construct)
    return DeviceKind::Unknown;
  const CXXRecordDecl *Module = heldModule(Construct->getType());
  if (!Module)
    return DeviceKind::Unknown;
  // 'Sequential{Conv2d(...), ReLU()}': on the CPU when every module given is
  // made there, in the argument itself (a holder variable given instead
  // shares its module, which that variable may still move).
  if (isLibraryModuleSequence(*Module)) {
    for (const Expr *Arg : Construct->arguments()) {
      if (!heldModule(Arg->getType())) {
        if (mayHandOverDevice(*Arg, Context))
          return DeviceKind::Unknown;
        continue;
      }
      const auto *Made = dyn_cast_or_null<CXXConstructExpr>(strip(Arg));
      if (!Made || moduleDevice(Made, Depth + 1) != DeviceKind::CPU)
        return DeviceKind::Unknown;
    }
    return DeviceKind::CPU;
  }
  // A project module whose constructors the project facts found to make
  // its state on the CPU.
  if (!isLibraryLeafModule(*Module) &&
      projectModuleFact(*Module, ModuleConstructionFact) != DeviceKind::CPU)
    return DeviceKind::Unknown;
  // Its constructor creates the parameters and buffers on the CPU, unless an
  // argument hands it a tensor or a module (EmbeddingOptions::_weight, a
  // holder to share).
  for (const Expr *Arg : Construct->arguments())
    if (mayHandOverDevice(*Arg, Context))
      return DeviceKind::Unknown;
  return DeviceKind::CPU;
}

DeviceKind ModuleDevices::moduleVariableDevice(const VarDecl &Var,
                                               const DeclRefExpr *Use,
                                               unsigned Depth) {
  DeviceKind Joined = moduleVariableDevice(Var, Depth);
  auto Found = Replaced.find(&Var);
  if (Found == Replaced.end() || !Use || Joined != DeviceKind::Unknown)
    return Joined;
  // The holder is given another module, or loaded: the writes that reach
  // the use decide.
  const VariableWrites &State = Found->second;
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  std::unique_ptr<ReachingWrites> &Flow = Flows[Function];
  if (!Flow)
    Flow = std::make_unique<ReachingWrites>(*Function, Context);
  auto Reaching = Flow->reaching(State.Statements, *Use);
  if (!Reaching || Reaching->empty())
    return DeviceKind::Unknown;
  DeviceKind Result = DeviceKind::Unspecified;
  for (const Stmt *Write : *Reaching)
    Result = joinAlternatives(Result, Write ? State.Devices.lookup(Write)
                                            : DeviceKind::Unknown);
  return Result == DeviceKind::Unspecified ? DeviceKind::Unknown : Result;
}

DeviceKind ModuleDevices::moduleVariableDevice(const VarDecl &Var,
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
    VariableWrites State;
    for (const auto &Parent : Context.getParents(Var))
      if (const auto *Declaration = Parent.get<DeclStmt>()) {
        State.Statements.push_back(Declaration);
        State.Devices[Declaration] = Result;
      }
    bool HasReplacement = false;
    for (const BoundNodes &Nodes : match(moduleUses(Var), Body, Context)) {
      if (const auto *List = Nodes.getNodeAs<VarDecl>("list"))
        if (!readsOnlySizes(*List, Body, Context))
          continue; // the parameters may be given another tensor
      Kept.insert(Nodes.getNodeAs<DeclRefExpr>("ref"));
      if (const auto *Move = Nodes.getNodeAs<CXXMemberCallExpr>("move")) {
        DeviceKind Target =
            Move->getNumArgs() == 0
                ? DeviceKind::Unknown
                : Devices.targetDevice(Move->getArg(0), Depth + 1);
        Result = joinAlternatives(Result, Target);
        State.Statements.push_back(Move);
        State.Devices[Move] = Target;
      }
      if (const auto *Replace = Nodes.getNodeAs<Expr>("replace")) {
        const Expr *Assigned = Nodes.getNodeAs<Expr>("assigned");
        DeviceKind Given = Assigned && isa<CXXConstructExpr>(strip(Assigned))
                               ? moduleDevice(Assigned, Depth + 1)
                               : DeviceKind::Unknown;
        Result = joinAlternatives(Result, Given);
        State.Statements.push_back(Replace);
        State.Devices[Replace] = Given;
        HasReplacement = true;
      }
    }
    bool AllKept = true;
    for (const BoundNodes &Nodes :
         match(findAll(refersTo(Var).bind("ref")), Body, Context))
      if (!Kept.contains(Nodes.getNodeAs<DeclRefExpr>("ref")))
        AllKept = false;
    // 'm->weight = t', 'm->weight.set_data(t)': a member given another tensor.
    bool MemberWritten =
        !match(writesTo(
                   memberExpr(hasObjectExpression(ignoringParenImpCasts(anyOf(
                                  holderArrow(Var), submoduleArrow(Var)))),
                              member(fieldDecl()))),
               Body, Context)
             .empty();
    if (!AllKept || MemberWritten)
      Result = DeviceKind::Unknown;
    else if (HasReplacement && Result == DeviceKind::Unknown)
      Replaced[&Var] = std::move(State);
  }
  ModuleCache[&Var] = Result;
  return Result;
}

DeviceKind ModuleDevices::projectModuleFact(const CXXRecordDecl &Module,
                                            llvm::StringRef Fact) {
  const ProjectFacts *Facts = Devices.projectFacts();
  if (!Facts || !isProjectModule(Module))
    return DeviceKind::Unknown;
  std::string Key = projectModuleKey(Module, Fact);
  const ProjectFacts::ReturnDevice *Returns =
      Key.empty() ? nullptr : Facts->returnDevice(Key);
  if (!Returns || Returns->Device != DeviceKind::CPU)
    return DeviceKind::Unknown;
  return DeviceKind::CPU;
}

DeviceKind ModuleDevices::moduleForwardDevice(const Expr *Holder,
                                              llvm::ArrayRef<const Expr *> Args,
                                              unsigned Depth) {
  const CXXRecordDecl *Module = heldModule(Holder->getType());
  if (!Module)
    return DeviceKind::Unknown;
  // A project module's forward that, the project facts say, returns a CPU
  // tensor when its inputs and its state are on the CPU.
  if (!isLibraryLeafModule(*Module)) {
    const CXXMethodDecl *Forward = moduleForward(*Module);
    if (!Forward ||
        projectModuleFact(*Module, ModuleForwardFact) != DeviceKind::CPU)
      return DeviceKind::Unknown;
    DeviceKind Result = moduleDevice(Holder, Depth + 1);
    for (unsigned I = 0; I < Args.size(); ++I) {
      if (I >= Forward->getNumParams() ||
          (!isTensorType(Forward->getParamDecl(I)->getType()) &&
           mayCarryDevice(Forward->getParamDecl(I)->getType())))
        return DeviceKind::Unknown;
      if (isTensorType(Args[I]->getType()))
        Result =
            combineInputs(Result, Devices.tensorDevice(Args[I], Depth + 1));
    }
    return Result;
  }
  // A leaf module's forward computes from its inputs, parameters and
  // buffers, which ATen requires on one device: a CUDA input makes a CUDA
  // result whatever the module's device.
  DeviceKind Result = moduleDevice(Holder, Depth + 1);
  for (const Expr *Arg : Args) {
    if (isTensorType(Arg->getType()))
      Result = combineInputs(Result, Devices.tensorDevice(Arg, Depth + 1));
    else if (mayHandOverDevice(*Arg, Context))
      Result = combineInputs(Result, DeviceKind::Unknown); // a state, a list
  }
  return Result;
}

} // namespace clang::tidy::torch_sync
