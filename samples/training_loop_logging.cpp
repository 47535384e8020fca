// A training loop that logs its loss.
//
// Sync pattern: reading the loss with item() (and printing it) every step makes
// the host wait for the GPU to finish the step before it can queue the next one.
// Sync-free twin: accumulate the loss on the device and read it once, after the
// loop.
#include <torch/torch.h>

#include <iostream>

namespace {

torch::nn::Sequential makeModel(const torch::Device &device) {
  torch::nn::Sequential model(torch::nn::Linear(64, 128), torch::nn::ReLU(),
                              torch::nn::Linear(128, 1));
  model->to(device);
  return model;
}

// Sync pattern: one host read per step.
double trainLoggingEveryStep(torch::nn::Sequential &model,
                             torch::optim::SGD &optimizer,
                             const torch::Tensor &inputs,
                             const torch::Tensor &targets, int steps) {
  double last = 0;
  for (int step = 0; step < steps; ++step) {
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model->forward(inputs), targets);
    loss.backward();
    optimizer.step();
    last = loss.item<double>();
    std::cout << "step " << step << " loss " << last << "\n";
  }
  return last;
}

// Sync-free twin: the loss stays on the device; the caller reads it once.
torch::Tensor trainAccumulatingOnDevice(torch::nn::Sequential &model,
                                        torch::optim::SGD &optimizer,
                                        const torch::Tensor &inputs,
                                        const torch::Tensor &targets,
                                        int steps) {
  auto running = torch::zeros({}, inputs.options());
  for (int step = 0; step < steps; ++step) {
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model->forward(inputs), targets);
    loss.backward();
    optimizer.step();
    running = loss.detach();
  }
  return running;
}

} // namespace

int main() {
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  auto model = makeModel(device);
  torch::optim::SGD optimizer(model->parameters(), /*lr=*/0.01);
  auto inputs = torch::randn({256, 64}, torch::TensorOptions().device(device));
  auto targets = torch::randn({256, 1}, torch::TensorOptions().device(device));

  double logged = trainLoggingEveryStep(model, optimizer, inputs, targets, 20);
  torch::Tensor last = trainAccumulatingOnDevice(model, optimizer, inputs, targets, 20);
  // One read at the end of training, outside the loop: an intended sync.
  std::cout << "final loss " << logged << " / " << last.item<double>() << "\n";
  return 0;
}
