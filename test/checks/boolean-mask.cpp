// Header sets differ: the first two runs follow the parsed headers' version, and
// index_put_ with a host scalar blocks on 1.x only (the LIBTORCH1 prefixes).
// SMOKE: torch-sync-boolean-mask's matchers on this release's AST (braced index lists, operator[])
// OLDER-LIBTORCH: the LIBTORCH1 lines (index_put_ with a host scalar blocks on 1.x only) and the version read from the headers
// RUN: %check_torch_sync --checks=-*,torch-sync-boolean-mask --temp %t \
// RUN:   %if libtorch-1.x %{--check-suffix=,LIBTORCH1%} %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-boolean-mask --temp %t-dtype \
// RUN:   --check-suffix=DTYPE%if libtorch-1.x %{,DTYPE-LIBTORCH1%} \
// RUN:   --config="{CheckOptions: {torch-sync-boolean-mask.ReportUnknownDtype: true}}" %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-boolean-mask --temp %t-v2 --check-suffix=V2 \
// RUN:   --config="{CheckOptions: {LibTorchVersion: '2.4'}}" %s -- %libtorch_flags

#include <ATen/TensorIndexing.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/gt.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/logical_and.h>
#include <ATen/ops/masked_select.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <torch/version.h>

using at::indexing::Slice;

// Positive cases: a boolean mask picks a data-dependent number of elements.

at::Tensor positiveIndexWithMask(const at::Tensor &scores) {
  auto keep = scores > 0.5;
  return scores.index({keep});
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'index' with a boolean mask reads the number of true elements from the device to size its result and waits for the current stream [torch-sync-boolean-mask]
  // CHECK-MESSAGES: :[[@LINE-2]]:17: note: consider a fixed-shape form: 'at::where(mask, t, 0)', or 'masked_fill_' on a copy
  // CHECK-MESSAGES-DTYPE: :[[@LINE-3]]:17: warning: 'index' with a boolean mask
  // CHECK-MESSAGES-V2: :[[@LINE-4]]:17: warning: 'index' with a boolean mask
}

at::Tensor positiveMaskKinds(const at::Tensor &boxes, const at::Tensor &scores) {
  auto a = boxes.index({Slice(), scores.gt(0.1)});
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'index' with a boolean mask
  // CHECK-MESSAGES-DTYPE: :[[@LINE-2]]:18: warning: 'index' with a boolean mask
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:18: warning: 'index' with a boolean mask
  auto valid = at::logical_and(scores > 0, ~at::isnan(scores));
  auto b = scores.index({valid});
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'index' with a boolean mask
  // CHECK-MESSAGES-DTYPE: :[[@LINE-2]]:19: warning: 'index' with a boolean mask
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:19: warning: 'index' with a boolean mask
  auto c = scores.index({scores.to(at::kBool) & (scores != 0)});
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'index' with a boolean mask
  // CHECK-MESSAGES-DTYPE: :[[@LINE-2]]:19: warning: 'index' with a boolean mask
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:19: warning: 'index' with a boolean mask
  auto d = at::masked_select(scores, scores > 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::masked_select' reads the number of true mask elements from the device to size its result and waits for the current stream [torch-sync-boolean-mask]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider a fixed-shape form: 'at::where(mask, t, 0)', summing or counting with the mask as a weight
  // CHECK-MESSAGES-DTYPE: :[[@LINE-3]]:12: warning: 'at::masked_select'
  // CHECK-MESSAGES-V2: :[[@LINE-4]]:12: warning: 'at::masked_select'
  auto e = scores.masked_select(valid);
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'masked_select' reads
  // CHECK-MESSAGES-DTYPE: :[[@LINE-2]]:19: warning: 'masked_select' reads
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:19: warning: 'masked_select' reads
  return a + b.sum() + c.sum() + d.sum() + e.sum();
}

void positiveIndexPut(at::Tensor &t) {
  auto mask = t > 0;
  auto value = at::zeros({}, t.options());
  t.index_put_({mask}, value);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'index_put_' with a boolean mask turns the mask into indices, which reads their number from the device and waits for the current stream [torch-sync-boolean-mask]
  // CHECK-MESSAGES: :[[@LINE-2]]:5: note: consider 'masked_fill_(mask, value)' with a host scalar, or 'at::where(mask, value, t)'
  // CHECK-MESSAGES-DTYPE: :[[@LINE-3]]:5: warning: 'index_put_' with a boolean mask
  // CHECK-MESSAGES-V2: :[[@LINE-4]]:5: warning: 'index_put_' with a boolean mask
  // LibTorch 1.13 builds a host scalar on the tensor's device, so this syncs
  // with its headers; 2.x sends it to masked_fill_.
  t.index_put_({mask}, 0.0);
  // CHECK-MESSAGES-LIBTORCH1: :[[@LINE-1]]:5: warning: 'index_put_' with a boolean mask
  // CHECK-MESSAGES-DTYPE-LIBTORCH1: :[[@LINE-2]]:5: warning: 'index_put_' with a boolean mask
}

// Negative cases.

at::Tensor negativeFixedShape(const at::Tensor &scores) {
  auto keep = scores > 0.5;
  auto a = at::where(keep, scores, at::zeros({}, scores.options()));
  auto b = scores.masked_fill(keep, 0.0);
  return a + b;
}

at::Tensor negativeNotMasks(const at::Tensor &t, const at::Tensor &idx) {
  auto order = t.argsort();
  auto a = t.index({order});
  auto b = t.index({Slice(0, 2), 1});
  auto c = t.index({idx});
  // CHECK-MESSAGES-DTYPE: :[[@LINE-1]]:14: warning: 'index' with a boolean mask
  return a + b + c;
}

at::Tensor negativeOnCpu() {
  auto host = at::ones({8});
  auto a = host.index({host > 0});
  auto b = at::masked_select(host, host > 0);
  host.index_put_({host > 1}, at::zeros({}));
  return a.sum() + b.sum();
}

void negativeHostValue(at::Tensor &t) {
  auto mask = t > 0;
  t.index_put_({mask}, at::zeros({}));
}
