// torch-sync-dynamic-shape, rule by rule: operations whose output size
// depends on tensor values.
//
// One rule_* function per call the check reports ('nonzero', 'argwhere',
// 'nonzero_numpy', one-argument 'where', the 'unique' family,
// 'repeat_interleave' without 'output_size', 'bincount', 'histc' without a
// range, 'one_hot' without 'num_classes') and one exempt_* function per
// sync-free twin it must stay silent on (the size given on the host, a
// fixed-size formulation, tensors on the host).
//
// Version notes, from the check's documentation: LibTorch 2.1 and later
// compute the total of an integer number of repeats on the host (up to 2.0 it
// went through a repeats tensor on the device); nonzero_static is 2.1+.
//
// Every call that may synchronize is on a line of its own. Tensor results
// stay on the device until main returns and are never read.
#include <torch/torch.h>
#include <torch/version.h>

#include <tuple>
#include <utility>
#include <vector>

namespace {

// Tensor results, kept on the device until main returns and never read.
std::vector<torch::Tensor> deviceResults;
void keep(torch::Tensor result) { deviceResults.push_back(std::move(result)); }
void keep(std::vector<torch::Tensor> results) {
  for (auto &result : results)
    keep(std::move(result));
}

// Class labels 0, 1, 2, 0, 1, 2, 0, 1.
torch::Tensor labels(torch::Device device) {
  auto options = torch::TensorOptions().device(device).dtype(torch::kLong);
  return torch::arange(8, options).remainder(3);
}

// nonzero counts the nonzero elements on the device and reads the count.
void rule_nonzero(torch::Device device) {
  auto mask = torch::arange(8, torch::TensorOptions().device(device)) > 3;
  keep(mask.nonzero());
  keep(at::nonzero(mask));
}

// argwhere calls nonzero.
void rule_argwhere(torch::Device device) {
  auto mask = torch::arange(8, torch::TensorOptions().device(device)) > 3;
  keep(mask.argwhere());
  keep(at::argwhere(mask));
}

// nonzero_numpy calls nonzero.
void rule_nonzero_numpy(torch::Device device) {
  auto mask = torch::arange(8, torch::TensorOptions().device(device)) > 3;
  keep(mask.nonzero_numpy());
  keep(at::nonzero_numpy(mask));
}

// where with one argument calls nonzero_numpy.
void rule_where_one_argument(torch::Device device) {
  auto mask = torch::arange(8, torch::TensorOptions().device(device)) > 3;
  keep(at::where(mask));
}

// Twin of rule_nonzero and rule_where_one_argument: three-argument where.
void exempt_where_three_arguments(torch::Device device) {
  auto values = torch::arange(8, torch::TensorOptions().device(device));
  auto mask = values > 3;
  keep(at::where(mask, values, 0));
}

// nonzero_static (LibTorch 2.1+) pads to a size known on the host.
#if TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR >= 201 // 2.1 and later
// Twin of rule_nonzero: nonzero_static with a known bound.
void exempt_nonzero_static(torch::Device device) {
  auto mask = torch::arange(8, torch::TensorOptions().device(device)) > 3;
  keep(at::nonzero_static(mask, /*size=*/8));
}
#endif

// at::_unique reads the number of unique elements from the device.
void rule_unique(torch::Device device) {
  keep(std::get<0>(at::_unique(labels(device))));
}

// at::_unique2 (which torch.unique calls): the same read.
void rule_unique2(torch::Device device) {
  keep(std::get<0>(at::_unique2(labels(device))));
}

// unique_consecutive reads the number of runs.
void rule_unique_consecutive(torch::Device device) {
  keep(std::get<0>(at::unique_consecutive(labels(device))));
}

// unique_dim reads the number of unique slices from the device.
void rule_unique_dim(torch::Device device) {
  auto rows = labels(device).reshape({4, 2});
  keep(std::get<0>(at::unique_dim(rows, 0)));
}

// unique_dim_consecutive: the same read.
void rule_unique_dim_consecutive(torch::Device device) {
  auto rows = labels(device).reshape({4, 2});
  keep(std::get<0>(at::unique_dim_consecutive(rows, 0)));
}

// Twin of the rule_unique* functions: mark the K known values present.
void exempt_unique_known_values(torch::Device device) {
  auto classes = labels(device);
  auto present = torch::zeros({3}, classes.options().dtype(torch::kBool));
  keep(present.index_fill_(0, classes, true));
}

// repeat_interleave with tensor repeats and no output_size reads the total.
void rule_repeat_interleave_tensor_repeats(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(4, options);
  auto repeats = torch::full({4}, 2, options.dtype(torch::kLong));
  keep(values.repeat_interleave(repeats));
  keep(at::repeat_interleave(repeats));
  keep(at::repeat_interleave(values, repeats, 0));
}

// Twin of rule_repeat_interleave_tensor_repeats: the total as output_size.
void exempt_repeat_interleave_output_size(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::arange(4, options);
  auto repeats = torch::full({4}, 2, options.dtype(torch::kLong));
  keep(values.repeat_interleave(repeats, 0, /*output_size=*/8));
  keep(at::repeat_interleave(repeats, /*output_size=*/8));
}

// Twin of rule_repeat_interleave_tensor_repeats: integer repeats (2.1+).
void exempt_repeat_interleave_integer_repeats(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  keep(values.repeat_interleave(2));
}

// bincount reads the largest value from the device, minlength or not.
void rule_bincount(torch::Device device) {
  auto classes = labels(device);
  auto weights = torch::ones({8}, torch::TensorOptions().device(device));
  keep(classes.bincount());
  keep(at::bincount(classes, weights, /*minlength=*/4));
}

// Twin of rule_bincount: counting into K known bins on the device.
void exempt_bincount_known_bins(torch::Device device) {
  auto classes = labels(device);
  auto counts = torch::zeros({3}, classes.options());
  keep(counts.index_add_(0, classes, torch::ones_like(classes)));
}

// histc without a range (min == max) reads the minimum and maximum.
void rule_histc_without_range(torch::Device device) {
  auto values = torch::linspace(0, 1, 8, torch::TensorOptions().device(device));
  keep(values.histc());
  keep(at::histc(values, /*bins=*/4));
  keep(values.histc(/*bins=*/4, /*min=*/1, /*max=*/1));
}

// Twin of rule_histc_without_range: an explicit range.
void exempt_histc_with_range(torch::Device device) {
  auto values = torch::linspace(0, 1, 8, torch::TensorOptions().device(device));
  keep(values.histc(/*bins=*/4, /*min=*/0, /*max=*/1));
  keep(at::histc(values, /*bins=*/4, /*min=*/0, /*max=*/1));
}

// one_hot without num_classes (-1) reads the largest class index.
void rule_one_hot_without_num_classes(torch::Device device) {
  auto classes = labels(device);
  keep(at::one_hot(classes));
  keep(at::one_hot(classes, -1));
  keep(torch::nn::functional::one_hot(classes));
}

// Twin of rule_one_hot_without_num_classes: the number of classes given.
void exempt_one_hot_with_num_classes(torch::Device device) {
  auto classes = labels(device);
  keep(at::one_hot(classes, 3));
  keep(torch::nn::functional::one_hot(classes, 3));
}

// Twin of every rule above: tensors made on the host are counted on the host.
void exempt_dynamic_shapes_on_host() {
  auto mask = torch::arange(8) > 3;
  auto classes = torch::arange(8).remainder(3);
  keep(mask.nonzero());
  keep(std::get<0>(at::_unique2(classes)));
  keep(classes.bincount());
  keep(at::one_hot(classes));
}

} // namespace

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  rule_nonzero(device);
  rule_argwhere(device);
  rule_nonzero_numpy(device);
  rule_where_one_argument(device);
  exempt_where_three_arguments(device);
#if TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR >= 201 // 2.1 and later
  exempt_nonzero_static(device);
#endif
  rule_unique(device);
  rule_unique2(device);
  rule_unique_consecutive(device);
  rule_unique_dim(device);
  rule_unique_dim_consecutive(device);
  exempt_unique_known_values(device);
  rule_repeat_interleave_tensor_repeats(device);
  exempt_repeat_interleave_output_size(device);
  exempt_repeat_interleave_integer_repeats(device);
  rule_bincount(device);
  exempt_bincount_known_bins(device);
  rule_histc_without_range(device);
  exempt_histc_with_range(device);
  rule_one_hot_without_num_classes(device);
  exempt_one_hot_with_num_classes(device);
  exempt_dynamic_shapes_on_host();
  deviceResults.clear();
  return 0;
}
