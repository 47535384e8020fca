// Mock of ATen/TensorOperators.h: the free operators, declared (LibTorch defines them inline,
// through the methods).
#pragma once
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

namespace at {
#define AT_FORALL_BINARY_OPS(_)                                                               \
  _(+)                                                                                        \
  _(*)                                                                                        \
  _(-)                                                                                        \
  _(/)                                                                                        \
  _(%)                                                                                        \
  _(&)                                                                                        \
  _(|)                                                                                        \
  _(^)                                                                                        \
  _(<)                                                                                        \
  _(<=)                                                                                       \
  _(>)                                                                                        \
  _(>=)                                                                                       \
  _(==)                                                                                       \
  _(!=)

#define DEFINE_OPERATOR(op)                                                                   \
  Tensor operator op(const Tensor &x, const Tensor &y);                                       \
  Tensor operator op(const Tensor &x, const Scalar &y);                                       \
  Tensor operator op(const Scalar &x, const Tensor &y);
AT_FORALL_BINARY_OPS(DEFINE_OPERATOR)
#undef DEFINE_OPERATOR
#undef AT_FORALL_BINARY_OPS
} // namespace at
