// The rewrites into a sync-free alternative that change what the program
// does: fix-its of notes, applied by --fix-notes and offered by editors as code
// actions, never applied by --fix (the second run: nothing changes). Each
// fixed line must compile (the runner compiles the fixed file).
// SMOKE: fix-its of warnings (--fix) and of notes (--fix-notes) as this release's clang-tidy applies them
// OLDER-LIBTORCH: the rewrite of a TORCH_CHECK on a device value follows each release's TORCH_CHECK expansion, and the fixed file compiles against its headers
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-device-to-host --fix-notes --temp %t %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-device-to-host --fix --check-suffix=FIX --temp %t.fix %s -- %libtorch_flags

#include <ATen/core/Tensor.h>
#include <ATen/ops/_assert_async.h>
#include <ATen/ops/inverse.h>
#include <ATen/ops/linalg_inv.h>
#include <ATen/ops/linalg_inv_ex.h>
#include <ATen/ops/zeros.h>
#include <c10/util/Exception.h>
#include <tuple>

// A TORCH_CHECK whose condition is a read of a device value becomes a check
// on the device; the message is lost.
void checks(const at::Tensor &x, const at::Tensor &flag) {
  TORCH_CHECK(x.gt(0).all().item<bool>(), "x must be positive");
  // CHECK-NOTES: :[[@LINE-1]]:29: warning: 'item' copies a tensor element to the host and waits for the current stream [torch-sync-item]
  // CHECK-NOTES: :[[@LINE-2]]:29: note: consider keeping the value on the device ('at::where', 'clamp', 'at::_assert_async') or reading it once, outside the hot path
  // CHECK-NOTES: :[[@LINE-3]]:29: note: 'at::_assert_async' checks on the device without waiting; a failure surfaces at a later synchronization, without the message
  // CHECK-MESSAGES-FIX: :[[@LINE-4]]:29: warning: 'item' copies a tensor element to the host and waits for the current stream
  // CHECK-FIXES: at::_assert_async(x.gt(0).all());
  TORCH_CHECK(flag.is_nonzero());
  // CHECK-NOTES: :[[@LINE-1]]:20: warning: 'is_nonzero' reads a tensor element on the host to test it and waits for the current stream [torch-sync-item]
  // CHECK-NOTES: :[[@LINE-2]]:20: note: consider comparing on the device, or 'at::_assert_async' for a check
  // CHECK-NOTES: :[[@LINE-3]]:20: note: 'at::_assert_async' checks on the device without waiting; a failure surfaces at a later synchronization
  // CHECK-MESSAGES-FIX: :[[@LINE-4]]:20: warning: 'is_nonzero' reads a tensor element on the host to test it and waits for the current stream
  // CHECK-FIXES: at::_assert_async(flag);
  TORCH_CHECK(flag.item().toBool());
  // CHECK-NOTES: :[[@LINE-1]]:20: warning: 'item' copies a tensor element to the host and waits for the current stream [torch-sync-item]
  // CHECK-NOTES: :[[@LINE-2]]:20: note: consider keeping the value on the device ('at::where', 'clamp', 'at::_assert_async') or reading it once, outside the hot path
  // CHECK-NOTES: :[[@LINE-3]]:20: note: 'at::_assert_async' checks on the device without waiting; a failure surfaces at a later synchronization
  // CHECK-MESSAGES-FIX: :[[@LINE-4]]:20: warning: 'item' copies a tensor element to the host and waits for the current stream
  // CHECK-FIXES: at::_assert_async(flag);
}

// linalg_inv and inverse check 'info' on the host; linalg_inv_ex returns it.
at::Tensor inverses(const at::Tensor &a) {
  at::Tensor inv = at::linalg_inv(a);
  // CHECK-NOTES: :[[@LINE-1]]:20: warning: 'at::linalg_inv' checks its result for errors on the host (it reads the 'info' tensor) and waits for the current stream [torch-sync-item]
  // CHECK-NOTES: :[[@LINE-2]]:20: note: consider 'at::linalg_inv_ex' and checking 'info' on the device, or later
  // CHECK-NOTES: :[[@LINE-3]]:20: note: 'at::linalg_inv_ex' returns 'info' instead of checking it on the host (a singular matrix no longer throws here)
  // CHECK-MESSAGES-FIX: :[[@LINE-4]]:20: warning: 'at::linalg_inv' checks its result for errors on the host (it reads the 'info' tensor) and waits for the current stream
  // CHECK-FIXES: at::Tensor inv = std::get<0>(at::linalg_inv_ex(a));
  return inv.add(a.inverse());
  // CHECK-NOTES: :[[@LINE-1]]:20: warning: 'inverse' checks its result for errors on the host (it reads the 'info' tensor) and waits for the current stream [torch-sync-item]
  // CHECK-NOTES: :[[@LINE-2]]:20: note: consider 'at::linalg_inv_ex' and checking 'info' on the device, or later
  // CHECK-NOTES: :[[@LINE-3]]:20: note: 'at::linalg_inv_ex' returns 'info' instead of checking it on the host (a singular matrix no longer throws here)
  // CHECK-MESSAGES-FIX: :[[@LINE-4]]:20: warning: 'inverse' checks its result for errors on the host (it reads the 'info' tensor) and waits for the current stream
  // CHECK-FIXES: return inv.add(std::get<0>(at::linalg_inv_ex(a)));
}

