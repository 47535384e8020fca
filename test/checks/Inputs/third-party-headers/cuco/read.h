// A known library's header (cuCollections), given with -I.
#include <ATen/core/Tensor.h>
inline float cucoRead(const at::Tensor &t) { return t.item<float>(); }
