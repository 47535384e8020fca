// SMOKE: torch-sync-device-index's matchers and value flow on this release's AST
// OLDER-LIBTORCH: torch-sync-device-index's facts resolved on each release's declarations (narrow, indexing, factories)
// RUN: %check_torch_sync --checks=-*,torch-sync-device-index --temp %t %s -- %libtorch_flags
// With torch-sync-item also on, a read that becomes a size or an index is
// reported once, by torch-sync-device-index; the other reads by
// torch-sync-item.
// RUN: %check_torch_sync --checks=-*,torch-sync-device-index,torch-sync-item --temp %t-both \
// RUN:   --check-suffix=BOTH %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-item --temp %t-item \
// RUN:   --check-suffix=ITEM %s -- %libtorch_flags

#include <ATen/TensorIndexing.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/full.h>
#include <ATen/ops/narrow.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>

using at::indexing::Slice;

at::Tensor positiveNarrowAndSubscript(const at::Tensor &t, const at::Tensor &start) {
  auto a = t.narrow(0, start, 2);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'narrow' with a tensor start reads the start from the device and waits for the current stream [torch-sync-device-index]
  // CHECK-MESSAGES: :[[@LINE-2]]:14: note: consider 'index_select(dim, start + at::arange(length, start.options()))', or a host start
  // CHECK-MESSAGES-BOTH: :[[@LINE-3]]:14: warning: 'narrow' with a tensor start
  auto b = at::narrow(t, 0, start, 2);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::narrow' with a tensor start
  // CHECK-MESSAGES-BOTH: :[[@LINE-2]]:12: warning: 'at::narrow' with a tensor start
  auto c = t[start];
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator[]' with a tensor index reads the index from the device and waits for the current stream [torch-sync-device-index]
  // CHECK-MESSAGES: :[[@LINE-2]]:13: note: consider 'index_select', or 'index({idx})' with a 1-element long tensor
  // CHECK-MESSAGES-BOTH: :[[@LINE-3]]:13: warning: 'operator[]' with a tensor index
  return a + b + c;
}

