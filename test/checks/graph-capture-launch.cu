// Kernel launches inside a CUDA graph capture, in a CUDA source parsed by
// clang's CUDA front end for the host side (%cuda_source_flags): a launch
// without a stream goes to the legacy default stream, which a capture on a
// blocking stream refuses; a launch on the capturing stream is captured.
//
// REQUIRES: cuda-headers
// SMOKE: this release's CUDA front end: a kernel launch's configuration (its stream argument) inside a capture
// OLDER-LIBTORCH: at::cuda::CUDAGraph of both releases in a CUDA source, the CPU build's CUDA stand-in
// RUN: %check_torch_sync --checks=-*,torch-sync-graph-capture --temp %t %s -- \
// RUN:   %cuda_source_flags %libtorch_cuda_flags %libtorch_flags

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAStream.h>

__global__ void fill(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = 1.0f;
}

void positiveLegacyStreamLaunch(at::cuda::CUDAGraph &graph, float *x, int n) {
  c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
  fill<<<(n + 255) / 256, 256>>>(x, n);
  graph.capture_begin();
  fill<<<(n + 255) / 256, 256>>>(x, n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'fill<<<...>>>' inside the CUDA graph capture begun at line [[@LINE-2]] launches the kernel on the legacy default stream, which a capture on a blocking stream refuses (the launch is not captured); the capture fails at run time [torch-sync-graph-capture]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider launching on the capturing stream ('<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>')
  fill<<<(n + 255) / 256, 256, 0, 0>>>(x, n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'fill<<<...>>>' inside the CUDA graph capture begun at line [[@LINE-5]] launches the kernel on the legacy default stream
  fill<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
  fill<<<(n + 255) / 256, 256, 0, c10::cuda::getCurrentCUDAStream()>>>(x, n);
  graph.capture_end();
  fill<<<(n + 255) / 256, 256>>>(x, n);
}

void positiveRuntimeCapture(cudaStream_t stream, float *x, int n) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  fill<<<1, 256>>>(x, n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'fill<<<...>>>' inside the CUDA graph capture begun at line [[@LINE-2]] launches the kernel on the legacy default stream
  fill<<<1, 256, 0, stream>>>(x, n);
  cudaStreamEndCapture(stream, &graph);
}
