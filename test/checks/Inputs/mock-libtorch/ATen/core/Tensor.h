// Mock of ATen/core/Tensor.h.
#pragma once
#include <ATen/core/TensorBody.h>
