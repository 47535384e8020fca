// SMOKE: run conditions from this release's preprocessor callbacks (#ifdef) and CFG
// RUN: %check_torch_sync --checks=-*,torch-sync-explicit,torch-sync-item,torch-sync-transitive \
// RUN:   --temp %t %s -- %mock_libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-explicit,torch-sync-item,torch-sync-transitive \
// RUN:   --temp %t-debug --check-suffix=,DEBUG %s -- %mock_libtorch_flags -DDEBUG_SYNC

// A reported call that runs only under a flag, or in a preprocessor branch
// written in its function, gets a note that says so: a wait in a debugging
// macro reads otherwise like a hot-path sync.
#include <ATen/core/Tensor.h>
#include <torch/cuda.h>

#define CHECK_LAUNCH(A, debug) A; if (debug) torch::cuda::synchronize();

void kernel(const at::Tensor &t) {}
float readLoss(const at::Tensor &t) { return t.item<float>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:48: warning: 'item' copies a tensor element to the host

void positiveFlags(const at::Tensor &t, bool debug) {
  CHECK_LAUNCH(kernel(t), debug);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'torch::cuda::synchronize' waits for all work queued on the device
  // CHECK-MESSAGES: :[[@LINE-2]]:27: note: the call runs only when 'debug' is true
  if (debug)
    readLoss(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'readLoss' calls 'item' in its body
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: the call runs only when 'debug' is true
  if (!debug)
    return;
#ifdef DEBUG_SYNC
  torch::cuda::synchronize();
  // CHECK-MESSAGES-DEBUG: :[[@LINE-1]]:3: warning: 'torch::cuda::synchronize' waits
  // CHECK-MESSAGES-DEBUG: :[[@LINE-3]]:2: note: the call runs only in builds that define 'DEBUG_SYNC'
#endif
  float value = debug ? t.item<float>() : 0.0f;
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:17: note: the call runs only when 'debug' is true
}

// Not flags: a test of a tensor's value, a constant that takes the branch.
void negativeFlags(const at::Tensor &t) {
  if (t.sum().item<float>() > 0)
    torch::cuda::synchronize();
  // CHECK-MESSAGES: :[[@LINE-2]]:15: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: 'torch::cuda::synchronize' waits
  // CHECK-MESSAGES-NOT: note: the call runs
  if (true)
    torch::cuda::synchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'torch::cuda::synchronize' waits
  // CHECK-MESSAGES-NOT: note: the call runs
}