// Uploads from host memory, non-blocking. Three in a row: the advice is one
// staging buffer (advice-by-use.cpp).
at::Tensor uploads() {
  at::Tensor host = at::zeros({4});
  at::Tensor a = host.to(at::kCUDA);
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: 'to' copies a host tensor to the device and waits for the current stream [torch-sync-device-to-host]
  // CHECK-NOTES: :[[@LINE-2]]:23: note: consider one pinned staging buffer filled on the host and uploaded once with 'non_blocking' (or 'cudaMemcpyAsync'), instead of one blocking upload each
  // CHECK-NOTES: :[[@LINE-3]]:23: note: 'non_blocking' lets the host go on during an upload from pinned memory ('pin_memory()'); the source must not change until the copy has run
  // CHECK-MESSAGES-FIX: :[[@LINE-4]]:23: warning: 'to' copies a host tensor to the device and waits for the current stream
  // CHECK-FIXES: at::Tensor a = host.to(at::kCUDA, /*non_blocking=*/true);
  at::Tensor b = host.cuda();
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: 'cuda' copies a host tensor to the device and waits for the current stream [torch-sync-device-to-host]
  // CHECK-NOTES: :[[@LINE-2]]:23: note: consider one pinned staging buffer filled on the host and uploaded once with 'non_blocking' (or 'cudaMemcpyAsync'), instead of one blocking upload each
  // CHECK-NOTES: :[[@LINE-3]]:23: note: 'non_blocking' lets the host go on during an upload from pinned memory ('pin_memory()'); the source must not change until the copy has run
  // CHECK-MESSAGES-FIX: :[[@LINE-4]]:23: warning: 'cuda' copies a host tensor to the device and waits for the current stream
  // CHECK-FIXES: at::Tensor b = host.to(at::kCUDA, /*non_blocking=*/true);
  at::Tensor c = host.to(at::kCUDA, at::kHalf);
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: 'to' copies a host tensor to the device and waits for the current stream [torch-sync-device-to-host]
  // CHECK-NOTES: :[[@LINE-2]]:23: note: consider one pinned staging buffer filled on the host and uploaded once with 'non_blocking' (or 'cudaMemcpyAsync'), instead of one blocking upload each
  // CHECK-NOTES: :[[@LINE-3]]:23: note: 'non_blocking' lets the host go on during an upload from pinned memory ('pin_memory()'); the source must not change until the copy has run
  // CHECK-MESSAGES-FIX: :[[@LINE-4]]:23: warning: 'to' copies a host tensor to the device and waits for the current stream
  // CHECK-FIXES: at::Tensor c = host.to(at::kCUDA, at::kHalf, /*non_blocking=*/true);
  return a.add(b).add(c);
}

// No rewrite: a condition that is more than one read, a download, an upload
// whose 'non_blocking' is written.
bool noRewrite(const at::Tensor &x, const at::Tensor &d) {
  TORCH_CHECK(x.item<bool>() || d.item<bool>());
  // CHECK-NOTES: :[[@LINE-1]]:17: warning: 'item' copies a tensor element to the host and waits for the current stream [torch-sync-item]
  // CHECK-NOTES: :[[@LINE-2]]:17: note: consider keeping the value on the device ('at::where', 'clamp', 'at::_assert_async') or reading it once, outside the hot path
  // CHECK-NOTES: :[[@LINE-3]]:35: warning: 'item' copies a tensor element to the host and waits for the current stream [torch-sync-item]
  // CHECK-NOTES: :[[@LINE-4]]:35: note: consider keeping the value on the device ('at::where', 'clamp', 'at::_assert_async') or reading it once, outside the hot path
  // CHECK-MESSAGES-FIX: :[[@LINE-5]]:17: warning: 'item' copies a tensor element to the host and waits for the current stream
  // CHECK-MESSAGES-FIX: :[[@LINE-6]]:35: warning: 'item' copies a tensor element to the host and waits for the current stream
  // CHECK-FIXES: TORCH_CHECK(x.item<bool>() || d.item<bool>());
  at::Tensor host = d.to(at::kCPU);
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: 'to' copies the tensor to the host and waits for the current stream [torch-sync-device-to-host]
  // CHECK-NOTES: :[[@LINE-2]]:23: note: consider keeping the computation on the device, or a non-blocking copy ('non_blocking=true') from or into pinned memory
  // CHECK-MESSAGES-FIX: :[[@LINE-3]]:23: warning: 'to' copies the tensor to the host and waits for the current stream
  // CHECK-FIXES: at::Tensor host = d.to(at::kCPU);
  at::Tensor up = at::zeros({4}).to(at::kCUDA, at::kFloat, /*non_blocking=*/false);
  // CHECK-NOTES: :[[@LINE-1]]:34: warning: 'to' copies a host tensor to the device and waits for the current stream [torch-sync-device-to-host]
  // CHECK-NOTES: :[[@LINE-2]]:34: note: consider keeping the computation on the device, or a non-blocking copy ('non_blocking=true') from or into pinned memory
  // CHECK-MESSAGES-FIX: :[[@LINE-3]]:34: warning: 'to' copies a host tensor to the device and waits for the current stream
  // CHECK-FIXES: at::Tensor up = at::zeros({4}).to(at::kCUDA, at::kFloat, /*non_blocking=*/false);
  return host.defined() && up.defined();
}
