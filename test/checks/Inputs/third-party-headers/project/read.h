// The project's own header.
#include <ATen/core/Tensor.h>
inline float projectRead(const at::Tensor &t) { return t.item<float>(); }
