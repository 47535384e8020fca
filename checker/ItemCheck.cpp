//===--- ItemCheck.cpp - torch-sync-item -----------------------------------===//

#include "ItemCheck.h"
#include "TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CallId = "call";
constexpr llvm::StringLiteral ReceiverId = "receiver";
constexpr llvm::StringLiteral UserSyncCallId = "user-sync-call";
} // namespace

ItemCheck::ItemCheck(StringRef Name, ClangTidyContext *Context)
    : SyncCheckBase(Name, Context),
      SyncFunctions(Options.getLocalOrGlobal("SyncFunctions", "")) {}

void ItemCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  SyncCheckBase::storeOptions(Opts);
  Options.store(Opts, "SyncFunctions", SyncFunctions);
}

void ItemCheck::registerSyncMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      cxxMemberCallExpr(callee(tensorMethod(methodNames(SyncCategory::Item))),
                        on(expr().bind(ReceiverId)))
          .bind(CallId),
      this);
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasAnyName(functionNames(SyncCategory::Item)))),
               unless(cxxMemberCallExpr()))
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

  // The value read is computed from the receiver (t.item()) or from every
  // tensor argument (at::equal(a, b)).
  DeviceInference &Devices = devices(Context);
  DeviceKind Device = DeviceKind::Unspecified;
  if (const auto *Receiver = Result.Nodes.getNodeAs<Expr>(ReceiverId))
    Device = Devices.tensorDevice(Receiver);
  for (const Expr *Arg : Call->arguments())
    if (isTensorType(Arg->getType()))
      Device = combineInputs(Device, Devices.tensorDevice(Arg));
  if (!isReportableDevice(Device))
    return;
  std::string Name = isa<CXXMemberCallExpr>(Call)
                         ? Callee->getNameAsString()
                         : Callee->getQualifiedNameAsString();
  reportSync(*Call, Name, Fact->Effect, Fact->Alternative, Context);
}

} // namespace clang::tidy::torch_sync
