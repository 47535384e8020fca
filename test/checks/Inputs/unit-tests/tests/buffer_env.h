// A header of the tests' folder: test code.
#pragma once
#include <ATen/core/Tensor.h>

inline float envReward(const at::Tensor &t) { return t.item<float>(); }
