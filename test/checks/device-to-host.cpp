// SMOKE: torch-sync-device-to-host's matchers on this release's AST (the to() overloads, default arguments)
// OLDER-LIBTORCH: torch-sync-device-to-host's facts resolved on each release's declarations (the to() overloads, c10::optional)
// RUN: %check_torch_sync --checks=-*,torch-sync-device-to-host --temp %t %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-device-to-host --temp %t-known --check-suffix=KNOWN \
// RUN:   --config="{CheckOptions: {ReportUnknownDevice: false}}" %s -- %libtorch_flags

#include <ATen/core/Tensor.h>
#include <ATen/ops/abs.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>
#include <torch/types.h>
#include <vector>

// Device to host.

at::Tensor positiveCpu(const at::Tensor &t) {
  return t.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'cpu' copies the tensor to the host and waits for the current stream [torch-sync-device-to-host]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider keeping the computation on the device, or 'to(at::kCPU, /*non_blocking=*/true)' into pinned memory, read after a later synchronization
}

void positiveToCpu(const at::Tensor &t, torch::Tensor &out) {
  auto a = t.to(at::kCPU);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'to' copies the tensor to the host and waits for the current stream [torch-sync-device-to-host]
  // CHECK-MESSAGES: :[[@LINE-2]]:14: note: consider keeping the computation on the device, or a non-blocking copy ('non_blocking=true') from or into pinned memory
  auto b = t.to(torch::Device(torch::kCPU));
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'to' copies the tensor to the host
  auto c = t.to(torch::Device("cpu"), at::kFloat);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'to' copies the tensor to the host
  auto d = t.to(at::TensorOptions().device(at::kCPU).dtype(at::kDouble));
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'to' copies the tensor to the host
  auto host = at::empty({4});
  auto e = t.to(host);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'to' copies the tensor to the host
  auto f = t.to(at::kCPU, /*non_blocking=*/false);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'to' copies the tensor to the host
  auto cuda = at::zeros({4}, at::kCUDA);
  auto g = cuda.abs().to(at::kCPU);
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'to' copies the tensor to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:23: warning: 'to' copies the tensor to the host
  host.copy_(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'copy_' copies device memory into a host tensor and waits for the current stream [torch-sync-device-to-host]
  // CHECK-MESSAGES: :[[@LINE-2]]:8: note: consider a pinned host tensor and 'copy_(src, /*non_blocking=*/true)', read after a later synchronization
  host.copy_(cuda);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'copy_' copies device memory into a host tensor
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:8: warning: 'copy_' copies device memory into a host tensor
  // The copies are read (a copy that nothing reads gets other advice: advice-by-use.cpp).
  out = a + b + c + d + e + f + g;
}

// Host to device.

// Several uploads in a row: the advice is one staging buffer (advice-by-use.cpp).
void positiveHostToDevice(torch::Device device, const std::vector<float> &values) {
  auto host = torch::ones({8});
  auto a = host.cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'cuda' copies a host tensor to the device and waits for the current stream [torch-sync-device-to-host]
  // CHECK-MESSAGES: :[[@LINE-2]]:17: note: consider one pinned staging buffer filled on the host and uploaded once with 'non_blocking' (or 'cudaMemcpyAsync'), instead of one blocking upload each
  // CHECK-MESSAGES-KNOWN: :[[@LINE-3]]:17: warning: 'cuda' copies a host tensor to the device
  auto b = host.to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'to' copies a host tensor to the device
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:17: warning: 'to' copies a host tensor to the device
  auto c = host.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'to' copies a host tensor to the device
  auto cuda = at::empty({8}, at::kCUDA);
  cuda.copy_(host);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'copy_' copies host memory to the device
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:8: warning: 'copy_' copies host memory to the device
  auto d = torch::tensor({1.0f, 2.0f, 3.0f}, torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'torch::tensor' copies a list of host values to the device and waits for the current stream [torch-sync-device-to-host]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider one pinned staging buffer filled on the host and uploaded once with 'non_blocking' (or 'cudaMemcpyAsync'), instead of one blocking upload each
  // CHECK-MESSAGES-KNOWN: :[[@LINE-3]]:12: warning: 'torch::tensor' copies a list of host values
  auto e = torch::tensor(values, torch::TensorOptions().device(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'torch::tensor' copies a list of host values
  for (int i = 0; i < 3; ++i) {
    auto batch = torch::zeros({2, 2}).to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'to' copies a host tensor to the device and waits for the current stream
    // CHECK-MESSAGES: :[[@LINE-2]]:39: note: consider
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
  }
}

// Unknown source and target; a CUDA source and an unknown target (the host or
// another GPU).
at::Tensor positiveUnknownTransfer(const at::Tensor &t, at::Device device) {
  auto cuda = at::ones({2}, at::kCUDA);
  auto moved = cuda.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'to' may copy the tensor between host and device and waits for the current stream
  // (With ReportUnknownDevice off it is silent: the copy is a sync only if the
  // unknown target is the host.)
  return t.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'to' may copy the tensor between host and device and waits for the current stream
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider
}

// Negative cases.

void negativeNonBlocking(const at::Tensor &t, at::Device device) {
  auto pinned = at::empty({4}, at::TensorOptions().pinned_memory(true));
  auto a = t.to(at::kCPU, /*non_blocking=*/true);
  auto b = pinned.to(device, /*non_blocking=*/true);
  pinned.copy_(t, /*non_blocking=*/true);
  auto c = t.to(device, at::kFloat, /*non_blocking=*/true);
}

void negativeNoTransfer(const at::Tensor &t) {
  auto a = t.to(at::kFloat);
  auto b = t.to(at::kHalf, false, /*copy=*/true);
  auto host = at::zeros({3});
  auto c = host.cpu();
  auto d = host.to(at::kCPU).to(torch::kDouble);
  auto cuda = at::ones({3}, at::kCUDA);
  auto e = cuda.cuda();
  auto f = cuda.to(at::kCUDA);
  cuda.copy_(cuda.abs());
  host.copy_(at::ones({3}));
  auto g = torch::tensor(3.5f, torch::kCUDA);
  auto h = torch::tensor({1, 2, 3});
  auto i = t.to(t.device());
}

// Options kept in a static local: its initializer and the assignments in
// the function decide (a dtype only: the CPU); one that a branch points at
// CUDA is a copy.
at::Tensor staticOptions(const std::vector<int64_t> &values, bool gpu) {
  static auto longs = torch::TensorOptions{}.dtype(torch::kLong);
  static auto moved = torch::TensorOptions{}.dtype(torch::kLong);
  if (gpu)
    moved = moved.device(torch::kCUDA);
  return torch::tensor(values, longs) + torch::tensor(values, moved);
  // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'torch::tensor' copies a list of host values to the device
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:41: warning: 'torch::tensor' copies a list of host values to the device
}

// A copy between two tensors of unknown device is most often device to
// device, so it is not reported.
void negativeUnknownCopy(torch::Tensor &dst, const torch::Tensor &src) {
  dst.copy_(src);
}

// A non-constant non_blocking argument gets the benefit of the doubt.
at::Tensor negativeRuntimeNonBlocking(const at::Tensor &t, bool non_blocking) {
  return t.to(at::kCPU, non_blocking);
}
