// The library's interface: what the tests test.
#pragma once
#include <ATen/core/Tensor.h>

float libraryRead(const at::Tensor &t);
