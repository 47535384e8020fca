// Feeding batches from host memory to the GPU.
//
// Sync pattern: building each batch with torch::tensor(list, device) and
// copying with a blocking .to(device): every copy waits for the GPU to finish
// the previous batch's work.
// Sync-free twin: one pinned host buffer, and non_blocking copies.
#include <torch/torch.h>

#include <vector>

namespace {

// Sync pattern.
torch::Tensor uploadBlocking(const std::vector<std::vector<float>> &batches,
                             const torch::Device &device) {
  auto total = torch::zeros({4}, torch::TensorOptions().device(device));
  for (const auto &values : batches) {
    auto batch = torch::tensor(values, torch::TensorOptions().device(device));
    auto weights = torch::ones({4}).to(device);
    total += (batch * weights).sum();
  }
  return total;
}

// Sync-free twin: pinned memory and non_blocking copies.
torch::Tensor uploadPinned(const std::vector<std::vector<float>> &batches,
                           const torch::Device &device) {
  auto total = torch::zeros({4}, torch::TensorOptions().device(device));
  auto weights = torch::ones({4}, torch::TensorOptions().device(device));
  for (const auto &values : batches) {
    auto staging = torch::empty({static_cast<int64_t>(values.size())},
                                torch::TensorOptions().pinned_memory(device.is_cuda()));
    std::copy(values.begin(), values.end(), staging.data_ptr<float>());
    auto batch = staging.to(device, /*non_blocking=*/true);
    total += (batch * weights).sum();
  }
  return total;
}

} // namespace

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  std::vector<std::vector<float>> batches(32, std::vector<float>(4, 0.5f));
  auto a = uploadBlocking(batches, device);
  auto b = uploadPinned(batches, device);
  // Comparing the results on the host once, at the end: an intended sync.
  return torch::allclose(a.cpu(), b.cpu()) ? 0 : 1;
}
