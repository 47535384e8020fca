// torch-sync-device-to-host, rule by rule: blocking copies between host and
// device.
//
// One rule_* function per call the check reports ('.cpu()', '.to()' to the
// host or to the device, '.cuda()', 'copy_' across, 'torch::tensor' from a
// host list on a device, 'at::tensor' on a device from a list or a single
// value, 'torch::nn::Module::to', 'torch::jit::Module::to', 'torch::save' of
// a device tensor or module) and one exempt_* function per sync-free twin it
// must stay silent on (non_blocking copies with pinned memory, calls that
// stay on one side, 'torch::tensor' of a single value or on the host,
// 'torch::save' of a host tensor or module).
//
// Note: 'at::tensor(value, options)' and 'torch::tensor(value, options)'
// differ: the first copies the value from the host (ATen/Utils.cpp), the
// second fills it on the device; exempt_torch_tensor_single_value is the
// twin of both rule_at_tensor_* functions.
//
// Note: rule_to_device_non_blocking_from_pageable is a sync that the check
// does not report, a limitation its documentation lists: CUDA stages a
// non_blocking copy from pageable host memory through pinned memory, and the
// host waits for that; the check does not track whether memory is pinned.
//
// Pinned memory comes from LibTorch's caching host allocator, and allocating
// a new block (cudaHostAlloc) may itself wait for the device: the first
// pinned block is made in rule_copy_device_to_host, and the twins reuse it,
// so they keep no pinned tensor alive.
//
// Every call that may synchronize is on a line of its own. Tensor results are
// kept until main returns and never read. Calls that need a CUDA build
// ('.cuda()', pinned memory) return at once on a CPU-only LibTorch.
#include <torch/script.h>
#include <torch/torch.h>

#include <sstream>
#include <utility>
#include <vector>

