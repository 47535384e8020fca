// See sync_debug_mode.h.
#include "sync_debug_mode.h"

#include <c10/cuda/CUDAFunctions.h>
#include <c10/util/Exception.h>

#include <exception>
#include <mutex>
#include <string>

namespace torch_sync::runtime {
namespace {

constexpr const char *kSyncWarning = "called a synchronizing CUDA operation";

class SyncWarningHandler : public c10::WarningHandler {
public:
  SyncWarningHandler(SyncWarningCallback callback, c10::WarningHandler *previous)
      : callback_(callback), previous_(previous) {}

  void process(const c10::Warning &warning) override {
    if (warning.msg().find(kSyncWarning) == std::string::npos) {
      if (previous_)
        previous_->process(warning);
      return;
    }
    const char *function = warning.source_location().function;
    callback_(function && *function ? function : "warn_or_error_on_sync");
  }

private:
  SyncWarningCallback callback_;
  c10::WarningHandler *previous_;
};

std::mutex modeMutex;
int enables = 0;
c10::cuda::SyncDebugMode previousMode = c10::cuda::SyncDebugMode::L_DISABLED;

} // namespace

std::string enableSyncDebugMode() {
  std::lock_guard<std::mutex> lock(modeMutex);
  try {
    if (enables == 0) {
      previousMode = c10::cuda::warning_state().get_sync_debug_mode();
      c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_WARN);
    }
    ++enables;
    return "ok";
  } catch (const std::exception &e) {
    return std::string("error: ") + e.what();
  }
}

void restoreSyncDebugMode() {
  std::lock_guard<std::mutex> lock(modeMutex);
  if (enables > 0 && --enables == 0)
    c10::cuda::warning_state().set_sync_debug_mode(previousMode);
}

ScopedSyncWarningHandler::ScopedSyncWarningHandler(SyncWarningCallback callback) {
  auto *previous = c10::WarningUtils::get_warning_handler();
  auto *handler = new SyncWarningHandler(callback, previous);
  c10::WarningUtils::set_warning_handler(handler);
  handler_ = handler;
  previous_ = previous;
}

ScopedSyncWarningHandler::~ScopedSyncWarningHandler() {
  c10::WarningUtils::set_warning_handler(static_cast<c10::WarningHandler *>(previous_));
  delete static_cast<SyncWarningHandler *>(handler_);
}

} // namespace torch_sync::runtime
