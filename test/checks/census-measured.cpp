// The ATen overloads that the GPU census measured to block the host
// (checker/facts/census-aten.tsv), reported by the check whose category the
// census rules of sync-facts.yaml give them, in each C++ spelling: the at::
// function, the Tensor method and the out= forms. Overloads of the same name
// that the census measured as sync-free stay silent: the match is by name and
// parameter kinds.
// OLDER-LIBTORCH: census rows are matched by name and parameter kinds on each release's declarations (LIBTORCH2 lines on 2.x only)
// RUN: %check_torch_sync --checks=-*,torch-sync-* --temp %t \
// RUN:   %if libtorch-2.x %{--check-suffix=,LIBTORCH2%} %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-* --temp %t-known --check-suffix=KNOWN \
// RUN:   --config="{CheckOptions: {ReportUnknownDevice: false}}" %s -- %libtorch_flags

#include <ATen/core/Tensor.h>
#include <ATen/ops/combinations.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/linalg_eig.h>
#include <ATen/ops/linalg_inv.h>
#include <ATen/ops/linalg_inv_ex.h>
#include <ATen/ops/linalg_ldl_solve.h>
#include <ATen/ops/linalg_lstsq.h>
#include <ATen/ops/masked_select.h>
#include <ATen/ops/normal.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/sparse_coo_tensor.h>
#include <ATen/ops/zeros.h>

// Positive cases: tensors of unknown device (parameters), and one known to be
// on CUDA.

void positiveItemCategory(const at::Tensor &a, const at::Tensor &b) {
  auto x = at::linalg_lstsq(a, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::linalg_lstsq' reads values from the device on the host (an error check or a host-side step) and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider calling it outside the hot path, or an '_ex' variant that returns 'info' on the device where one exists
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: measured on a GPU: 1 stream wait, 1 B copied to the host
  at::Tensor out = at::empty_like(a);
  at::linalg_inv_out(out, a);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'at::linalg_inv_out' checks its result for errors on the host (it reads the 'info' tensor) and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'at::linalg_inv_ex' and checking 'info' on the device, or later
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: measured on a GPU: 1 stream wait, 1 B copied to the host
  auto n = at::normal(a, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::normal' reads values of its tensor arguments on the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider calling it outside the hot path
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: measured on a GPU: 2 stream waits, 2 B copied to the host
}

// A measured mechanism with a cudaDeviceSynchronize or a synchronous
// cudaMemcpy waits for all the device's work, not only the current stream's.
void positiveDeviceWideWait(const at::Tensor &ld, const at::Tensor &pivots,
                            const at::Tensor &b) {
  auto x = at::linalg_ldl_solve(ld, pivots, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::linalg_ldl_solve' reads values from the device on the host (an error check or a host-side step) and waits for all work on the device
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: measured on a GPU: 1 device wait, 1 synchronous copy, 40 B copied to the host
}

void positiveDynamicShape(const at::Tensor &a) {
  auto c = at::combinations(a);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::combinations' selects its result with a mask, which reads the number of selected elements from the device and waits for the current stream [torch-sync-dynamic-shape]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider 'at::triu_indices' for the host-known length, then 'index_select'
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: measured on a GPU: 1 stream wait, 4 B copied to the host
  // LibTorch 1.13 declares to_sparse() without the layout parameters that
  // 2.11 measured: its overloads are not the census's (LIBTORCH2 prefix).
  auto s = a.to_sparse();
  // CHECK-MESSAGES-LIBTORCH2: :[[@LINE-1]]:14: warning: 'to_sparse' reads the number of nonzero elements from the device to size the sparse tensor and waits for the current stream [torch-sync-dynamic-shape]
  // CHECK-MESSAGES-LIBTORCH2: :[[@LINE-2]]:14: note: consider keeping the tensor dense in the hot path, or converting it once, outside the hot path
  // CHECK-MESSAGES-LIBTORCH2: :[[@LINE-3]]:14: note: measured on a GPU: 1 stream wait, 4 B copied to the host
}

// A sparse tensor made without a size: its size is read from the indices.
// LibTorch 1.13 declares it without the 'is_coalesced' parameter that 2.11
// measured: its overload is not the census's (LIBTORCH2 prefix).
void positiveSparseWithoutSize(const at::Tensor &indices,
                               const at::Tensor &values) {
  auto s = at::sparse_coo_tensor(indices, values);
  // CHECK-MESSAGES-LIBTORCH2: :[[@LINE-1]]:12: warning: 'at::sparse_coo_tensor' without a size reads the largest index of each sparse dimension from the device to size the tensor and waits for the current stream [torch-sync-dynamic-shape]
  // CHECK-MESSAGES-LIBTORCH2: :[[@LINE-2]]:12: note: consider passing the size ('at::sparse_coo_tensor(indices, values, size, options)'), which the indices then need not give
  // CHECK-MESSAGES-LIBTORCH2: :[[@LINE-3]]:12: note: measured on a GPU: 2 stream waits, 64 B copied to the host
}

// The out= spelling of a fact's operator: the fact's check and texts.
void positiveBooleanMaskOut(const at::Tensor &a, const at::Tensor &mask) {
  at::Tensor out = at::empty_like(a);
  at::masked_select_out(out, a, mask);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'at::masked_select_out' reads the number of true mask elements from the device to size its result and waits for the current stream [torch-sync-boolean-mask]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider a fixed-shape form: 'at::where(mask, t, 0)', summing or counting with the mask as a weight
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: measured on a GPU: 1 stream wait, 4 B copied to the host
}

void positiveDeviceToHost(const at::Tensor &a) {
  auto e = at::linalg_eig(a);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::linalg_eig' copies the matrix to the host and back (its CUDA path computes on the host) and waits for the current stream [torch-sync-device-to-host]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider 'at::linalg_eigh' for symmetric matrices, or calling it outside the hot path
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: measured on a GPU: 28 stream waits, 479 B copied to the host
}

void positiveKnownCuda() {
  at::Tensor a = at::randn({4, 4}, at::TensorOptions().device(at::kCUDA));
  auto e = at::linalg_eig(a);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::linalg_eig' copies the matrix to the host and back (its CUDA path computes on the host) and waits for the current stream [torch-sync-device-to-host]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider 'at::linalg_eigh' for symmetric matrices, or calling it outside the hot path
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: measured on a GPU: 28 stream waits, 479 B copied to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-4]]:12: warning: 'at::linalg_eig' copies the matrix to the host
}

// Negative cases.

// The census measured these sync-free: the '_ex' form, and the normal()
// overload with a host standard deviation.
void negativeMeasuredSyncFree(const at::Tensor &a) {
  auto inv = at::linalg_inv_ex(a);
  auto n = at::normal(a, 1.0);
}

// A sparse tensor given its size: not the overload the census measured.
void negativeSparseWithSize(const at::Tensor &indices,
                            const at::Tensor &values) {
  auto s = at::sparse_coo_tensor(indices, values, {4, 4}, values.options());
}

// Tensors on the CPU never sync.
void negativeCpu() {
  at::Tensor a = at::randn({4, 4});
  auto e = at::linalg_eig(a);
  auto c = at::combinations(a.flatten());
  auto s = at::sparse_coo_tensor(at::zeros({2, 3}, at::kLong), at::randn({3}));
}
