// torch-sync-explicit, rule by rule: explicit waits for the device.
//
// One rule_* function per call the check reports (device, stream and event
// synchronizations of LibTorch, the CUDA runtime and the CUDA driver API,
// synchronous copies, memcpy_and_sync, the frees of device and pinned memory
// and cudaHostUnregister, emptyCache) and one exempt_* function per sync-free
// twin it must stay silent on (asynchronous copies with pinned memory, copies
// between device buffers, queries, waits on the GPU, cudaFree(nullptr), the
// stream-ordered cudaFreeAsync, the caching allocator's reuse of freed
// blocks).
//
// The asynchronous copies by the kind of host memory (1 MiB each, after queued
// work): from the device into a std::vector, a stack array, new[], malloc and
// a CPU tensor that is not pinned they wait (rule_*); into cudaMallocHost,
// cudaHostAlloc, a pinned tensor or registered memory, and from pageable
// memory to the device, they do not (exempt_*). The copies between host
// memory and a CUDA array too.
//
// Left out: cudaThreadSynchronize, which CUDA 13 removed, and
// cudaMemcpyToSymbol / cudaMemcpyFromSymbol, which need a __device__ variable
// and so a CUDA source compiled for the device; this is a C++ source.
//
// Pinned memory comes from LibTorch's caching host allocator, and allocating
// a new block (cudaHostAlloc) may itself wait for the device: the first
// pinned block is made in rule_cuda_memcpy, and the twins reuse it. The
// memory that the free rules give back is allocated (cudaMalloc, cuMemAlloc,
// cudaMallocHost, cudaHostRegister) in the rule functions themselves, before
// the queued work; the exempt functions allocate only stream-ordered memory
// (cudaMallocAsync), which does not wait.
//
// Every call that may synchronize is on a line of its own. emptyCache comes
// last, after its twin, so that no later allocation has to ask CUDA for
// memory again. It needs a CUDA build of LibTorch and a GPU; without one,
// main returns at once.
#include <torch/torch.h>

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <vector>

// The CUDA driver API functions below are called by name, as a program linked
// with the driver library (libcuda) calls them. This program is linked with
// the CUDA runtime only, so it defines them here: each forwards to the
// driver's own function, looked up through the runtime
// (cudaGetDriverEntryPointByVersion, CUDA 12.5+) at the CUDA version that
// introduced the signature declared in cuda.h (cudaTypedefs.h's PFN_*_v<N>).
namespace {

template <typename Function>
Function *driverFunction(const char *name, unsigned int version) {
  void *function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  C10_CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, &function, version,
                                                  cudaEnableDefault, &found));
  TORCH_CHECK(found == cudaDriverEntryPointSuccess && function != nullptr,
              "the CUDA driver has no ", name);
  return reinterpret_cast<Function *>(function);
}

} // namespace

extern "C" {

CUresult CUDAAPI cuCtxSynchronize(void) {
  static auto *driver =
      driverFunction<decltype(cuCtxSynchronize)>("cuCtxSynchronize", 2000);
  return driver();
}

CUresult CUDAAPI cuStreamSynchronize(CUstream stream) {
  static auto *driver = driverFunction<decltype(cuStreamSynchronize)>(
      "cuStreamSynchronize", 2000);
  return driver(stream);
}

CUresult CUDAAPI cuStreamQuery(CUstream stream) {
  static auto *driver =
      driverFunction<decltype(cuStreamQuery)>("cuStreamQuery", 2000);
  return driver(stream);
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream stream, CUevent event,
                                   unsigned int flags) {
  static auto *driver =
      driverFunction<decltype(cuStreamWaitEvent)>("cuStreamWaitEvent", 3020);
  return driver(stream, event, flags);
}

CUresult CUDAAPI cuEventSynchronize(CUevent event) {
  static auto *driver =
      driverFunction<decltype(cuEventSynchronize)>("cuEventSynchronize", 2000);
  return driver(event);
}

CUresult CUDAAPI cuEventQuery(CUevent event) {
  static auto *driver =
      driverFunction<decltype(cuEventQuery)>("cuEventQuery", 2000);
  return driver(event);
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *pointer, size_t bytes) {
  static auto *driver =
      driverFunction<decltype(cuMemAlloc)>("cuMemAlloc", 3020);
  return driver(pointer, bytes);
}

CUresult CUDAAPI cuMemFree(CUdeviceptr pointer) {
  static auto *driver = driverFunction<decltype(cuMemFree)>("cuMemFree", 3020);
  return driver(pointer);
}

CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  static auto *driver = driverFunction<decltype(cuMemcpy)>("cuMemcpy", 4000);
  return driver(dst, src, bytes);
}

