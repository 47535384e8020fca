#include <ATen/core/Tensor.h>

double mean_value(const at::Tensor& loss) { return loss.mean().item<double>(); }
