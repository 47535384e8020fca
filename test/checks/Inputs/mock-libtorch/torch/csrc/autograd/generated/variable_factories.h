// Mock of torch/csrc/autograd/generated/variable_factories.h: the C++ frontend's factories,
// functions of namespace torch (not at::'s, which torch::'s 'using namespace at' would find).
#pragma once
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>

namespace torch {
inline at::Tensor empty(at::IntArrayRef size, at::TensorOptions options = {},
                        ::std::optional<at::MemoryFormat> memory_format = ::std::nullopt) {
  return at::empty(size, at::TensorOptions(options).requires_grad(::std::nullopt), memory_format);
}
inline at::Tensor ones(at::IntArrayRef size, at::TensorOptions options = {}) {
  return at::ones(size, at::TensorOptions(options).requires_grad(::std::nullopt));
}
inline at::Tensor randn(at::IntArrayRef size, at::TensorOptions options = {}) {
  return at::randn(size, at::TensorOptions(options).requires_grad(::std::nullopt));
}
inline at::Tensor zeros(at::IntArrayRef size, at::TensorOptions options = {}) {
  return at::zeros(size, at::TensorOptions(options).requires_grad(::std::nullopt));
}
} // namespace torch