CUresult CUDAAPI cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  static auto *driver =
      driverFunction<decltype(cuMemcpyDtoH)>("cuMemcpyDtoH", 3020);
  return driver(dst, src, bytes);
}

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  static auto *driver =
      driverFunction<decltype(cuMemcpyHtoD)>("cuMemcpyHtoD", 3020);
  return driver(dst, src, bytes);
}

CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  static auto *driver =
      driverFunction<decltype(cuMemcpyDtoD)>("cuMemcpyDtoD", 3020);
  return driver(dst, src, bytes);
}

CUresult CUDAAPI cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes,
                                   CUstream stream) {
  static auto *driver =
      driverFunction<decltype(cuMemcpyDtoHAsync)>("cuMemcpyDtoHAsync", 3020);
  return driver(dst, src, bytes, stream);
}

CUresult CUDAAPI cuMemcpy2D(const CUDA_MEMCPY2D *copy) {
  static auto *driver =
      driverFunction<decltype(cuMemcpy2D)>("cuMemcpy2D", 3020);
  return driver(copy);
}

CUresult CUDAAPI cuMemcpy3D(const CUDA_MEMCPY3D *copy) {
  static auto *driver =
      driverFunction<decltype(cuMemcpy3D)>("cuMemcpy3D", 3020);
  return driver(copy);
}

} // extern "C"

