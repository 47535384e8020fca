// REQUIRES: cuda-headers
// Header sets differ: at::cuda::CUDAEvent is c10::cuda::CUDAEvent from 2.0 on
// (the LIBTORCH1 and LIBTORCH2 prefixes).
// SMOKE: torch-sync-explicit's matchers on this release's AST (the CUDA runtime and driver calls, c10::cuda members)
// OLDER-LIBTORCH: the LIBTORCH1 and LIBTORCH2 lines (at::cuda::CUDAEvent is c10::cuda::CUDAEvent from 2.0 on), the CPU build's CUDA stand-in
// RUN: %check_torch_sync --checks=-*,torch-sync-explicit --temp %t \
// RUN:   --check-suffix=,%if libtorch-1.x %{LIBTORCH1%} %else %{LIBTORCH2%} %s -- \
// RUN:   %libtorch_flags %cuda_flags %libtorch_cuda_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-explicit --temp %t-loops --check-suffix=LOOPS \
// RUN:   --config="{CheckOptions: {LoopsOnly: true}}" %s -- \
// RUN:   %libtorch_flags %cuda_flags %libtorch_cuda_flags

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <torch/cuda.h>

// CUDA 13 removed cudaThreadSynchronize; older headers declare it so.
extern "C" cudaError_t cudaThreadSynchronize(void);

// The CUDA runtime.

void positiveRuntimeWaits(cudaStream_t stream, cudaEvent_t event) {
  cudaDeviceSynchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaDeviceSynchronize' waits for all work queued on the device [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing it where the host reads no result after it (work on one stream already runs in order), else an event recorded after the work the host needs, waited on only where it reads the result ('cudaStreamWaitEvent' to order streams)
  cudaThreadSynchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaThreadSynchronize' waits for all work queued on the device
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing it where the host reads no result after it
  cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaStreamSynchronize' waits for the work queued on that stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing it where the host reads no result after it (work on one stream already runs in order), else an event recorded after the work the host needs, waited on only where it reads the result ('cudaStreamWaitEvent' to order streams)
  cudaEventSynchronize(event);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaEventSynchronize' waits for the work recorded in that event [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider polling the event ('cudaEventQuery'), or 'cudaStreamWaitEvent' for a wait on the GPU
}

