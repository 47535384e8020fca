// OLDER-LIBTORCH: the rules name LibTorch's out= functions, modules and autograd::Function as each release declares them
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-print --temp %t %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-print --temp %t-known --check-suffix=KNOWN \
// RUN:   --config="{CheckOptions: {ReportUnknownDevice: false}}" %s -- %libtorch_flags
//
// What the device inference knows about LibTorch's own functions and classes:
// the outputs of ATen's out= functions, the forwarding wrappers of modules and
// autograd functions, the modules of torch::nn made in a function, and the
// tensor methods and operators that follow their operands.

#include <torch/torch.h>
#include <iostream>

// --- Out= functions write into their output on its device.

void negativeOutArguments() {
  auto a = torch::rand({5, 3});
  auto out = torch::empty({5, 3});
  at::add_out(out, a, a);
  std::cout << out;
  auto sum = torch::empty({3});
  torch::sum_outf(a, {0}, /*keepdim=*/false, /*dtype=*/c10::nullopt, sum);
  std::cout << sum;
}

namespace project {
void refresh_out(at::Tensor &out); // a project's function: may replace 'out'
} // namespace project

void positiveOutArguments() {
  auto out = torch::empty({5, 3});
  project::refresh_out(out);
  std::cout << out;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  auto onDevice = torch::empty({5, 3}, torch::kCUDA);
  at::add_out(onDevice, onDevice, onDevice);
  std::cout << onDevice;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:13: warning: 'operator<<' streams a tensor
}

// --- Forwarding references of LibTorch whose 'forward' takes a copy.

struct Scale : public torch::autograd::Function<Scale> {
  static torch::Tensor forward(torch::autograd::AutogradContext *ctx,
                               const torch::Tensor &t, double c) {
    return t * c;
  }
  static torch::autograd::tensor_list
  backward(torch::autograd::AutogradContext *ctx, torch::autograd::tensor_list g) {
    return {g[0], torch::Tensor()};
  }
};

// A forward that takes a non-const reference may replace the caller's tensor.
struct MoveInput : public torch::autograd::Function<MoveInput> {
  static torch::Tensor forward(torch::autograd::AutogradContext *ctx,
                               torch::Tensor &t) {
    t = t.cuda();
    return t;
  }
  static torch::autograd::tensor_list
  backward(torch::autograd::AutogradContext *ctx, torch::autograd::tensor_list g) {
    return {g[0]};
  }
};

struct ReplaceImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor &x) {
    x = x.cuda();
    return x;
  }
};
TORCH_MODULE(Replace);

void negativeForwarding() {
  torch::nn::Linear model(4, 3);
  auto input = torch::randn({3, 4});
  auto output = model(input);
  std::cout << input;
  auto x = torch::randn({2});
  auto y = Scale::apply(x, 2.0);
  std::cout << x;
}

void positiveForwarding() {
  Replace replace;
  auto input = torch::randn({3, 4});
  replace(input);
  std::cout << input;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  auto x = torch::randn({2});
  MoveInput::apply(x);
  std::cout << x;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
}

// --- Modules of torch::nn made in the function: parameters and buffers on
// the CPU until moved.

float negativeLocalModules() {
  torch::nn::Linear linear(3, 2);
  torch::optim::SGD optimizer(linear->parameters(), torch::optim::SGDOptions(0.1));
  torch::nn::MSELoss criterion;
  auto x = torch::randn({8, 3});
  auto y = torch::randn({8, 2});
  auto loss = criterion(linear->forward(x), y);
  loss.backward();
  optimizer.step();
  std::cout << linear << linear->weight << linear->bias.grad();
  auto again = torch::nn::MSELoss()(linear(x), y);
  auto functional = torch::nn::functional::mse_loss(linear(x), y);
  return loss.item<float>() + again.item<float>() + functional.item<float>();
}

