#pragma once
#include <ATen/core/Tensor.h>

inline float readLoss(const at::Tensor &loss) { return loss.item<float>(); }
