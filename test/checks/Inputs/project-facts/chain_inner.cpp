#include "ops.h"

double chainInner(const at::Tensor &t) { return t.item<double>(); }
