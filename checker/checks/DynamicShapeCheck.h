//===--- DynamicShapeCheck.h - torch-sync-dynamic-shape -------------------===//

#ifndef TORCH_SYNC_DYNAMICSHAPECHECK_H
#define TORCH_SYNC_DYNAMICSHAPECHECK_H

#include "checks/SyncCheckBase.h"

namespace clang::tidy::torch_sync {

/// Finds LibTorch operations whose output size depends on tensor values
/// ('nonzero', 'argwhere', one-argument 'where', the 'unique' family,
/// 'repeat_interleave' without 'output_size', 'bincount', 'histc' without a
/// range, 'one_hot' without 'num_classes'), for which the host reads a count
/// from the device before it allocates the output, and so waits for the
/// current stream's queued work.
///
/// For the user-facing documentation see docs/checks/dynamic-shape.md.
class DynamicShapeCheck : public SyncCheckBase {
public:
  DynamicShapeCheck(StringRef Name, ClangTidyContext *Context)
      : SyncCheckBase(Name, Context, SyncCategory::DynamicShape) {}

protected:
  void registerSyncMatchers(ast_matchers::MatchFinder *Finder) override;
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_DYNAMICSHAPECHECK_H
