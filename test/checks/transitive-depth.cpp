// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t %s -- %mock_libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t-depth --check-suffix=DEPTH3 \
// RUN:   --config="{CheckOptions: {torch-sync-transitive.MaxDepth: 3}}" %s -- %mock_libtorch_flags

// Chains of any depth are followed (MaxDepth 0, the default, sets no limit);
// MaxDepth 3 stops at three calls. Recursion, direct or through a cycle,
// ends, and a sync reached only through the cycle is found from every
// function of it.
#include <ATen/core/Tensor.h>

namespace chain {
float level6(const at::Tensor &t) { return t.item<float>(); }
float level5(const at::Tensor &t) { return level6(t); }
float level4(const at::Tensor &t) { return level5(t); }
float level3(const at::Tensor &t) { return level4(t); }
float level2(const at::Tensor &t) { return level3(t); }
float level1(const at::Tensor &t) { return level2(t); }
} // namespace chain
// The calls inside the chain are reported too; with MaxDepth 3, only those
// at most three calls from the sync.
// CHECK-MESSAGES: :13:44: warning: 'chain::level6' calls 'item' in its body
// CHECK-MESSAGES-DEPTH3: :13:44: warning: 'chain::level6' calls 'item' in its body
// CHECK-MESSAGES: :14:44: warning: 'chain::level5' calls 'chain::level6'
// CHECK-MESSAGES-DEPTH3: :14:44: warning: 'chain::level5' calls 'chain::level6'
// CHECK-MESSAGES: :15:44: warning: 'chain::level4' calls 'chain::level5'
// CHECK-MESSAGES-DEPTH3: :15:44: warning: 'chain::level4' calls 'chain::level5'
// CHECK-MESSAGES: :16:44: warning: 'chain::level3' calls 'chain::level4'
// CHECK-MESSAGES: :17:44: warning: 'chain::level2' calls 'chain::level3'

float positiveSixDeep(const at::Tensor &t) {
  return chain::level1(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'chain::level1' calls 'chain::level2' in its body, which blocks the host
  // CHECK-MESSAGES: :17:44: note: 'chain::level2' synchronizes here
  // CHECK-MESSAGES: :12:46: note: 'item' synchronizes here, 6 calls deep
}

// The sync-free twin of the chain.
namespace quiet {
float level6(const at::Tensor &t) { return static_cast<float>(t.dim()); }
float level5(const at::Tensor &t) { return level6(t); }
float level4(const at::Tensor &t) { return level5(t); }
float level3(const at::Tensor &t) { return level4(t); }
float level2(const at::Tensor &t) { return level3(t); }
float level1(const at::Tensor &t) { return level2(t); }
} // namespace quiet
float negativeSixDeep(const at::Tensor &t) { return quiet::level1(t); }

// Mutual recursion: 'ping' reaches the sync only through 'pong', which
// reaches it through 'read'. Whichever is summarized first, both are found.
namespace cycle {
float read(const at::Tensor &t) { return t.item<float>(); }
float pong(const at::Tensor &t, int n);
float ping(const at::Tensor &t, int n) { return n > 0 ? pong(t, n - 1) : 0.0f; }
float pong(const at::Tensor &t, int n) { return ping(t, n) + read(t); }
} // namespace cycle
// CHECK-MESSAGES: :53:57: warning: 'cycle::pong' calls 'cycle::read' in its body
// CHECK-MESSAGES: :54:62: note: 'cycle::read' synchronizes here
// CHECK-MESSAGES: :51:44: note: 'item' synchronizes here, 2 calls deep
// CHECK-MESSAGES-DEPTH3: :53:57: warning: 'cycle::pong' calls 'cycle::read' in its body
// CHECK-MESSAGES: :54:49: warning: 'cycle::ping' calls 'cycle::pong' in its body
// CHECK-MESSAGES: :53:57: note: 'cycle::pong' synchronizes here
// CHECK-MESSAGES: :51:44: note: 'item' synchronizes here, 3 calls deep
// CHECK-MESSAGES-DEPTH3: :54:49: warning: 'cycle::ping' calls 'cycle::pong' in its body
// CHECK-MESSAGES: :54:62: warning: 'cycle::read' calls 'item' in its body
// CHECK-MESSAGES-DEPTH3: :54:62: warning: 'cycle::read' calls 'item' in its body

float positiveCycle(const at::Tensor &t) {
  return cycle::ping(t, 3) + cycle::pong(t, 3);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'cycle::ping' calls 'cycle::pong' in its body
  // CHECK-MESSAGES: :[[@LINE-2]]:30: warning: 'cycle::pong' calls 'cycle::read' in its body
  // CHECK-MESSAGES-DEPTH3: :[[@LINE-3]]:10: warning: 'cycle::ping' calls 'cycle::pong' in its body
  // CHECK-MESSAGES-DEPTH3: :[[@LINE-4]]:30: warning: 'cycle::pong' calls 'cycle::read' in its body
}

// Recursion without a sync ends, and reports nothing.
namespace quietCycle {
float count(const at::Tensor &t, int n);
float down(const at::Tensor &t, int n) { return n > 0 ? count(t, n - 1) : 0.0f; }
float count(const at::Tensor &t, int n) { return down(t, n) + down(t, n - 1); }
float self(const at::Tensor &t, int n) { return n > 0 ? self(t, n - 1) : 1.0f; }
} // namespace quietCycle
float negativeCycle(const at::Tensor &t) {
  return quietCycle::count(t, 3) + quietCycle::self(t, 2);
}
