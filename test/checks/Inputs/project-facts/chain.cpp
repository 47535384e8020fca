#include "ops.h"
#include <ATen/TensorOperators.h>

double chainOuter(const at::Tensor &t) { return chainInner(t * 2); }
