// This condition reads a macro that LibTorch's headers name: evaluated after them, it could
// read differently, so no precompiled header for this unit.
#if defined(C10_MOBILE)
#include <vector>
#endif
#include <ATen/core/Tensor.h>

float mobile(const at::Tensor &t) { return t.item<float>(); }
