#include <ATen/ATen.h>
#include "threshold.h"

// Branches on a device value on the host: a sync on each call.
bool any_above(const at::Tensor &scores, double threshold) {
  return above(scores, threshold).any().item<bool>();
}
