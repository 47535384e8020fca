// Compiled with -DNDEBUG unlike the others (its command line): LibTorch's headers read NDEBUG,
// so the shared precompiled header does not fit it.
#include <ATen/core/Tensor.h>

bool positive(const at::Tensor &t) { return t.item<float>() > 0; }
