// Stand-ins for LibTorch's libraries in capture_checks_test: libc10's c10::detail::torchCheckFail, which
// throws (here a std::runtime_error with the check's message, where libc10 throws a c10::Error), declared as
// c10/util/Exception.h declares it (torch_check_fail.h).
#include "torch_check_fail.h"

#include <stdexcept>
#include <string>

namespace c10::detail {
[[noreturn]] void torchCheckFail(const char *, const char *, uint32_t, const std::string &msg) {
  throw std::runtime_error(msg);
}
[[noreturn]] void torchCheckFail(const char *, const char *, uint32_t, const char *msg) {
  throw std::runtime_error(msg);
}
} // namespace c10::detail
