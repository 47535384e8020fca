// A CUDA source of an extension: a kernel and its host wrapper.
#include <ATen/cuda/CUDAContext.h>
#include <torch/torch.h>

__global__ void scaleKernel(float *data, float factor, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    data[i] *= factor;
}

void scaleAll(std::vector<torch::Tensor> &tensors, float factor) {
  for (auto &t : tensors) {
    int64_t n = t.numel();
    auto stream = at::cuda::getCurrentCUDAStream();
    scaleKernel<<<(n + 255) / 256, 256, 0, stream>>>(t.data_ptr<float>(), factor, n);
    cudaDeviceSynchronize();
  }
}

// Sync-free twin: launch errors are checked without waiting.
void scaleAllAsync(std::vector<torch::Tensor> &tensors, float factor) {
  for (auto &t : tensors) {
    int64_t n = t.numel();
    auto stream = at::cuda::getCurrentCUDAStream();
    scaleKernel<<<(n + 255) / 256, 256, 0, stream>>>(t.data_ptr<float>(), factor, n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
}