namespace {

// Results of queries, kept so that no query is optimized away.
volatile int querySink = 0;

// 256 floats: 16 rows of 64 bytes for the 2D copies, 4 x 4 rows for the 3D
// ones.
constexpr int64_t kElements = 256;
constexpr size_t kBytes = kElements * sizeof(float);
constexpr size_t kRowBytes = 64;

// A failed CUDA call is reported on stderr and makes main return 1, but the
// other calls still run, so that one failure does not lose the observations
// of the rest.
bool anyCallFailed = false;

void checkCuda(cudaError_t result) {
  if (result == cudaSuccess)
    return;
  std::cerr << "explicit: " << cudaGetErrorString(result) << "\n";
  anyCallFailed = true;
  (void)cudaGetLastError(); // clear it before LibTorch checks for errors
}

void checkDriver(CUresult result) {
  if (result == CUDA_SUCCESS)
    return;
  std::cerr << "explicit: CUDA driver error " << static_cast<int>(result)
            << "\n";
  anyCallFailed = true;
}

torch::Tensor deviceBuffer(torch::Device device) {
  return torch::zeros({kElements}, torch::TensorOptions().device(device));
}

// Page-locked host memory, from LibTorch's caching host allocator.
torch::Tensor pinnedBuffer() {
  return torch::zeros({kElements}, torch::TensorOptions().pinned_memory(true));
}

// Queues a kernel on the current stream, for the waits to wait for; its
// buffer goes back to the caching allocator.
void queueWork(torch::Device device) { deviceBuffer(device).add_(1); }

CUdeviceptr driverPointer(const torch::Tensor &tensor) {
  return reinterpret_cast<CUdeviceptr>(tensor.data_ptr());
}

// cudaDeviceSynchronize waits for all work queued on the device.
void rule_cuda_device_synchronize(torch::Device device) {
  queueWork(device);
  checkCuda(cudaDeviceSynchronize());
}

// cudaStreamSynchronize waits for the work queued on the stream.
void rule_cuda_stream_synchronize(torch::Device device) {
  queueWork(device);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  checkCuda(cudaStreamSynchronize(stream));
}

// Twin of rule_cuda_stream_synchronize: cudaStreamQuery polls the stream.
void exempt_cuda_stream_query(torch::Device device) {
  queueWork(device);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  querySink = cudaStreamQuery(stream);
}

// cudaEventSynchronize waits for the work recorded in the event.
void rule_cuda_event_synchronize(torch::Device device) {
  queueWork(device);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  cudaEvent_t event = nullptr;
  checkCuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  checkCuda(cudaEventRecord(event, stream));
  checkCuda(cudaEventSynchronize(event));
  checkCuda(cudaEventDestroy(event));
}

// Twin of rule_cuda_event_synchronize: cudaEventQuery, cudaStreamWaitEvent.
void exempt_cuda_event_query_and_stream_wait(torch::Device device) {
  queueWork(device);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  cudaStream_t other = c10::cuda::getStreamFromPool().stream();
  cudaEvent_t event = nullptr;
  checkCuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  checkCuda(cudaEventRecord(event, stream));
  querySink = cudaEventQuery(event);
  checkCuda(cudaStreamWaitEvent(other, event, 0));
  checkCuda(cudaEventDestroy(event));
}

// cudaMemcpy between the device and pageable or pinned host memory.
void rule_cuda_memcpy(torch::Device device) {
  auto buffer = deviceBuffer(device);
  auto pinned = pinnedBuffer();
  std::vector<float> host(kElements);
  float *onDevice = buffer.data_ptr<float>();
  float *pinnedHost = pinned.data_ptr<float>();
  checkCuda(cudaMemcpy(host.data(), onDevice, kBytes, cudaMemcpyDeviceToHost));
  checkCuda(cudaMemcpy(onDevice, host.data(), kBytes, cudaMemcpyHostToDevice));
  checkCuda(cudaMemcpy(pinnedHost, onDevice, kBytes, cudaMemcpyDeviceToHost));
}

// Twin of rule_cuda_memcpy: cudaMemcpyAsync with pinned host memory.
void exempt_cuda_memcpy_async_pinned(torch::Device device) {
  auto buffer = deviceBuffer(device);
  auto pinned = pinnedBuffer();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  float *onDevice = buffer.data_ptr<float>();
  float *host = pinned.data_ptr<float>();
  checkCuda(
      cudaMemcpyAsync(host, onDevice, kBytes, cudaMemcpyDeviceToHost, stream));
  checkCuda(
      cudaMemcpyAsync(onDevice, host, kBytes, cudaMemcpyHostToDevice, stream));
}

// Twin of rule_cuda_memcpy: cudaMemcpy and cudaMemcpy2D device to device.
void exempt_cuda_memcpy_device_to_device(torch::Device device) {
  auto source = deviceBuffer(device);
  auto target = deviceBuffer(device);
  float *from = source.data_ptr<float>();
  float *to = target.data_ptr<float>();
  checkCuda(cudaMemcpy(to, from, kBytes, cudaMemcpyDeviceToDevice));
  checkCuda(cudaMemcpy2D(to, kRowBytes, from, kRowBytes, kRowBytes,
                         kBytes / kRowBytes, cudaMemcpyDeviceToDevice));
}

// cudaMemcpy2D from the device to pageable host memory.
void rule_cuda_memcpy_2d(torch::Device device) {
  auto buffer = deviceBuffer(device);
  std::vector<float> host(kElements);
  float *onDevice = buffer.data_ptr<float>();
  checkCuda(cudaMemcpy2D(host.data(), kRowBytes, onDevice, kRowBytes, kRowBytes,
                         kBytes / kRowBytes, cudaMemcpyDeviceToHost));
}

// cudaMemcpy3D from the device to pageable host memory.
void rule_cuda_memcpy_3d(torch::Device device) {
  auto buffer = deviceBuffer(device);
  std::vector<float> host(kElements);
  cudaMemcpy3DParms copy = {};
  copy.srcPtr.ptr = buffer.data_ptr<float>();
  copy.srcPtr.pitch = kRowBytes;
  copy.srcPtr.xsize = kRowBytes / sizeof(float);
  copy.srcPtr.ysize = 4;
  copy.dstPtr = copy.srcPtr;
  copy.dstPtr.ptr = host.data();
  copy.extent.width = kRowBytes;
  copy.extent.height = 4;
  copy.extent.depth = 4;
  copy.kind = cudaMemcpyDeviceToHost;
  checkCuda(cudaMemcpy3D(&copy));
}

// cuCtxSynchronize waits for all work queued in the current context.
void rule_cu_ctx_synchronize(torch::Device device) {
  queueWork(device);
  checkDriver(cuCtxSynchronize());
}

// cuStreamSynchronize waits for the work queued on the stream.
void rule_cu_stream_synchronize(torch::Device device) {
  queueWork(device);
  CUstream stream = at::cuda::getCurrentCUDAStream().stream();
  checkDriver(cuStreamSynchronize(stream));
}

// cuEventSynchronize waits for the work recorded in the event.
void rule_cu_event_synchronize(torch::Device device) {
  queueWork(device);
  CUstream stream = at::cuda::getCurrentCUDAStream().stream();
  cudaEvent_t event = nullptr;
  checkCuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  checkCuda(cudaEventRecord(event, stream));
  checkDriver(cuEventSynchronize(event));
  checkCuda(cudaEventDestroy(event));
}

// Twin of rule_cu_event_synchronize: driver queries and cuStreamWaitEvent.
void exempt_cu_queries_and_stream_wait(torch::Device device) {
  queueWork(device);
  CUstream stream = at::cuda::getCurrentCUDAStream().stream();
  CUstream other = c10::cuda::getStreamFromPool().stream();
  cudaEvent_t event = nullptr;
  checkCuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  checkCuda(cudaEventRecord(event, stream));
  querySink = cuStreamQuery(stream);
  querySink = cuEventQuery(event);
  checkDriver(cuStreamWaitEvent(other, event, 0));
  checkCuda(cudaEventDestroy(event));
}

// cuMemcpy, cuMemcpyDtoH and cuMemcpyHtoD copy synchronously.
void rule_cu_memcpy(torch::Device device) {
  auto buffer = deviceBuffer(device);
  auto pinned = pinnedBuffer();
  std::vector<float> host(kElements);
  CUdeviceptr onDevice = driverPointer(buffer);
  checkDriver(cuMemcpy(driverPointer(pinned), onDevice, kBytes));
  checkDriver(cuMemcpyDtoH(host.data(), onDevice, kBytes));
  checkDriver(cuMemcpyHtoD(onDevice, host.data(), kBytes));
}

// Twin of rule_cu_memcpy: cuMemcpyDtoHAsync into pinned memory, cuMemcpyDtoD.
void exempt_cu_memcpy_async_and_device_to_device(torch::Device device) {
  auto source = deviceBuffer(device);
  auto target = deviceBuffer(device);
  auto pinned = pinnedBuffer();
  CUstream stream = at::cuda::getCurrentCUDAStream().stream();
  CUdeviceptr from = driverPointer(source);
  checkDriver(cuMemcpyDtoHAsync(pinned.data_ptr(), from, kBytes, stream));
  checkDriver(cuMemcpyDtoD(driverPointer(target), from, kBytes));
}

// cuMemcpy2D and cuMemcpy3D from the device to pageable host memory.
void rule_cu_memcpy_2d_3d(torch::Device device) {
  auto buffer = deviceBuffer(device);
  std::vector<float> host(kElements);
  CUDA_MEMCPY2D copy2d = {};
  copy2d.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy2d.srcDevice = driverPointer(buffer);
  copy2d.srcPitch = kRowBytes;
  copy2d.dstMemoryType = CU_MEMORYTYPE_HOST;
  copy2d.dstHost = host.data();
  copy2d.dstPitch = kRowBytes;
  copy2d.WidthInBytes = kRowBytes;
  copy2d.Height = kBytes / kRowBytes;
  checkDriver(cuMemcpy2D(&copy2d));
  CUDA_MEMCPY3D copy3d = {};
  copy3d.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy3d.srcDevice = driverPointer(buffer);
  copy3d.srcPitch = kRowBytes;
  copy3d.srcHeight = 4;
  copy3d.dstMemoryType = CU_MEMORYTYPE_HOST;
  copy3d.dstHost = host.data();
  copy3d.dstPitch = kRowBytes;
  copy3d.dstHeight = 4;
  copy3d.WidthInBytes = kRowBytes;
  copy3d.Height = 4;
  copy3d.Depth = 4;
  checkDriver(cuMemcpy3D(&copy3d));
}

// torch::cuda::synchronize waits for all work queued on the device.
void rule_torch_cuda_synchronize(torch::Device device) {
  queueWork(device);
  torch::cuda::synchronize();
}

// c10::cuda::device_synchronize (and at::cuda::) waits for the device.
void rule_c10_device_synchronize(torch::Device device) {
  queueWork(device);
  c10::cuda::device_synchronize();
  at::cuda::device_synchronize();
}

// c10::cuda::stream_synchronize waits for the work queued on the stream.
void rule_c10_stream_synchronize(torch::Device device) {
  queueWork(device);
  c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
  c10::cuda::stream_synchronize(stream);
}

// CUDAStream::synchronize waits for the work queued on the stream.
void rule_cuda_stream_method_synchronize(torch::Device device) {
  queueWork(device);
  c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
  stream.synchronize();
}

// Twin of rule_cuda_stream_method_synchronize: CUDAStream::query polls.
void exempt_cuda_stream_method_query(torch::Device device) {
  queueWork(device);
  c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
  querySink = stream.query();
}

// at::cuda::CUDAEvent::synchronize waits for the work recorded in the event.
void rule_cuda_event_method_synchronize(torch::Device device) {
  queueWork(device);
  at::cuda::CUDAEvent event;
  event.record();
  event.synchronize();
}

// Twin of rule_cuda_event_method_synchronize: query(), and block() on the GPU.
void exempt_cuda_event_method_query_and_block(torch::Device device) {
  queueWork(device);
  at::cuda::CUDAEvent event;
  event.record();
  querySink = event.query();
  c10::cuda::CUDAStreamGuard onOther(c10::cuda::getStreamFromPool());
  event.block(c10::cuda::getCurrentCUDAStream());
}

// c10::cuda::memcpy_and_sync copies, then waits for the stream.
void rule_memcpy_and_sync(torch::Device device) {
  auto buffer = deviceBuffer(device);
  std::vector<float> host(kElements);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  c10::cuda::memcpy_and_sync(host.data(), buffer.data_ptr<float>(), kBytes,
                             cudaMemcpyDeviceToHost, stream);
}

// cudaFree of device memory waits for all work queued on the device.
void rule_cuda_free(torch::Device device) {
  void *memory = nullptr;
  checkCuda(cudaMalloc(&memory, kBytes));
  queueWork(device);
  checkCuda(cudaFree(memory));
}

// Twin of rule_cuda_free: cudaFree(nullptr) frees nothing and does not wait.
void exempt_cuda_free_null(torch::Device device) {
  queueWork(device);
  checkCuda(cudaFree(nullptr));
}

// Twin of rule_cuda_free: cudaFreeAsync frees in stream order, on the GPU.
void exempt_cuda_free_async(torch::Device device) {
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  void *memory = nullptr;
  checkCuda(cudaMallocAsync(&memory, kBytes, stream));
  queueWork(device);
  checkCuda(cudaFreeAsync(memory, stream));
}

// cudaFreeHost of pinned host memory waits for all work queued on the device.
void rule_cuda_free_host(torch::Device device) {
  void *pinnedHost = nullptr;
  checkCuda(cudaMallocHost(&pinnedHost, kBytes));
  queueWork(device);
  checkCuda(cudaFreeHost(pinnedHost));
}

// cudaHostUnregister unpins registered host memory, waiting for the device.
void rule_cuda_host_unregister(torch::Device device) {
  std::vector<float> host(kElements);
  checkCuda(cudaHostRegister(host.data(), kBytes, cudaHostRegisterDefault));
  queueWork(device);
  checkCuda(cudaHostUnregister(host.data()));
}

// cuMemFree of device memory waits for all work queued on the device.
void rule_cu_mem_free(torch::Device device) {
  CUdeviceptr memory = 0;
  checkDriver(cuMemAlloc(&memory, kBytes));
  queueWork(device);
  checkDriver(cuMemFree(memory));
}

// 1 MiB, for the copies into and from host memory of each kind.
constexpr int64_t kLargeElements = int64_t(1) << 18;
constexpr size_t kLargeBytes = kLargeElements * sizeof(float);

torch::Tensor largeDeviceBuffer(torch::Device device) {
  return torch::zeros({kLargeElements}, torch::TensorOptions().device(device));
}

// A CUDA array of 1 MiB (1024 rows of 1 KiB), made once and kept: freeing it
// (cudaFreeArray) would wait for the device.
cudaArray_t sampleArray() {
  static cudaArray_t array = [] {
    cudaArray_t made = nullptr;
    cudaChannelFormatDesc channel =
        cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    checkCuda(cudaMallocArray(&made, &channel, 256, 1024));
    return made;
  }();
  return array;
}

// cudaMemcpyAsync from the device into a std::vector waits for the queued work.
void rule_cuda_memcpy_async_into_vector(torch::Device device) {
  auto buffer = largeDeviceBuffer(device);
  std::vector<float> host(kLargeElements);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  queueWork(device);
  checkCuda(cudaMemcpyAsync(host.data(), buffer.data_ptr<float>(), kLargeBytes,
                            cudaMemcpyDeviceToHost, stream));
}

// cudaMemcpyAsync into a stack array (64 KiB) waits.
void rule_cuda_memcpy_async_into_stack_array(torch::Device device) {
  auto buffer = largeDeviceBuffer(device);
  float onStack[16384];
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  queueWork(device);
  checkCuda(cudaMemcpyAsync(onStack, buffer.data_ptr<float>(), sizeof(onStack),
                            cudaMemcpyDeviceToHost, stream));
  querySink = static_cast<int>(onStack[0]);
}

// cudaMemcpyAsync into memory from new[] and from malloc waits.
void rule_cuda_memcpy_async_into_heap(torch::Device device) {
  auto buffer = largeDeviceBuffer(device);
  float *fromNew = new float[kLargeElements];
  auto *fromMalloc = static_cast<float *>(std::malloc(kLargeBytes));
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  queueWork(device);
  checkCuda(cudaMemcpyAsync(fromNew, buffer.data_ptr<float>(), kLargeBytes,
                            cudaMemcpyDeviceToHost, stream));
  queueWork(device);
  checkCuda(cudaMemcpyAsync(fromMalloc, buffer.data_ptr<float>(), kLargeBytes,
                            cudaMemcpyDeviceToHost, stream));
  std::free(fromMalloc);
  delete[] fromNew;
}

// cudaMemcpyAsync into a CPU tensor that is not pinned waits.
void rule_cuda_memcpy_async_into_cpu_tensor(torch::Device device) {
  auto buffer = largeDeviceBuffer(device);
  torch::Tensor host = torch::empty({kLargeElements});
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  queueWork(device);
  checkCuda(cudaMemcpyAsync(host.data_ptr<float>(), buffer.data_ptr<float>(),
                            kLargeBytes, cudaMemcpyDeviceToHost, stream));
}

// cudaMemcpy2DAsync and cuMemcpyDtoHAsync into a std::vector wait.
void rule_memcpy_2d_and_driver_async_into_vector(torch::Device device) {
  auto buffer = largeDeviceBuffer(device);
  std::vector<float> host(kLargeElements);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  queueWork(device);
  checkCuda(cudaMemcpy2DAsync(host.data(), 1024, buffer.data_ptr<float>(), 1024,
                              1024, 1024, cudaMemcpyDeviceToHost, stream));
  queueWork(device);
  checkDriver(cuMemcpyDtoHAsync(host.data(), driverPointer(buffer), kLargeBytes,
                                stream));
}

// The copies between pageable memory and a CUDA array: cudaMemcpy2DToArray and
// cudaMemcpy2DFromArray are synchronous, cudaMemcpy2DFromArrayAsync into
// pageable memory waits.
void rule_cuda_array_copies(torch::Device device) {
  cudaArray_t array = sampleArray();
  std::vector<float> host(kLargeElements);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  queueWork(device);
  checkCuda(cudaMemcpy2DToArray(array, 0, 0, host.data(), 1024, 1024, 1024,
                                cudaMemcpyHostToDevice));
  queueWork(device);
  checkCuda(cudaMemcpy2DFromArray(host.data(), 1024, array, 0, 0, 1024, 1024,
                                  cudaMemcpyDeviceToHost));
  queueWork(device);
  checkCuda(cudaMemcpy2DFromArrayAsync(host.data(), 1024, array, 0, 0, 1024,
                                       1024, cudaMemcpyDeviceToHost, stream));
}

// Twin of rule_cuda_memcpy_async_into_vector: pinned memory from
// cudaMallocHost and cudaHostAlloc, made before the queued work and kept.
void exempt_cuda_memcpy_async_into_pinned_allocations(torch::Device device) {
  auto buffer = largeDeviceBuffer(device);
  void *mallocHost = nullptr;
  checkCuda(cudaMallocHost(&mallocHost, kLargeBytes));
  void *hostAlloc = nullptr;
  checkCuda(cudaHostAlloc(&hostAlloc, kLargeBytes, cudaHostAllocDefault));
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  queueWork(device);
  checkCuda(cudaMemcpyAsync(mallocHost, buffer.data_ptr<float>(), kLargeBytes,
                            cudaMemcpyDeviceToHost, stream));
  checkCuda(cudaMemcpyAsync(hostAlloc, buffer.data_ptr<float>(), kLargeBytes,
                            cudaMemcpyDeviceToHost, stream));
}

// Twin of rule_cuda_memcpy_async_into_cpu_tensor: a pinned tensor (the block
// that rule_cuda_memcpy made, reused).
void exempt_cuda_memcpy_async_into_pinned_tensor(torch::Device device) {
  auto buffer = deviceBuffer(device);
  auto pinned = pinnedBuffer();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  queueWork(device);
  checkCuda(cudaMemcpyAsync(pinned.data_ptr<float>(), buffer.data_ptr<float>(),
                            kBytes, cudaMemcpyDeviceToHost, stream));
}

// Twin of rule_cuda_memcpy_async_into_vector: a std::vector registered with
// cudaHostRegister (kept registered: unregistering waits for the device).
void exempt_cuda_memcpy_async_into_registered_vector(torch::Device device) {
  auto buffer = largeDeviceBuffer(device);
  static std::vector<float> host(kLargeElements);
  checkCuda(
      cudaHostRegister(host.data(), kLargeBytes, cudaHostRegisterDefault));
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  queueWork(device);
  checkCuda(cudaMemcpyAsync(host.data(), buffer.data_ptr<float>(), kLargeBytes,
                            cudaMemcpyDeviceToHost, stream));
}

// Twin of rule_cuda_memcpy_async_into_vector: from pageable memory to the
// device the copy returns without waiting (the driver stages the data).
void exempt_cuda_memcpy_async_from_pageable(torch::Device device) {
  auto buffer = largeDeviceBuffer(device);
  std::vector<float> host(kLargeElements);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  queueWork(device);
  checkCuda(cudaMemcpyAsync(buffer.data_ptr<float>(), host.data(), kLargeBytes,
                            cudaMemcpyHostToDevice, stream));
}

// Twin of rule_empty_cache: the allocator reuses freed blocks without CUDA.
void exempt_reuse_cached_block(torch::Device device) {
  auto first = deviceBuffer(device);
  first = torch::Tensor();
  auto reused = deviceBuffer(device);
}

// emptyCache returns cached blocks to CUDA with cudaFree, which waits.
void rule_empty_cache(torch::Device device) {
  queueWork(device);
  c10::cuda::CUDACachingAllocator::emptyCache();
}

} // namespace

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  if (!device.is_cuda()) {
    std::cout << "explicit: no CUDA device, nothing to run\n";
    return 0;
  }
  rule_cuda_device_synchronize(device);
  rule_cuda_stream_synchronize(device);
  exempt_cuda_stream_query(device);
  rule_cuda_event_synchronize(device);
  exempt_cuda_event_query_and_stream_wait(device);
  rule_cuda_memcpy(device);
  exempt_cuda_memcpy_async_pinned(device);
  exempt_cuda_memcpy_device_to_device(device);
  rule_cuda_memcpy_2d(device);
  rule_cuda_memcpy_3d(device);
  rule_cu_ctx_synchronize(device);
  rule_cu_stream_synchronize(device);
  rule_cu_event_synchronize(device);
  exempt_cu_queries_and_stream_wait(device);
  rule_cu_memcpy(device);
  exempt_cu_memcpy_async_and_device_to_device(device);
  rule_cu_memcpy_2d_3d(device);
  rule_torch_cuda_synchronize(device);
  rule_c10_device_synchronize(device);
  rule_c10_stream_synchronize(device);
  rule_cuda_stream_method_synchronize(device);
  exempt_cuda_stream_method_query(device);
  rule_cuda_event_method_synchronize(device);
  exempt_cuda_event_method_query_and_block(device);
  rule_memcpy_and_sync(device);
  rule_cuda_free(device);
  exempt_cuda_free_null(device);
  exempt_cuda_free_async(device);
  rule_cuda_free_host(device);
  rule_cuda_host_unregister(device);
  rule_cu_mem_free(device);
  rule_cuda_memcpy_async_into_vector(device);
  rule_cuda_memcpy_async_into_stack_array(device);
  rule_cuda_memcpy_async_into_heap(device);
  rule_cuda_memcpy_async_into_cpu_tensor(device);
  rule_memcpy_2d_and_driver_async_into_vector(device);
  rule_cuda_array_copies(device);
  exempt_cuda_memcpy_async_into_pinned_allocations(device);
  exempt_cuda_memcpy_async_into_pinned_tensor(device);
  exempt_cuda_memcpy_async_into_registered_vector(device);
  exempt_cuda_memcpy_async_from_pageable(device);
  exempt_reuse_cached_block(device);
  rule_empty_cache(device);
  return anyCallFailed ? 1 : 0;
}
