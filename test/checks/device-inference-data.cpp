// OLDER-LIBTORCH: the rules name torch::data's class templates (MNIST, MapDataset, Stack, the loaders) as each release declares them
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-device-to-host --temp %t %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-device-to-host --temp %t-project \
// RUN:   --check-suffix=PROJECT --config="{CheckOptions: {ProjectDatasetsOnCPU: true}}" %s -- %libtorch_flags
//
// Examples and batches of torch::data: LibTorch's MNIST makes its tensors on
// the CPU, Normalize and Stack keep them there, and Stack makes batches of
// rank >= 1. A project's own dataset may put them anywhere, unless the option
// ProjectDatasetsOnCPU says otherwise; a lambda transform may, whatever the
// option.

#include <torch/torch.h>

using torch::data::transforms::Normalize;
using torch::data::transforms::Stack;

float negativeMnist(const torch::Tensor &predicted) {
  auto dataset = torch::data::datasets::MNIST("data")
                     .map(Normalize<>(0.1307, 0.3081))
                     .map(Stack<>());
  auto example = dataset.get_batch({0, 1});
  float total = example.target.sum().item<float>();
  auto loader = torch::data::make_data_loader<torch::data::samplers::RandomSampler>(
      std::move(dataset), 64);
  for (auto &batch : *loader) {
    total += batch.data.mean().item<float>();
    auto labels = batch.target.to(torch::kCPU);
    // Stacked targets have rank >= 1: the comparison runs on the CPU.
    total += (predicted == labels).sum().item<float>();
  }
  auto first = *loader->begin();
  return total + first.target[0].item<float>();
}

void positiveMnistToDevice() {
  auto dataset = torch::data::datasets::MNIST("data").map(Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  for (auto &batch : *loader) {
    auto data = batch.data.to(torch::kCUDA);
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'to' copies a host tensor to the device
    // CHECK-MESSAGES-PROJECT: :[[@LINE-2]]:28: warning: 'to' copies a host tensor to the device
    (void)data;
  }
}

// A project's dataset: its tensors come from code not seen here.
struct Pairs : torch::data::datasets::Dataset<Pairs> {
  torch::data::Example<> get(size_t index) override;
  torch::optional<size_t> size() const override { return 10; }
};

float positiveProjectDataset() {
  auto dataset = Pairs().map(Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 4);
  float total = 0;
  for (auto &batch : *loader) {
    auto data = batch.data.to(torch::kCPU);
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'to' copies the tensor to the host
    total += data.sum().item<float>();
  }
  return total;
}

// Normalize subtracts and divides by CPU tensors of rank >= 1: the data it
// returns is on the CPU whatever the dataset made (the target is not touched).
float normalizedProjectDataset() {
  auto dataset = Pairs()
                     .map(Normalize<>({0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}))
                     .map(Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 4);
  float total = 0;
  for (const auto &batch : *loader) {
    auto data = batch.data.to(torch::kCPU);
    auto labels = batch.target.to(torch::kCPU);
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'to' copies the tensor to the host
    total += data.sum().item<float>() + labels.sum().item<float>();
  }
  return total;
}

float positiveNormalizeVariable() {
  Normalize<> normalize(0.5, 0.5);
  normalize.mean = normalize.mean.cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: 'cuda' copies a host tensor to the device
  // CHECK-MESSAGES-PROJECT: :[[@LINE-2]]:35: warning: 'cuda' copies a host tensor to the device
  auto dataset = Pairs().map(normalize).map(Stack<>());
  auto example = dataset.get_batch({0});
  return example.data.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'item' copies a tensor element
}

float positiveLambdaTransform() {
  auto dataset =
      torch::data::datasets::MNIST("data")
          .map(torch::data::transforms::Lambda<torch::data::Example<>>(
              [](torch::data::Example<> e) {
                return torch::data::Example<>{e.data.cuda(), e.target};
                // CHECK-MESSAGES: :[[@LINE-1]]:54: warning: 'cuda' copies a host tensor to the device
                // CHECK-MESSAGES-PROJECT: :[[@LINE-2]]:54: warning: 'cuda' copies a host tensor to the device
              }))
          .map(Stack<>());
  auto example = dataset.get_batch({0});
  return example.data.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'item' copies a tensor element
  // CHECK-MESSAGES-PROJECT: :[[@LINE-2]]:29: warning: 'item' copies a tensor element
}
