// REQUIRES: cuda-headers
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t %s -- -std=c++17 %cuda_flags

// A helper that waits with a CUDA runtime call is reported at its calls; one
// whose only copy is device to device is not (torch-sync-explicit exempts
// that copy too). An asynchronous copy waits only from the device into
// pageable memory: into a std::vector it does, into pinned memory not.
#include <cuda_runtime_api.h>
#include <vector>

void copyToHost(void *host, const void *device, size_t bytes) {
  cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost);
}
void copyOnDevice(void *target, const void *source, size_t bytes) {
  cudaMemcpy(target, source, bytes, cudaMemcpyDeviceToDevice);
}

void downloadIntoVector(const void *device, size_t bytes, cudaStream_t stream) {
  std::vector<char> host(bytes);
  cudaMemcpyAsync(host.data(), device, bytes, cudaMemcpyDeviceToHost, stream);
}
void downloadIntoPinned(const void *device, size_t bytes, cudaStream_t stream) {
  void *host = nullptr;
  cudaMallocHost(&host, bytes);
  cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream);
}

void callers(void *host, void *a, const void *b, size_t bytes) {
  copyToHost(host, b, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'copyToHost' calls 'cudaMemcpy' in its body, which blocks the host
  // CHECK-MESSAGES: :12:3: note: 'cudaMemcpy' synchronizes here
  copyOnDevice(a, b, bytes);
}

void asyncCallers(const void *device, size_t bytes, cudaStream_t stream) {
  downloadIntoVector(device, bytes, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'downloadIntoVector' calls 'cudaMemcpyAsync' in its body, which blocks the host
  // CHECK-MESSAGES: :20:3: note: 'cudaMemcpyAsync' synchronizes here
  downloadIntoPinned(device, bytes, stream);
}
