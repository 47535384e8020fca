// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t %s -- %mock_libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t-strict --check-suffix=STRICT \
// RUN:   --config="{CheckOptions: {torch-sync-transitive.ReportUnknownDevice: false}}" %s -- %mock_libtorch_flags

// A sync on a parameter's tensor is decided at each call by the argument
// passed there: a CPU tensor makes none, a CUDA tensor one on a known device.
// With ReportUnknownDevice false, only syncs on a known CUDA tensor (or an
// explicit wait) are reported, through any number of calls.
#include <ATen/core/Tensor.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>
#include <torch/cuda.h>

at::Tensor globalState;

float readLoss(const at::Tensor &loss) { return loss.item<float>(); }
float logLoss(const at::Tensor &loss) { return readLoss(loss) * 2; }
float readDevice() { return at::ones({1}, at::kCUDA).item<float>(); }
float readGlobal() { return globalState.item<float>(); }
void waitAll() { torch::cuda::synchronize(); }
// CHECK-MESSAGES: :17:48: warning: 'readLoss' calls 'item' in its body
// CHECK-MESSAGES: :16:54: note: 'item' synchronizes here

void callers(const at::Tensor &unknown) {
  readLoss(unknown);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'readLoss' calls 'item' in its body
  readLoss(at::ones({1}, at::kCUDA));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'readLoss' calls 'item' in its body
  // CHECK-MESSAGES-STRICT: :[[@LINE-2]]:3: warning: 'readLoss' calls 'item' in its body
  readLoss(unknown.cuda());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'readLoss' calls 'item' in its body
  // CHECK-MESSAGES-STRICT: :[[@LINE-2]]:3: warning: 'readLoss' calls 'item' in its body
  logLoss(unknown);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'logLoss' calls 'readLoss' in its body
  logLoss(at::ones({1}, at::kCUDA));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'logLoss' calls 'readLoss' in its body
  // CHECK-MESSAGES-STRICT: :[[@LINE-2]]:3: warning: 'logLoss' calls 'readLoss' in its body
  // CHECK-MESSAGES-STRICT: :17:48: note: 'readLoss' synchronizes here
  // CHECK-MESSAGES-STRICT: :16:54: note: 'item' synchronizes here, 2 calls deep
  readDevice();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'readDevice' calls 'item' in its body
  // CHECK-MESSAGES-STRICT: :[[@LINE-2]]:3: warning: 'readDevice' calls 'item' in its body
  readGlobal();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'readGlobal' calls 'item' in its body
  waitAll();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'waitAll' calls 'torch::cuda::synchronize' in its body
  // CHECK-MESSAGES-STRICT: :[[@LINE-2]]:3: warning: 'waitAll' calls 'torch::cuda::synchronize' in its body
}

// A CPU argument reaches no sync, in either mode and through the chain.
void negativeHostArguments() {
  readLoss(at::zeros({1}));
  logLoss(at::zeros({1}));
  auto host = at::ones({4});
  logLoss(host);
}
