// The runtime core's JSON text: one string as a JSON string literal, for the hand-written JSON files of the
// recorder, the operator stacks and the loop benchmark.
#pragma once

#include <string>

namespace torch_sync::runtime {

// text as a quoted JSON string: '"' and '\' escaped, newline and tab as \n and \t, other control characters
// as \u00XX; other bytes (UTF-8 included) as they are.
std::string jsonString(const std::string &text);

} // namespace torch_sync::runtime
