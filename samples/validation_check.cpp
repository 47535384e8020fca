// Validating the inputs of a loss in the training loop.
//
// Sync pattern: TORCH_CHECK on a value computed on the device
// (TORCH_CHECK(p.min().item<float>() >= 0, ...),
// TORCH_CHECK((labels >= 0).all().item<bool>(), ...)): the condition is read on
// the host, twice per batch.
// Sync-free twins: at::_assert_async, which checks the condition in a kernel
// (a failure is a device-side assert, reported at a later sync); or a device
// flag that collects the failures of every batch and is read once, after the
// loop. Skipping the check in the hot path is the third way, not shown.
#include <torch/torch.h>

#include <iostream>
#include <vector>

namespace {

torch::Tensor negativeLogLikelihood(const torch::Tensor &probabilities,
                                    const torch::Tensor &labels) {
  auto logProbabilities = probabilities.clamp_min(1e-12).log();
  return -logProbabilities.gather(1, labels.unsqueeze(1)).mean();
}

// Sync pattern: two host reads per batch, in the checks.
torch::Tensor lossCheckingEachBatch(const std::vector<torch::Tensor> &probabilities,
                                    const std::vector<torch::Tensor> &labels) {
  auto total = torch::zeros({}, probabilities.front().options());
  for (size_t batch = 0; batch < probabilities.size(); ++batch) {
    TORCH_CHECK(probabilities[batch].min().item<float>() >= 0, "negative probability in batch ", batch);
    TORCH_CHECK((labels[batch] >= 0).all().item<bool>(), "negative label in batch ", batch);
    total += negativeLogLikelihood(probabilities[batch], labels[batch]);
  }
  return total;
}

// Sync-free twin: the checks run on the device.
torch::Tensor lossAssertingOnDevice(const std::vector<torch::Tensor> &probabilities,
                                    const std::vector<torch::Tensor> &labels) {
  auto total = torch::zeros({}, probabilities.front().options());
  for (size_t batch = 0; batch < probabilities.size(); ++batch) {
    at::_assert_async(probabilities[batch].min() >= 0);
    at::_assert_async((labels[batch] >= 0).all());
    total += negativeLogLikelihood(probabilities[batch], labels[batch]);
  }
  return total;
}

// Sync-free twin: one device flag for every batch, read once after the loop.
torch::Tensor lossCheckingOnce(const std::vector<torch::Tensor> &probabilities,
                               const std::vector<torch::Tensor> &labels) {
  auto total = torch::zeros({}, probabilities.front().options());
  auto invalid = torch::zeros({}, probabilities.front().options().dtype(torch::kBool));
  for (size_t batch = 0; batch < probabilities.size(); ++batch) {
    invalid.logical_or_(probabilities[batch].min() < 0);
    invalid.logical_or_((labels[batch] < 0).any());
    total += negativeLogLikelihood(probabilities[batch], labels[batch]);
  }
  // One read, after the loop: an intended sync.
  TORCH_CHECK(!invalid.item<bool>(), "negative probability or label");
  return total;
}

} // namespace

int main() {
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  auto options = torch::TensorOptions().device(device);
  std::vector<torch::Tensor> probabilities, labels;
  for (int batch = 0; batch < 32; ++batch) {
    probabilities.push_back(torch::softmax(torch::randn({256, 100}, options), 1));
    labels.push_back(torch::randint(100, {256}, options.dtype(torch::kLong)));
  }

  auto checkingEachBatch = lossCheckingEachBatch(probabilities, labels);
  auto assertingOnDevice = lossAssertingOnDevice(probabilities, labels);
  auto checkingOnce = lossCheckingOnce(probabilities, labels);
  // One copy of the results to the host, at the end: an intended sync.
  auto losses = torch::stack({checkingEachBatch, assertingOnDevice, checkingOnce}).cpu();
  bool same = torch::allclose(losses[0], losses[1]) && torch::allclose(losses[0], losses[2]);
  std::cout << "same losses: " << (same ? "yes" : "no") << "\n";
  return same ? 0 : 1;
}
