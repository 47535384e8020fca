// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t --check-suffix=,PLAIN %s -- \
// RUN:   %mock_libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t-debug --check-suffix=,DEBUG %s -- \
// RUN:   %mock_libtorch_flags -DDEBUG_SYNC -DNDEBUG -DSYNC_LEVEL=2

// A sync that runs only under a flag (a boolean parameter, member or
// variable, a macro's argument) or in a preprocessor branch written in the
// function is most often a debugging aid: the warning says under what it
// runs, and a note points at the condition. A branch that a constant never
// takes is no sync; a test of a tensor is no flag.
#include <ATen/core/Tensor.h>
#include <torch/cuda.h>

#define CHECK_LAUNCH(A, debug) A; if (debug) torch::cuda::synchronize();

void kernel(const at::Tensor &t) {}
void launchMacro(const at::Tensor &t, bool debug) { CHECK_LAUNCH(kernel(t), debug); }
void launchFlag(bool sync) { if (sync) torch::cuda::synchronize(); }
void launchUnlessFast(bool fast) { if (!fast) torch::cuda::synchronize(); }
struct Launcher {
  bool debug_ = false;
  void launch() { if (debug_) torch::cuda::synchronize(); }
};
bool verbose = false;
float logIfVerbose(const at::Tensor &t) { return verbose ? t.item<float>() : 0.0f; }
void launchIfdef() {
#ifdef DEBUG_SYNC
  torch::cuda::synchronize();
#endif
}
void launchUnlessNdebug() {
#ifndef NDEBUG
  torch::cuda::synchronize();
#endif
}
void launchAlways(bool debug) {
  if (debug)
    torch::cuda::synchronize();
  torch::cuda::synchronize();
}
float readIfPositive(const at::Tensor &t) {
  if (t.sum().item<float>() > 0)
    return t.item<float>();
  return 0.0f;
}
constexpr bool kDebug = false;
void launchConstexpr() { if (kDebug) torch::cuda::synchronize(); }
void launchNever() { if (false) torch::cuda::synchronize(); }
void launchAtLevel() {
#if SYNC_LEVEL > 1
  torch::cuda::synchronize();
#endif
}

void callers(const at::Tensor &t, bool debug, Launcher &launcher) {
  launchMacro(t, debug);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'launchMacro' calls 'torch::cuda::synchronize' in its body (only when 'debug' is true), which blocks the host
  // CHECK-MESSAGES: :17:{{[0-9]+}}: note: 'torch::cuda::synchronize' synchronizes here
  // CHECK-MESSAGES: :17:77: note: the sync runs only when 'debug' is true
  launchFlag(debug);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'launchFlag' calls 'torch::cuda::synchronize' in its body (only when 'sync' is true)
  // CHECK-MESSAGES: :18:40: note: 'torch::cuda::synchronize' synchronizes here
  // CHECK-MESSAGES: :18:34: note: the sync runs only when 'sync' is true
  launchUnlessFast(debug);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'launchUnlessFast' calls 'torch::cuda::synchronize' in its body (only when 'fast' is false)
  launcher.launch();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'Launcher::launch' calls 'torch::cuda::synchronize' in its body (only when 'debug_' is true)
  logIfVerbose(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'logIfVerbose' calls 'item' in its body (only when 'verbose' is true)
  launchIfdef();
  // CHECK-MESSAGES-DEBUG: :[[@LINE-1]]:3: warning: 'launchIfdef' calls 'torch::cuda::synchronize' in its body (only in builds that define 'DEBUG_SYNC')
  // CHECK-MESSAGES-DEBUG: :28:3: note: 'torch::cuda::synchronize' synchronizes here
  // CHECK-MESSAGES-DEBUG: :27:2: note: the sync runs only in builds that define 'DEBUG_SYNC'
  launchUnlessNdebug();
  // CHECK-MESSAGES-PLAIN: :[[@LINE-1]]:3: warning: 'launchUnlessNdebug' calls 'torch::cuda::synchronize' in its body (only in builds that do not define 'NDEBUG')
  // CHECK-MESSAGES-PLAIN: :32:2: note: the sync runs only in builds that do not define 'NDEBUG'
  // The unconditional sync is preferred to the guarded one.
  launchAlways(debug);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'launchAlways' calls 'torch::cuda::synchronize' in its body, which blocks the host
  // CHECK-MESSAGES: :39:3: note: 'torch::cuda::synchronize' synchronizes here
  readIfPositive(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'readIfPositive' calls 'item' in its body, which blocks the host
  launchConstexpr();
  launchNever();
  launchAtLevel();
  // CHECK-MESSAGES-DEBUG: :[[@LINE-1]]:3: warning: 'launchAtLevel' calls 'torch::cuda::synchronize' in its body (only in builds where 'SYNC_LEVEL > 1' holds), which blocks the host
}
