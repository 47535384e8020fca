// A narrower prefix header: the tensor class and the version macros
// (TORCH_VERSION_MAJOR/MINOR, which the checks read to pick the rules of the
// LibTorch release).
#pragma once
#include <ATen/core/Tensor.h>
#include <torch/version.h>
