// Benchmark translation unit for scripts/benchmark.sh: a small but realistic LibTorch
// program (a model, one training step, some tensor ops) with a few host-device syncs.
#include <torch/torch.h>

#include <iostream>

struct Net : torch::nn::Module {
  Net() {
    fc1 = register_module("fc1", torch::nn::Linear(64, 32));
    fc2 = register_module("fc2", torch::nn::Linear(32, 10));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(fc1->forward(x));
    return torch::log_softmax(fc2->forward(x), /*dim=*/1);
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};

float train_step(Net& net, torch::optim::SGD& opt, const torch::Tensor& x,
                 const torch::Tensor& y) {
  opt.zero_grad();
  torch::Tensor loss = torch::nll_loss(net.forward(x), y);
  loss.backward();
  opt.step();
  return loss.item<float>();  // sync: copies the loss to the host
}

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  auto net = std::make_shared<Net>();
  net->to(device);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));

  torch::Tensor x = torch::randn({16, 64}, device);
  torch::Tensor y = torch::randint(0, 10, {16}, torch::TensorOptions().dtype(torch::kLong).device(device));
  for (int step = 0; step < 3; ++step) {
    float loss = train_step(*net, opt, x, y);
    std::cout << "step " << step << " loss " << loss << '\n';
  }

  torch::NoGradGuard no_grad;
  torch::Tensor pred = net->forward(x).argmax(1);
  torch::Tensor accuracy = (pred == y).to(torch::kFloat).mean();
  std::cout << "accuracy: " << accuracy << '\n';  // sync: prints a device tensor
  torch::Tensor host = pred.cpu();                // sync: device-to-host copy
  return host.size(0) == 16 ? 0 : 1;
}
