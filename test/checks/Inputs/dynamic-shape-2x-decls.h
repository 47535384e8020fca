// Declarations of LibTorch APIs newer than Debian's 1.13 headers, written for
// test/checks/dynamic-shape.cpp: only their signatures matter. Headers that
// have them (the 2.x set) declare them themselves.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/version.h>

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
#include <ATen/ops/nonzero_static.h>
#else
namespace at {
// LibTorch 2.1+ (native_functions.yaml: nonzero_static(Tensor self, *,
// SymInt size, int fill_value=-1)): a fixed-size nonzero, without a sync.
Tensor nonzero_static(const Tensor &self, int64_t size,
                      int64_t fill_value = -1);
} // namespace at
#endif
