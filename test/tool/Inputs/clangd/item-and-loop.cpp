#include <ATen/core/Tensor.h>

float first(const at::Tensor &t) {
  return t.item<float>();
}

float total(const at::Tensor &t) {
  float sum = 0;
  for (int i = 0; i < 3; ++i)
    sum += t[i].item<float>();
  return sum;
}
