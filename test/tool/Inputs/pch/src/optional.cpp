// A conditional group of system headers before LibTorch's: its condition names no macro of
// LibTorch's, so it reads the same after the precompiled header; this unit gets it.
#ifdef PROJECT_WITH_EXTRAS
#include <vector>
#endif
#include <ATen/core/Tensor.h>

float optional(const at::Tensor &t) { return t.item<float>(); }
