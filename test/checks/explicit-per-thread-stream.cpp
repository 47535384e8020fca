// With a per-thread default stream (nvcc --default-stream per-thread defines
// CUDA_API_PER_THREAD_DEFAULT_STREAM), the CUDA headers' macros declare many
// functions under other names: cudaMemcpy_ptds, cudaStreamSynchronize_ptsz,
// cuMemcpyDtoH_v2_ptds. The same calls are reported, under the documented
// names, in both modes.
//
// REQUIRES: cuda-headers
// RUN: %check_torch_sync --checks=-*,torch-sync-explicit --temp %t %s -- -std=c++17 %cuda_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-explicit --temp %t-ptds %s -- -std=c++17 %cuda_flags \
// RUN:   -DCUDA_API_PER_THREAD_DEFAULT_STREAM

#include <cuda.h>
#include <cuda_runtime_api.h>

void positiveRuntime(float *device, float *host, size_t bytes,
                     const void *symbol, cudaStream_t stream) {
  cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaStreamSynchronize' waits for the work queued on that stream
  cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy' copies synchronously
  cudaMemcpy2D(host, 64, device, 64, 64, 4, cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy2D' copies synchronously
  cudaMemcpy3DParms params = {};
  cudaMemcpy3D(&params);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy3D' copies synchronously
  cudaMemcpyToSymbol(symbol, host, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyToSymbol' copies synchronously
  cudaMemcpyFromSymbol(host, symbol, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyFromSymbol' copies synchronously
}

void positiveDriver(CUdeviceptr device, float *host, size_t bytes,
                    CUstream stream) {
  cuStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuStreamSynchronize' waits for the work queued on that stream
  cuMemcpy(reinterpret_cast<CUdeviceptr>(host), device, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemcpy' copies synchronously
  cuMemcpyDtoH(host, device, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemcpyDtoH' copies synchronously
  cuMemcpyHtoD(device, host, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemcpyHtoD' copies synchronously
  CUDA_MEMCPY2D copy2d = {};
  cuMemcpy2D(&copy2d);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemcpy2D' copies synchronously
  CUDA_MEMCPY3D copy3d = {};
  cuMemcpy3D(&copy3d);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemcpy3D' copies synchronously
}

// The asynchronous forms, renamed the same way, stay silent.
void negativeAsync(float *device, float *host, size_t bytes,
                   cudaStream_t stream, CUdeviceptr devicePtr,
                   CUstream driverStream) {
  cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream);
  (void)cudaStreamQuery(stream);
  cuMemcpyDtoHAsync(host, devicePtr, bytes, driverStream);
  (void)cuStreamQuery(driverStream);
}
