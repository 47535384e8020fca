// The runtime core's use of PyTorch's sync debug mode (c10::cuda::warning_state(), the C++ form of
// torch.cuda.set_sync_debug_mode): a second signal beside CUPTI for the recorder, and the guard's fallback
// when CUPTI is held by another tool. Needs LibTorch (a CUDA build).
//
// The mode is process-wide; c10's warning handler is per thread, so each thread that wants the warnings
// installs a handler. The mode reports only the syncs that go through c10's wrappers (measured on the GPU:
// not device or event synchronizes, cudaFree or raw CUDA copies; docs/guard.md).
#pragma once

#include <string>

namespace torch_sync::runtime {

// Called with the function c10 names as the warning's source (in 2.11 always "warn_or_error_on_sync"), on the
// warning's thread.
using SyncWarningCallback = void (*)(const char *function);

// Sets the mode to L_WARN (the first of nested calls remembers the previous mode). Returns "ok" or
// "error: <what LibTorch said>".
std::string enableSyncDebugMode();
// Restores the mode enableSyncDebugMode() found, once every enable has been matched.
void restoreSyncDebugMode();

// Routes the calling thread's sync warnings to callback while alive; other warnings go to the handler that
// was installed before. Nestable; LIFO per thread.
class ScopedSyncWarningHandler {
public:
  explicit ScopedSyncWarningHandler(SyncWarningCallback callback);
  ~ScopedSyncWarningHandler();
  ScopedSyncWarningHandler(const ScopedSyncWarningHandler &) = delete;
  ScopedSyncWarningHandler &operator=(const ScopedSyncWarningHandler &) = delete;

private:
  void *handler_;  // the c10::WarningHandler installed
  void *previous_; // the one it replaced
};

} // namespace torch_sync::runtime
