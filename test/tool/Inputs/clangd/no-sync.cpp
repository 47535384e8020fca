#include <ATen/core/Tensor.h>

at::Tensor first(const at::Tensor &t) {
  return t.clone();
}
