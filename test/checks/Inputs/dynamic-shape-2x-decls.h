// Declarations of LibTorch APIs newer than the 1.13 headers the tests parse,
// written for test/checks/dynamic-shape.cpp: only their signatures matter.
#pragma once

#include <ATen/core/Tensor.h>

namespace at {
// LibTorch 2.1+ (native_functions.yaml: nonzero_static(Tensor self, *,
// SymInt size, int fill_value=-1)): a fixed-size nonzero, without a sync.
Tensor nonzero_static(const Tensor &self, int64_t size,
                      int64_t fill_value = -1);
} // namespace at
