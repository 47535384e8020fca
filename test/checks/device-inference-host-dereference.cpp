// RUN: %check_torch_sync --checks=-*,torch-sync-item --temp %t %s -- %mock_libtorch_flags
//
// A function that reads or writes a tensor's elements on the host (a subscript
// or '*' of data_ptr<T>(), of a local pointer made from it, or of an accessor)
// only works on a CPU tensor: unless it asks the tensor's device, the tensor is
// taken to be on the CPU there, and its host reads are not reported. Asking the
// device, assigning the variable, or only passing the pointer on (to a kernel)
// is no evidence.

#include <ATen/core/Tensor.h>

// No evidence: the device is unknown, the read is reported.
float plainRead(const at::Tensor &t) { return t.item<float>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:49: warning: 'item' copies a tensor element

// A subscript of the pointer data_ptr<T>() returns.
float firstPlusMax(const at::Tensor &t) {
  float first = t.data_ptr<float>()[0];
  return first + t.max().item<float>();
}

// A local pointer made from it, walked in a loop.
float total(const at::Tensor &values) {
  const float *p = values.data_ptr<float>();
  float sum = 0;
  for (int64_t i = 0; i < values.numel(); ++i)
    sum += p[i];
  return sum / values.sum().item<float>();
}

// '*' of the pointer, and the read in a lambda written in the function (as
// AT_DISPATCH_* writes it).
float scaled(at::Tensor t, float factor) {
  [&] { *t.data_ptr<float>() *= factor; }();
  return t.item<float>();
}

// An accessor, written through.
float fillDiagonal(const at::Tensor &m) {
  auto a = m.accessor<float, 2>();
  for (int64_t i = 0; i < m.size(0); ++i)
    a[i][i] = 1.0f;
  return m.trace().item<float>();
}

// Asking the device: the dereference may sit in the CPU branch only.
float branchOnDevice(const at::Tensor &t) {
  if (!t.is_cuda())
    t.data_ptr<float>()[0] = 0.0f;
  return t.item<float>();
}
// CHECK-MESSAGES: :[[@LINE-2]]:12: warning: 'item' copies a tensor element

// Another tensor is assigned to the variable: which one was read?
float reassigned(at::Tensor t, const at::Tensor &other) {
  float first = t.data_ptr<float>()[0];
  t = other;
  return first + t.item<float>();
}
// CHECK-MESSAGES: :[[@LINE-2]]:20: warning: 'item' copies a tensor element

void launchKernel(float *data, int64_t n);
// The pointer only goes on, to a kernel's launch: the tensor may be on CUDA.
float passedOn(const at::Tensor &t) {
  launchKernel(t.data_ptr<float>(), t.numel());
  return t.item<float>();
}
// CHECK-MESSAGES: :[[@LINE-2]]:12: warning: 'item' copies a tensor element

// A packed accessor is made for a kernel.
float packed(const at::Tensor &t) {
  auto a = t.packed_accessor32<float, 1>();
  (void)a;
  return t.item<float>();
}
// CHECK-MESSAGES: :[[@LINE-2]]:12: warning: 'item' copies a tensor element

// The evidence is about that tensor only.
float otherTensor(const at::Tensor &host, const at::Tensor &t) {
  float first = host.data_ptr<float>()[0];
  return first + t.item<float>();
}
// CHECK-MESSAGES: :[[@LINE-2]]:20: warning: 'item' copies a tensor element
