// The size use of advice-by-use.cpp in a CUDA source (host side only): a value read from the device that
// configures a kernel launch, directly or through a 'dim3', is a size; one passed to the kernel is not.
//
// REQUIRES: cuda-headers
// OLDER-LIBTORCH: the launch configuration is told on each release's declarations (item<T>)
// RUN: %check_torch_sync --checks=-*,torch-sync-item --temp %t %s -- \
// RUN:   %cuda_source_flags %libtorch_cuda_flags %libtorch_flags

#include <ATen/core/Tensor.h>

__global__ void fill(float *p, int64_t n) {}

void launchGrid(const at::Tensor &count, float *p) {
  const int64_t n = count.item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'item' copies a tensor element to the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:27: note: consider passing the size in where the caller knows it (an 'output_size' argument, a size saved in the forward pass, a known bound) or writing into a preallocated 'out' tensor, or keeping sizes on the host
  fill<<<(n + 255) / 256, 256>>>(p, 0);
}

void launchDim3(const at::Tensor &count, float *p) {
  int64_t blocks;
  blocks = count.item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:18: note: consider passing the size in where the caller knows it
  dim3 grid(blocks);
  fill<<<grid, 256>>>(p, 0);
}

// The twin: the value is a kernel argument, not the launch's size.
void launchArgument(const at::Tensor &count, float *p) {
  const int64_t n = count.item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:27: note: consider keeping the value on the device
  fill<<<1, 256>>>(p, n);
}