namespace {

// Tensor results, kept until main returns and never read.
std::vector<torch::Tensor> results;
void keep(torch::Tensor result) { results.push_back(std::move(result)); }

// cpu() copies a device tensor to the host.
void rule_cpu(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  keep(values.cpu());
}

// Twin of rule_cpu: cpu() of a tensor already on the host copies nothing.
void exempt_cpu_of_host_tensor() {
  auto host = torch::arange(4);
  keep(host.cpu());
  keep(host.to(torch::kCPU));
}

// copy_ into a host tensor, pageable or pinned, waits for the device.
void rule_copy_device_to_host(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  auto pageable = torch::zeros({4}, torch::kLong);
  auto pinned = torch::zeros({4}, torch::TensorOptions()
                                      .dtype(torch::kLong)
                                      .pinned_memory(device.is_cuda()));
  pageable.copy_(values);
  pinned.copy_(values);
}

// copy_ from a host tensor into a device tensor.
void rule_copy_host_to_device(torch::Device device) {
  auto values = torch::zeros({4}, torch::TensorOptions().device(device));
  auto host = torch::arange(4, torch::kFloat);
  values.copy_(host);
}

// Twin of rule_copy_*: non_blocking copies to and from pinned host memory.
void exempt_copy_non_blocking_pinned(torch::Device device) {
  if (!device.is_cuda())
    return;
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  auto pinned = torch::zeros(
      {4}, torch::TensorOptions().dtype(torch::kLong).pinned_memory(true));
  values.copy_(pinned, /*non_blocking=*/true);
  pinned.copy_(values, /*non_blocking=*/true);
}

// to() with a CPU target, however spelled, copies a device tensor to the host.
void rule_to_cpu(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  auto hostLike = torch::zeros({4}, torch::kLong);
  keep(values.to(torch::kCPU));
  keep(values.to(torch::Device(torch::kCPU)));
  keep(values.to(torch::TensorOptions().device(torch::kCPU)));
  keep(values.to(hostLike));
  keep(values.to(torch::kCPU, /*non_blocking=*/false));
}

// Twin of rule_to_cpu: non_blocking, into pinned memory LibTorch allocates.
void exempt_to_cpu_non_blocking(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  auto pinnedCopy = values.to(torch::kCPU, /*non_blocking=*/true);
}

// Twin of rule_to_cpu: to() naming the tensor's own device, or only a dtype.
void exempt_to_same_device(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  keep(values.to(values.device()));
  keep(values.to(torch::kDouble));
}

// to(device) copies a host tensor to the device, waiting for the copy.
void rule_to_device_from_host(torch::Device device) {
  auto host = torch::arange(4, torch::kFloat);
  keep(host.to(device));
}

// cuda() copies a host tensor to the device. (It needs a CUDA build.)
void rule_cuda(torch::Device device) {
  if (!device.is_cuda())
    return;
  auto host = torch::arange(4, torch::kFloat);
  keep(host.cuda());
}

// A non_blocking copy from pageable host memory (see the note above).
void rule_to_device_non_blocking_from_pageable(torch::Device device) {
  auto pageable = torch::arange(4, torch::kFloat);
  keep(pageable.to(device, /*non_blocking=*/true));
}

// Twin of rule_to_device_non_blocking_from_pageable: from pinned memory.
void exempt_to_device_non_blocking_from_pinned(torch::Device device) {
  if (!device.is_cuda())
    return;
  auto pinned = torch::arange(4).pin_memory();
  keep(pinned.to(device, /*non_blocking=*/true));
}

// torch::tensor from a host list, on a device, copies the list to the device.
void rule_torch_tensor_from_host_list(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  std::vector<float> hostValues{1.0f, 2.0f, 3.0f};
  keep(torch::tensor({1.0f, 2.0f, 3.0f}, options));
  keep(torch::tensor(hostValues, options));
}

// Twin of rule_torch_tensor_from_host_list: one value, filled on the device.
void exempt_torch_tensor_single_value(torch::Device device) {
  keep(torch::tensor(3.5f, torch::TensorOptions().device(device)));
}

// Twin of rule_torch_tensor_from_host_list: a list without a device.
void exempt_torch_tensor_on_host() {
  auto onHost = torch::tensor({1.0f, 2.0f, 3.0f});
  keep(onHost);
}

// Twin of rule_torch_tensor_from_host_list: the same values from arange.
void exempt_arange_instead_of_torch_tensor(torch::Device device) {
  keep(torch::arange(1, 4, torch::TensorOptions().device(device)));
}

// Module::to copies each parameter and buffer of a module made on the host.
void rule_module_to(torch::Device device) {
  torch::nn::Linear model(4, 2);
  model->to(device);
}

// at::tensor from a host list, on a device, copies the list to the device.
void rule_at_tensor_list(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  keep(at::tensor({1.0f, 2.0f, 3.0f}, options));
}

// at::tensor of a single value, on a device, copies it from the host too.
void rule_at_tensor_scalar(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  keep(at::tensor(1.0f, options));
}

// jit::Module::to copies each parameter of a module made on the host.
void rule_jit_module_to(torch::Device device) {
  torch::jit::Module module("m");
  module.register_parameter("w", torch::ones({64}), /*is_buffer=*/false);
  module.to(device);
}

// torch::save of a device tensor copies it to the host to write it.
void rule_torch_save(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  std::ostringstream stream;
  torch::save(values, stream);
}

// Twin of rule_torch_save: torch::save of a host tensor copies nothing.
void exempt_torch_save_cpu() {
  auto host = torch::arange(4);
  std::ostringstream stream;
  torch::save(host, stream);
}

// torch::save of a module on the device copies each parameter to the host.
void rule_torch_save_module(torch::Device device) {
  torch::nn::Sequential model{torch::nn::Linear(8, 8), torch::nn::ReLU()};
  model->to(device);
  std::ostringstream stream;
  torch::save(model, stream);
}

// Twin of rule_torch_save_module: torch::save of a Sequential of LibTorch's
// leaf modules built on the host copies nothing.
void exempt_torch_save_cpu_module() {
  torch::nn::Sequential model{torch::nn::Linear(8, 8), torch::nn::ReLU()};
  std::ostringstream stream;
  torch::save(model, stream);
}

// Views and pieces keep their tensor's device: a view ('narrow', 'select',
// 'x[0]'), and each piece of 'chunk', 'split' or 'unbind', read from the
// std::vector they return ('parts[0]', 'parts.at(1)', a range-based for) or
// from one a project function returns. cpu() of one is a copy from the
// device; to() of one to its tensor's own device copies nothing. (CUDA
// devices only: the exempt twins name torch::kCUDA.)

// The pieces of a tensor, returned by a project function: rowsOf for the
// rule, halvesOf (called with CUDA tensors only) for its twin.
std::vector<torch::Tensor> rowsOf(const torch::Tensor &values) {
  return values.unbind();
}
std::vector<torch::Tensor> halvesOf(const torch::Tensor &values) {
  return values.chunk(2);
}

// cpu() of a view or of a piece of a device tensor copies it to the host.
void rule_cpu_of_views_and_pieces(torch::Device device) {
  auto values = torch::arange(8, torch::TensorOptions().device(device));
  keep(values.narrow(0, 0, 4).cpu());
  keep(values[1].cpu());
  auto parts = values.chunk(2);
  keep(parts[0].cpu());
  keep(values.split(3).back().cpu());
  for (const auto &piece : values.unbind())
    keep(piece.cpu());
  keep(rowsOf(values)[1].cpu());
}

// Twin of rule_cpu_of_views_and_pieces: to() of views and pieces of a CUDA
// tensor to CUDA, the device they are on, copies nothing.
void exempt_to_same_device_of_views_and_pieces(torch::Device device) {
  if (!device.is_cuda())
    return;
  auto values = torch::arange(8, torch::TensorOptions().device(torch::kCUDA));
  keep(values.narrow(0, 0, 4).to(torch::kCUDA));
  keep(values[1].cuda());
  auto parts = values.chunk(2);
  keep(parts[0].to(torch::kCUDA));
  keep(parts.at(1).to(values.device()));
  keep(values.split(3).front().to(torch::kCUDA));
  for (auto &piece : values.split(3))
    keep(piece.to(torch::kCUDA));
  keep(halvesOf(values)[0].to(torch::kCUDA));
}

// Twin of rule_cpu_of_views_and_pieces: cpu() of pieces of a host tensor
// copies nothing.
void exempt_cpu_of_host_pieces() {
  auto host = torch::arange(8);
  auto parts = host.chunk(2);
  keep(parts[0].cpu());
  for (const auto &piece : host.unbind())
    keep(piece.cpu());
}

} // namespace

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  rule_cpu(device);
  exempt_cpu_of_host_tensor();
  rule_copy_device_to_host(device);
  rule_copy_host_to_device(device);
  exempt_copy_non_blocking_pinned(device);
  rule_to_cpu(device);
  exempt_to_cpu_non_blocking(device);
  exempt_to_same_device(device);
  rule_to_device_from_host(device);
  rule_cuda(device);
  rule_to_device_non_blocking_from_pageable(device);
  exempt_to_device_non_blocking_from_pinned(device);
  rule_torch_tensor_from_host_list(device);
  exempt_torch_tensor_single_value(device);
  exempt_torch_tensor_on_host();
  exempt_arange_instead_of_torch_tensor(device);
  rule_module_to(device);
  rule_at_tensor_list(device);
  rule_at_tensor_scalar(device);
  rule_jit_module_to(device);
  rule_torch_save(device);
  exempt_torch_save_cpu();
  rule_torch_save_module(device);
  exempt_torch_save_cpu_module();
  rule_cpu_of_views_and_pieces(device);
  exempt_to_same_device_of_views_and_pieces(device);
  exempt_cpu_of_host_pieces();
  results.clear();
  return 0;
}
