// A vendored library's header, below a folder named third_party.
#include <ATen/core/Tensor.h>
inline float vendoredRead(const at::Tensor &t) { return t.item<float>(); }
