//===--- ItemCheck.h - torch-sync-item ------------------------------------===//

#ifndef TORCH_SYNC_ITEMCHECK_H
#define TORCH_SYNC_ITEMCHECK_H

#include "checks/SyncCheckBase.h"

namespace clang::tidy::torch_sync {

/// Finds tensor values read on the host ('item()', 'item<T>()',
/// 'at::_local_scalar_dense', 'is_nonzero()', 'equal()', 'allclose()', and the
/// project's own functions named by the SyncFunctions option), which wait for
/// the current stream's queued work.
///
/// For the user-facing documentation see docs/checks/item.md.
class ItemCheck : public SyncCheckBase {
public:
  /// Reads SyncFunctions (regexes of the qualified names of the project's
  /// own synchronizing functions) besides the shared options.
  ItemCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;

protected:
  void registerSyncMatchers(ast_matchers::MatchFinder *Finder) override;
  void checkSync(const ast_matchers::MatchFinder::MatchResult &Result) override;
  bool skipsCall(const CallExpr &Call, const SyncFact &Fact,
                 ASTContext &Context) override;
  /// Offers the rewrites into 'at::_assert_async' (a TORCH_CHECK of a read)
  /// and 'at::linalg_inv_ex' as fix-it notes.
  void
  reportCallSync(const CallExpr &Call, const CallSync &Sync,
                 const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  const std::string SyncFunctions;
  /// Whether torch-sync-device-index runs too: it then reports the reads
  /// whose value sizes, slices or indexes a tensor, and this check does not.
  const bool DeviceIndexEnabled;
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_ITEMCHECK_H