void positiveRuntimeCopies(float *device, float *host, size_t bytes,
                           const void *symbol) {
  cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cudaMemcpyAsync' into or from pinned host memory, with an event waited on only where the host reads the data
  cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy' copies synchronously
  // The direction is taken from the pointers at run time.
  cudaMemcpy(device, host, bytes, cudaMemcpyDefault);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy' copies synchronously
  cudaMemcpy2D(host, 64, device, 64, 64, 4, cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy2D' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cudaMemcpy2DAsync' into or from pinned host memory, with an event waited on only where the host reads the data
  cudaMemcpy3DParms params = {};
  cudaMemcpy3D(&params);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy3D' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cudaMemcpy3DAsync' into or from pinned host memory, with an event waited on only where the host reads the data
  cudaMemcpyToSymbol(symbol, host, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyToSymbol' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cudaMemcpyToSymbolAsync' into or from pinned host memory, with an event waited on only where the host reads the data
  cudaMemcpyFromSymbol(host, symbol, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyFromSymbol' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cudaMemcpyFromSymbolAsync' into or from pinned host memory, with an event waited on only where the host reads the data
}

// C10_CUDA_CHECK wraps its argument in 'do { ... } while (0)': not a loop.
void positiveInsideCheckMacro(cudaEvent_t event) {
  C10_CUDA_CHECK(cudaDeviceSynchronize());
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'cudaDeviceSynchronize' waits for all work queued on the device
  // CHECK-MESSAGES: :[[@LINE-2]]:18: note: consider
  C10_CUDA_CHECK(cudaEventSynchronize(event));
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'cudaEventSynchronize' waits for the work recorded in that event
  // CHECK-MESSAGES: :[[@LINE-2]]:18: note: consider
}

// The CUDA driver API. Most names are macros for versioned functions
// ('cuMemcpyDtoH' declares 'cuMemcpyDtoH_v2'); the documented name is reported.

void positiveDriverWaits(CUcontext context, CUstream stream, CUevent event) {
  cuCtxSynchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuCtxSynchronize' waits for all work queued in the context [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing it where the host reads no result after it (work on one stream already runs in order), else an event recorded after the work the host needs, waited on only where it reads the result ('cuStreamWaitEvent' to order streams)
  cuCtxSynchronize_v2(context);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuCtxSynchronize' waits for all work queued in the context
  cuStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuStreamSynchronize' waits for the work queued on that stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing it where the host reads no result after it (work on one stream already runs in order), else an event recorded after the work the host needs, waited on only where it reads the result ('cuStreamWaitEvent' to order streams)
  cuEventSynchronize(event);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuEventSynchronize' waits for the work recorded in that event [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider polling the event ('cuEventQuery'), or 'cuStreamWaitEvent' for a wait on the GPU
}

void positiveDriverCopies(CUdeviceptr device, float *host, size_t bytes) {
  cuMemcpy(reinterpret_cast<CUdeviceptr>(host), device, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemcpy' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cuMemcpyAsync' into or from pinned host memory, with an event waited on only where the host reads the data
  cuMemcpyDtoH(host, device, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemcpyDtoH' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cuMemcpyDtoHAsync' on a stream, into pinned host memory
  cuMemcpyHtoD(device, host, bytes);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemcpyHtoD' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cuMemcpyHtoDAsync' on a stream, from pinned host memory
  CUDA_MEMCPY2D copy2d = {};
  cuMemcpy2D(&copy2d);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemcpy2D' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cuMemcpy2DAsync' into or from pinned host memory, with an event waited on only where the host reads the data
  CUDA_MEMCPY3D copy3d = {};
  cuMemcpy3D(&copy3d);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemcpy3D' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cuMemcpy3DAsync' into or from pinned host memory, with an event waited on only where the host reads the data
}

// LibTorch. at::cuda names resolve to the c10::cuda declarations, which are
// reported.

void positiveTorchWaits(c10::cuda::CUDAStream stream,
                        const at::cuda::CUDAEvent &event) {
  torch::cuda::synchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'torch::cuda::synchronize' waits for all work queued on the device [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing it where the host reads no result after it (work on one stream already runs in order), else an 'at::cuda::CUDAEvent' recorded after the work the host needs, synchronized only where it reads the result ('event.block(stream)' to order streams)
  c10::cuda::device_synchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'c10::cuda::device_synchronize' waits for all work queued on the device [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing it where the host reads no result after it (work on one stream already runs in order), else an 'at::cuda::CUDAEvent' recorded after the work the host needs, synchronized only where it reads the result ('event.block(stream)' to order streams)
  at::cuda::device_synchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'c10::cuda::device_synchronize' waits for all work queued on the device
  stream.synchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'c10::cuda::CUDAStream::synchronize' waits for the work queued on that stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: consider removing it where the host reads no result after it (work on one stream already runs in order), else an 'at::cuda::CUDAEvent' recorded after the work the host needs, synchronized only where it reads the result ('event.block(stream)' to order streams)
  at::cuda::getCurrentCUDAStream().synchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'c10::cuda::CUDAStream::synchronize' waits for the work queued on that stream
  c10::cuda::stream_synchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'c10::cuda::stream_synchronize' waits for the work queued on that stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing it where the host reads no result after it (work on one stream already runs in order), else an 'at::cuda::CUDAEvent' recorded after the work the host needs, synchronized only where it reads the result ('event.block(stream)' to order streams)
  at::cuda::stream_synchronize(stream.stream());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'c10::cuda::stream_synchronize' waits for the work queued on that stream
  event.synchronize();
  // CHECK-MESSAGES-LIBTORCH2: :[[@LINE-1]]:9: warning: 'c10::cuda::CUDAEvent::synchronize' waits for the work recorded in that event
  // CHECK-MESSAGES-LIBTORCH1: :[[@LINE-2]]:9: warning: 'at::cuda::CUDAEvent::synchronize' waits for the work recorded in that event [torch-sync-explicit]
  // CHECK-MESSAGES-LIBTORCH1: :[[@LINE-3]]:9: note: consider polling the event ('event.query()'), or 'event.block(stream)' for a wait on the GPU
  c10::cuda::CUDACachingAllocator::emptyCache();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'c10::cuda::CUDACachingAllocator::emptyCache' returns cached device memory to CUDA, whose 'cudaFree' waits for all work queued on the device [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider not calling it in loops: the caching allocator reuses freed blocks without a sync
}

void positiveTorchCopies(void *device, void *host, int64_t bytes,
                         c10::cuda::CUDAStream stream) {
  c10::cuda::memcpy_and_sync(host, device, bytes, cudaMemcpyDeviceToHost,
                             stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'c10::cuda::memcpy_and_sync' copies, then waits for the work queued on that stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: consider 'cudaMemcpyAsync' with pinned host memory, read after an event
  // It waits for the stream also after a copy between device buffers.
  c10::cuda::memcpy_and_sync(host, device, bytes, cudaMemcpyDeviceToDevice,
                             stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'c10::cuda::memcpy_and_sync' copies, then waits for the work queued on that stream
}

// A call in a template is reported where it is written, once for all
// instantiations.
template <typename Stream> void positiveInTemplate(Stream &stream) {
  stream.synchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'c10::cuda::CUDAStream::synchronize' waits
}
template void positiveInTemplate(c10::cuda::CUDAStream &);
template void positiveInTemplate(const c10::cuda::CUDAStream &);

// In loops every iteration waits; with LoopsOnly only these are reported.
void positiveInLoops(c10::cuda::CUDAStream stream, float *device, float *host,
                     int steps) {
  for (int i = 0; i < steps; ++i) {
    stream.synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'c10::cuda::CUDAStream::synchronize' waits for the work queued on that stream
    // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider removing it where the host reads no result after it
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-LOOPS: :[[@LINE-4]]:12: warning: 'c10::cuda::CUDAStream::synchronize' waits for the work queued on that stream
    // CHECK-MESSAGES-LOOPS: :[[@LINE-5]]:12: note: consider removing it where the host reads no result after it
    // CHECK-MESSAGES-LOOPS: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    c10::cuda::CUDACachingAllocator::emptyCache();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'c10::cuda::CUDACachingAllocator::emptyCache' {{.*}}
    // CHECK-MESSAGES: :[[@LINE-2]]:5: note: consider not calling it in loops
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-LOOPS: :[[@LINE-4]]:5: warning: 'c10::cuda::CUDACachingAllocator::emptyCache' {{.*}}
    // CHECK-MESSAGES-LOOPS: :[[@LINE-5]]:5: note: consider not calling it in loops
    // CHECK-MESSAGES-LOOPS: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
  }
  int n = 0;
  while (n++ < steps) {
    cudaMemcpy(host, device, sizeof(float), cudaMemcpyDeviceToHost);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies synchronously{{.*}}
    // CHECK-MESSAGES: :[[@LINE-2]]:5: note: consider
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-LOOPS: :[[@LINE-4]]:5: warning: 'cudaMemcpy' copies synchronously{{.*}}
    // CHECK-MESSAGES-LOOPS: :[[@LINE-5]]:5: note: consider
    // CHECK-MESSAGES-LOOPS: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    C10_CUDA_CHECK(cudaDeviceSynchronize());
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'cudaDeviceSynchronize' {{.*}}
    // CHECK-MESSAGES: :[[@LINE-2]]:20: note: consider
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-LOOPS: :[[@LINE-4]]:20: warning: 'cudaDeviceSynchronize' {{.*}}
    // CHECK-MESSAGES-LOOPS: :[[@LINE-5]]:20: note: consider
    // CHECK-MESSAGES-LOOPS: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
  }
  // Once, after the loop: not reported with LoopsOnly.
  torch::cuda::synchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'torch::cuda::synchronize' waits for all work queued on the device
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider
}

// Negative cases: calls that do not make the host wait.

bool negativeTorchQueries(at::cuda::CUDAEvent &event,
                          c10::cuda::CUDAStream stream,
                          c10::cuda::CUDAStream other) {
  c10::cuda::CUDAStreamGuard guard(stream);
  event.record(stream);
  // The other stream waits for the event on the GPU.
  event.block(other);
  return event.query() && stream.query();
}

void negativeRuntimeAsync(float *device, float *other, float *host,
                          size_t bytes, cudaStream_t stream,
                          cudaEvent_t event) {
  cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream);
  cudaMemcpy2DAsync(host, 64, device, 64, 64, 4, cudaMemcpyDeviceToHost,
                    stream);
  cudaEventRecord(event, stream);
  cudaStreamWaitEvent(stream, event, 0);
  (void)cudaEventQuery(event);
  (void)cudaStreamQuery(stream);
  // Copies between device buffers do not wait for the host (the CUDA
  // reference, "API synchronization behavior"); cudaMemcpyPeer is
  // "asynchronous with respect to the host".
  cudaMemcpy(other, device, bytes, cudaMemcpyDeviceToDevice);
  cudaMemcpy2D(other, 64, device, 64, 64, 4, cudaMemcpyDeviceToDevice);
  cudaMemcpyPeer(other, 1, device, 0, bytes);
}

void negativeDriverAsync(CUdeviceptr device, CUdeviceptr other, float *host,
                         size_t bytes, CUstream stream, CUevent event) {
  cuMemcpyDtoHAsync(host, device, bytes, stream);
  cuMemcpyHtoDAsync(device, host, bytes, stream);
  cuMemcpyAsync(other, device, bytes, stream);
  cuMemcpyDtoD(other, device, bytes);
  cuEventRecord(event, stream);
  cuStreamWaitEvent(stream, event, 0);
  (void)cuEventQuery(event);
  (void)cuStreamQuery(stream);
}

// Look-alikes: same names, other declarations.
namespace project {
void cudaDeviceSynchronize();
struct Barrier {
  void synchronize();
};
} // namespace project

void negativeLookAlikes(project::Barrier &barrier) {
  project::cudaDeviceSynchronize();
  barrier.synchronize();
}

// A wait that is intended can be marked as such.
void negativeSuppressed() {
  cudaDeviceSynchronize(); // NOLINT(torch-sync-explicit)
}
