//===--- DeviceToHostCheck.cpp - torch-sync-device-to-host ----------------===//

#include "checks/DeviceToHostCheck.h"
#include "libtorch/TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CopyBeforeReadId = "copy-before-read";

/// What a tensor copy does, by its direction (CallSync.h): 'to' and 'copy_'
/// say it; 'cpu' and 'cuda' have one direction, their fact's.
StringRef transferEffect(const CallSync &Sync) {
  bool IsTo = Sync.Name == "to";
  if (!IsTo && Sync.Name != "copy_")
    return Sync.Fact->Effect;
  switch (Sync.Direction) {
  case CopyDirection::DeviceToHost:
    return IsTo ? "copies the tensor to the host"
                : "copies device memory into a host tensor";
  case CopyDirection::HostToDevice:
    return IsTo ? "copies a host tensor to the device"
                : "copies host memory to the device";
  default:
    return "may copy the tensor between host and device";
  }
}
} // namespace

void DeviceToHostCheck::registerSyncMatchers(MatchFinder *Finder) {
  Finder->addMatcher(cxxMemberCallExpr(callee(tensorMethod(methodNames(
                                           SyncCategory::DeviceToHost))))
                         .bind(CallId),
                     this);
  // The free functions: torch::tensor and at::tensor from host data, and
  // torch::save and torch::pickle_save of tensors.
  Finder->addMatcher(callExpr(callee(functionDecl(hasAnyName(
                                  functionNames(SyncCategory::DeviceToHost)))),
                              unless(cxxMemberCallExpr()))
                         .bind(CallId),
                     this);
  // 'model->to(device)': torch::nn::Module::to and torch::jit::Module::to
  // (the overloads taking a device: CallSync.h).
  Finder->addMatcher(
      cxxMemberCallExpr(callee(cxxMethodDecl(hasAnyName(
                            functionNames(SyncCategory::DeviceToHost)))))
          .bind(CallId),
      this);
  // 't.cpu().item()': the copy of the whole tensor only serves to read one
  // element, which item() on the device tensor copies by itself. The read is
  // matched (and the copy remembered) before the copy inside it.
  Finder->addMatcher(
      cxxMemberCallExpr(
          callee(tensorMethod({"item"})),
          on(ignoringImplicit(cxxMemberCallExpr(callee(tensorMethod({"cpu"})),
                                                argumentCountIs(0))
                                  .bind(CopyBeforeReadId)))),
      this);
}

void DeviceToHostCheck::onStartOfTranslationUnit() {
  SyncCheckBase::onStartOfTranslationUnit();
  CopiesBeforeRead.clear();
}

void DeviceToHostCheck::checkSync(const MatchFinder::MatchResult &Result) {
  if (const auto *Copy =
          Result.Nodes.getNodeAs<CXXMemberCallExpr>(CopyBeforeReadId)) {
    CopiesBeforeRead.insert(Copy);
    return;
  }
  // The direction of a copy, from the devices of both ends; the device a
  // factory or a module move targets; the device of a saved tensor
  // (CallSync.h).
  SyncCheckBase::checkSync(Result);
}

void DeviceToHostCheck::reportCallSync(const CallExpr &Call,
                                       const CallSync &Sync,
                                       const MatchFinder::MatchResult &Result) {
  // Dropping '.cpu()' before item() keeps every value and copies one element
  // instead of the tensor: a safe fix. The wait itself stays (item's).
  std::optional<FixItHint> Fix;
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (Member && CopiesBeforeRead.contains(Member))
    if (const auto *Name = dyn_cast<MemberExpr>(Member->getCallee()))
      if (!Call.getBeginLoc().isMacroID() && !Call.getEndLoc().isMacroID())
        Fix = FixItHint::CreateRemoval(CharSourceRange::getTokenRange(
            Name->getOperatorLoc(), Call.getEndLoc()));
  // An upload can run while the host goes on, from pinned memory; the host
  // must then leave the source alone: a rewrite for --fix-notes only.
  std::optional<AlternativeRewrite> Rewrite;
  if (Member && Sync.Direction == CopyDirection::HostToDevice)
    Rewrite = nonBlockingUploadRewrite(*Member, *Result.Context);
  reportSync(Call, Sync.Name, transferEffect(Sync),
             adviceFor(Call, Sync, *Result.Context), *Result.Context, Fix,
             HostWait::CurrentStream, Rewrite);
}

} // namespace clang::tidy::torch_sync
