// Mock of ATen/core/Formatting.h.
#pragma once
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <ostream>
#include <string>

namespace c10 {
std::ostream &operator<<(std::ostream &out, const Scalar &s);
std::string toString(const Scalar &s);
} // namespace c10
namespace at {
std::ostream &print(std::ostream &stream, const Tensor &tensor, int64_t linesize);
inline std::ostream &operator<<(std::ostream &out, const Tensor &t) { return print(out, t, 80); }
void print(const Tensor &t, int64_t linesize = 80);
} // namespace at
