#pragma once
#include <ATen/core/Tensor.h>

#if PROJ_USE_SCALE != 1 || PROJ_FEATURE != 2
#error "configured without the project's macros"
#endif

inline float scaleOf(const at::Tensor &t) { return t.item<float>(); }
