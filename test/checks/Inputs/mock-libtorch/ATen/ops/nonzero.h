// Mock of ATen/ops/nonzero.h.
#pragma once
#include <ATen/core/Tensor.h>

namespace at {
at::Tensor nonzero(const at::Tensor &self);
} // namespace at
