#include <ATen/core/Tensor.h>

float broken(const at::Tensor &t) {
  return t.item<float>()
}
