#include <ATen/core/Tensor.h>

float loss(const at::Tensor &t) {
  return t.item<float>();
}

bool positive(const at::Tensor &t) {
  return t.gt(0).all().item<bool>();
}

double total(const at::Tensor &t) {
  return t.sum().item<double>();
}
