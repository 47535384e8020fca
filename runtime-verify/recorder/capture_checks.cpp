// capture_checks: LibTorch checks that fail while a stream capture is under way (capture_checks.h).
#include "capture_checks.h"

#include "cupti_calls.h"
#include "sync_recorder.h"
#include "torch_check_fail.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <string>

namespace torch_sync::recorder {
namespace {

// The value of runtime::capturesBegun() for the last capture known to have failed (-1: none): a capture
// fails once, by its first failing call or check.
std::atomic<int> failedCapture{-1};

// Whether calls of own (one overload of the recorder's torchCheckFail) from LibTorch's libraries reach it and
// it can pass them on: "" when so, else a sentence why not.
std::string interpositionProblem(void *own, const char *overload) {
  Dl_info info{};
  if (!dladdr(own, &info) || !info.dli_sname)
    return std::string("the recorder's torchCheckFail(") + overload + ") is not exported";
  if (!nextDefinition(own))
    return std::string("no libc10 torchCheckFail(") + overload + ") after the recorder's";
  void *reached = dlsym(RTLD_DEFAULT, info.dli_sname);
  if (reached == own)
    return "";
  const char *where = dladdr(reached, &info) && info.dli_fname ? info.dli_fname : "an unknown object";
  return std::string("LibTorch's checks reach the torchCheckFail(") + overload + ") of " + where;
}

} // namespace

const char *captureChecksStatus() {
  static const std::string status = []() -> std::string {
    std::string problem = interpositionProblem(
        reinterpret_cast<void *>(static_cast<StringMessageCheckFail>(&c10::detail::torchCheckFail)),
        "std::string");
    if (problem.empty())
      problem = interpositionProblem(
          reinterpret_cast<void *>(static_cast<LiteralMessageCheckFail>(&c10::detail::torchCheckFail)),
          "const char *");
    return problem.empty() ? "ok" : "error: " + problem;
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
  // At most 200 bytes, not cutting a UTF-8 sequence (its continuation bytes are 10xxxxxx).
  size_t length = std::min<size_t>(message.size(), 200);
  while (length > 0 && length < message.size() &&
         (static_cast<unsigned char>(message[length]) & 0xC0) == 0x80)
    --length;
  recordEvent("capture_failure", "TORCH_CHECK", "null", "exception", {}, {},
              std::string(message.substr(0, length)), "cause");
}

} // namespace torch_sync::recorder
