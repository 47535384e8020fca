// Mock of LibTorch 2.11's c10/util/Optional.h: c10::optional is std::optional.
#pragma once
#include <optional>

namespace c10 {
using std::nullopt;
using std::nullopt_t;
using std::optional;
} // namespace c10
