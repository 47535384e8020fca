// REQUIRES: cuda-headers
// The asynchronous CUDA copies by the kind of their host memory: from the
// device into pageable memory the copy returns only once the data is on the
// host, so it waits (census: 'cudaMemcpyAsync DtoH 1 MiB into pageable
// memory'); into pinned memory, from the host to the device, and into memory
// of unknown kind it is not reported. And the synchronous copies between host
// memory and a CUDA array.
// OLDER-LIBTORCH: the LIBTORCH2 lines (Tensor::mutable_data_ptr is 2.1+), tensors made and pinned on each release's headers, the CPU build's CUDA stand-in
// RUN: %check_torch_sync --checks=-*,torch-sync-explicit --temp %t \
// RUN:   --check-suffix=,%if libtorch-1.x %{LIBTORCH1%} %else %{LIBTORCH2%} %s -- \
// RUN:   %libtorch_flags %cuda_flags %libtorch_cuda_flags

#include <ATen/ATen.h>
#include <torch/version.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <vector>

// CUDA 13 removed the one-dimensional array copies; older headers declare
// them so.
extern "C" cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset,
                                         size_t hOffset, const void *src,
                                         size_t count, cudaMemcpyKind kind);
extern "C" cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src,
                                           size_t wOffset, size_t hOffset,
                                           size_t count, cudaMemcpyKind kind);

constexpr size_t kCount = 256;
constexpr size_t kBytes = kCount * sizeof(float);
float globalBuffer[kCount];

// Pageable targets, each reported.

