// The implementations, which read their tensors on the host.
#include "ops.h"
#include <ATen/TensorOperators.h>
#include <ATen/ops/sum.h>

double sumCpu(const at::Tensor &t) { return t.sum().item<double>(); }
double sumCuda(const at::Tensor &t) { return t.sum().item<double>(); }
at::Tensor scaleCpu(const at::Tensor &t) { return t / t.max().item<double>(); }
at::Tensor scaleCuda(const at::Tensor &t) { return t / t.max().item<double>(); }
double exported(const at::Tensor &t) { return t.item<double>(); }
at::Tensor hostCopy(const at::Tensor &t) { return t.cpu(); }
at::Tensor sameDevice(const at::Tensor &t) { return t.abs(); }
