#pragma once
#include <ATen/ATen.h>

// The mask of the scores above the threshold, checked on the host to be non-empty: a sync in a header.
inline at::Tensor above(const at::Tensor &scores, double threshold) {
  at::Tensor mask = scores > threshold;
  TORCH_CHECK(mask.any().item<bool>(), "no score above ", threshold);
  return mask;
}
