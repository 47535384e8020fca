// RUN: %check_torch_sync --checks=-*,torch-sync-* --temp %t %s -- %libtorch_flags
//
// Patterns reduced from public LibTorch projects (docs/real-projects.md), one
// section per cause of the false alarms found there, numbered as on that page.
// Each negative case was a false alarm before the device inference handled
// it; each positive case is a real sync found next to it.

#include <torch/library.h>
#include <torch/torch.h>
#include <iostream>

// --- 1. A CPU tensor passed as the 'out' argument of an ATen '_out' function.
// 'add_out(out, self, other)' takes 'out' by non-const reference; an out=
// function writes values into it and never moves it to another device.
// (pytorch-cpp, blitz/tensors)
void cpuOutArgument() {
  auto x = torch::rand({5, 3});
  auto y = torch::rand({5, 3});
  auto r = torch::empty({5, 3});
  torch::add_out(x, y, r);
  std::cout << x << '\n'; // CPU: no diagnostic
}

void cudaOutArgument() {
  auto x = torch::rand({5, 3}, torch::kCUDA);
  auto y = torch::rand({5, 3}, torch::kCUDA);
  torch::mul_out(x, y, y);
  std::cout << x << '\n';
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
}

// --- 2. A CPU tensor passed to a forwarding reference of LibTorch
// (ModuleHolder::operator()(Args&&...), Function<T>::apply(Args&&...)) whose
// 'forward' takes its own copy. (pytorch/examples, cpp/autograd)
struct MulConstant : public torch::autograd::Function<MulConstant> {
  static torch::Tensor forward(torch::autograd::AutogradContext *ctx,
                               torch::Tensor t, double c) {
    ctx->saved_data["c"] = c;
    return t * c;
  }
  static torch::autograd::tensor_list
  backward(torch::autograd::AutogradContext *ctx,
           torch::autograd::tensor_list g) {
    return {g[0] * ctx->saved_data["c"].toDouble(), torch::Tensor()};
  }
};

void cpuForwardingReference() {
  torch::nn::Linear model(4, 3);
  auto input = torch::randn({3, 4}).requires_grad_(true);
  auto output = model(input);
  output.sum().backward();
  std::cout << input.grad() << '\n'; // CPU: no diagnostic

  auto x = torch::randn({2}).requires_grad_();
  auto z = MulConstant::apply(x, 5.5);
  z.sum().backward();
  std::cout << x.grad() << '\n'; // CPU: no diagnostic
}

// --- 3. A module of torch::nn made in the function and never moved has its
// parameters on the CPU; its output on CPU inputs is on the CPU.
// (pytorch-cpp basics, pytorch/examples cpp/regression)
float cpuLocalModule() {
  torch::nn::Linear linear(3, 2);
  torch::optim::SGD optimizer(linear->parameters(), torch::optim::SGDOptions(0.01));
  auto x = torch::randn({10, 3});
  auto y = torch::randn({10, 2});
  auto loss = torch::mse_loss(linear->forward(x), y);
  std::cout << linear->weight << '\n';       // CPU: no diagnostic
  std::cout << linear->bias.grad() << '\n';  // CPU: no diagnostic
  optimizer.step();
  return loss.item<float>();                 // CPU: no diagnostic
}

float cudaLocalModule() {
  torch::nn::Linear linear(3, 2);
  linear->to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'torch::nn::Module::to' makes one blocking copy per parameter and buffer
  auto x = torch::randn({10, 3}, torch::kCUDA);
  auto loss = linear->forward(x).sum();
  std::cout << linear->weight << '\n';
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  return loss.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'item' copies a tensor element to the host
}

// --- 4. An element-wise operation with a CPU operand of rank >= 1 is on the
// CPU: ATen rejects mixed devices unless the CPU side is a 0-dim input.
// (pytorch-cpp, blitz/training_a_classifier)
float cpuMixedOperands(const torch::Tensor &predicted) {
  auto labels = torch::randint(0, 10, {4});
  auto c = (predicted == labels).squeeze();
  return c.sum().item<float>(); // CPU: no diagnostic
}

