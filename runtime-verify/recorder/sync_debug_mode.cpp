// sync_recorder: PyTorch's sync debug mode as a second signal. See sync_recorder.h.
//
// The mode is process-global, but c10's warning handler is per thread: only warnings raised on the thread
// that loaded the program (the main thread) reach this handler. Warnings raised on other threads go to
// c10's default handler, which prints them; run.sh counts those lines in the program's stderr.
#include "sync_recorder.h"

#include <c10/cuda/CUDAFunctions.h>
#include <c10/util/Exception.h>

#include <exception>
#include <string>

namespace torch_sync::recorder {
namespace {

constexpr const char *kSyncWarning = "called a synchronizing CUDA operation";

class SyncWarningHandler : public c10::WarningHandler {
public:
  explicit SyncWarningHandler(c10::WarningHandler *previous) : previous_(previous) {}

  void process(const c10::Warning &warning) override {
    if (warning.msg().find(kSyncWarning) == std::string::npos) {
      if (previous_)
        previous_->process(warning);
      return;
    }
    const char *function = warning.source_location().function;
    recordEvent("sdm", function && *function ? function : "warn_or_error_on_sync");
  }

private:
  c10::WarningHandler *previous_;
};

} // namespace

std::string startSyncDebugMode() {
  try {
    c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_WARN);
    // Never destroyed: warnings can come during static destruction.
    static auto *handler = new SyncWarningHandler(c10::WarningUtils::get_warning_handler());
    c10::WarningUtils::set_warning_handler(handler);
    return "ok";
  } catch (const std::exception &e) {
    return std::string("error: ") + e.what();
  }
}

} // namespace torch_sync::recorder
