//===--- DeviceIndexCheck.cpp - torch-sync-device-index --------------------===//

#include "DeviceIndexCheck.h"
#include "RankInference.h"
#include "TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral ReadId = "read";
constexpr llvm::StringLiteral NarrowId = "narrow";
constexpr llvm::StringLiteral SubscriptId = "subscript";
constexpr llvm::StringLiteral IndexArgId = "index";
constexpr llvm::StringLiteral IndexingId = "indexing";

/// 'narrow' with a tensor start (Tensor::narrow and at::narrow): the start is
/// read with item() in aten/src/ATen/native/TensorShape.cpp.
auto narrowWithTensorStart() {
  return callExpr(
      callee(functionDecl(anyOf(tensorMethod({"narrow"}), hasName("::at::narrow")),
                          hasAnyParameter(allOf(hasName("start"),
                                                hasType(isTorchTensor()))))));
}

/// Tensor::index and Tensor::index_put_ taking a list of TensorIndex (the
/// C++ indexing API of ATen/TensorIndexing.h); not the ATen-level overloads
/// taking c10::List<optional<Tensor>>, which do not read 0-dim indices.
auto indexingWithTensorIndexList() {
  return cxxMemberCallExpr(callee(cxxMethodDecl(
      tensorMethod({"index", "index_put_"}),
      hasParameter(0, hasType(hasUnqualifiedDesugaredType(recordType(
                          hasDeclaration(namedDecl(hasAnyName(
                              "ArrayRef", "initializer_list"))))))))));
}
} // namespace

void DeviceIndexCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The census-measured overloads classified under this check.
  registerMeasuredSyncMatchers(Finder, SyncCategory::DeviceIndex);
  Finder->addMatcher(cxxMemberCallExpr(callee(tensorMethod({"item"}))).bind(ReadId),
                     this);
  Finder->addMatcher(narrowWithTensorStart().bind(NarrowId), this);
  Finder->addMatcher(indexingWithTensorIndexList().bind(IndexingId), this);
  // Tensor::operator[](Tensor) reads the index with item() (TensorBody.h).
  Finder->addMatcher(
      cxxOperatorCallExpr(hasOverloadedOperatorName("[]"),
                          callee(cxxMethodDecl(ofClass(cxxRecordDecl(
                              hasAnyName("::at::Tensor", "::at::TensorBase"))))),
                          hasArgument(1, expr(hasType(isTorchTensor())).bind(IndexArgId)))
          .bind(SubscriptId),
      this);
}

void DeviceIndexCheck::checkSync(const MatchFinder::MatchResult &Result) {
  ASTContext &Context = *Result.Context;
  if (const auto *Read = Result.Nodes.getNodeAs<CXXMemberCallExpr>(ReadId)) {
    checkShapeRead(*Read, Context);
    return;
  }
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>(NarrowId)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    for (const ParmVarDecl *Param : Callee->parameters())
      if (Param->getName() == "start" &&
          Param->getFunctionScopeIndex() < Call->getNumArgs())
        checkTensorIndexArgument(*Call, *Call->getArg(Param->getFunctionScopeIndex()),
                                 Context);
    return;
  }
  if (const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>(IndexingId)) {
    // ATen/TensorIndexing.h (applySlicing) reads a 0-dim integer or bool
    // index with item(); other index tensors stay on the device.
    if (Call->getNumArgs() == 0)
      return;
    for (const Expr *Index : tensorIndexElements(Call->getArg(0)))
      if (isZeroDimTensor(Index, devices(Context))) {
        checkTensorIndexArgument(*Call, *Index, Context);
        return;
      }
    return;
  }
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>(SubscriptId))
    if (const auto *Index = Result.Nodes.getNodeAs<Expr>(IndexArgId))
      checkTensorIndexArgument(*Call, *Index, Context);
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
  const SyncFact *Fact = findSyncFact(SyncCategory::DeviceIndex, *Read.getMethodDecl());
  if (!Fact)
    return;
  // A value that sizes an output is better passed in than read (the fix
  // real projects made: docs/real-projects.md).
  Advice Alternative = Advice::of(*Fact);
  if (*Use == ShapeUse::Size && !Fact->SizeAlternative.empty())
    Alternative.Default = Fact->SizeAlternative;
  reportSync(Read, "item", Fact->Effect, Alternative, Context);
}

void DeviceIndexCheck::checkTensorIndexArgument(const CallExpr &Call,
                                                const Expr &Index,
                                                ASTContext &Context) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || !isReportablePlace(Call, Context))
    return;
  if (!isReportableDevice(devices(Context).tensorDevice(&Index)))
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::DeviceIndex, *Callee);
  if (!Fact)
    return;
  reportSync(Call, calleeName(Call, *Callee), Fact->Effect, Advice::of(*Fact),
             Context);
}

} // namespace clang::tidy::torch_sync
