// Mock of ATen/ops/empty.h.
#pragma once
#include <ATen/core/Tensor.h>

namespace at {
at::Tensor empty(at::IntArrayRef size, at::TensorOptions options = {},
                 ::std::optional<at::MemoryFormat> memory_format = ::std::nullopt);
at::Tensor empty(at::IntArrayRef size, ::std::optional<at::ScalarType> dtype,
                 ::std::optional<at::Layout> layout, ::std::optional<at::Device> device,
                 ::std::optional<bool> pin_memory);
} // namespace at
