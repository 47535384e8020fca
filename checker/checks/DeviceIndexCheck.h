//===--- DeviceIndexCheck.h - torch-sync-device-index ---------------------===//

#ifndef TORCH_SYNC_DEVICEINDEXCHECK_H
#define TORCH_SYNC_DEVICEINDEXCHECK_H

#include "checks/SyncCheckBase.h"

namespace clang::tidy::torch_sync {

/// Finds slicing, narrowing, selecting or sizing with a value that lives on
/// the device ('narrow' with a tensor start, 'operator[]' with a tensor, an
/// 'item()' read that becomes a slice bound, an index or a size), which reads
/// the value on the host and waits for the current stream's queued work.
///
/// For the user-facing documentation see docs/checks/device-index.md.
class DeviceIndexCheck : public SyncCheckBase {
public:
  DeviceIndexCheck(StringRef Name, ClangTidyContext *Context)
      : SyncCheckBase(Name, Context, SyncCategory::DeviceIndex) {}

protected:
  void registerSyncMatchers(ast_matchers::MatchFinder *Finder) override;
  void checkSync(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  void checkShapeRead(const CXXMemberCallExpr &Read, ASTContext &Context);
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_DEVICEINDEXCHECK_H
