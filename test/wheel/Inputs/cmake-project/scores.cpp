#include <torch/torch.h>

// The number of scores above the threshold, read on the host: one sync per call.
int64_t count_above(const torch::Tensor &scores, double threshold) {
  return (scores > threshold).sum().item<int64_t>();
}
