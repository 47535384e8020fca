// torch-sync-boolean-mask, rule by rule: indexing with a boolean mask.
//
// One rule_* function per call the check reports ('index' with a mask, alone
// or among other indices, 'masked_select', 'index_put_' with a mask and a
// device value) and one exempt_* function per sync-free twin it must stay
// silent on (fixed-shape forms: 'where', 'masked_fill_', 'masked_scatter_',
// the mask as a weight; 'index_put_' with a host value; integer indices;
// tensors on the host).
//
// Version note, from the check's documentation: LibTorch 2.0 and later pass a
// host scalar in index_put_ with a mask on as a CPU value and run it as
// masked_fill_; LibTorch 1.13 built it on the tensor's device and read the
// mask, as for a device value.
//
// Every call that may synchronize is on a line of its own. Tensor results
// stay on the device until main returns and are never read.
#include <torch/torch.h>

#include <utility>
#include <vector>

using torch::indexing::Slice;

namespace {

// Tensor results, kept on the device until main returns and never read.
std::vector<torch::Tensor> deviceResults;
void keep(torch::Tensor result) { deviceResults.push_back(std::move(result)); }

// index({mask}) reads the number of true elements to size its result.
void rule_index_with_mask(torch::Device device) {
  auto values = torch::linspace(0, 1, 8, torch::TensorOptions().device(device));
  auto mask = values > 0.5;
  keep(values.index({mask}));
}

// A mask among other indices: the same read.
void rule_index_with_mask_among_other_indices(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto matrix = torch::linspace(0, 1, 16, options).reshape({2, 8});
  auto columnMask = torch::arange(8, options) > 3;
  keep(matrix.index({Slice(), columnMask}));
}

// A host mask on a device tensor: a blocking copy before 2.11, none measured in 2.11.
void rule_index_with_host_mask(torch::Device device) {
  auto values = torch::linspace(0, 1, 8, torch::TensorOptions().device(device));
  auto hostMask = torch::arange(8) > 3;
  keep(values.index({hostMask}));
}

// Twin of rule_index_with_mask: the three-argument where keeps the shape.
void exempt_where_instead_of_mask_index(torch::Device device) {
  auto values = torch::linspace(0, 1, 8, torch::TensorOptions().device(device));
  auto mask = values > 0.5;
  keep(torch::where(mask, values, torch::zeros_like(values)));
}

// Twin of rule_index_with_mask: masked_fill_ with a host scalar on a copy.
void exempt_masked_fill_instead_of_mask_index(torch::Device device) {
  auto values = torch::linspace(0, 1, 8, torch::TensorOptions().device(device));
  auto mask = values > 0.5;
  auto kept = values.clone();
  kept.masked_fill_(mask.logical_not(), 0.0);
  keep(kept);
}

// Twin of rule_index_with_mask: integer indices, sized by their shape.
void exempt_index_with_integer_indices(torch::Device device) {
  auto values = torch::linspace(0, 1, 8, torch::TensorOptions().device(device));
  auto order = values.argsort();
  keep(values.index({order}));
}

// masked_select sizes its result by the number of true mask elements.
void rule_masked_select(torch::Device device) {
  auto values = torch::linspace(0, 1, 8, torch::TensorOptions().device(device));
  auto mask = values > 0.5;
  keep(values.masked_select(mask));
  keep(at::masked_select(values, mask));
}

// Twin of rule_masked_select: the mask as a weight, summed on the device.
void exempt_mask_as_weight(torch::Device device) {
  auto values = torch::linspace(0, 1, 8, torch::TensorOptions().device(device));
  auto mask = values > 0.5;
  keep((values * mask).sum());
}

// index_put_ with a mask and a device value turns the mask into indices.
void rule_index_put_mask_with_device_value(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::linspace(0, 1, 8, options);
  auto mask = values > 0.5;
  auto fill = torch::zeros({}, options);
  values.index_put_({mask}, fill);
  keep(values);
}

// Twin of rule_index_put_mask_with_device_value: a host scalar (2.0+).
void exempt_index_put_mask_with_host_scalar(torch::Device device) {
  auto values = torch::linspace(0, 1, 8, torch::TensorOptions().device(device));
  auto mask = values > 0.5;
  values.index_put_({mask}, 0.0);
  keep(values);
}

// Twin of rule_index_put_mask_with_device_value: a 0-dim host value.
void exempt_index_put_mask_with_cpu_value(torch::Device device) {
  auto values = torch::linspace(0, 1, 8, torch::TensorOptions().device(device));
  auto mask = values > 0.5;
  values.index_put_({mask}, torch::zeros({}));
  keep(values);
}

// Twin of rule_index_put_mask_with_device_value: masked_scatter_.
void exempt_masked_scatter(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::linspace(0, 1, 8, options);
  auto mask = values > 0.5;
  auto source = torch::zeros({8}, options);
  values.masked_scatter_(mask, source);
  keep(values);
}

// Twin of every rule above: masks and tensors made on the host.
void exempt_masks_on_host() {
  auto values = torch::linspace(0, 1, 8);
  auto mask = values > 0.5;
  keep(values.index({mask}));
  keep(at::masked_select(values, mask));
  values.index_put_({mask}, torch::zeros({}));
}

} // namespace

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  rule_index_with_mask(device);
  rule_index_with_mask_among_other_indices(device);
  rule_index_with_host_mask(device);
  exempt_where_instead_of_mask_index(device);
  exempt_masked_fill_instead_of_mask_index(device);
  exempt_index_with_integer_indices(device);
  rule_masked_select(device);
  exempt_mask_as_weight(device);
  rule_index_put_mask_with_device_value(device);
  exempt_index_put_mask_with_host_scalar(device);
  exempt_index_put_mask_with_cpu_value(device);
  exempt_masked_scatter(device);
  exempt_masks_on_host();
  deviceResults.clear();
  return 0;
}
