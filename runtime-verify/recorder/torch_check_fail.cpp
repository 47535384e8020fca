// The recorder's c10::detail::torchCheckFail (capture_checks.h): the function TORCH_CHECK calls when a check
// fails, both overloads as c10/util/Exception.h declares them (LibTorch 1.13 and 2.x). Each shows the failure
// to capture_checks, then calls the next definition, libc10's, which throws the c10::Error as before.
//
// Declared here rather than through c10's headers, so that the recorder's test builds without LibTorch
// (test/capture_checks_test.cpp); the declarations are the same functions, so they mangle alike.
#include "capture_checks.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// The next definition after the one that contains own (libc10's), found by own's dynamic symbol name;
// aborts with a message when there is none (a throw here would have nothing to throw).
template <typename Function> Function nextDefinition(Function own) {
  Dl_info info{};
  void *next = dladdr(reinterpret_cast<void *>(own), &info) && info.dli_sname
                   ? dlsym(RTLD_NEXT, info.dli_sname)
                   : nullptr;
  if (!next) {
    std::fputs("sync_recorder: no libc10 torchCheckFail to pass a failed check on to\n", stderr);
    std::abort();
  }
  return reinterpret_cast<Function>(next);
}

} // namespace

namespace c10::detail {

[[noreturn]] __attribute__((visibility("default"))) void
torchCheckFail(const char *func, const char *file, uint32_t line, const std::string &msg);
[[noreturn]] __attribute__((visibility("default"))) void torchCheckFail(const char *func, const char *file,
                                                                        uint32_t line, const char *msg);

void torchCheckFail(const char *func, const char *file, uint32_t line, const std::string &msg) {
  using Function = void (*)(const char *, const char *, uint32_t, const std::string &);
  static const Function next = nextDefinition<Function>(&torchCheckFail);
  torch_sync::recorder::recordCheckFailure(msg);
  next(func, file, line, msg);
  __builtin_unreachable();
}

void torchCheckFail(const char *func, const char *file, uint32_t line, const char *msg) {
  using Function = void (*)(const char *, const char *, uint32_t, const char *);
  static const Function next = nextDefinition<Function>(&torchCheckFail);
  torch_sync::recorder::recordCheckFailure(msg ? msg : "");
  next(func, file, line, msg);
  __builtin_unreachable();
}

} // namespace c10::detail
