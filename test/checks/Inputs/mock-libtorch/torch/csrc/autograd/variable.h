// Mock of torch/csrc/autograd/variable.h.
#pragma once
#include <ATen/core/Tensor.h>

namespace torch::autograd {
using Variable = at::Tensor;
} // namespace torch::autograd
