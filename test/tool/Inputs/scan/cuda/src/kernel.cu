#include <ATen/core/Tensor.h>

float readBack(const at::Tensor &t) { return t.item<float>(); }
