// Mock of ATen/ops/sum.h.
#pragma once
#include <ATen/core/Tensor.h>

namespace at {
at::Tensor sum(const at::Tensor &self, ::std::optional<at::ScalarType> dtype = ::std::nullopt);
at::Tensor sum(const at::Tensor &self, at::OptionalIntArrayRef dim, bool keepdim = false,
               ::std::optional<at::ScalarType> dtype = ::std::nullopt);
} // namespace at
