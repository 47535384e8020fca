// A training loop as users write it, on the whole LibTorch API.
#include <torch/torch.h>

#include <iostream>

void train(torch::nn::Linear &model, torch::optim::SGD &optimizer,
           const torch::Tensor &inputs, const torch::Tensor &targets) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model->forward(inputs), targets);
    loss.backward();
    optimizer.step();
    std::cout << "loss " << loss.item<float>() << "\n";
  }
}

// Sync-free twin: the losses stay on the device; one read after the loop.
float trainQuietly(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                   const torch::Tensor &inputs, const torch::Tensor &targets) {
  torch::Tensor total = torch::zeros({}, inputs.options());
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model->forward(inputs), targets);
    loss.backward();
    optimizer.step();
    total += loss.detach();
  }
  return total.item<float>();
}
