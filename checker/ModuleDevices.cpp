//===--- ModuleDevices.cpp - the devices of torch::nn modules -------------===//

#include "ModuleDevices.h"
#include "DeviceInference.h"
#include "DeviceTypes.h"
#include "DeviceWrites.h"
#include "LibTorchApi.h"
#include "SyncFacts.h"
#include "TorchMatchers.h"
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

} // namespace

DeviceKind ModuleDevices::moduleDevice(const Expr *Holder, unsigned Depth) {
  const Expr *E = strip(Holder);
  if (!E || Depth > MaxDeviceDepth)
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
    for (const BoundNodes &Nodes : match(moduleUses(Var), Body, Context)) {
      Kept.insert(Nodes.getNodeAs<DeclRefExpr>("ref"));
      if (const auto *Move = Nodes.getNodeAs<CXXMemberCallExpr>("move"))
        Result = joinAlternatives(
            Result, Move->getNumArgs() == 0
                        ? DeviceKind::Unknown
                        : Devices.targetDevice(Move->getArg(0), Depth + 1));
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

DeviceKind ModuleDevices::moduleForwardDevice(
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
      Result = combineInputs(Result, Devices.tensorDevice(Arg, Depth + 1));
    else if (mayHandOverDevice(*Arg, Context))
      Result = combineInputs(Result, DeviceKind::Unknown); // a state, a list
  }
  return Result;
}

} // namespace clang::tidy::torch_sync
