#include <ATen/core/Tensor.h>

at::Tensor same(const at::Tensor &t) { return t; }
