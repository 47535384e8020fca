// SMOKE: torch-sync-transitive's call graph on this release's AST (bodies, lambdas, LibTorch's own bodies)
// OLDER-LIBTORCH: LibTorch's own bodies that sync (clip_grad_norm_) differ between releases
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t-depth --check-suffix=DEPTH1 \
// RUN:   --config="{CheckOptions: {torch-sync-transitive.MaxDepth: 1}}" %s -- %libtorch_flags

#include <ATen/core/Tensor.h>
#include <ATen/ops/zeros.h>
#include <torch/types.h>
#include <torch/nn/utils/clip_grad.h>
#include <vector>

// The project's own helpers.
float readLoss(const at::Tensor &loss) { return loss.item<float>(); }
float logStep(const at::Tensor &loss) { return readLoss(loss) * 2; }
// CHECK-MESSAGES: :[[@LINE-1]]:48: warning: 'readLoss' calls 'item' in its body, which blocks the host
// CHECK-MESSAGES: :[[@LINE-3]]:54: note: 'item' synchronizes here
// CHECK-MESSAGES-DEPTH1: :[[@LINE-3]]:48: warning: 'readLoss' calls 'item' in its body
// CHECK-MESSAGES-DEPTH1: :[[@LINE-5]]:54: note: 'item' synchronizes here
float hostOnly() { return at::zeros({1}).item<float>(); }

float positiveHelpers(const at::Tensor &loss, int steps) {
  float total = 0;
  for (int i = 0; i < steps; ++i) {
    total += readLoss(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'readLoss' calls 'item' in its body, which blocks the host [torch-sync-transitive]
    // CHECK-MESSAGES: :[[@LINE-2]]:14: note: consider a variant that keeps the value on the device, or calling it outside the hot path
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES: :[[@LINE-15]]:54: note: 'item' synchronizes here
    // CHECK-MESSAGES-DEPTH1: :[[@LINE-5]]:14: warning: 'readLoss' calls 'item' in its body
    // CHECK-MESSAGES-DEPTH1: :[[@LINE-17]]:54: note: 'item' synchronizes here
  }
  total += logStep(loss);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'logStep' calls 'readLoss' in its body, which blocks the host
  // CHECK-MESSAGES: :[[@LINE-20]]:48: note: 'readLoss' synchronizes here
  return total;
}

// LibTorch's C++ frontend: clip_grad_norm_ returns a double read from the
// device (torch/nn/utils/clip_grad.h).
double positiveClipGradNorm(std::vector<at::Tensor> &parameters) {
  return torch::nn::utils::clip_grad_norm_(parameters, 1.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'torch::nn::utils::clip_grad_norm_' calls {{.*}} in its body, which blocks the host
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: consider
  // CHECK-MESSAGES: clip_grad.h:{{[0-9]+}}:{{[0-9]+}}: note: {{.*}} synchronizes here
  // CHECK-MESSAGES-DEPTH1: :[[@LINE-4]]:10: warning: 'torch::nn::utils::clip_grad_norm_' calls
  // CHECK-MESSAGES-DEPTH1: clip_grad.h:{{[0-9]+}}:{{[0-9]+}}: note: {{.*}} synchronizes here
}

// Negative cases: a helper that syncs only on the CPU, ATen ops (their syncs
// are the other checks' facts), and a helper without a visible body.
float undefinedHelper(const at::Tensor &t);
float negativeCases(const at::Tensor &t) {
  return hostOnly() + undefinedHelper(t) + t.sum().dim();
}

// A lambda is a function with a visible body too.
float positiveLambda(const at::Tensor &t) {
  auto read = [&] { return t.item<float>(); };
  return read();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'lambda in positiveLambda' calls 'item' in its body
  // CHECK-MESSAGES: :[[@LINE-3]]:30: note: 'item' synchronizes here
  // CHECK-MESSAGES-DEPTH1: :[[@LINE-3]]:10: warning: 'lambda in positiveLambda' calls 'item' in its body
  // CHECK-MESSAGES-DEPTH1: :[[@LINE-5]]:30: note: 'item' synchronizes here
}

// A helper whose only "sync" is a Scalar overload (fill_ with a host value),
// and LibTorch's own direct facts (torch::tensor is torch-sync-device-to-host's)
// are not transitive findings.
void zeroOut(at::Tensor &t) { t.fill_(0.0); }
void negativeNoTransitive(at::Tensor &t) {
  zeroOut(t);
  auto list = torch::tensor({1.0f, 2.0f}, torch::kCUDA);
}
