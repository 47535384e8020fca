// The tensor-value overloads of masked_fill_, index_fill_ and fill_ read the
// value on the host; their Scalar twins do not. Linear algebra without _ex
// reads its error information on the host.
// Header sets differ: the first run follows the parsed headers' version, and
// fill_ reads a same-device value on the host on 1.x only (LIBTORCH1 prefix).
// OLDER-LIBTORCH: the LIBTORCH1 line (fill_ reads a same-device value on 1.x only) and the version read from the headers
// RUN: %check_torch_sync --checks=-*,torch-sync-item --temp %t \
// RUN:   %if libtorch-1.x %{--check-suffix=,LIBTORCH1%} %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-item --temp %t-v2 --check-suffix=V2 \
// RUN:   --config="{CheckOptions: {LibTorchVersion: '2.4'}}" %s -- %libtorch_flags

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/cholesky.h>
#include <ATen/ops/inverse.h>
#include <ATen/ops/linalg_cholesky.h>
#include <ATen/ops/linalg_cholesky_ex.h>
#include <ATen/ops/linalg_inv.h>
#include <ATen/ops/linalg_inv_ex.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>
#include <torch/version.h> // the rules of the parsed headers' version

void positiveValueOverloads(at::Tensor &t, const at::Tensor &mask,
                            const at::Tensor &index) {
  auto value = at::zeros({}, at::kCUDA);
  t.masked_fill_(mask, value);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'masked_fill_' with a tensor value reads the value on the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:5: note: consider a host scalar value, or 'at::where(mask, value, t)'
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:5: warning: 'masked_fill_' with a tensor value
  auto u = t.masked_fill(mask, value);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'masked_fill' with a tensor value
  // CHECK-MESSAGES-V2: :[[@LINE-2]]:14: warning: 'masked_fill' with a tensor value
  t.index_fill_(0, index, value);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'index_fill_' with a tensor value reads the value on the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:5: note: consider the overload taking a host scalar value
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:5: warning: 'index_fill_' with a tensor value
  auto host = at::zeros({4});
  host.fill_(value);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'fill_' with a device tensor value reads the value on the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:8: note: consider a value on the same device as the tensor, or a host scalar
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:8: warning: 'fill_' with a device tensor value
  auto cuda = at::ones({4}, at::kCUDA);
  // LibTorch up to 2.1 read a same-device value on the host too.
  cuda.fill_(value);
  // CHECK-MESSAGES-LIBTORCH1: :[[@LINE-1]]:8: warning: 'fill_' with a device tensor value
}

void negativeScalarOverloads(at::Tensor &t, const at::Tensor &mask,
                             const at::Tensor &index) {
  t.masked_fill_(mask, 0.0);
  t.masked_fill_(mask, at::zeros({}));
  t.index_fill_(0, index, 1.0);
  t.fill_(2.0);
  t.fill_(at::ones({}));
}

at::Tensor positiveLinalg(const at::Tensor &a) {
  auto inv = at::linalg_inv(a);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'at::linalg_inv' checks its result for errors on the host (it reads the 'info' tensor) and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:14: note: consider 'at::linalg_inv_ex' and checking 'info' on the device, or later
  // CHECK-MESSAGES-V2: :[[@LINE-3]]:14: warning: 'at::linalg_inv' checks
  auto l = at::linalg_cholesky(a) + a.inverse() + a.cholesky();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::linalg_cholesky' checks its result
  // CHECK-MESSAGES: :[[@LINE-2]]:39: warning: 'inverse' checks its result
  // CHECK-MESSAGES: :[[@LINE-3]]:53: warning: 'cholesky' checks its result
  // CHECK-MESSAGES-V2: :[[@LINE-4]]:12: warning: 'at::linalg_cholesky' checks its result
  // CHECK-MESSAGES-V2: :[[@LINE-5]]:39: warning: 'inverse' checks its result
  // CHECK-MESSAGES-V2: :[[@LINE-6]]:53: warning: 'cholesky' checks its result
  return inv + l;
}

at::Tensor negativeLinalgEx(const at::Tensor &a) {
  auto inv = std::get<0>(at::linalg_inv_ex(a));
  auto l = std::get<0>(at::linalg_cholesky_ex(a));
  auto host = at::ones({3, 3});
  return inv + l + at::linalg_inv(host).sum();
}
