// torch-sync-transitive, rule by rule: calls to functions whose visible body
// synchronizes.
//
// One rule_* function per call the check reports (the project's helper that
// calls item(), a helper that calls that helper, a lambda that calls item(),
// LibTorch's inline torch::nn::utils::clip_grad_norm_) and one exempt_*
// function per sync-free twin it must stay silent on (a helper whose read is
// on the host, a helper that keeps the value on the device, a helper that
// fills with a host scalar, a gradient clipping that keeps the norm on the
// device).
//
// The helpers come first; their item() calls are torch-sync-item's findings,
// and the calls to them this check's. Every call that may synchronize is on a
// line of its own. Host values go to a volatile sink; tensor results stay on
// the device until main returns and are never read.
#include <torch/torch.h>

#include <utility>
#include <vector>

namespace {

// Host values read by the samples; volatile, so that no read is optimized
// away.
volatile double hostSink = 0;

// Tensor results, kept on the device until main returns and never read.
std::vector<torch::Tensor> deviceResults;
void keep(torch::Tensor result) { deviceResults.push_back(std::move(result)); }

// The project's helper: reads the mean on the host.
double readMean(const torch::Tensor &values) {
  return values.mean().item<double>();
}

// A helper that calls readMean: the sync is two calls deep.
double reportMean(const torch::Tensor &values) { return 2 * readMean(values); }

// A helper whose item() reads a tensor made on the host.
double hostOnlyMean() {
  auto values = torch::arange(4, torch::kFloat);
  return values.mean().item<double>();
}

// A helper that keeps the mean on the device.
torch::Tensor meanOnDevice(const torch::Tensor &values) {
  return values.mean();
}

// A helper whose fill_ takes a host scalar.
void zeroOut(torch::Tensor &values) { values.fill_(0.0); }

// Gradient clipping that keeps the total norm on the device, instead of
// reading it as clip_grad_norm_ does to return a double.
torch::Tensor clipGradNormOnDevice(const std::vector<torch::Tensor> &parameters,
                                   double maxNorm) {
  std::vector<torch::Tensor> norms;
  for (const auto &parameter : parameters)
    norms.push_back(parameter.grad().norm());
  auto total = torch::stack(norms).norm();
  auto scale = (maxNorm / (total + 1e-6)).clamp_max(1.0);
  for (const auto &parameter : parameters)
    parameter.grad().mul_(scale);
  return total;
}

// Four floats on the given device.
torch::Tensor floatValues(torch::Device device) {
  return torch::arange(
      4, torch::TensorOptions().device(device).dtype(torch::kFloat));
}

// A parameter of the given device with a gradient set, as after backward().
torch::Tensor parameterWithGradient(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto parameter = torch::ones({4, 4}, options.requires_grad(true));
  parameter.mutable_grad() = torch::full({4, 4}, 0.5, options);
  return parameter;
}

// A call to the helper whose body calls item() on a device tensor.
void rule_helper_calling_item(torch::Device device) {
  auto values = floatValues(device);
  hostSink = readMean(values);
}

// A call to the helper that calls it, two calls from the sync.
void rule_helper_calling_helper(torch::Device device) {
  auto values = floatValues(device);
  hostSink = reportMean(values);
}

// Twin of rule_helper_calling_item: the helper's read is on a host tensor.
void exempt_helper_reading_host_tensor() {
  double mean = hostOnlyMean();
  hostSink = mean;
}

// Twin of rule_helper_calling_item: the helper keeps the value on the device.
void exempt_helper_keeping_value_on_device(torch::Device device) {
  auto values = floatValues(device);
  keep(meanOnDevice(values));
}

// Twin of rule_helper_calling_item: the helper's fill_ takes a host scalar.
void exempt_helper_filling_host_scalar(torch::Device device) {
  auto values = floatValues(device);
  zeroOut(values);
  keep(values);
}

// A call to a lambda whose body calls item().
void rule_lambda_calling_item(torch::Device device) {
  auto values = floatValues(device);
  auto read = [&values] { return values.sum().item<double>(); };
  hostSink = read();
}

// clip_grad_norm_ (inline in torch/nn/utils/clip_grad.h) reads the norm.
void rule_clip_grad_norm(torch::Device device) {
  std::vector<torch::Tensor> parameters{parameterWithGradient(device)};
  hostSink = torch::nn::utils::clip_grad_norm_(parameters, 1.0);
}

// Twin of rule_clip_grad_norm: the project's clipping, norm on the device.
void exempt_clip_grad_norm_on_device(torch::Device device) {
  std::vector<torch::Tensor> parameters{parameterWithGradient(device)};
  keep(clipGradNormOnDevice(parameters, 1.0));
}

} // namespace

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  rule_helper_calling_item(device);
  rule_helper_calling_helper(device);
  exempt_helper_reading_host_tensor();
  exempt_helper_keeping_value_on_device(device);
  exempt_helper_filling_host_scalar(device);
  rule_lambda_calling_item(device);
  rule_clip_grad_norm(device);
  exempt_clip_grad_norm_on_device(device);
  deviceResults.clear();
  return 0;
}
