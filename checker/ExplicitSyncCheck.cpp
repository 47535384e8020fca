//===--- ExplicitSyncCheck.cpp - torch-sync-explicit -----------------------===//

#include "ExplicitSyncCheck.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <string>

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CallId = "call";

/// Whether \p QualifiedName ("::cudaMemcpy") names a CUDA runtime or driver
/// API function, which is declared in the global namespace.
bool isGlobalName(StringRef QualifiedName) {
  return !QualifiedName.drop_front(2).contains("::");
}

/// Whether a CUDA runtime copy names 'cudaMemcpyDeviceToDevice' as its kind.
/// Such a copy does not wait for the host, according to the CUDA reference's
/// "API synchronization behavior".
bool isDeviceToDeviceCopy(const CallExpr &Call) {
  for (const Expr *Arg : Call.arguments()) {
    const auto *Ref = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts());
    const auto *Kind =
        Ref ? dyn_cast<EnumConstantDecl>(Ref->getDecl()) : nullptr;
    if (Kind && Kind->getName() == "cudaMemcpyDeviceToDevice")
      return true;
  }
  return false;
}

/// Whether a free ('cudaFree', 'cuMemFree', 'cudaFreeHost') is given a null
/// pointer, which frees nothing and does not wait: CUDA libraries call
/// 'cudaFree(nullptr)' to create the context.
bool freesNullPointer(const CallExpr &Call, const ASTContext &Context) {
  if (Call.getNumArgs() == 0)
    return false;
  return Call.getArg(0)->IgnoreParenImpCasts()->isNullPointerConstant(
             const_cast<ASTContext &>(Context),
             Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull;
}
} // namespace

void ExplicitSyncCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The census-measured overloads classified under this check.
  registerMeasuredSyncMatchers(Finder, SyncCategory::Explicit);
  std::vector<std::string> Names =
      declaredFunctionNames(SyncCategory::Explicit);
  // Free functions and member calls ('stream.synchronize()') alike. A call in
  // a LibTorch header, or in a function where syncs are intended, is left out
  // by isReportablePlace(); one in a system header already here, the cheap
  // test first (clang-tidy before 21 matches inside system headers).
  Finder->addMatcher(
      callExpr(unless(isExpansionInSystemHeader()),
               callee(functionDecl(hasAnyName(
                   std::vector<StringRef>(Names.begin(), Names.end())))))
          .bind(CallId),
      this);
}

void ExplicitSyncCheck::checkSync(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !isReportablePlace(*Call, *Result.Context))
    return;
  const SyncFact *Fact = findSyncFact(SyncCategory::Explicit, *Callee);
  if (!Fact)
    return;
  if (Fact->NullPointerIsNoOp && freesNullPointer(*Call, *Result.Context))
    return;
  // 'c10::cuda::memcpy_and_sync' waits for its stream whatever the kind.
  if (isGlobalName(Fact->Function) && isDeviceToDeviceCopy(*Call))
    return;
  // There is no tensor whose device to infer: each of these calls waits for
  // a CUDA device, so isReportableDevice() is not asked. Each effect names
  // what the call waits for: the device, a stream or an event.
  reportSync(*Call, Fact->Function.drop_front(2), Fact->Effect,
             Advice::of(*Fact), *Result.Context, std::nullopt,
             HostWait::StatedInEffect);
}

} // namespace clang::tidy::torch_sync
