//===--- DeviceIndexCheck.cpp - torch-sync-device-index -------------------===//

#include "checks/DeviceIndexCheck.h"
#include "libtorch/TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral ReadId = "read";
} // namespace

void DeviceIndexCheck::registerSyncMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      cxxMemberCallExpr(callee(tensorMethod({"item"}))).bind(ReadId), this);
  // 'narrow' with a tensor start (Tensor::narrow and at::narrow), the C++
  // indexing API (Tensor::index and Tensor::index_put_ with a TensorIndex
  // list) and Tensor::operator[](Tensor): which argument is read with item()
  // is CallSync.h's.
  Finder->addMatcher(
      callExpr(callee(functionDecl(anyOf(
                   tensorMethod({"narrow", "index", "index_put_"}),
                   hasName("::at::narrow"),
                   cxxMethodDecl(hasOverloadedOperatorName("[]"),
                                 ofClass(cxxRecordDecl(hasAnyName(
                                     "::at::Tensor", "::at::TensorBase"))))))))
          .bind(CallId),
      this);
}

void DeviceIndexCheck::checkSync(const MatchFinder::MatchResult &Result) {
  ASTContext &Context = *Result.Context;
  if (const auto *Read = Result.Nodes.getNodeAs<CXXMemberCallExpr>(ReadId)) {
    checkShapeRead(*Read, Context);
    return;
  }
  // 'narrow', the indexing API and operator[]: which argument is read with
  // item() is CallSync.h's.
  SyncCheckBase::checkSync(Result);
}

void DeviceIndexCheck::checkShapeRead(const CXXMemberCallExpr &Read,
                                      ASTContext &Context) {
  if (!isReportablePlace(Read, Context))
    return;
  std::optional<ShapeUse> Use = shapeUse(Read, Context);
  if (!Use)
    return;
  const Expr *Receiver = Read.getImplicitObjectArgument();
  if (!Receiver || !isReportableDevice(devices(Context).tensorDevice(Receiver)))
    return;
  const SyncFact *Fact =
      findSyncFact(SyncCategory::DeviceIndex, *Read.getMethodDecl());
  if (!Fact)
    return;
  // A value that sizes an output is better passed in than read (the fix
  // real projects made: docs/advice.md); a slice bound is a size too
  // (ReadUse.h).
  CallSync Sync;
  Sync.Category = SyncCategory::DeviceIndex;
  Sync.Fact = Fact;
  Sync.Name = "item";
  Advice Alternative = adviceFor(Read, Sync, Context);
  if (*Use == ShapeUse::Size && Alternative.Default == Fact->Alternative)
    Alternative = Advice(useAlternative(ValueUse::Size));
  reportSync(Read, "item", Fact->Effect, Alternative, Context);
}

} // namespace clang::tidy::torch_sync
