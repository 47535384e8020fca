// The recorder's c10::detail::torchCheckFail (torch_check_fail.cpp, capture_checks.h), both overloads
// declared as c10/util/Exception.h declares them (LibTorch 1.13 and 2.x), so that they are the same functions
// and mangle alike; declared here rather than through c10's headers, so that the recorder's test builds
// without LibTorch (test/capture_checks_test.cpp, whose stand-in libraries use these declarations too).
#pragma once

#include <cstdint>
#include <string>

namespace c10::detail {
[[noreturn]] __attribute__((visibility("default"))) void
torchCheckFail(const char *func, const char *file, uint32_t line, const std::string &msg);
[[noreturn]] __attribute__((visibility("default"))) void torchCheckFail(const char *func, const char *file,
                                                                        uint32_t line, const char *msg);
} // namespace c10::detail

namespace torch_sync::recorder {

// The two overloads' types.
using StringMessageCheckFail = void (*)(const char *, const char *, uint32_t, const std::string &);
using LiteralMessageCheckFail = void (*)(const char *, const char *, uint32_t, const char *);

// The next definition, after the one at own, of the function own's dynamic symbol names (libc10's
// torchCheckFail after the recorder's); null when own has no dynamic symbol or no later object defines it.
void *nextDefinition(void *own);

} // namespace torch_sync::recorder
