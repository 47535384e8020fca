//===--- PrintCheck.h - torch-sync-print ----------------------------------===//

#ifndef TORCH_SYNC_PRINTCHECK_H
#define TORCH_SYNC_PRINTCHECK_H

#include "checks/SyncCheckBase.h"

namespace clang::tidy::torch_sync {

/// Finds tensors formatted as text: streamed into a std::ostream (std::cout, a
/// std::stringstream, a logging macro that streams), passed to 'at::print', or
/// to 'c10::str' and the macros built on it ('TORCH_WARN'). Formatting copies
/// the values to the host and waits for the current stream's queued work.
///
/// For the user-facing documentation see docs/checks/print.md.
class PrintCheck : public SyncCheckBase {
public:
  PrintCheck(StringRef Name, ClangTidyContext *Context)
      : SyncCheckBase(Name, Context, SyncCategory::Print) {}

protected:
  void registerSyncMatchers(ast_matchers::MatchFinder *Finder) override;
  void
  reportCallSync(const CallExpr &Call, const CallSync &Sync,
                 const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_PRINTCHECK_H
