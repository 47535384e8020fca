// Accuracy over a validation set.
//
// Sync pattern: counting correct predictions with item() per batch.
// Sync-free twin: sum the counts in a device tensor, read it once at the end.
#include <torch/torch.h>

#include <cstdint>
#include <iostream>
#include <vector>

namespace {

// Sync pattern.
double accuracyPerBatchRead(const std::vector<torch::Tensor> &logits,
                            const std::vector<torch::Tensor> &labels) {
  int64_t correct = 0, total = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    auto predicted = logits[i].argmax(1);
    correct += predicted.eq(labels[i]).sum().item<int64_t>();
    total += labels[i].size(0);
  }
  return static_cast<double>(correct) / static_cast<double>(total);
}

// Sync-free twin: the count stays on the device.
torch::Tensor accuracyOnDevice(const std::vector<torch::Tensor> &logits,
                               const std::vector<torch::Tensor> &labels) {
  auto correct = torch::zeros({}, labels.front().options());
  int64_t total = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    correct += logits[i].argmax(1).eq(labels[i]).sum();
    total += labels[i].size(0);
  }
  return correct.to(torch::kDouble) / static_cast<double>(total);
}

} // namespace

int main() {
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  std::vector<torch::Tensor> logits, labels;
  for (int batch = 0; batch < 16; ++batch) {
    logits.push_back(torch::randn({128, 10}, torch::TensorOptions().device(device)));
    labels.push_back(torch::randint(10, {128}, torch::TensorOptions().device(device).dtype(torch::kLong)));
  }
  double a = accuracyPerBatchRead(logits, labels);
  torch::Tensor b = accuracyOnDevice(logits, labels);
  std::cout << "accuracy " << a << " / " << b << "\n";
  return 0;
}
