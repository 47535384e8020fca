#pragma once
#include <ATen/ATen.h>

// The mask of the scores above the threshold, on their device.
inline at::Tensor above(const at::Tensor &scores, double threshold) { return scores > threshold; }
