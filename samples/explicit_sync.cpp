// Timing training steps.
//
// Sync pattern: a device-wide torch::cuda::synchronize() after every step, to time it. PyTorch's sync
// debug mode does not report it; CUPTI sees the call.
// Also a non_blocking copy from pageable host memory, which CUDA's documentation calls synchronous: the
// host-wait test measured this one (64 KiB) as returning before the GPU work queued ahead of it had
// finished, so it is not counted as a sync (the staging copy waits for the host, not for the device).
// Sync-free twin: pinned host memory, and one synchronize after the loop.
#include <torch/torch.h>

#include <chrono>
#include <iostream>

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Sync pattern.
double timeStepsWaitingEachStep(const torch::Tensor &weights, const torch::Tensor &hostBatch, int steps) {
  auto start = std::chrono::steady_clock::now();
  auto total = torch::zeros({hostBatch.size(0), weights.size(1)}, weights.options());
  for (int step = 0; step < steps; ++step) {
    auto batch = hostBatch.to(weights.device(), /*non_blocking=*/true);
    total += torch::mm(batch, weights);
    if (weights.is_cuda())
      torch::cuda::synchronize();
  }
  return secondsSince(start);
}

// Sync-free twin: pinned staging memory, one wait at the end.
double timeStepsWaitingOnce(const torch::Tensor &weights, const torch::Tensor &hostBatch, int steps) {
  auto pinnedBatch = weights.is_cuda() ? hostBatch.pin_memory() : hostBatch;
  auto start = std::chrono::steady_clock::now();
  auto total = torch::zeros({hostBatch.size(0), weights.size(1)}, weights.options());
  for (int step = 0; step < steps; ++step) {
    auto batch = pinnedBatch.to(weights.device(), /*non_blocking=*/true);
    total += torch::mm(batch, weights);
  }
  // One wait, after the loop: an intended sync.
  if (weights.is_cuda())
    torch::cuda::synchronize();
  return secondsSince(start);
}

} // namespace

int main() {
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  auto weights = torch::randn({256, 256}, torch::TensorOptions().device(device));
  auto hostBatch = torch::randn({64, 256}); // pageable host memory
  double waitingEachStep = timeStepsWaitingEachStep(weights, hostBatch, 20);
  double waitingOnce = timeStepsWaitingOnce(weights, hostBatch, 20);
  std::cout << "waiting each step " << waitingEachStep << " s, once " << waitingOnce << " s\n";
  return 0;
}
