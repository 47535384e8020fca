//===--- DeviceToHostCheck.h - torch-sync-device-to-host ------------------===//

#ifndef TORCH_SYNC_DEVICETOHOSTCHECK_H
#define TORCH_SYNC_DEVICETOHOSTCHECK_H

#include "checks/SyncCheckBase.h"

namespace clang::tidy::torch_sync {

/// Finds blocking copies between host and device: '.cpu()', '.to()' with a CPU
/// target, 'copy_' into a host tensor, and blocking host-to-device copies
/// ('.cuda()', '.to(device)' and 'copy_' from a host tensor without
/// 'non_blocking', 'torch::tensor' built from a host list on a CUDA device).
/// The host waits for the work queued on the current stream, then for the copy.
///
/// For the user-facing documentation see docs/checks/device-to-host.md.
class DeviceToHostCheck : public SyncCheckBase {
public:
  DeviceToHostCheck(StringRef Name, ClangTidyContext *Context)
      : SyncCheckBase(Name, Context, SyncCategory::DeviceToHost) {}
  void onStartOfTranslationUnit() override;

protected:
  void registerSyncMatchers(ast_matchers::MatchFinder *Finder) override;
  void checkSync(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void
  reportCallSync(const CallExpr &Call, const CallSync &Sync,
                 const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// Copies to the host whose only use is to read one element
  /// ('t.cpu().item()'): seen when the enclosing read is matched, before the
  /// copy itself.
  llvm::DenseSet<const CXXMemberCallExpr *> CopiesBeforeRead;
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_DEVICETOHOSTCHECK_H
