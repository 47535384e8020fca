#include <ATen/core/Tensor.h>

float both(const at::Tensor &t, bool verbose) {
  if (verbose)
    return t.item<float>();
  return 0;
}
