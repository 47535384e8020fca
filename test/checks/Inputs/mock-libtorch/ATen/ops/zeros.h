// Mock of ATen/ops/zeros.h.
#pragma once
#include <ATen/core/Tensor.h>

namespace at {
at::Tensor zeros(at::IntArrayRef size, at::TensorOptions options = {});
at::Tensor zeros(at::IntArrayRef size, ::std::optional<at::ScalarType> dtype,
                 ::std::optional<at::Layout> layout, ::std::optional<at::Device> device,
                 ::std::optional<bool> pin_memory);
} // namespace at
