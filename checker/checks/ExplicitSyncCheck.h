//===--- ExplicitSyncCheck.h - torch-sync-explicit ------------------------===//

#ifndef TORCH_SYNC_EXPLICITSYNCCHECK_H
#define TORCH_SYNC_EXPLICITSYNCCHECK_H

#include "checks/SyncCheckBase.h"

namespace clang::tidy::torch_sync {

/// Finds explicit waits for the device: device, stream and event
/// synchronizations in LibTorch ('torch::cuda::synchronize',
/// 'CUDAStream::synchronize', 'CUDAEvent::synchronize'), the CUDA runtime
/// ('cudaDeviceSynchronize', 'cudaStreamSynchronize') and the CUDA driver API
/// ('cuCtxSynchronize'), synchronous copies ('cudaMemcpy', 'cuMemcpyDtoH',
/// 'c10::cuda::memcpy_and_sync') and
/// 'c10::cuda::CUDACachingAllocator::emptyCache', which block the host until
/// the GPU has finished the work they wait for.
///
/// For the user-facing documentation see docs/checks/explicit.md.
class ExplicitSyncCheck : public SyncCheckBase {
public:
  ExplicitSyncCheck(StringRef Name, ClangTidyContext *Context)
      : SyncCheckBase(Name, Context, SyncCategory::Explicit) {}

protected:
  void registerSyncMatchers(ast_matchers::MatchFinder *Finder) override;
  bool needsTensorDevice() const override { return false; }
  void
  reportCallSync(const CallExpr &Call, const CallSync &Sync,
                 const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_EXPLICITSYNCCHECK_H
