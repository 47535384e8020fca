// torch-sync-device-index, rule by rule: slicing, narrowing, selecting and
// sizing with a value that lives on the device.
//
// One rule_* function per call the check reports ('narrow' with a tensor
// start, 'operator[]' with a tensor, 'index' and 'index_put_' with a 0-dim
// integer tensor, an item() read that becomes a slice bound, a size or a
// narrow length) and one exempt_* function per sync-free twin it must stay
// silent on (host integers, indices kept on the device, a 1-element index
// tensor, tensors on the host).
//
// Every call that may synchronize is on a line of its own. Tensor results
// stay on the device until main returns and are never read.
#include <torch/torch.h>

#include <cstdint>
#include <utility>
#include <vector>

using torch::indexing::Slice;

namespace {

// Tensor results, kept on the device until main returns and never read.
std::vector<torch::Tensor> deviceResults;
void keep(torch::Tensor result) { deviceResults.push_back(std::move(result)); }

// narrow with a 0-dim tensor as the start reads the start from the device.
void rule_narrow_tensor_start(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(8, options);
  auto start = torch::full({}, 2, options.dtype(torch::kLong));
  keep(values.narrow(0, start, 2));
  keep(at::narrow(values, 0, start, 2));
}

// Twin of rule_narrow_tensor_start: a start known on the host.
void exempt_narrow_host_start(torch::Device device) {
  auto values = torch::arange(8, torch::TensorOptions().device(device));
  int64_t start = 2;
  keep(values.narrow(0, start, 2));
}

// Twin of rule_narrow_tensor_start: the positions selected with index_select.
void exempt_index_select_instead_of_narrow(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(8, options);
  auto start = torch::full({}, 2, options.dtype(torch::kLong));
  auto positions = start + torch::arange(2, start.options());
  keep(values.index_select(0, positions));
}

// operator[] with a 0-dim tensor reads the index from the device.
void rule_subscript_tensor_index(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(8, options);
  auto position = torch::full({}, 3, options.dtype(torch::kLong));
  keep(values[position]);
}

// Twin of rule_subscript_tensor_index: a host integer.
void exempt_subscript_host_integer(torch::Device device) {
  auto values = torch::arange(8, torch::TensorOptions().device(device));
  keep(values[3]);
}

// Twin of rule_subscript_tensor_index: index_select with a 1-element index.
void exempt_index_select_instead_of_subscript(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(8, options);
  auto position = torch::full({}, 3, options.dtype(torch::kLong));
  keep(values.index_select(0, position.reshape({1})).squeeze(0));
}

// index({t0}) with a 0-dim integer tensor reads t0 (ATen/TensorIndexing.h).
void rule_index_zero_dim_tensor(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(8, options);
  auto scores = torch::linspace(0, 1, 8, options);
  auto best = scores.argmax();
  keep(values.index({best}));
  keep(values.index({(scores > 0.5).sum() - 1}));
}

// index_put_ with a 0-dim integer tensor index reads it the same way.
void rule_index_put_zero_dim_tensor(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(8, options);
  auto scores = torch::linspace(0, 1, 8, options);
  values.index_put_({scores.argmin()}, 0);
  keep(values);
}

// Twin of rule_index_[put_]zero_dim_tensor: a 1-element index tensor.
void exempt_index_one_element_tensor(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(8, options);
  auto scores = torch::linspace(0, 1, 8, options);
  auto best = scores.argmax().reshape({1});
  keep(values.index({best}).squeeze(0));
  values.index_put_({best}, torch::zeros({}, values.options()));
  keep(values);
}

// Twin of rule_index_zero_dim_tensor: a 1-dim index from argmax(0, keepdim).
void exempt_index_with_reduced_dimension(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(8, options);
  auto scores = torch::linspace(0, 1, 8, options);
  keep(values.index({scores.argmax(/*dim=*/0, /*keepdim=*/true)}));
}

// An item() read that becomes a slice bound.
void rule_item_into_slice_bound(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(8, options);
  auto lengths = torch::full({2}, 3, options.dtype(torch::kLong));
  keep(values.index({Slice(0, lengths.max().item<int64_t>())}));
}

// An item() read, through a local variable, that becomes a size.
void rule_item_into_size(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto lengths = torch::full({2}, 3, options.dtype(torch::kLong));
  int64_t total = lengths.sum().item<int64_t>();
  keep(torch::zeros({total, 4}, options));
}

// An item() read that becomes the length of a narrow.
void rule_item_into_narrow(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(8, options);
  auto lengths = torch::full({2}, 3, options.dtype(torch::kLong));
  keep(values.narrow(0, 0, lengths[0].item<int64_t>()));
}

// Twin of the rule_item_into_* functions: bounds and sizes kept on the host.
void exempt_host_bounds_and_sizes(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(8, options);
  int64_t length = 3;
  keep(values.index({Slice(0, length)}));
  keep(torch::zeros({2 * length, 4}, options));
  keep(values.narrow(0, 0, length));
}

// Twin of every rule above: indices and reads of tensors made on the host.
void exempt_indices_on_host(torch::Device device) {
  auto values = torch::arange(8, torch::TensorOptions().device(device));
  auto lengths = torch::full({2}, 3, torch::kLong);
  keep(values.narrow(0, 0, lengths.sum().item<int64_t>()));
  keep(values[torch::full({}, 3, torch::kLong)]);
}

} // namespace

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  rule_narrow_tensor_start(device);
  exempt_narrow_host_start(device);
  exempt_index_select_instead_of_narrow(device);
  rule_subscript_tensor_index(device);
  exempt_subscript_host_integer(device);
  exempt_index_select_instead_of_subscript(device);
  rule_index_zero_dim_tensor(device);
  rule_index_put_zero_dim_tensor(device);
  exempt_index_one_element_tensor(device);
  exempt_index_with_reduced_dimension(device);
  rule_item_into_slice_bound(device);
  rule_item_into_size(device);
  rule_item_into_narrow(device);
  exempt_host_bounds_and_sizes(device);
  exempt_indices_on_host(device);
  deviceResults.clear();
  return 0;
}
