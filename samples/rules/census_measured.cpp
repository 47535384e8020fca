// The census-measured ATen operators, rule by rule: overloads that the GPU
// census (checker/facts/census-aten.tsv) measured to block the host and that
// the checker reports under the check its census rules name
// (checker/facts/sync-facts.yaml).
//
// One rule_* function per check the census rules use, with the operators
// the census measured: 'linalg_eig' (torch-sync-device-to-host: its CUDA path
// computes on the host), 'linalg_lstsq' and the out= spelling of
// 'linalg_inv' (torch-sync-item: an error check on the host), 'normal' with
// a tensor standard deviation (torch-sync-item), 'combinations' and
// 'to_sparse' (torch-sync-dynamic-shape: the output size is read from the
// device). And one exempt_* function per sync-free twin of the same name
// that the census measured: 'linalg_inv_ex', 'normal' with a host standard
// deviation.
//
// Version note: LibTorch 1.13 declares 'to_sparse()' without the layout
// parameters of the overload that 2.11 measured, and the checker reports
// that spelling only with 2.x headers; rule_to_sparse calls the
// 'to_sparse(sparse_dim)' overload, which both declare alike, and the
// argument-free spelling is in rule_to_sparse_layout, inside a TORCH_VERSION
// conditional.
//
// Every call that may synchronize is on a line of its own, after queued
// work. Tensor results stay on the device until main returns and are never
// read. Each rule runs before its twin, so that one-time library set-up
// (cuSOLVER and cuBLAS handles, the random generator) happens on the rule's
// lines. Without a CUDA device, every function runs on the CPU.
#include <torch/torch.h>
#include <torch/version.h>

#include <tuple>
#include <utility>
#include <vector>

namespace {

// Tensor results, kept on the device until main returns and never read.
std::vector<torch::Tensor> deviceResults;
void keep(torch::Tensor result) { deviceResults.push_back(std::move(result)); }

// Queues a kernel on the current stream, for the waits to wait for; its
// buffer goes back to the caching allocator.
void queueWork(torch::Device device) {
  torch::zeros({256}, torch::TensorOptions().device(device)).add_(1);
}

// An 8x8 matrix with eigenvalues 3 (seven times) and 11, which every
// factorization, solve and decomposition below accepts.
torch::Tensor wellConditionedMatrix(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  return torch::eye(8, options) * 3 + torch::ones({8, 8}, options);
}

// linalg_eig copies the matrix to the host and computes there.
void rule_linalg_eig(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  queueWork(device);
  keep(std::get<0>(at::linalg_eig(matrix)));
}

// linalg_lstsq checks its 'info' tensor on the host.
void rule_linalg_lstsq(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  auto rhs = torch::ones({8, 1}, torch::TensorOptions().device(device));
  queueWork(device);
  keep(std::get<0>(at::linalg_lstsq(matrix, rhs)));
}

// linalg_inv_out, the out= spelling, checks its 'info' tensor on the host.
void rule_linalg_inv_out(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  auto inverse = torch::empty_like(matrix);
  queueWork(device);
  at::linalg_inv_out(inverse, matrix);
}

// Twin of rule_linalg_inv_out: linalg_inv_ex returns 'info' unchecked.
void exempt_linalg_inv_ex(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  queueWork(device);
  keep(std::get<0>(at::linalg_inv_ex(matrix)));
}

// normal with a tensor standard deviation checks it on the host.
void rule_normal_tensor_std(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto mean = torch::zeros({8}, options);
  auto deviation = torch::ones({8}, options);
  queueWork(device);
  keep(at::normal(mean, deviation));
}

// Twin of rule_normal_tensor_std: a standard deviation given on the host.
void exempt_normal_scalar_std(torch::Device device) {
  auto mean = torch::zeros({8}, torch::TensorOptions().device(device));
  queueWork(device);
  keep(at::normal(mean, 1.0));
}

// combinations selects its result with a mask, whose count it reads.
void rule_combinations(torch::Device device) {
  auto values = torch::arange(8, torch::TensorOptions().device(device));
  queueWork(device);
  keep(at::combinations(values, /*r=*/2));
}

// to_sparse reads the number of nonzero elements to size the sparse tensor.
void rule_to_sparse(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  queueWork(device);
  keep(matrix.to_sparse(/*sparse_dim=*/2));
}

// to_sparse() with the layout parameters of LibTorch 2.x (see the note).
#if TORCH_VERSION_MAJOR >= 2 // 2.0 and later
// to_sparse() reads the number of nonzero elements in the same way.
void rule_to_sparse_layout(torch::Device device) {
  auto matrix = wellConditionedMatrix(device);
  queueWork(device);
  keep(matrix.to_sparse());
}
#endif

} // namespace

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  rule_linalg_eig(device);
  rule_linalg_lstsq(device);
  rule_linalg_inv_out(device);
  exempt_linalg_inv_ex(device);
  rule_normal_tensor_std(device);
  exempt_normal_scalar_std(device);
  rule_combinations(device);
  rule_to_sparse(device);
#if TORCH_VERSION_MAJOR >= 2 // 2.0 and later
  rule_to_sparse_layout(device);
#endif
  deviceResults.clear();
  return 0;
}
