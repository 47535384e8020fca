// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t %s -- %mock_libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t-intended --check-suffix=INTENDED \
// RUN:   --config="{CheckOptions: {IntendedSyncFunctions: '^flushMetrics$'}}" %s -- %mock_libtorch_flags

// The syncs a helper's body can hold besides item(): value-dependent output
// sizes, explicit waits. A helper named in IntendedSyncFunctions syncs on
// purpose, and so does a call to it.
#include <ATen/core/Tensor.h>
#include <ATen/ops/nonzero.h>
#include <ATen/ops/zeros.h>
#include <torch/cuda.h>

at::Tensor activeRows(const at::Tensor &mask) { return mask.nonzero(); }
at::Tensor activeRowsFree(const at::Tensor &mask) { return at::nonzero(mask); }
void waitForDevice() { torch::cuda::synchronize(); }
void flushMetrics() { torch::cuda::synchronize(); }
at::Tensor hostRows() { return at::zeros({4}).nonzero(); }
at::Tensor fixedShape(const at::Tensor &mask) { return mask.sum(); }
void flushTwice() { flushMetrics(); }
// CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'flushMetrics' calls 'torch::cuda::synchronize' in its body

void positiveInnerSyncs(const at::Tensor &mask) {
  auto a = activeRows(mask);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'activeRows' calls 'nonzero' in its body, which blocks the host [torch-sync-transitive]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider a variant that keeps the value on the device, or calling it outside the hot path
  // CHECK-MESSAGES: :13:61: note: 'nonzero' synchronizes here
  // CHECK-MESSAGES-INTENDED: :[[@LINE-4]]:12: warning: 'activeRows' calls 'nonzero' in its body
  // CHECK-MESSAGES-INTENDED: :13:61: note: 'nonzero' synchronizes here
  auto b = activeRowsFree(mask);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'activeRowsFree' calls 'at::nonzero' in its body
  // CHECK-MESSAGES: :14:60: note: 'at::nonzero' synchronizes here
  // CHECK-MESSAGES-INTENDED: :[[@LINE-3]]:12: warning: 'activeRowsFree' calls 'at::nonzero' in its body
  // CHECK-MESSAGES-INTENDED: :14:60: note: 'at::nonzero' synchronizes here
  waitForDevice();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'waitForDevice' calls 'torch::cuda::synchronize' in its body
  // CHECK-MESSAGES: :15:24: note: 'torch::cuda::synchronize' synchronizes here
  // CHECK-MESSAGES-INTENDED: :[[@LINE-3]]:3: warning: 'waitForDevice' calls 'torch::cuda::synchronize' in its body
  // CHECK-MESSAGES-INTENDED: :15:24: note: 'torch::cuda::synchronize' synchronizes here
  flushMetrics();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'flushMetrics' calls 'torch::cuda::synchronize' in its body
  // CHECK-MESSAGES: :16:23: note: 'torch::cuda::synchronize' synchronizes here
  // On the way to a sync, an intended function is not followed either.
  flushTwice();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'flushTwice' calls 'flushMetrics' in its body
}

// Negative cases: a body whose sync is on a CPU tensor, and a fixed-shape
// reduction.
void negativeInnerSyncs(const at::Tensor &mask) {
  auto a = hostRows();
  auto b = fixedShape(mask);
}
