// REQUIRES: cuda-headers
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t %s -- -std=c++17 %cuda_flags

// A helper that waits with a CUDA runtime call is reported at its calls; one
// whose only copy is device to device is not (torch-sync-explicit exempts
// that copy too).
#include <cuda_runtime_api.h>

void copyToHost(void *host, const void *device, size_t bytes) {
  cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost);
}
void copyOnDevice(void *target, const void *source, size_t bytes) {
  cudaMemcpy(target, source, bytes, cudaMemcpyDeviceToDevice);
}

void callers(void *host, void *a, const void *b, size_t bytes) {
  copyToHost(host, b, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'copyToHost' calls 'cudaMemcpy' in its body, which blocks the host
  // CHECK-MESSAGES: :10:3: note: 'cudaMemcpy' synchronizes here
  copyOnDevice(a, b, bytes);
}
