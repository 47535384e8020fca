// Header sets differ: the first run follows the parsed headers' version, so it
// expects the V211 run's findings on the 2.11 headers and the V210 run's on 1.13.
// OLDER-LIBTORCH: the first run follows the headers' version (V210 on 1.13, V211 on 2.11)
// RUN: %check_torch_sync --checks=-*,torch-sync-boolean-mask --temp %t \
// RUN:   --check-suffix=%if libtorch-2.11 %{V211%} %else %{V210%} %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-boolean-mask --temp %t-v210 --check-suffix=V210 \
// RUN:   --config="{CheckOptions: {LibTorchVersion: '2.10'}}" %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-boolean-mask --temp %t-v211 --check-suffix=V211 \
// RUN:   --config="{CheckOptions: {LibTorchVersion: '2.11'}}" %s -- %libtorch_flags

// A CPU mask indexing a device tensor: before 2.11 the indices were copied to
// the device with a blocking copy; from 2.11 on the GPU suite measured no
// sync (samples/rules/boolean_mask.cpp, rule_index_with_host_mask).
#include <ATen/TensorIndexing.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/arange.h>
#include <torch/version.h> // the version comes from the headers

at::Tensor hostMaskOnDevice(const at::Tensor &values, const at::Tensor &deviceMask) {
  auto hostMask = at::arange(8) > 3;
  auto a = values.index({hostMask});
  // CHECK-MESSAGES-V210: :[[@LINE-1]]:19: warning: 'index' with a boolean mask reads
  auto b = values.index({deviceMask > 0});
  // CHECK-MESSAGES-V210: :[[@LINE-1]]:19: warning: 'index' with a boolean mask reads
  // CHECK-MESSAGES-V211: :[[@LINE-2]]:19: warning: 'index' with a boolean mask reads
  return a + b.sum();
}
