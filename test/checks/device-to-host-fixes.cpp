// The only fix-it: '.cpu()' whose result is read with item() is dropped, so
// that item() copies one element instead of the whole tensor. Every value
// stays the same (and item() still waits for the GPU). The fixed file must
// compile.
// RUN: %check_torch_sync --checks=-*,torch-sync-device-to-host --fix --temp %t %s -- %mock_libtorch_flags

#include <ATen/core/Tensor.h>
#include <ATen/ops/zeros.h>

float readOne(const at::Tensor &loss) {
  float a = loss.cpu().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'cpu' copies the tensor to the host
  // CHECK-FIXES: {{^}}  float a = loss.item<float>();{{$}}
  double b = loss.sum().cpu().item().toDouble();
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'cpu' copies the tensor to the host
  // CHECK-FIXES: {{^}}  double b = loss.sum().item().toDouble();{{$}}
  return a + b;
}

// No fix where the copy is used for more than one element.
at::Tensor keepCopy(const at::Tensor &t) {
  auto host = t.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'cpu' copies the tensor to the host
  // CHECK-FIXES: {{^}}  auto host = t.cpu();{{$}}
  return host;
}

// No fix inside a macro.
#define READ_ON_HOST(t) (t).cpu().item<float>()
float inMacro(const at::Tensor &t) {
  return READ_ON_HOST(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES: :[[@LINE-4]]:29: note: expanded from macro 'READ_ON_HOST'
  // CHECK-FIXES: {{^}}  return READ_ON_HOST(t);{{$}}
}
