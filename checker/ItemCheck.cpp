//===--- ItemCheck.cpp - torch-sync-item -----------------------------------===//

#include "ItemCheck.h"
#include "TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CallId = "call";
constexpr llvm::StringLiteral ReceiverId = "receiver";
constexpr llvm::StringLiteral UserSyncCallId = "user-sync-call";
/// The argument of \p Call for the parameter named \p Name, when that
/// parameter is a tensor; null otherwise (the Scalar overload).
const Expr *tensorArgumentFor(const CallExpr &Call, const FunctionDecl &Callee,
                              StringRef Name) {
  for (const ParmVarDecl *Param : Callee.parameters())
    if (Param->getName() == Name && isTensorType(Param->getType()) &&
        Param->getFunctionScopeIndex() < Call.getNumArgs())
      return Call.getArg(Param->getFunctionScopeIndex());
  return nullptr;
}
} // namespace

ItemCheck::ItemCheck(StringRef Name, ClangTidyContext *Context)
    : SyncCheckBase(Name, Context),
      SyncFunctions(Options.getLocalOrGlobal("SyncFunctions", "")),
      DeviceIndexEnabled(Context->isCheckEnabled("torch-sync-device-index")) {}

void ItemCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  SyncCheckBase::storeOptions(Opts);
  Options.store(Opts, "SyncFunctions", SyncFunctions);
}

void ItemCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The census-measured overloads classified under this check.
  registerMeasuredSyncMatchers(Finder, SyncCategory::Item);
  Finder->addMatcher(
      cxxMemberCallExpr(callee(tensorMethod(methodNames(SyncCategory::Item))),
                        on(expr().bind(ReceiverId)))
          .bind(CallId),
      this);
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasAnyName(functionNames(SyncCategory::Item)))),
               // Tensor methods are the matcher above's; other members
               // ('torch::optim::LBFGS::step') are functions of the table.
               unless(cxxMemberCallExpr(callee(tensorMethod(methodNames(SyncCategory::Item))))))
          .bind(CallId),
      this);
  auto UserFunctions = std::make_shared<std::vector<llvm::Regex>>(
      parseRegexList("SyncFunctions", SyncFunctions));
  if (!UserFunctions->empty())
    Finder->addMatcher(
        callExpr(callee(functionDecl(qualifiedNameMatchesAny(UserFunctions))))
            .bind(UserSyncCallId),
        this);
}

void ItemCheck::checkSync(const MatchFinder::MatchResult &Result) {
  ASTContext &Context = *Result.Context;
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>(UserSyncCallId)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    // The user declared the function synchronizing: there is no device to
    // infer, and ReportUnknownDevice does not apply.
    if (!Callee || !isReportablePlace(*Call, Context))
      return;
    reportSync(*Call, Callee->getQualifiedNameAsString(),
               "is declared as synchronizing (option 'SyncFunctions')",
               "moving it out of the hot path", Context);
    return;
  }

  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee)
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::Item, *Callee);
  if (!Fact || !isReportablePlace(*Call, Context))
    return;
  // A read that becomes a size, bound or index is torch-sync-device-index's.
  if (DeviceIndexEnabled && Fact->Method == "item" && isShapeRead(*Call, Context))
    return;

  DeviceInference &Devices = devices(Context);
  const auto *Receiver = Result.Nodes.getNodeAs<Expr>(ReceiverId);
  DeviceKind Device = DeviceKind::Unspecified;
  if (!Fact->TensorValueParameter.empty()) {
    // Only the overload with a tensor value syncs, and only when that value
    // is on a device: its item() is then a device read.
    const Expr *Value =
        tensorArgumentFor(*Call, *Callee, Fact->TensorValueParameter);
    if (!Value)
      return;
    Device = Devices.tensorDevice(Value);
    if (Device == DeviceKind::CPU)
      return;
    // fill_ copies a same-device value on the device since 2.2 (PR #109115);
    // it reads the value on the host only across devices.
    if (Callee->getName() == "fill_" && libTorchVersion() >= 202 &&
        (!Receiver || Devices.tensorDevice(Receiver) != DeviceKind::CPU))
      return;
  } else {
    // The value read is computed from the receiver (t.item()) or from every
    // tensor argument (at::equal(a, b)).
    Device = Devices.inputsDevice(*Call);
  }
  if (!isReportableDevice(Device))
    return;
  reportSync(*Call, calleeName(*Call, *Callee), Fact->Effect,
             Advice::of(*Fact), Context);
}

} // namespace clang::tidy::torch_sync
