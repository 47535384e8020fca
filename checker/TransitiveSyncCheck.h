//===--- TransitiveSyncCheck.h - torch-sync-transitive ---------------------===//

#ifndef TORCH_SYNC_TRANSITIVESYNCCHECK_H
#define TORCH_SYNC_TRANSITIVESYNCCHECK_H

#include "SyncCheckBase.h"
#include "llvm/ADT/DenseMap.h"

namespace clang::tidy::torch_sync {

/// Finds calls to functions whose visible body synchronizes (the project's own
/// helpers, and LibTorch's inline C++ frontend code such as
/// 'torch::nn::utils::clip_grad_norm_'), reported at the call with a note at
/// the synchronization inside.
///
/// For the user-facing documentation see docs/checks/transitive.md.
class TransitiveSyncCheck : public SyncCheckBase {
public:
  /// Reads MaxDepth (how many calls deep to look, default 3) besides the
  /// shared options.
  TransitiveSyncCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void onStartOfTranslationUnit() override;

protected:
  void registerSyncMatchers(ast_matchers::MatchFinder *Finder) override;
  void checkSync(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// What a function's body reaches: the call in the body through which it
  /// synchronizes, and how many calls deep the synchronization is (1: in the
  /// body itself).
  struct Summary {
    const CallExpr *Through = nullptr;
    unsigned Levels = 0;
  };
  /// The shallowest synchronization in \p Function's body, looking through
  /// calls to other functions with visible bodies, no deeper than MaxDepth;
  /// an empty Summary when there is none. Cached per function; a function
  /// being analysed counts as not synchronizing, which cuts recursion.
  Summary summarize(const FunctionDecl &Function, ASTContext &Context);

  /// Whether the sync \p Sync in \p Body runs only when an option of a
  /// module is unset, and nothing in the translation unit unsets it:
  /// 'num_batches_tracked.item()' in BatchNorm's forward sits under
  /// 'if (this->options.momentum() == c10::nullopt)', and momentum defaults
  /// to 0.1 (torch/nn/modules/batchnorm.h, torch/nn/options/batchnorm.h).
  bool runsOnlyWithUnsetOption(const CallExpr &Sync, const Stmt &Body,
                               ASTContext &Context);
  /// Whether code outside the library headers may unset the option stored in
  /// \p Field (the 'X_' member of TORCH_ARG(c10::optional<T>, X)): a call of
  /// its setter with anything but a number, or of its non-const getter,
  /// which returns a reference. Cached per translation unit.
  bool mayUnsetOption(const FieldDecl &Field, ASTContext &Context);

  const unsigned MaxDepth;
  llvm::DenseMap<const FunctionDecl *, Summary> Summaries;
  llvm::DenseMap<const FieldDecl *, bool> OptionsMaybeUnset;
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_TRANSITIVESYNCCHECK_H
