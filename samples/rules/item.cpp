// torch-sync-item, rule by rule: tensor values read on the host.
//
// One rule_* function per call the check reports (item(), is_nonzero(),
// equal(), allclose(), the tensor-value overloads of masked_fill_,
// index_fill_ and fill_, linear algebra without _ex, LBFGS::step) and one
// exempt_* function per sync-free twin it must stay silent on (a host
// scalar, a CPU tensor, the _ex variant, a comparison kept on the device).
//
// Every call that may synchronize is on a line of its own. Host values go to
// a volatile sink; tensor results stay on the device, unread. Each rule runs
// before its twin, so that one-time library set-up (cuSOLVER and cuBLAS
// handles) happens on the rule's lines.
//
// Version notes, from the check's documentation: fill_ with a 0-dim value on
// the tensor's own device is copied on the device from LibTorch 2.2 on (read
// on the host up to 2.1); torch::linalg:: (torch/linalg.h) was removed in 2.6.
#include <torch/torch.h>
#include <torch/version.h>

#include <tuple>
#include <utility>
#include <vector>

namespace {

// Host values read by the samples; volatile, so that no read is optimized
// away.
volatile double hostSink = 0;

// Tensor results, kept on the device until main returns and never read.
std::vector<torch::Tensor> deviceResults;
void keep(torch::Tensor result) { deviceResults.push_back(std::move(result)); }

// A symmetric positive-definite 3x3 matrix (eigenvalues 3, 3 and 6), which
// every factorization and solve below accepts.
torch::Tensor wellConditionedMatrix(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  return torch::eye(3, options) * 3 + torch::ones({3, 3}, options);
}

// item<T>() copies an element of a device tensor to the host.
void rule_item_typed(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  hostSink = values.sum().item<float>();
}

// item() returning a c10::Scalar: the same copy.
void rule_item_scalar(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  hostSink = values.sum().item().toDouble();
}

// at::_local_scalar_dense, which item() calls: the same copy.
void rule_local_scalar_dense(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  auto total = values.sum();
  hostSink = at::_local_scalar_dense(total).toDouble();
}

// Twin of rule_item_typed: item<T>() on a tensor made on the host.
void exempt_item_on_cpu_tensor() {
  auto values = torch::arange(4, torch::kFloat);
  hostSink = values.sum().item<float>();
}

// is_nonzero() reads a one-element tensor on the host to test it.
void rule_is_nonzero(torch::Device device) {
  auto flag = torch::ones({}, torch::TensorOptions().device(device));
  hostSink = flag.is_nonzero();
  hostSink = at::is_nonzero(flag);
}

// Twin of rule_is_nonzero: at::_assert_async tests the value on the device.
void exempt_assert_async(torch::Device device) {
  auto flag = torch::ones({}, torch::TensorOptions().device(device));
  at::_assert_async(flag);
}

// equal() compares on the device and reads the result on the host.
void rule_equal(torch::Device device) {
  auto a = torch::arange(4, torch::TensorOptions().device(device));
  auto b = torch::arange(4, torch::TensorOptions().device(device));
  hostSink = a.equal(b);
  hostSink = at::equal(a, b);
}

// Twin of rule_equal: at::eq(a, b).all() keeps the result on the device.
void exempt_eq_all(torch::Device device) {
  auto a = torch::arange(4, torch::TensorOptions().device(device));
  auto b = torch::arange(4, torch::TensorOptions().device(device));
  keep(at::eq(a, b).all());
}

// allclose() compares on the device and reads the result on the host.
void rule_allclose(torch::Device device) {
  auto a = torch::linspace(0, 1, 4, torch::TensorOptions().device(device));
  auto b = torch::linspace(0, 1, 4, torch::TensorOptions().device(device));
  hostSink = a.allclose(b);
  hostSink = at::allclose(a, b);
}

// Twin of rule_allclose: at::isclose(a, b).all() stays on the device.
void exempt_isclose_all(torch::Device device) {
  auto a = torch::linspace(0, 1, 4, torch::TensorOptions().device(device));
  auto b = torch::linspace(0, 1, 4, torch::TensorOptions().device(device));
  keep(at::isclose(a, b).all());
}

// masked_fill_ / masked_fill with a 0-dim device value read it on the host.
void rule_masked_fill_tensor_value(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::zeros({8}, options);
  auto mask = torch::arange(8, options) > 3;
  auto fill = torch::full({}, 2.0, options);
  values.masked_fill_(mask, fill);
  keep(values.masked_fill(mask, fill));
}

// Twin of rule_masked_fill_tensor_value: a host scalar value.
void exempt_masked_fill_host_scalar(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::zeros({8}, options);
  auto mask = torch::arange(8, options) > 3;
  values.masked_fill_(mask, 2.0);
  keep(values.masked_fill(mask, 2.0));
}

// Twin of rule_masked_fill_tensor_value: a 0-dim value made on the host.
void exempt_masked_fill_cpu_tensor_value(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::zeros({8}, options);
  auto mask = torch::arange(8, options) > 3;
  values.masked_fill_(mask, torch::full({}, 2.0));
}

// Twin of rule_masked_fill_tensor_value: at::where(mask, value, t).
void exempt_where_instead_of_masked_fill(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::zeros({8}, options);
  auto mask = torch::arange(8, options) > 3;
  auto fill = torch::full({}, 2.0, options);
  keep(at::where(mask, fill, values));
}

// index_fill_ / index_fill with a 0-dim device value read it on the host.
void rule_index_fill_tensor_value(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::zeros({8}, options);
  auto index = torch::arange(0, 8, 2, options.dtype(torch::kLong));
  auto fill = torch::full({}, 2.0, options);
  values.index_fill_(0, index, fill);
  keep(values.index_fill(0, index, fill));
}

// Twin of rule_index_fill_tensor_value: the overload taking a host scalar.
void exempt_index_fill_host_scalar(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::zeros({8}, options);
  auto index = torch::arange(0, 8, 2, options.dtype(torch::kLong));
  values.index_fill_(0, index, 2.0);
  keep(values.index_fill(0, index, 2.0));
}

// fill_ of a host tensor with a device value reads the value on the host.
void rule_fill_host_tensor_with_device_value(torch::Device device) {
  auto host = torch::zeros({4});
  auto fill = torch::full({}, 2.0, torch::TensorOptions().device(device));
  host.fill_(fill);
}

// Twin of rule_fill_host_tensor_with_device_value: a same-device value (2.2+).
void exempt_fill_same_device_value(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto values = torch::zeros({4}, options);
  auto fill = torch::full({}, 2.0, options);
  values.fill_(fill);
}

// Twin of rule_fill_host_tensor_with_device_value: a host scalar value.
void exempt_fill_host_scalar(torch::Device device) {
  auto values = torch::zeros({4}, torch::TensorOptions().device(device));
  values.fill_(2.0);
}

// inverse, at::inverse and at::linalg_inv check 'info' on the host.
void rule_inverse(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  keep(matrix.inverse());
  keep(at::inverse(matrix));
  keep(at::linalg_inv(matrix));
}

// Twin of rule_inverse: at::linalg_inv_ex returns 'info' unchecked.
void exempt_linalg_inv_ex(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  keep(std::get<0>(at::linalg_inv_ex(matrix)));
}

// cholesky, at::cholesky and at::linalg_cholesky check 'info' on the host.
void rule_cholesky(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  keep(matrix.cholesky());
  keep(at::cholesky(matrix));
  keep(at::linalg_cholesky(matrix));
}

// Twin of rule_cholesky: at::linalg_cholesky_ex returns 'info' unchecked.
void exempt_linalg_cholesky_ex(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  keep(std::get<0>(at::linalg_cholesky_ex(matrix)));
}

// at::linalg_solve checks its 'info' tensor on the host.
void rule_linalg_solve(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  auto rhs = torch::ones({3, 1}, torch::TensorOptions().device(device));
  keep(at::linalg_solve(matrix, rhs));
}

// Twin of rule_linalg_solve: at::linalg_solve_ex returns 'info' unchecked.
void exempt_linalg_solve_ex(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  auto rhs = torch::ones({3, 1}, torch::TensorOptions().device(device));
  keep(std::get<0>(at::linalg_solve_ex(matrix, rhs)));
}

// at::linalg_lu_factor checks its 'info' tensor on the host.
void rule_linalg_lu_factor(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  keep(std::get<0>(at::linalg_lu_factor(matrix)));
}

// Twin of rule_linalg_lu_factor: at::linalg_lu_factor_ex returns 'info'.
void exempt_linalg_lu_factor_ex(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  keep(std::get<0>(at::linalg_lu_factor_ex(matrix)));
}

// LBFGS::step runs its line search on the host, reading loss and gradients.
void rule_lbfgs_step(torch::Device device) {
  auto weight =
      torch::ones({16}, torch::TensorOptions().device(device)).requires_grad_();
  torch::optim::LBFGS optimizer({weight},
                                torch::optim::LBFGSOptions(0.1).max_iter(4));
  auto closure = [&] {
    optimizer.zero_grad();
    auto loss = (weight * weight).sum();
    loss.backward();
    return loss;
  };
  keep(optimizer.step(closure));
}

// The torch::linalg namespace (torch/linalg.h) was removed in LibTorch 2.6;
// its functions have the at:: twins above.
#if TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR < 206 // before 2.6
// torch::linalg::inv, cholesky, solve and lu_factor check 'info' on the host.
void rule_torch_linalg_namespace(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  auto rhs = torch::ones({3, 1}, torch::TensorOptions().device(device));
  keep(torch::linalg::inv(matrix));
  keep(torch::linalg::cholesky(matrix));
  keep(torch::linalg::solve(matrix, rhs, /*left=*/true));
  keep(std::get<0>(torch::linalg::lu_factor(matrix)));
}
#endif

// Views and pieces keep their tensor's device: item() of a piece of a device
// tensor ('chunk', 'split', 'unbind', read from the std::vector they return)
// copies it to the host; item() of a piece of a host tensor does not.

// item() of a view or of a piece of a device tensor.
void rule_item_of_views_and_pieces(torch::Device device) {
  auto values = torch::arange(8, torch::TensorOptions().device(device));
  hostSink = values.select(0, 2).item<float>();
  auto parts = values.chunk(2);
  hostSink = parts[1].sum().item<float>();
  for (const auto &piece : values.split(4))
    hostSink = piece.sum().item<float>();
}

// Twin of rule_item_of_views_and_pieces: the same reads of a host tensor.
void exempt_item_of_host_views_and_pieces() {
  auto host = torch::arange(8);
  hostSink = host.select(0, 2).item<float>();
  auto parts = host.chunk(2);
  hostSink = parts[1].sum().item<float>();
  for (const auto &piece : host.split(4))
    hostSink = piece.sum().item<float>();
}

} // namespace

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  rule_item_typed(device);
  rule_item_scalar(device);
  rule_local_scalar_dense(device);
  exempt_item_on_cpu_tensor();
  rule_is_nonzero(device);
  exempt_assert_async(device);
  rule_equal(device);
  exempt_eq_all(device);
  rule_allclose(device);
  exempt_isclose_all(device);
  rule_masked_fill_tensor_value(device);
  exempt_masked_fill_host_scalar(device);
  exempt_masked_fill_cpu_tensor_value(device);
  exempt_where_instead_of_masked_fill(device);
  rule_index_fill_tensor_value(device);
  exempt_index_fill_host_scalar(device);
  rule_fill_host_tensor_with_device_value(device);
  exempt_fill_same_device_value(device);
  exempt_fill_host_scalar(device);
  rule_inverse(device);
  exempt_linalg_inv_ex(device);
  rule_cholesky(device);
  exempt_linalg_cholesky_ex(device);
  rule_linalg_solve(device);
  exempt_linalg_solve_ex(device);
  rule_linalg_lu_factor(device);
  exempt_linalg_lu_factor_ex(device);
  rule_lbfgs_step(device);
#if TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR < 206 // before 2.6
  rule_torch_linalg_namespace(device);
#endif
  rule_item_of_views_and_pieces(device);
  exempt_item_of_host_views_and_pieces();
  deviceResults.clear();
  return 0;
}
