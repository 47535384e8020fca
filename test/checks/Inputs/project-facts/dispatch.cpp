// Dispatches on the device of its argument.
#include "ops.h"
#include <ATen/ops/ones.h>

double sum(const at::Tensor &t) {
  if (t.device().is_cpu())
    return sumCpu(t) + exported(t);
  return sumCuda(t);
}

double chain(const at::Tensor &t) {
  if (t.is_cuda())
    return 0;
  return chainOuter(t);
}

double results(const at::Tensor &t) {
  at::Tensor copy = hostCopy(t);
  at::Tensor ones = sameDevice(at::ones({2}));
  at::Tensor other = sameDevice(t);
  return copy.item<double>() + ones.sum().item<double>() +
         other.sum().item<double>();
}
