// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t %s -- %mock_libtorch_flags

// Where a callee is defined does not matter: a call written before the
// definition, and a call in a class body to a member defined out of line,
// are judged by the definition's body.
#include <ATen/core/Tensor.h>

float readLater(const at::Tensor &t);
float sumLater(const at::Tensor &t);

float positiveBeforeDefinition(const at::Tensor &t) {
  return readLater(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'readLater' calls 'item' in its body, which blocks the host [torch-sync-transitive]
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: consider a variant that keeps the value on the device, or calling it outside the hot path
  // CHECK-MESSAGES: :21:49: note: 'item' synchronizes here
}

// The sync-free twin: defined later too, without a sync.
float negativeBeforeDefinition(const at::Tensor &t) { return sumLater(t); }

float readLater(const at::Tensor &t) { return t.item<float>(); }
float sumLater(const at::Tensor &t) { return static_cast<float>(t.dim()); }

struct Metrics {
  float read(const at::Tensor &t);
  float size(const at::Tensor &t);
  float positiveInClass(const at::Tensor &t) { return read(t); }
  // CHECK-MESSAGES: :[[@LINE-1]]:55: warning: 'Metrics::read' calls 'item' in its body
  // CHECK-MESSAGES: :34:53: note: 'item' synchronizes here
  float negativeInClass(const at::Tensor &t) { return size(t); }
  static float readStatic(const at::Tensor &t);
};

float Metrics::read(const at::Tensor &t) { return t.item<float>(); }
float Metrics::size(const at::Tensor &t) { return static_cast<float>(t.numel()); }
float Metrics::readStatic(const at::Tensor &t) { return t.item<float>(); }

// A call through a declaration in a namespace, defined after the caller.
namespace helpers {
float readTwice(const at::Tensor &t);
}
float positiveNamespace(const at::Tensor &t) {
  return helpers::readTwice(t) + Metrics::readStatic(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'helpers::readTwice' calls 'Metrics::readStatic' in its body
  // CHECK-MESSAGES: :51:47: note: 'Metrics::readStatic' synchronizes here
  // CHECK-MESSAGES: :36:59: note: 'item' synchronizes here, 2 calls deep
  // CHECK-MESSAGES: :[[@LINE-4]]:34: warning: 'Metrics::readStatic' calls 'item' in its body
  // CHECK-MESSAGES: :36:59: note: 'item' synchronizes here
}
namespace helpers {
float readTwice(const at::Tensor &t) { return Metrics::readStatic(t); }
// CHECK-MESSAGES: :[[@LINE-1]]:47: warning: 'Metrics::readStatic' calls 'item' in its body
// CHECK-MESSAGES: :36:59: note: 'item' synchronizes here
} // namespace helpers
