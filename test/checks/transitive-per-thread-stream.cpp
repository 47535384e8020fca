// With a per-thread default stream (CUDA_API_PER_THREAD_DEFAULT_STREAM), the
// CUDA headers declare many functions under other names (cudaMemcpy_ptds,
// cudaStreamSynchronize_ptsz, cuMemcpyDtoH_v2_ptds). A helper that waits is
// reported at its calls in both modes, naming the wait by its documented
// name; the asynchronous and device-to-device forms are not waits in either.
//
// REQUIRES: cuda-headers
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t %s -- -std=c++17 %cuda_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t-ptds %s -- -std=c++17 %cuda_flags \
// RUN:   -DCUDA_API_PER_THREAD_DEFAULT_STREAM

#include <cuda.h>
#include <cuda_runtime_api.h>

void waitStream(cudaStream_t stream) { cudaStreamSynchronize(stream); }
void waitDevice() { cudaDeviceSynchronize(); }
void copyBack(float *host, const float *device, size_t bytes) {
  cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost);
}
void copyBackDriver(float *host, CUdeviceptr device, size_t bytes) {
  cuMemcpyDtoH(host, device, bytes);
}
void copyAsync(float *host, const float *device, size_t bytes, cudaStream_t stream) {
  cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream);
}
void copyOnDevice(float *target, const float *source, size_t bytes) {
  cudaMemcpy(target, source, bytes, cudaMemcpyDeviceToDevice);
}
void createContext() { cudaFree(nullptr); }

void positiveCallers(float *host, float *device, CUdeviceptr driverDevice,
                     size_t bytes, cudaStream_t stream) {
  waitStream(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'waitStream' calls 'cudaStreamSynchronize' in its body, which blocks the host
  // CHECK-MESSAGES: :15:40: note: 'cudaStreamSynchronize' synchronizes here
  waitDevice();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'waitDevice' calls 'cudaDeviceSynchronize' in its body
  // CHECK-MESSAGES: :16:21: note: 'cudaDeviceSynchronize' synchronizes here
  copyBack(host, device, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'copyBack' calls 'cudaMemcpy' in its body
  // CHECK-MESSAGES: :18:3: note: 'cudaMemcpy' synchronizes here
  copyBackDriver(host, driverDevice, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'copyBackDriver' calls 'cuMemcpyDtoH' in its body
  // CHECK-MESSAGES: :21:3: note: 'cuMemcpyDtoH' synchronizes here
}

void negativeCallers(float *host, float *device, size_t bytes,
                     cudaStream_t stream) {
  copyAsync(host, device, bytes, stream);
  copyOnDevice(host, device, bytes);
  createContext();
}
