// Mock of ATen/ops/cat.h.
#pragma once
#include <ATen/core/Tensor.h>

namespace at {
at::Tensor cat(const at::ITensorListRef &tensors, int64_t dim = 0);
} // namespace at
