// A CUDA extension op: keeping the values above a threshold, in their order.
//
// Sync pattern: the host wrapper sizes its output with a count that only the
// device knows. After the flagging kernel it waits for the device with
// cudaDeviceSynchronize() (to surface kernel errors early), and it reads the
// number of kept values with item() to allocate the output.
// Sync-free twin: the output has the input's size (the most values that can
// pass), zero past the kept values, and the count stays on the device as a
// 0-dim tensor for the caller to read when it needs it; launch errors are
// checked with C10_CUDA_KERNEL_LAUNCH_CHECK(), which does not wait.
//
// It runs only on a CUDA device: without one, main says so and exits with 0.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <torch/torch.h>

#include <cstdint>
#include <iostream>
#include <limits>
#include <vector>

namespace {

constexpr int kThreadsPerBlock = 256;

// flags[i] is 1 where values[i] > threshold, else 0.
__global__ void flagAboveThreshold(const float *values, float threshold, int *flags,
                                   int64_t count) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < count)
    flags[i] = values[i] > threshold ? 1 : 0;
}

// Writes each flagged value at its place in the output. positions is the
// inclusive prefix sum of the flags, so the kept values keep their order.
__global__ void scatterFlagged(const float *values, const int *flags, const int *positions,
                               float *output, int64_t count) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < count && flags[i] != 0)
    output[positions[i] - 1] = values[i];
}

// Checks on metadata only: nothing here reads the device.
void checkValues(const torch::Tensor &values) {
  TORCH_CHECK(values.is_cuda(), "values must be a CUDA tensor");
  TORCH_CHECK(values.scalar_type() == torch::kFloat, "values must be float32");
  TORCH_CHECK(values.dim() == 1 && values.is_contiguous(), "values must be a contiguous vector");
  TORCH_CHECK(values.numel() > 0 && values.numel() <= std::numeric_limits<int>::max(),
              "values must have between 1 and INT_MAX elements");
}

unsigned blocksFor(int64_t count) {
  return static_cast<unsigned>((count + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

// Sync pattern: a wait after the launch, and a read of the count.
torch::Tensor selectAboveThresholdSized(const torch::Tensor &values, float threshold) {
  checkValues(values);
  const int64_t count = values.numel();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  auto flags = torch::empty({count}, values.options().dtype(torch::kInt));
  flagAboveThreshold<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(
      values.data_ptr<float>(), threshold, flags.data_ptr<int>(), count);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  C10_CUDA_CHECK(cudaDeviceSynchronize());
  auto positions = flags.cumsum(/*dim=*/0, torch::kInt);
  const int64_t kept = positions[count - 1].item<int>();
  auto output = torch::empty({kept}, values.options());
  scatterFlagged<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(
      values.data_ptr<float>(), flags.data_ptr<int>(), positions.data_ptr<int>(),
      output.data_ptr<float>(), count);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return output;
}

struct PaddedSelection {
  torch::Tensor values; // the input's size: the kept values in order, then zeros
  torch::Tensor count;  // 0-dim int32, on the device
};

// Sync-free twin: fixed-size output, count on the device.
PaddedSelection selectAboveThresholdPadded(const torch::Tensor &values, float threshold) {
  checkValues(values);
  const int64_t count = values.numel();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  auto flags = torch::empty({count}, values.options().dtype(torch::kInt));
  flagAboveThreshold<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(
      values.data_ptr<float>(), threshold, flags.data_ptr<int>(), count);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto positions = flags.cumsum(/*dim=*/0, torch::kInt);
  auto output = torch::zeros_like(values);
  scatterFlagged<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(
      values.data_ptr<float>(), flags.data_ptr<int>(), positions.data_ptr<int>(),
      output.data_ptr<float>(), count);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return {output, positions[count - 1]};
}

} // namespace

int main() {
  if (!torch::cuda::is_available()) {
    std::cout << "cuda_extension_op: no CUDA device; nothing to run\n";
    return 0;
  }
  torch::manual_seed(0);
  torch::Device device(torch::kCUDA);
  const int64_t length = 1 << 20;
  const float threshold = 1.0f;
  std::vector<torch::Tensor> inputs;
  for (int call = 0; call < 20; ++call)
    inputs.push_back(torch::randn({length}, torch::TensorOptions().device(device)));

  std::vector<torch::Tensor> sized;
  for (const auto &values : inputs)
    sized.push_back(selectAboveThresholdSized(values, threshold));
  std::vector<torch::Tensor> padded, counts;
  for (const auto &values : inputs) {
    PaddedSelection selection = selectAboveThresholdPadded(values, threshold);
    padded.push_back(selection.values);
    counts.push_back(selection.count);
  }

  // The sized results padded to the input's size: their sizes are on the host.
  std::vector<int64_t> sizedCounts;
  std::vector<torch::Tensor> sizedPadded;
  for (const auto &values : sized) {
    sizedCounts.push_back(values.size(0));
    sizedPadded.push_back(torch::constant_pad_nd(values, {0, length - values.size(0)}));
  }
  // One copy of each result to the host, at the end: intended syncs.
  auto sizedOnHost = torch::stack(sizedPadded).cpu();
  auto paddedOnHost = torch::stack(padded).cpu();
  auto countsOnHost = torch::stack(counts).cpu();
  bool same = torch::equal(sizedOnHost, paddedOnHost);
  auto countOf = countsOnHost.accessor<int, 1>();
  for (size_t call = 0; call < sizedCounts.size(); ++call)
    same = same && countOf[static_cast<int64_t>(call)] == sizedCounts[call];
  std::cout << "same selections: " << (same ? "yes" : "no") << "\n";
  return same ? 0 : 1;
}
