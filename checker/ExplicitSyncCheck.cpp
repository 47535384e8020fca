//===--- ExplicitSyncCheck.cpp - torch-sync-explicit -----------------------===//

#include "ExplicitSyncCheck.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <string>

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CallId = "call";

/// The CUDA headers declare many API functions under another name through
/// macros: 'cuMemcpyDtoH' is declared as 'cuMemcpyDtoH_v2', and with a
/// per-thread default stream (CUDA_API_PER_THREAD_DEFAULT_STREAM) as
/// 'cuMemcpyDtoH_v2_ptds'; 'cudaMemcpy' becomes 'cudaMemcpy_ptds' and
/// 'cudaStreamSynchronize' 'cudaStreamSynchronize_ptsz'. 'cuCtxSynchronize_v2'
/// (in the CUDA 13 headers) waits for a given context, not the current one.
/// The suffixes such names may carry, longest first.
constexpr llvm::StringLiteral ApiNameSuffixes[] = {"_v2_ptds", "_ptds",
                                                   "_ptsz", "_v2"};

/// Whether \p QualifiedName ("::cudaMemcpy") names a CUDA runtime or driver
/// API function, which is declared in the global namespace.
bool isGlobalName(StringRef QualifiedName) {
  return !QualifiedName.drop_front(2).contains("::");
}

/// The names of the declarations to match: the qualified names of the facts,
/// and for the CUDA API functions their suffixed names too.
std::vector<std::string> declaredNames() {
  std::vector<std::string> Names;
  for (StringRef Name : functionNames(SyncCategory::Explicit)) {
    Names.push_back(Name.str());
    if (isGlobalName(Name))
      for (StringRef Suffix : ApiNameSuffixes)
        Names.push_back((Name + Suffix).str());
  }
  return Names;
}

/// The fact for \p Callee, a function of LibTorch or of the CUDA API (under
/// its documented name or a suffixed one), or null.
const SyncFact *findExplicitFact(const FunctionDecl &Callee) {
  if (const SyncFact *Fact = findSyncFact(SyncCategory::Explicit, Callee))
    return Fact;
  if (!Callee.getIdentifier() ||
      !Callee.getDeclContext()->getRedeclContext()->isTranslationUnit())
    return nullptr;
  StringRef Name = Callee.getName();
  for (StringRef Suffix : ApiNameSuffixes)
    if (Name.consume_back(Suffix))
      break;
  std::string Documented = ("::" + Name).str();
  for (const SyncFact &Fact : syncFacts())
    if (Fact.Category == SyncCategory::Explicit && Fact.Function == Documented)
      return &Fact;
  return nullptr;
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
} // namespace

void ExplicitSyncCheck::registerSyncMatchers(MatchFinder *Finder) {
  std::vector<std::string> Names = declaredNames();
  // Free functions and member calls ('stream.synchronize()') alike; no
  // unless(): a call in a LibTorch or system header, or in a function where
  // syncs are intended, is left out by isReportablePlace().
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasAnyName(
                   std::vector<StringRef>(Names.begin(), Names.end())))))
          .bind(CallId),
      this);
}

void ExplicitSyncCheck::checkSync(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !isReportablePlace(*Call, *Result.Context))
    return;
  const SyncFact *Fact = findExplicitFact(*Callee);
  if (!Fact)
    return;
  // 'c10::cuda::memcpy_and_sync' waits for its stream whatever the kind.
  if (isGlobalName(Fact->Function) && isDeviceToDeviceCopy(*Call))
    return;
  // There is no tensor whose device to infer: each of these calls waits for
  // a CUDA device, so isReportableDevice() is not asked.
  reportSync(*Call, Fact->Function.drop_front(2), Fact->Effect,
             Fact->Alternative, *Result.Context);
}

} // namespace clang::tidy::torch_sync
