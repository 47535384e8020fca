// RUN: %check_torch_sync --checks=-*,torch-sync-item --temp %t %s -- %mock_libtorch_flags -I%S/Inputs
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t-transitive \
// RUN:   --check-suffix=TRANSITIVE %s -- %mock_libtorch_flags -I%S/Inputs
//
// A function private to the file, whose every call is in the translation
// unit, has the devices its callers pass: one with internal linkage, or, in a
// program's main file (it defines 'main'), one declared in that file only.
// Its address taken, or an argument of unknown device, keeps it unknown.

#include <ATen/core/Tensor.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/sum.h>
#include <torch/types.h>
#include <functional>

#include "private-functions-decls.h"

// Declared only here, called with CPU tensors only, through another helper.
float readBias(const at::Tensor &bias) { return bias.item<float>(); }
float report(const at::Tensor &weight, const at::Tensor &bias) {
  return weight.sum().item<float>() + readBias(bias);
}

namespace {
// Internal linkage: called with a CPU tensor and with one of unknown device.
float readAny(const at::Tensor &t) { return t.item<float>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:47: warning: 'item' copies a tensor element

// Its address is taken: it may be called from anywhere.
float readLater(const at::Tensor &t) { return t.item<float>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:49: warning: 'item' copies a tensor element

// A parameter reassigned in the function.
float readMoved(at::Tensor t) {
  t = t.cuda();
  return t.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'item' copies a tensor element
}
} // namespace

// Declared in a header too: other files may call it.
float readShared(const at::Tensor &t) { return t.item<float>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:50: warning: 'item' copies a tensor element

at::Tensor loadWeights(); // defined elsewhere: its result's device is unknown

float caller(const at::Tensor &bias) {
  auto w = at::randn({4, 1}) * 5;
  std::function<float(const at::Tensor &)> later = readLater;
  // 'caller' is private to this program's file and 'main' passes it a CPU
  // tensor: 'bias' is on the CPU, and torch-sync-transitive decides the syncs
  // on a callee's parameter by the argument (readShared(bias), readAny(bias)).
  float total = report(w, bias) + later(bias) + readShared(bias);
  total += readMoved(bias);
  // CHECK-MESSAGES-TRANSITIVE: :[[@LINE-1]]:12: warning: '(anonymous namespace)::readMoved' calls 'cuda' in its body
  // CHECK-MESSAGES-TRANSITIVE: :35:9: note: 'cuda' synchronizes here
  return total + readAny(bias) + readAny(loadWeights());
  // CHECK-MESSAGES-TRANSITIVE: :[[@LINE-1]]:34: warning: '(anonymous namespace)::readAny' calls 'item' in its body
  // CHECK-MESSAGES-TRANSITIVE: :[[@LINE-33]]:47: note: 'item' synchronizes here
}

// The copy of the CPU argument to the device in 'readMoved' blocks the host.
int main() { return caller(at::randn({1}) * 5) > 0; }
// CHECK-MESSAGES-TRANSITIVE: :[[@LINE-1]]:21: warning: 'caller' calls '(anonymous namespace)::readMoved' in its body
// CHECK-MESSAGES-TRANSITIVE: :54:12: note: '(anonymous namespace)::readMoved' synchronizes here
// CHECK-MESSAGES-TRANSITIVE: :35:9: note: 'cuda' synchronizes here, 2 calls deep
