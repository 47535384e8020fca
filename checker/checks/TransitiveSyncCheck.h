//===--- TransitiveSyncCheck.h - torch-sync-transitive --------------------===//

#ifndef TORCH_SYNC_TRANSITIVESYNCCHECK_H
#define TORCH_SYNC_TRANSITIVESYNCCHECK_H

#include "analysis/SyncSummary.h"
#include "checks/SyncCheckBase.h"
#include <memory>

namespace clang::tidy::torch_sync {

/// Finds calls to functions whose visible body synchronizes, directly or
/// through the functions it calls (the project's own helpers, and LibTorch's
/// inline C++ frontend code such as 'torch::nn::utils::clip_grad_norm_'),
/// reported at the call with a note at the synchronization inside. Calls
/// not written as calls count too (ImplicitCalls.h): constructors,
/// destructors (at the closing brace of the scope), user-defined
/// conversions, lambdas called through a std::function.
///
/// For the user-facing documentation see docs/checks/transitive.md.
class TransitiveSyncCheck : public SyncCheckBase {
public:
  /// Reads MaxDepth (how many calls deep to look, default 0: no limit)
  /// besides the shared options.
  TransitiveSyncCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void onStartOfTranslationUnit() override;

protected:
  void registerSyncMatchers(ast_matchers::MatchFinder *Finder) override;
  void checkSync(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// The summaries of the current translation unit, made on first use.
  SyncSummaries &summaries(ASTContext &Context);
  /// Reports the call \p Site, written or implicit, when its callee's body
  /// reaches a sync.
  void checkCallSite(const CallSite &Site, ASTContext &Context);
  /// Emits the warning at \p Site and the notes along \p Path.
  void report(const CallSite &Site, const SyncPath &Path, ASTContext &Context);
  /// Where \p Site is reported or noted: its own place (a scope's closing
  /// brace), else its anchor's.
  SourceLocation siteLocation(const CallSite &Site,
                              const SourceManager &SM) const;

  const unsigned MaxDepth;
  std::unique_ptr<SyncSummaries> Summaries;
  const ASTContext *SummariesContext = nullptr;
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_TRANSITIVESYNCCHECK_H