float negativeModuleMovedToCpu() {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(1, 4, 3));
  conv->to(torch::kCPU);
  conv->eval();
  return conv(torch::randn({1, 1, 8, 8})).sum().item<float>();
}

void initialize(torch::nn::Linear &module);

float positiveLocalModules(const torch::Tensor &unknown) {
  torch::nn::Linear moved(3, 2);
  moved->to(torch::kCUDA);
  std::cout << moved->weight;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  torch::nn::Linear passedOn(3, 2);
  initialize(passedOn);
  std::cout << passedOn->weight;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  torch::nn::Linear handedOut(3, 2);
  for (auto &p : handedOut->parameters())
    p.set_data(p.cuda());
  std::cout << handedOut->weight;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  torch::nn::Linear replaced(3, 2);
  replaced->weight = torch::randn({2, 3}, torch::kCUDA);
  std::cout << replaced->bias;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  auto table = torch::nn::Embedding(
      torch::nn::EmbeddingOptions(10, 3)._weight(unknown));
  std::cout << table->weight;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  torch::nn::Linear fresh(3, 2);
  return fresh(unknown).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'item' copies a tensor element
}

struct NetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  NetImpl() { fc = register_module("fc", torch::nn::Linear(3, 2)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
};
TORCH_MODULE(Net);

float positiveProjectModules() {
  // A project's module and the containers run code that may move tensors.
  Net net;
  auto x = torch::randn({4, 3});
  float a = net(x).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item' copies a tensor element
  torch::nn::Sequential sequence(torch::nn::Linear(3, 2));
  return a + sequence->forward(x).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'item' copies a tensor element
}

float positiveModuleOnCuda() {
  torch::nn::Linear linear(3, 2);
  linear->to(torch::kCUDA);
  auto x = torch::randn({4, 3}, torch::kCUDA);
  return linear(x).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item' copies a tensor element
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:26: warning: 'item' copies a tensor element
}

// --- Tensor methods and operators.

namespace project {
struct ToDevice {};
// A project's operator on tensors may compute anywhere.
inline at::Tensor operator|(const at::Tensor &t, ToDevice) { return t.cuda(); }
} // namespace project

void methodsAndOperators(const torch::Tensor &onDevice) {
  auto host = torch::zeros({3});
  std::cout << host.new_zeros({2}, torch::kDouble);
  // A 0-dim CPU receiver joins its operand's device.
  std::cout << torch::tensor(1.0).add(onDevice);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  std::cout << host.new_zeros({2}, torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:13: warning: 'operator<<' streams a tensor
  std::cout << (host | project::ToDevice{});
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  auto replacedData = torch::zeros({3});
  replacedData.set_data(onDevice);
  std::cout << replacedData;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
}

// --- Element-wise operations with a CPU operand of rank >= 1 run on the CPU.

float negativeElementwise(const torch::Tensor &unknown) {
  auto labels = torch::randint(0, 10, {4});
  auto weights = torch::ones(4);
  auto host = torch::tensor({1.0, 2.0, 3.0, 4.0});
  float a = (unknown == labels).sum().item<float>();
  float b = unknown.mul(weights).sum().item<float>();
  float c = torch::maximum(unknown, host.view({2, 2})).sum().item<float>();
  float d = (labels.to(torch::kFloat) * unknown + 1).sum().item<float>();
  return a + b + c + d;
}

float positiveElementwise(const torch::Tensor &unknown) {
  auto scalar = torch::zeros({});   // 0-dim: a CUDA operand may join it
  auto sizes = std::vector<int64_t>{4};
  auto fromSizes = torch::ones(sizes); // its rank is not known here
  float a = (unknown * scalar).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'item' copies a tensor element
  float b = (unknown + fromSizes).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'item' copies a tensor element
  // Indexing is no element-wise operation: a CPU index may select from a
  // CUDA tensor.
  float c = unknown.index({torch::arange(2)}).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:53: warning: 'item' copies a tensor element
  return a + b + c;
}
