// A CUDA source, parsed by clang's CUDA front end for the host side only
// (%cuda_source_flags): the host code around the kernels is checked; kernels
// are not compiled for the device.
//
// REQUIRES: cuda-headers
// SMOKE: this release's CUDA front end (host side) on a CUDA source and the CUDA toolkit's headers
// RUN: %check_torch_sync --checks=-*,torch-sync-explicit --temp %t %s -- \
// RUN:   %cuda_source_flags %libtorch_cuda_flags %libtorch_flags

#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

__device__ float deviceScale;

__global__ void scaleKernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= deviceScale;
}

void positiveScaleAndWait(float *x, float scale, int n) {
  cudaMemcpyToSymbol(deviceScale, &scale, sizeof(float));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyToSymbol' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cudaMemcpyToSymbolAsync' into or from pinned host memory, with an event waited on only where the host reads the data
  c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
  scaleKernel<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  stream.synchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'c10::cuda::CUDAStream::synchronize' waits for the work queued on that stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: consider removing it where the host reads no result after it (work on one stream already runs in order), else an 'at::cuda::CUDAEvent' recorded after the work the host needs, synchronized only where it reads the result ('event.block(stream)' to order streams)
  cudaDeviceSynchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaDeviceSynchronize' waits for all work queued on the device [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing it where the host reads no result after it (work on one stream already runs in order), else an event recorded after the work the host needs, waited on only where it reads the result ('cudaStreamWaitEvent' to order streams)
}

void positiveWaitEveryStep(float *x, int n, int steps) {
  for (int step = 0; step < steps; ++step) {
    scaleKernel<<<(n + 255) / 256, 256>>>(x, n);
    C10_CUDA_CHECK(cudaStreamSynchronize(c10::cuda::getCurrentCUDAStream()));
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'cudaStreamSynchronize' waits for the work queued on that stream
    // CHECK-MESSAGES: :[[@LINE-2]]:20: note: consider
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
  }
}

// The non-blocking twin: the copy and the kernel are queued on the stream,
// and an event tells when they are done.
void negativeQueueOnly(float *x, const float *pinnedScale, int n,
                       cudaEvent_t done) {
  c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
  cudaMemcpyToSymbolAsync(deviceScale, pinnedScale, sizeof(float), 0,
                          cudaMemcpyHostToDevice, stream);
  scaleKernel<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  cudaEventRecord(done, stream);
}
