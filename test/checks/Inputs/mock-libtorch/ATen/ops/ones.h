// Mock of ATen/ops/ones.h.
#pragma once
#include <ATen/core/Tensor.h>

namespace at {
at::Tensor ones(at::IntArrayRef size, at::TensorOptions options = {});
at::Tensor ones(at::IntArrayRef size, ::std::optional<at::ScalarType> dtype,
                ::std::optional<at::Layout> layout, ::std::optional<at::Device> device,
                ::std::optional<bool> pin_memory);
} // namespace at
