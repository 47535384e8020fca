// capture_checks: LibTorch checks that fail while a stream capture is under way (capture_checks.h).
#include "capture_checks.h"

#include "cupti_calls.h"
#include "sync_recorder.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <string>

// The recorder's definition (torch_check_fail.cpp), declared as c10/util/Exception.h declares it.
namespace c10::detail {
[[noreturn]] void torchCheckFail(const char *func, const char *file, uint32_t line, const std::string &msg);
} // namespace c10::detail

namespace torch_sync::recorder {
namespace {

// The value of runtime::capturesBegun() for the last capture known to have failed (-1: none): a capture
// fails once, by its first failing call or check.
std::atomic<int> failedCapture{-1};

} // namespace

const char *captureChecksStatus() {
  static const std::string status = []() -> std::string {
    void *own = reinterpret_cast<void *>(
        static_cast<void (*)(const char *, const char *, uint32_t, const std::string &)>(
            &c10::detail::torchCheckFail));
    Dl_info info{};
    if (!dladdr(own, &info) || !info.dli_sname)
      return "error: the recorder's torchCheckFail is not exported (no dynamic symbol names it)";
    if (!dlsym(RTLD_NEXT, info.dli_sname))
      return "error: no libc10 torchCheckFail after the recorder's (is the program linked with LibTorch?)";
    void *reached = dlsym(RTLD_DEFAULT, info.dli_sname);
    if (reached == own)
      return "ok";
    const char *where = dladdr(reached, &info) && info.dli_fname ? info.dli_fname : "an unknown object";
    return std::string("error: LibTorch's checks reach the torchCheckFail of ") + where +
           ", not the recorder's";
  }();
  return status.c_str();
}

void noteCaptureFailed() { failedCapture.store(runtime::capturesBegun(), std::memory_order_relaxed); }

void recordCheckFailure(std::string_view message) {
  if (runtime::capturesUnderway() == 0)
    return;
  const int capture = runtime::capturesBegun();
  if (failedCapture.exchange(capture, std::memory_order_relaxed) == capture)
    return;
  message = message.substr(0, message.find('\n'));
  recordEvent("capture_failure", "TORCH_CHECK", "null", "exception", {}, {},
              std::string(message.substr(0, 200)), "cause");
}

} // namespace torch_sync::recorder