float scalarMixedOperands(const torch::Tensor &predicted) {
  auto threshold = torch::tensor(0.5); // 0-dim: may join a CUDA operand
  return (predicted > threshold).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: 'item' copies a tensor element
}

// --- 5. Examples of LibTorch's MNIST dataset are made on the CPU.
// (pytorch-cpp, basics/pytorch_basics)
int cpuDatasetExample() {
  auto dataset = torch::data::datasets::MNIST("data")
                     .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                     .map(torch::data::transforms::Stack<>());
  auto example = dataset.get_batch(0);
  return example.target.item<int>(); // CPU: no diagnostic
}

// --- 6. BatchNorm's forward reads 'num_batches_tracked' on the host only
// when options.momentum() is nullopt; the default momentum is 0.1.
// (pytorch-cpp, deep_residual_network and image_captioning)
torch::Tensor batchNormDefaultMomentum(const torch::Tensor &x) {
  torch::nn::BatchNorm2d bn(3);
  bn->to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'torch::nn::Module::to' makes one blocking copy per parameter and buffer
  return bn->forward(x.to(torch::kCUDA, /*non_blocking=*/true)); // no diagnostic
}

// --- 7. '.to(other.options())' between tensors on the same device is a dtype
// conversion, not a copy, when both are computed from the same tensor.
torch::Tensor sameDeviceOptions(const torch::Tensor &grad_out) {
  auto grad_in = torch::empty(grad_out.sizes(), grad_out.options());
  auto count = grad_out.narrow(-1, 1, 1).to(grad_in.options()); // no diagnostic
  return grad_in / count;
}

// Two tensors of one op that the op requires on one device (pytorch_scatter,
// segment_csr.cpp backward) are not known to share it: still reported.
torch::Tensor crossTensorOptions(const torch::Tensor &grad_out,
                                 const torch::Tensor &indptr) {
  auto grad_in = torch::empty(grad_out.sizes(), grad_out.options());
  auto count = (indptr.narrow(-1, 1, 1) - indptr.narrow(-1, 0, 1))
                   .to(grad_in.options());
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'to' may copy the tensor between host and device
  return grad_in / count;
}

// --- 8. Parameters of a function private to its file take the devices of
// the arguments at its calls. (pytorch/examples, cpp/regression)
namespace {
std::string describe(torch::Tensor w, torch::Tensor b) {
  return std::to_string(w[0].item<float>()) + " " +
         std::to_string(b.item<float>()); // called with CPU tensors only
}
} // namespace

std::string describeModel() {
  auto w = torch::randn({4, 1}) * 5;
  auto b = torch::randn({1}) * 5;
  return describe(w.view({-1}), b); // no diagnostic
}

// --- Guards and CPU kernels: 'x.device().is_cpu()' (CHECK_CPU in
// pytorch_scatter and pytorch_cluster), 'is_cuda()', and registration for the
// CPU dispatch key.
#define CHECK_CPU(x) AT_ASSERTM(x.device().is_cpu(), #x " must be CPU tensor")

int64_t cpuKernel(torch::Tensor src, torch::Tensor ratio) {
  CHECK_CPU(src);
  CHECK_CPU(ratio);
  auto n = src.max().item<int64_t>(); // CPU by the guard: no diagnostic
  return n + static_cast<int64_t>(ratio.item<double>()); // no diagnostic
}

int64_t cudaLauncher(torch::Tensor index) {
  TORCH_CHECK(index.is_cuda());
  return 1 + index.max().cpu().data_ptr<int64_t>()[0];
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'cpu' copies the tensor to the host
}

torch::Tensor registeredCpuKernel(const torch::Tensor &x) {
  return x.sum().item<double>() > 0 ? x : -x; // CPU dispatch key: no diagnostic
}

TORCH_LIBRARY_IMPL(real_code, CPU, m) { m.impl("k", &registeredCpuKernel); }
