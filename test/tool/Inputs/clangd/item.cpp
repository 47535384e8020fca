#include <ATen/core/Tensor.h>

float first(const at::Tensor &t) {
  return t.item<float>();
}
