#include "helper.h"

float twice(const at::Tensor &t) { return 2 * scalar(t); }
