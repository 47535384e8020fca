// The runtime core's name tests: whether a CUDA API, module, function or path name starts with a prefix.
// Header-only, shared by the core and its clients.
#pragma once

#include <string_view>

namespace torch_sync::runtime {

inline bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Whether s starts with one of prefixes (any range of string_view-convertible values).
template <typename Prefixes> bool startsWithAny(std::string_view s, const Prefixes &prefixes) {
  for (std::string_view prefix : prefixes)
    if (startsWith(s, prefix))
      return true;
  return false;
}

} // namespace torch_sync::runtime
