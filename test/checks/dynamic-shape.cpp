// Header sets differ: the first run follows the parsed headers' version, and
// repeat_interleave with an int64_t repeats reads on 1.x only (LIBTORCH1 prefix).
// SMOKE: torch-sync-dynamic-shape's matchers on this release's AST (optional arguments, the functional API)
// OLDER-LIBTORCH: the LIBTORCH1 line (repeat_interleave with int64_t repeats reads on 1.x only) and the version read from the headers
// RUN: %check_torch_sync --checks=-*,torch-sync-dynamic-shape --temp %t \
// RUN:   %if libtorch-1.x %{--check-suffix=,LIBTORCH1%} %s -- %libtorch_flags -I%S/Inputs
// RUN: %check_torch_sync --checks=-*,torch-sync-dynamic-shape --temp %t-known --check-suffix=KNOWN \
// RUN:   --config="{CheckOptions: {torch-sync-dynamic-shape.ReportUnknownDevice: false}}" %s -- %libtorch_flags -I%S/Inputs
// RUN: %check_torch_sync --checks=-*,torch-sync-dynamic-shape --temp %t-v2 --check-suffix=V2 \
// RUN:   --config="{CheckOptions: {LibTorchVersion: '2.4'}}" %s -- %libtorch_flags -I%S/Inputs

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/_unique.h>
#include <ATen/ops/_unique2.h>
#include <ATen/ops/argwhere.h>
#include <ATen/ops/bincount.h>
#include <ATen/ops/histc.h>
#include <ATen/ops/nonzero.h>
#include <ATen/ops/nonzero_numpy.h>
#include <ATen/ops/one_hot.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/repeat_interleave.h>
#include <ATen/ops/unique_consecutive.h>
#include <ATen/ops/unique_dim.h>
#include <ATen/ops/unique_dim_consecutive.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <torch/nn/functional/embedding.h>
#include <torch/version.h>

#include "dynamic-shape-2x-decls.h"

// Positive cases: tensors of unknown device (parameters) whose values decide
// the size of the output.

at::Tensor positiveNonzero(const at::Tensor &mask) {
  auto a = mask.nonzero();
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'nonzero' reads the number of nonzero elements from the device to size its output and waits for the current stream [torch-sync-dynamic-shape]
  // CHECK-MESSAGES: :[[@LINE-2]]:17: note: consider a fixed-size formulation ('at::where(cond, x, 0)', the mask as a weight) or 'nonzero_static' (LibTorch 2.1+) with a known bound
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:17: warning: 'nonzero' reads
  auto b = at::nonzero(mask);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::nonzero' reads the number of nonzero elements from the device to size its output
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:12: warning: 'at::nonzero' reads
  auto c = torch::nonzero(mask);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::nonzero' reads the number of nonzero elements
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:12: warning: 'at::nonzero' reads
  auto d = mask.argwhere();
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'argwhere' reads the number of nonzero elements from the device to size its output and waits for the current stream
  // CHECK-MESSAGES: :[[@LINE-2]]:17: note: consider a fixed-size formulation
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:17: warning: 'argwhere' reads
  auto e = at::argwhere(mask);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::argwhere' reads the number of nonzero elements
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:12: warning: 'at::argwhere' reads
  return a + b + c + d + e;
}

std::vector<at::Tensor> positiveWhereOneArgument(const at::Tensor &cond) {
  auto rows = at::where(cond);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'at::where' with one argument reads the number of true elements from the device to size its outputs and waits for the current stream [torch-sync-dynamic-shape]
  // CHECK-MESSAGES: :[[@LINE-2]]:15: note: consider the three-argument 'at::where(cond, x, 0)', which keeps the shape, or 'nonzero_static' (LibTorch 2.1+) with a known bound
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:15: warning: 'at::where' with one argument
  auto cols = torch::where(cond);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'at::where' with one argument reads
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:15: warning: 'at::where' with one argument
  auto numpy = cond.nonzero_numpy();
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'nonzero_numpy' reads the number of nonzero elements from the device to size its outputs
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:21: warning: 'nonzero_numpy' reads
  auto numpy2 = at::nonzero_numpy(cond);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'at::nonzero_numpy' reads
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:17: warning: 'at::nonzero_numpy' reads
  rows.insert(rows.end(), cols.begin(), cols.end());
  rows.insert(rows.end(), numpy.begin(), numpy.end());
  rows.insert(rows.end(), numpy2.begin(), numpy2.end());
  return rows;
}

