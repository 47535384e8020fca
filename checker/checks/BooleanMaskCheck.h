//===--- BooleanMaskCheck.h - torch-sync-boolean-mask ---------------------===//

#ifndef TORCH_SYNC_BOOLEANMASKCHECK_H
#define TORCH_SYNC_BOOLEANMASKCHECK_H

#include "checks/SyncCheckBase.h"

namespace clang::tidy::torch_sync {

/// Finds indexing with a boolean (or byte) mask whose result size depends on
/// the mask's values ('t.index({mask})', 'masked_select', 'index_put_' with a
/// mask and a device value), which reads the count of true elements from the
/// device and so waits for the current stream's queued work.
///
/// For the user-facing documentation see docs/checks/boolean-mask.md.
class BooleanMaskCheck : public SyncCheckBase {
public:
  /// Reads ReportUnknownDtype (report tensor indices whose dtype is not
  /// known) besides the shared options.
  BooleanMaskCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;

protected:
  void registerSyncMatchers(ast_matchers::MatchFinder *Finder) override;
  SyncRules callRules() const override;

private:
  const bool ReportUnknownDtype;
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_BOOLEANMASKCHECK_H
