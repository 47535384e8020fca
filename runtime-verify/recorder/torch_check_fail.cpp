// The recorder's c10::detail::torchCheckFail (torch_check_fail.h, capture_checks.h): the function TORCH_CHECK
// calls when a check fails. Each overload shows the failure to capture_checks, then calls the next
// definition, libc10's, which throws the c10::Error as before.
#include "torch_check_fail.h"

#include "capture_checks.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace torch_sync::recorder {

void *nextDefinition(void *own) {
  Dl_info info{};
  return dladdr(own, &info) && info.dli_sname ? dlsym(RTLD_NEXT, info.dli_sname) : nullptr;
}

namespace {

// libc10's definition after the recorder's own; aborts with a message when there is none (a throw here would
// have nothing to throw).
template <typename Function> Function libc10Definition(Function own) {
  void *next = nextDefinition(reinterpret_cast<void *>(own));
  if (!next) {
    std::fputs("sync_recorder: no libc10 torchCheckFail to pass a failed check on to\n", stderr);
    std::abort();
  }
  return reinterpret_cast<Function>(next);
}

} // namespace
} // namespace torch_sync::recorder

namespace c10::detail {

void torchCheckFail(const char *func, const char *file, uint32_t line, const std::string &msg) {
  using torch_sync::recorder::StringMessageCheckFail;
  static const StringMessageCheckFail next =
      torch_sync::recorder::libc10Definition<StringMessageCheckFail>(&torchCheckFail);
  torch_sync::recorder::recordCheckFailure(msg);
  next(func, file, line, msg);
  __builtin_unreachable();
}

void torchCheckFail(const char *func, const char *file, uint32_t line, const char *msg) {
  using torch_sync::recorder::LiteralMessageCheckFail;
  static const LiteralMessageCheckFail next =
      torch_sync::recorder::libc10Definition<LiteralMessageCheckFail>(&torchCheckFail);
  torch_sync::recorder::recordCheckFailure(msg ? msg : "");
  next(func, file, line, msg);
  __builtin_unreachable();
}

} // namespace c10::detail