void positiveStandardContainers(const float *device, cudaStream_t stream) {
  std::vector<float> host(kCount);
  cudaMemcpyAsync(host.data(), device, kBytes, cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory, so it waits for the work queued before it on its stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider pinned host memory ('cudaMallocHost' or a pinned tensor) as the target, with an event waited on only where the host reads the data
  cudaMemcpyAsync(&host[0], device, kBytes, cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider
  cudaMemcpyAsync(host.data() + 16, device, 64, cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider
}

void positiveStackAndGlobals(const float *device, cudaStream_t stream) {
  float onStack[kCount];
  cudaMemcpyAsync(onStack, device, kBytes, cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider
  float value = 0;
  cudaMemcpyAsync(&value, device, sizeof(float), cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider
  cudaMemcpyAsync(globalBuffer, device, kBytes, cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider
}

void positiveHeap(const float *device, cudaStream_t stream) {
  float *fromNew = new float[kCount];
  cudaMemcpyAsync(fromNew, device, kBytes, cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider
  auto *fromMalloc = static_cast<float *>(std::malloc(kBytes));
  cudaMemcpyAsync(fromMalloc, device, kBytes, cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider
  std::free(fromMalloc);
  delete[] fromNew;
}

void positiveCpuTensors(const at::Tensor &onDevice, cudaStream_t stream) {
  at::Tensor source = at::zeros({int64_t(kCount)}, at::kCUDA);
  at::Tensor host = at::zeros({int64_t(kCount)});
  cudaMemcpyAsync(host.data_ptr<float>(), source.data_ptr<float>(), kBytes,
                  cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: consider
  cudaMemcpyAsync(host.data_ptr(), source.data_ptr(), kBytes,
                  cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: consider
  at::Tensor copied = source.cpu();
  cudaMemcpyAsync(copied.data_ptr(), source.data_ptr(), kBytes,
                  cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: consider
  // The direction taken from the pointers: a CUDA tensor's data to the host.
  cudaMemcpyAsync(host.data_ptr(), source.data_ptr(), kBytes, cudaMemcpyDefault,
                  stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: consider
#if TORCH_VERSION_MAJOR >= 2
  cudaMemcpyAsync(host.mutable_data_ptr<float>(), source.const_data_ptr<float>(),
                  kBytes, cudaMemcpyDefault, stream);
  // CHECK-MESSAGES-LIBTORCH2: :[[@LINE-2]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES-LIBTORCH2: :[[@LINE-3]]:3: note: consider
#endif
}

void positiveOtherAsyncCopies(const float *device, const void *symbol,
                              cudaArray_const_t array, CUdeviceptr driverSource,
                              cudaStream_t stream) {
  std::vector<float> host(kCount);
  cudaMemcpy2DAsync(host.data(), 64, device, 64, 64, 16, cudaMemcpyDeviceToHost,
                    stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'cudaMemcpy2DAsync' copies into pageable host memory, so it waits for the work queued before it on its stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: consider pinned host memory ('cudaMallocHost' or a pinned tensor) as the target, with an event waited on only where the host reads the data
  cudaMemcpy2DFromArrayAsync(host.data(), 64, array, 0, 0, 64, 16,
                             cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'cudaMemcpy2DFromArrayAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: consider
  cudaMemcpyFromSymbolAsync(host.data(), symbol, kBytes, 0,
                            cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'cudaMemcpyFromSymbolAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: consider
  cuMemcpyDtoHAsync(host.data(), driverSource, kBytes, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemcpyDtoHAsync' copies into pageable host memory, so it waits for the work queued before it on its stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider pinned host memory ('cuMemAllocHost' or a pinned tensor), with an event waited on only where the host reads the data
  CUdeviceptr allocated = 0;
  cuMemAlloc(&allocated, kBytes);
  cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(host.data()), allocated, kBytes,
                stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'cuMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: consider
  void *fromMalloc = nullptr;
  cudaMalloc(&fromMalloc, kBytes);
  cudaMemcpyAsync(host.data(), fromMalloc, kBytes, cudaMemcpyDefault, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider
}

// Registered memory is pinned from its registration to its unregistration.
void positiveUnregisteredAgain(const float *device, cudaStream_t stream) {
  std::vector<float> host(kCount);
  cudaHostRegister(host.data(), kBytes, cudaHostRegisterDefault);
  cudaHostUnregister(host.data());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaHostUnregister' unpins host memory
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider
  cudaMemcpyAsync(host.data(), device, kBytes, cudaMemcpyDeviceToHost, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider
}

// Pinned targets: the copy is queued and returns at once.

void negativePinned(const float *device, CUdeviceptr driverSource,
                    cudaStream_t stream) {
  void *mallocHost = nullptr;
  cudaMallocHost(&mallocHost, kBytes);
  cudaMemcpyAsync(mallocHost, device, kBytes, cudaMemcpyDeviceToHost, stream);
  void *hostAlloc = nullptr;
  cudaHostAlloc(&hostAlloc, kBytes, cudaHostAllocDefault);
  cudaMemcpyAsync(hostAlloc, device, kBytes, cudaMemcpyDeviceToHost, stream);
  float *castAlloc = nullptr;
  cudaHostAlloc(reinterpret_cast<void **>(&castAlloc), kBytes,
                cudaHostAllocPortable);
  cudaMemcpyAsync(castAlloc + 1, device, 64, cudaMemcpyDeviceToHost, stream);
  void *driverHost = nullptr;
  cuMemAllocHost(&driverHost, kBytes);
  cuMemcpyDtoHAsync(driverHost, driverSource, kBytes, stream);
  void *driverHostAlloc = nullptr;
  cuMemHostAlloc(&driverHostAlloc, kBytes, 0);
  cuMemcpyDtoHAsync(driverHostAlloc, driverSource, kBytes, stream);
  std::vector<float> registered(kCount);
  cudaHostRegister(registered.data(), kBytes, cudaHostRegisterDefault);
  cudaMemcpyAsync(registered.data(), device, kBytes, cudaMemcpyDeviceToHost,
                  stream);
  float *heap = new float[kCount];
  cuMemHostRegister(heap, kBytes, 0);
  cuMemcpyDtoHAsync(heap, driverSource, kBytes, stream);
}

void negativePinnedTensors(cudaStream_t stream) {
  at::Tensor source = at::zeros({int64_t(kCount)}, at::kCUDA);
  at::Tensor pinned =
      at::zeros({int64_t(kCount)}, at::TensorOptions().pinned_memory(true));
  cudaMemcpyAsync(pinned.data_ptr(), source.data_ptr(), kBytes,
                  cudaMemcpyDeviceToHost, stream);
  at::TensorOptions options = at::TensorOptions().dtype(at::kFloat).pinned_memory(true);
  at::Tensor fromOptions = at::empty({int64_t(kCount)}, options);
  cudaMemcpyAsync(fromOptions.data_ptr<float>(), source.data_ptr<float>(),
                  kBytes, cudaMemcpyDeviceToHost, stream);
  at::Tensor pinnedLater = at::zeros({int64_t(kCount)}).pin_memory();
  cudaMemcpyAsync(pinnedLater.data_ptr(), source.data_ptr(), kBytes,
                  cudaMemcpyDeviceToHost, stream);
  // '_to_copy' pins the result of a non-blocking copy to the host.
  at::Tensor nonBlocking = source.to(at::kCPU, /*non_blocking=*/true);
  cudaMemcpyAsync(nonBlocking.data_ptr(), source.data_ptr(), kBytes,
                  cudaMemcpyDeviceToHost, stream);
}

// Copies that do not wait, or whose host memory is not known.

void negativeFromHostAndOnDevice(float *device, float *otherDevice,
                                 cudaStream_t stream) {
  // From pageable memory to the device: measured not to wait.
  std::vector<float> host(kCount);
  cudaMemcpyAsync(device, host.data(), kBytes, cudaMemcpyHostToDevice, stream);
  cudaMemcpy2DAsync(device, 64, host.data(), 64, 64, 16, cudaMemcpyHostToDevice,
                    stream);
  cudaMemcpyAsync(device, otherDevice, kBytes, cudaMemcpyDeviceToDevice, stream);
  // cudaMemcpyDefault from memory of unknown kind: perhaps host to host.
  cudaMemcpyAsync(host.data(), otherDevice, kBytes, cudaMemcpyDefault, stream);
}

void negativeUnknownMemory(float *callerBuffer, const float *device,
                           cudaMemcpyKind kind, bool pinned,
                           cudaStream_t stream) {
  cudaMemcpyAsync(callerBuffer, device, kBytes, cudaMemcpyDeviceToHost, stream);
  // A kind that is not a constant.
  std::vector<float> host(kCount);
  cudaMemcpyAsync(host.data(), device, kBytes, kind, stream);
  // A pointer that holds pinned or pageable memory.
  float *either = new float[kCount];
  if (pinned)
    cudaMallocHost(reinterpret_cast<void **>(&either), kBytes);
  cudaMemcpyAsync(either, device, kBytes, cudaMemcpyDeviceToHost, stream);
}

// The synchronous copies between host memory and a CUDA array. Two uploads in
// one block get the staging-buffer advice, and the last download, whose result
// nothing reads, the advice to remove it (the advice by use, docs/advice.md).

void positiveArrayCopies(cudaArray_t array, cudaArray_const_t source) {
  std::vector<float> host(kCount);
  cudaMemcpy2DToArray(array, 0, 0, host.data(), 64, 64, 16,
                      cudaMemcpyHostToDevice);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'cudaMemcpy2DToArray' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: consider one pinned staging buffer filled on the host and uploaded once with 'non_blocking' (or 'cudaMemcpyAsync'), instead of one blocking upload each
  cudaMemcpy2DFromArray(host.data(), 64, source, 0, 0, 64, 16,
                        cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'cudaMemcpy2DFromArray' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: consider 'cudaMemcpy2DFromArrayAsync' into pinned host memory, with an event waited on only where the host reads the data
  cudaMemcpyToArray(array, 0, 0, host.data(), kBytes, cudaMemcpyHostToDevice);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyToArray' copies synchronously
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider one pinned staging buffer filled on the host and uploaded once
  cudaMemcpyFromArray(host.data(), source, 0, 0, kBytes, cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyFromArray' copies synchronously
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing the copy, whose result nothing reads
}

// Their asynchronous twins with pinned memory, and an array to array copy,
// which stays on the device.
void negativeArrayCopies(cudaArray_t array, cudaArray_const_t source,
                         cudaStream_t stream) {
  void *pinned = nullptr;
  cudaMallocHost(&pinned, kBytes);
  cudaMemcpy2DToArrayAsync(array, 0, 0, pinned, 64, 64, 16,
                           cudaMemcpyHostToDevice, stream);
  cudaMemcpy2DFromArrayAsync(pinned, 64, source, 0, 0, 64, 16,
                             cudaMemcpyDeviceToHost, stream);
  cudaMemcpy2DArrayToArray(array, 0, 0, source, 0, 0, 64, 16);
}
