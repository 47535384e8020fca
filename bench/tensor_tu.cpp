// A smaller benchmark translation unit for scripts/benchmark.sh --tu (callgrind's instruction
// counts on bench/torch_tu.cpp take tens of minutes): <ATen/core/Tensor.h> alone, whose
// TensorBody.h holds the inline Tensor methods that the checks' matchers would otherwise visit.
#include <ATen/core/Tensor.h>

float mean_value(const at::Tensor& t) {
  return t.mean().item<float>();  // sync: copies the mean to the host
}
