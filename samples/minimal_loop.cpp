// The minimal loop: a slow GPU operation and a quick bookkeeping operation.
//
// Each iteration runs a chain of matrix products on the GPU (two 2048 x 2048
// products, about 0.7 ms on an H200), counts the step in a tensor on the
// device, and does some bookkeeping on the host (a running statistic over
// recent host values, about 0.2 ms).
// healthyLoop: the host only queues work and runs ahead of the GPU, so the
// host's bookkeeping overlaps the GPU's products.
// Sync pattern (printingLoop): the same loop with a harmless-looking
// `std::cout << state.step` each iteration. Printing a CUDA tensor copies it to
// the host, which waits until the GPU has finished the iteration's products:
// the host can no longer run ahead, and the GPU idles while the host does its
// bookkeeping, formats the text and queues the next iteration.
// Sync-free twin (repairedLoop): prints a host-side counter; the device value
// is printed once, after the loop (in main).
//
// The benchmark runtime-verify/loop_benchmark.cpp includes this file with
// TORCH_SYNC_SAMPLE_NO_MAIN defined.
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <numeric>
#include <vector>

namespace {

struct MinimalLoopState {
  torch::Tensor weights;     // the slow operation's matrix
  torch::Tensor activations; // carried from one iteration to the next
  torch::Tensor step;        // the bookkeeping: a step counter on the device
  int64_t hostStep = 0;      // the same count, on the host: repairedLoop prints it
  std::vector<double> recentHostValues = std::vector<double>(1 << 18, 1.0);
  double runningMean = 0;    // the host bookkeeping's result
};

constexpr int kProductsPerStep = 2;

MinimalLoopState makeMinimalLoopState(const torch::Device &device) {
  // Two 2048 x 2048 float32 products (LibTorch's default: no TF32) are about
  // 34 GFLOP, about 0.7 ms on an H200; runtime-verify/loop_benchmark
  // measures the loops. On the CPU the matrices are smaller, so the sample stays quick.
  const int64_t size = device.is_cuda() ? 2048 : 128;
  auto options = torch::TensorOptions().device(device);
  MinimalLoopState state;
  state.weights = torch::randn({size, size}, options) / std::sqrt(static_cast<double>(size));
  state.activations = torch::randn({size, size}, options);
  state.step = torch::zeros({}, options.dtype(torch::kLong));
  return state;
}

// The slow operation.
torch::Tensor slowOperation(const torch::Tensor &weights, torch::Tensor activations) {
  for (int product = 0; product < kProductsPerStep; ++product)
    activations = torch::tanh(torch::mm(activations, weights));
  return activations;
}

// The quick bookkeeping on the host: a running mean over the recent host
// values (2^18 doubles, a fraction of a millisecond).
void hostBookkeeping(MinimalLoopState &state) {
  state.recentHostValues[state.hostStep % state.recentHostValues.size()] =
      static_cast<double>(state.hostStep);
  state.runningMean = std::accumulate(state.recentHostValues.begin(), state.recentHostValues.end(), 0.0) /
                      static_cast<double>(state.recentHostValues.size());
}

void healthyLoop(MinimalLoopState &state, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    state.activations = slowOperation(state.weights, state.activations);
    state.step += 1;
    ++state.hostStep;
    hostBookkeeping(state);
  }
}

// Sync pattern: printing the device counter every iteration.
void printingLoop(MinimalLoopState &state, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    state.activations = slowOperation(state.weights, state.activations);
    state.step += 1;
    ++state.hostStep;
    hostBookkeeping(state);
    std::cout << "step " << state.step << "\n";
  }
}

// Sync-free twin: printing the host counter every iteration.
void repairedLoop(MinimalLoopState &state, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    state.activations = slowOperation(state.weights, state.activations);
    state.step += 1;
    ++state.hostStep;
    hostBookkeeping(state);
    std::cout << "step " << state.hostStep << "\n";
  }
}

} // namespace

#ifndef TORCH_SYNC_SAMPLE_NO_MAIN
int main() {
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  MinimalLoopState state = makeMinimalLoopState(device);
  healthyLoop(state, 20);
  printingLoop(state, 20);
  repairedLoop(state, 20);
  // The device counter, read once after the loops: an intended sync.
  const int64_t deviceSteps = state.step.item<int64_t>();
  std::cout << "steps on the device: " << deviceSteps << ", on the host: " << state.hostStep << "\n";
  return deviceSteps == state.hostStep ? 0 : 1;
}
#endif
