// capture_throws: exceptions thrown while a stream capture is under way (capture_throws.h).
#include "capture_throws.h"

#include "cupti_calls.h"
#include "sync_recorder.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

namespace torch_sync::recorder {
namespace {

// The value of runtime::capturesBegun() for the last capture known to have failed (-1: none): a capture
// fails once, by its first failing call or exception.
std::atomic<int> failedCapture{-1};

// Set while this thread records a throw: an exception thrown meanwhile (what() may allocate) passes through.
thread_local bool recordingThrow = false;

// The demangled name of type ("c10::Error"), or its mangled one when it cannot be demangled.
std::string typeName(const std::type_info &type) {
  int status = 0;
  char *demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = demangled && status == 0 ? demangled : type.name();
  std::free(demangled);
  return name;
}

// The first line of the exception's what() (at most 200 characters), or "" when the thrown object is no
// std::exception. The object is adjusted to its std::exception base as a catch clause would adjust it
// (std::type_info::__do_catch, the C++ ABI's matcher that libstdc++'s personality routine calls).
std::string messageOf(void *object, const std::type_info &type) {
  void *adjusted = object;
  if (!typeid(std::exception).__do_catch(&type, &adjusted, 1))
    return {};
  try {
    std::string_view what = static_cast<const std::exception *>(adjusted)->what();
    what = what.substr(0, what.find('\n'));
    return std::string(what.substr(0, 200));
  } catch (...) {
    return {};
  }
}

} // namespace

CxaThrowFunction nextCxaThrow() {
  static const CxaThrowFunction next = reinterpret_cast<CxaThrowFunction>(dlsym(RTLD_NEXT, "__cxa_throw"));
  return next;
}

const char *captureThrowsStatus() {
  static const std::string status = []() -> std::string {
    if (!nextCxaThrow())
      return "error: no __cxa_throw after the recorder's (dlsym RTLD_NEXT)";
    void *reached = dlsym(RTLD_DEFAULT, "__cxa_throw");
    if (reached == reinterpret_cast<void *>(&abi::__cxa_throw)) // the recorder's (cxa_throw.cpp)
      return "ok";
    Dl_info info{};
    const char *where = dladdr(reached, &info) && info.dli_fname ? info.dli_fname : "an unknown object";
    return std::string("error: the program's throws reach the __cxa_throw of ") + where +
           ", not the recorder's (an executable linked without exporting it?)";
  }();
  return status.c_str();
}

void noteCaptureFailed() { failedCapture.store(runtime::capturesBegun(), std::memory_order_relaxed); }

void recordThrowInCapture(void *object, const std::type_info &type) {
  if (recordingThrow || runtime::capturesUnderway() == 0)
    return;
  const int capture = runtime::capturesBegun();
  if (failedCapture.exchange(capture, std::memory_order_relaxed) == capture)
    return;
  recordingThrow = true;
  recordEvent("capture_failure", typeName(type), "null", "exception", {}, {}, messageOf(object, type),
              "cause");
  recordingThrow = false;
}

} // namespace torch_sync::recorder
