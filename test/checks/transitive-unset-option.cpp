// OLDER-LIBTORCH: BatchNorm's forward body, and its momentum option, as each release writes them
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t-number %s -- %libtorch_flags \
// RUN:   -DSET_MOMENTUM=0.01
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t-unset --check-suffix=UNSET %s -- \
// RUN:   %libtorch_flags -DSET_MOMENTUM=c10::nullopt
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t-getter --check-suffix=UNSET %s -- \
// RUN:   %libtorch_flags -DREAD_MOMENTUM
//
// BatchNorm's forward reads 'num_batches_tracked' on the host only under
// 'if (this->options.momentum() == c10::nullopt)' (cumulative averaging); the
// default momentum is 0.1 (torch/nn/modules/batchnorm.h,
// torch/nn/options/batchnorm.h). The call is reported only when code in the
// translation unit may unset the momentum: its setter with anything but a
// number, or the getter, which returns a modifiable reference.

#include <torch/nn/modules/batchnorm.h>

torch::nn::BatchNorm2d makeNorm(int64_t channels) {
#if defined(SET_MOMENTUM)
  return torch::nn::BatchNorm2d(
      torch::nn::BatchNorm2dOptions(channels).momentum(SET_MOMENTUM));
#elif defined(READ_MOMENTUM)
  torch::nn::BatchNorm2d norm(channels);
  norm->options.momentum() = c10::nullopt;
  return norm;
#else
  return torch::nn::BatchNorm2d(channels);
#endif
}

at::Tensor normalize(torch::nn::BatchNorm2d &norm, const at::Tensor &x) {
  return norm->forward(x);
  // CHECK-MESSAGES-UNSET: :[[@LINE-1]]:16: warning: 'torch::nn::BatchNormImplBase<2, torch::nn::BatchNorm2dImpl>::forward' calls 'item' in its body
  // CHECK-MESSAGES-UNSET: batchnorm.h:{{[0-9]+}}:{{[0-9]+}}: note: 'item' synchronizes here
}