at::Tensor positiveUnique(const at::Tensor &labels) {
  auto a = std::get<0>(at::_unique(labels));
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'at::_unique' reads the number of unique elements from the device to size its output and waits for the current stream [torch-sync-dynamic-shape]
  // CHECK-MESSAGES: :[[@LINE-2]]:24: note: consider a fixed-size formulation when the K possible values are known ('at::zeros({K}).index_fill_(0, t, 1)' marks those present)
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:24: warning: 'at::_unique' reads
  auto b = std::get<0>(at::_unique2(labels, /*sorted=*/true, false, true));
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'at::_unique2' reads the number of unique elements
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:24: warning: 'at::_unique2' reads
  auto c = std::get<0>(torch::unique_consecutive(labels));
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'at::unique_consecutive' reads the number of unique elements
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:24: warning: 'at::unique_consecutive' reads
  auto d = std::get<0>(at::unique_dim(labels, 0));
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'at::unique_dim' reads the number of unique slices from the device to size its output
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:24: warning: 'at::unique_dim' reads
  auto e = std::get<0>(at::unique_dim_consecutive(labels, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'at::unique_dim_consecutive' reads the number of unique slices
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:24: warning: 'at::unique_dim_consecutive' reads
  return a + b + c + d + e;
}

at::Tensor positiveRepeatInterleave(const at::Tensor &x,
                                    const at::Tensor &repeats) {
  auto a = x.repeat_interleave(repeats);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'repeat_interleave' without 'output_size' reads the sum of the repeats from the device to size its output and waits for the current stream [torch-sync-dynamic-shape]
  // CHECK-MESSAGES: :[[@LINE-2]]:14: note: consider passing the total as 'output_size' ('repeat_interleave(repeats, dim, total)') when the host knows it
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:14: warning: 'repeat_interleave' without 'output_size'
  auto b = at::repeat_interleave(repeats);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::repeat_interleave' without 'output_size' reads
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:12: warning: 'at::repeat_interleave' without
  auto c = at::repeat_interleave(x, repeats, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::repeat_interleave' without 'output_size' reads
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:12: warning: 'at::repeat_interleave' without
  // An empty output_size, spelled out, is no size.
  auto d = x.repeat_interleave(repeats, 0, c10::nullopt);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'repeat_interleave' without 'output_size' reads
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:14: warning: 'repeat_interleave' without
  auto e = x.repeat_interleave(repeats, {}, {});
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'repeat_interleave' without 'output_size' reads
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:14: warning: 'repeat_interleave' without
  // Up to LibTorch 2.0, an int64_t repeats went through a repeats tensor on
  // the input's device, and the same read; since 2.1 the size is computed on
  // the host (the V2 run, and the 2.x headers' version).
  auto f = x.repeat_interleave(2);
  // CHECK-MESSAGES-LIBTORCH1: :[[@LINE-1]]:14: warning: 'repeat_interleave' without 'output_size' reads
  return a + b + c + d + e + f;
}

at::Tensor positiveBincountHistcOneHot(const at::Tensor &t,
                                       const at::Tensor &w) {
  auto a = t.bincount();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'bincount' reads the largest value from the device to size its output and waits for the current stream [torch-sync-dynamic-shape]
  // CHECK-MESSAGES: :[[@LINE-2]]:14: note: consider 'at::zeros({K}, t.options()).index_add_(0, t, at::ones_like(t))' (or 'scatter_add_') with a known number of bins K
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:14: warning: 'bincount' reads
  auto b = at::bincount(t, w, /*minlength=*/10);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::bincount' reads the largest value
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:12: warning: 'at::bincount' reads
  auto c = t.histc();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'histc' without a range reads the minimum and maximum from the device to place its bins and waits for the current stream [torch-sync-dynamic-shape]
  // CHECK-MESSAGES: :[[@LINE-2]]:14: note: consider an explicit range ('histc(t, bins, lo, hi)' with lo != hi)
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:14: warning: 'histc' without a range
  auto d = at::histc(t, 10);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::histc' without a range reads
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:12: warning: 'at::histc' without a range
  // min == max, however written, means "take the range from the data".
  auto e = t.histc(10, 1.0, at::Scalar(1));
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'histc' without a range reads
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:14: warning: 'histc' without a range
  auto f = at::one_hot(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::one_hot' without 'num_classes' reads the largest class index from the device to size its output and waits for the current stream [torch-sync-dynamic-shape]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider passing the number of classes ('one_hot(t, num_classes)')
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:12: warning: 'at::one_hot' without 'num_classes'
  auto g = at::one_hot(t, -1);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::one_hot' without 'num_classes' reads
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:12: warning: 'at::one_hot' without 'num_classes'
  auto h = torch::nn::functional::one_hot(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'torch::nn::functional::one_hot' without 'num_classes' reads the largest class index
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:12: warning: 'torch::nn::functional::one_hot' without
  return a + b + c + d + e + f + g + h;
}

// A tensor known to be on CUDA is reported also with ReportUnknownDevice off,
// with the loop note inside a loop.
int64_t positiveKnownCuda(int steps) {
  auto scores = at::ones({8}, at::TensorOptions().device(at::kCUDA));
  int64_t total = 0;
  for (int i = 0; i < steps; ++i) {
    auto kept = (scores > i).nonzero();
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'nonzero' reads the number of nonzero elements from the device to size its output and waits for the current stream
    // CHECK-MESSAGES: :[[@LINE-2]]:30: note: consider
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-KNOWN: :[[@LINE-4]]:30: warning: 'nonzero' reads the number of nonzero elements from the device to size its output and waits for the current stream
    // CHECK-MESSAGES-KNOWN: :[[@LINE-5]]:30: note: consider
    // CHECK-MESSAGES-KNOWN: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-V2: :[[@LINE-7]]:30: warning: 'nonzero' reads
    total += kept.size(0);
  }
  auto labels = at::zeros({8}, at::kCUDA).to(at::kLong);
  auto counts = at::bincount(labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'at::bincount' reads the largest value
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:17: warning: 'at::bincount' reads the largest value
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:17: warning: 'at::bincount' reads
  return total + counts.size(0);
}

// Shape-stable twins: the same results, sized on the host.

at::Tensor negativeFixedSizeNonzero(const at::Tensor &mask,
                                    const at::Tensor &x) {
  auto masked = at::where(mask, x, 0);
  auto kept = x.where(mask, at::zeros_like(x));
  auto first = at::nonzero_static(mask, /*size=*/16);
  return masked + kept + first;
}

at::Tensor negativeOutputSizeGiven(const at::Tensor &x,
                                   const at::Tensor &repeats, int64_t total,
                                   c10::optional<int64_t> maybe_total) {
  auto a = x.repeat_interleave(repeats, 0, total);
  auto b = at::repeat_interleave(repeats, c10::optional<int64_t>(total));
  // A variable optional may be empty at run time: the benefit of the doubt.
  auto c = at::repeat_interleave(x, repeats, 0, maybe_total);
  auto d = x.repeat_interleave(2, 0, 2 * x.size(0));
  return a + b + c + d;
}

at::Tensor negativeKnownBinsAndClasses(const at::Tensor &t, double lo,
                                       double hi, int64_t classes) {
  constexpr int64_t K = 10;
  auto counts = at::zeros({K}, t.options()).index_add_(0, t, at::ones_like(t));
  auto present =
      at::zeros({K}, t.options().dtype(at::kBool)).index_fill_(0, t, true);
  auto h1 = t.histc(K, 0, 1);
  auto h2 = at::histc(t, K, -1.5, 1.5);
  // A range computed at run time gets the benefit of the doubt.
  auto h3 = at::histc(t, K, lo, hi);
  auto o1 = at::one_hot(t, K);
  auto o2 = at::one_hot(t, classes);
  auto o3 = torch::nn::functional::one_hot(t, 3);
  return counts + present + h1 + h2 + h3 + o1 + o2 + o3;
}

// Provably on the CPU: no device to wait for.
at::Tensor negativeCpu() {
  auto mask = at::zeros({4}) > 0;
  auto labels = at::zeros({4}, at::kLong);
  auto a = mask.nonzero();
  auto b = std::get<0>(at::unique_consecutive(labels));
  auto c = labels.bincount() + at::histc(labels.to(at::kFloat));
  auto d = at::one_hot(labels).sum() + labels.repeat_interleave(labels).sum();
  return a.sum() + b.sum() + c.sum() + d;
}

// Not this check's business: boolean-mask selection (torch-sync-boolean-mask).
at::Tensor negativeMaskedSelect(const at::Tensor &x, const at::Tensor &mask) {
  return x.masked_select(mask);
}
