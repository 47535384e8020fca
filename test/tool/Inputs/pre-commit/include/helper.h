#pragma once
#include <ATen/core/Tensor.h>

inline float scalar(const at::Tensor &t) { return t.item<float>(); }
