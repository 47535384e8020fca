// Mock of ATen/ops/randn.h.
#pragma once
#include <ATen/core/Tensor.h>

namespace at {
at::Tensor randn(at::IntArrayRef size, at::TensorOptions options = {});
at::Tensor randn(at::IntArrayRef size, ::std::optional<at::ScalarType> dtype,
                 ::std::optional<at::Layout> layout, ::std::optional<at::Device> device,
                 ::std::optional<bool> pin_memory);
} // namespace at