at::Tensor positiveShapeReads(const at::Tensor &t, const at::Tensor &lengths) {
  auto a = t.index({Slice(0, lengths.max().item<int64_t>())});
  // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: 'item' reads a value from the device that sizes, slices or indexes a tensor (a dynamic shape) and waits for the current stream [torch-sync-device-index]
  // CHECK-MESSAGES: :[[@LINE-2]]:44: note: consider passing the size in where the caller knows it (an 'output_size' argument, a size saved in the forward pass, a known bound) or writing into a preallocated 'out' tensor, or keeping sizes on the host
  // CHECK-MESSAGES-BOTH: :[[@LINE-3]]:44: warning: 'item' reads a value from the device that sizes
  // CHECK-MESSAGES-ITEM: :[[@LINE-4]]:44: warning: 'item' copies a tensor element to the host
  int64_t n = lengths.sum().item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'item' reads a value from the device that sizes, slices or indexes a tensor (a dynamic shape) and waits for the current stream [torch-sync-device-index]
  // CHECK-MESSAGES: :[[@LINE-2]]:29: note: consider passing the size in where the caller knows it (an 'output_size' argument, a size saved in the forward pass, a known bound) or writing into a preallocated 'out' tensor, or keeping sizes on the host
  // CHECK-MESSAGES-BOTH: :[[@LINE-3]]:29: warning: 'item' reads a value from the device that sizes
  // CHECK-MESSAGES-ITEM: :[[@LINE-4]]:29: warning: 'item' copies a tensor element to the host
  auto b = at::zeros({n, 4}, t.options());
  auto c = t.narrow(0, 0, lengths[0].item().toLong() - 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'item' reads a value from the device that sizes
  // CHECK-MESSAGES-BOTH: :[[@LINE-2]]:38: warning: 'item' reads a value from the device that sizes
  // CHECK-MESSAGES-ITEM: :[[@LINE-3]]:38: warning: 'item' copies a tensor element to the host
  return a.sum() + b.sum() + c.sum();
}

// Not a shape: an item() that only feeds host arithmetic is torch-sync-item's.
double otherReads(const at::Tensor &t) {
  double mean = t.mean().item<double>();
  // CHECK-MESSAGES-BOTH: :[[@LINE-1]]:26: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-ITEM: :[[@LINE-2]]:26: warning: 'item' copies a tensor element to the host
  return mean * 2;
}

// Negative cases.
at::Tensor negativeHostIndices(const at::Tensor &t, int64_t start, int64_t n) {
  auto a = t.narrow(0, start, 2) + t[0] + t.index({Slice(0, n)});
  auto idx = at::arange(3, t.options().dtype(at::kLong));
  auto b = t.index_select(0, idx);
  auto host = at::ones({4});
  auto c = t.narrow(0, 0, host.sum().item<int64_t>());
  auto d = t[at::zeros({}, at::kLong)];
  return a + b.sum() + c.sum() + d;
}

// A read used as a fill value or inside a tensor index argument is not a size.
at::Tensor negativeNotASize(const at::Tensor &t, const at::Tensor &v, const at::Tensor &idx) {
  auto a = at::full({3}, v.sum().item<float>());
  // CHECK-MESSAGES-BOTH: :[[@LINE-1]]:34: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-ITEM: :[[@LINE-2]]:34: warning: 'item' copies a tensor element to the host
  return a;
}

// A 0-dim integer tensor as an index: ATen/TensorIndexing.h reads it with
// item<int64_t>() to select along the dimension.
at::Tensor positiveZeroDimIndex(const at::Tensor &t, const at::Tensor &scores,
                                const at::Tensor &counts) {
  auto best = scores.argmax();
  auto a = t.index({best});
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'index' with a 0-dim tensor index reads the index from the device and waits for the current stream [torch-sync-device-index]
  // CHECK-MESSAGES: :[[@LINE-2]]:14: note: consider a 1-element index tensor ('index({idx.reshape({1})})', then 'squeeze(0)'), 'index_select', or a host integer
  // CHECK-MESSAGES-BOTH: :[[@LINE-3]]:14: warning: 'index' with a 0-dim tensor index
  auto b = t.index({Slice(), counts.sum() - 1});
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'index' with a 0-dim tensor index
  // CHECK-MESSAGES-BOTH: :[[@LINE-2]]:14: warning: 'index' with a 0-dim tensor index
  auto last = at::zeros({}, scores.options().dtype(at::kLong));
  auto c = t.index({last.to(at::kLong)});
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'index' with a 0-dim tensor index
  // CHECK-MESSAGES-BOTH: :[[@LINE-2]]:14: warning: 'index' with a 0-dim tensor index
  at::Tensor d = t.clone();
  d.index_put_({scores.argmin()}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'index_put_' with a 0-dim tensor index reads the index from the device and waits for the current stream [torch-sync-device-index]
  // CHECK-MESSAGES: :[[@LINE-2]]:5: note: consider a 1-element index tensor ('index_put_({idx.reshape({1})}, value)'), 'index_copy_', or a host integer
  // CHECK-MESSAGES-BOTH: :[[@LINE-3]]:5: warning: 'index_put_' with a 0-dim tensor index
  return a + b + c + d;
}

// Negative cases: index tensors that are not 0-dim stay on the device
// (advanced indexing), reductions along a dimension keep one, and a 0-dim
// index made on the CPU is read there without waiting for the GPU.
at::Tensor negativeNotZeroDimIndex(const at::Tensor &t, const at::Tensor &scores,
                                   const at::Tensor &idx) {
  auto a = t.index({scores.argmax().reshape({1})});
  auto b = t.index({scores.argmax(0)});
  auto c = t.index({idx});
  auto d = t.index({at::zeros({}, at::kLong)});
  auto e = t.index({scores.argmax(/*dim=*/0, /*keepdim=*/true)});
  return a + b + c + d + e;
}
