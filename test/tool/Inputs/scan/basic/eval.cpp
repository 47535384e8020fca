#include <ATen/core/Tensor.h>
#include "helper.h"

float evaluate(const at::Tensor &loss) { return readLoss(loss); }
