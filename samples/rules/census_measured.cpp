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
// device); 'ctc_loss' and 'batch_norm_gather_stats'
// (torch-sync-device-to-host: host lengths and counts copied and waited for),
// 'quantize_per_channel' and 'quantize_per_tensor' with tensor quantization
// parameters (torch-sync-item).
// And one exempt_* function per sync-free twin of the same name that the
// census measured: 'linalg_inv_ex', 'normal' with a host standard deviation,
// 'batch_norm_gather_stats_with_counts', 'quantize_per_tensor' with host
// quantization parameters.
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

#include <cstdint>
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

// ctc_loss copies the lengths between the host and the device and waits for
// each copy.
void rule_ctc_loss(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  // 12 time steps, a batch of 3, 5 classes (0 is the blank).
  auto logProbs = torch::randn({12, 3, 5}, options).log_softmax(2);
  auto targets = torch::randint(1, 5, {3, 4}, options.dtype(torch::kLong));
  std::vector<int64_t> inputLengths{12, 12, 12};
  std::vector<int64_t> targetLengths{4, 3, 2};
  queueWork(device);
  keep(at::ctc_loss(logProbs, targets, inputLengths, targetLengths));
}

// Per-replica batch-norm statistics of 2 replicas over 3 channels, as
// SyncBatchNorm gathers them.
struct ReplicaStatistics {
  torch::Tensor input, mean, invstd, runningMean, runningVar;
};
ReplicaStatistics replicaStatistics(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  return {torch::randn({2, 3, 4}, options), torch::randn({2, 3}, options),
          torch::rand({2, 3}, options) + 1, torch::zeros({3}, options),
          torch::ones({3}, options)};
}

// batch_norm_gather_stats copies its host count to the device and waits (a
// CUDA kernel only: nothing to run on the CPU).
void rule_batch_norm_gather_stats(torch::Device device) {
  if (!device.is_cuda())
    return;
  ReplicaStatistics s = replicaStatistics(device);
  queueWork(device);
  keep(std::get<0>(at::batch_norm_gather_stats(s.input, s.mean, s.invstd,
                                               s.runningMean, s.runningVar,
                                               0.1, 1e-5, /*count=*/8)));
}

// Twin of rule_batch_norm_gather_stats: the counts as a device tensor.
void exempt_batch_norm_gather_stats_with_counts(torch::Device device) {
  if (!device.is_cuda())
    return;
  ReplicaStatistics s = replicaStatistics(device);
  auto counts = torch::full({2}, 4.0, torch::TensorOptions().device(device));
  queueWork(device);
  keep(std::get<0>(at::batch_norm_gather_stats_with_counts(
      s.input, s.mean, s.invstd, s.runningMean, s.runningVar, 0.1, 1e-5,
      counts)));
}

// quantize_per_channel reads its scales and zero points on the host.
void rule_quantize_per_channel(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto weights = torch::randn({4, 4}, options);
  auto scales = torch::full({4}, 0.1, options.dtype(torch::kDouble));
  auto zeroPoints = torch::zeros({4}, options.dtype(torch::kLong));
  queueWork(device);
  keep(at::quantize_per_channel(weights, scales, zeroPoints, /*axis=*/0,
                                torch::kQUInt8));
}

// quantize_per_tensor with its scale and zero point as tensors reads them on
// the host.
void rule_quantize_per_tensor_tensor_qparams(torch::Device device) {
  auto options = torch::TensorOptions().device(device);
  auto weights = torch::randn({4, 4}, options);
  auto scale = torch::full({}, 0.1, options.dtype(torch::kDouble));
  auto zeroPoint = torch::zeros({}, options.dtype(torch::kLong));
  queueWork(device);
  keep(at::quantize_per_tensor(weights, scale, zeroPoint, torch::kQUInt8));
}

// Twin of rule_quantize_per_tensor_tensor_qparams: a host scale and zero
// point.
void exempt_quantize_per_tensor_host_qparams(torch::Device device) {
  auto weights = torch::randn({4, 4}, torch::TensorOptions().device(device));
  queueWork(device);
  keep(at::quantize_per_tensor(weights, 0.1, 0, torch::kQUInt8));
}

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
  rule_ctc_loss(device);
  rule_batch_norm_gather_stats(device);
  exempt_batch_norm_gather_stats_with_counts(device);
  rule_quantize_per_channel(device);
  rule_quantize_per_tensor_tensor_qparams(device);
  exempt_quantize_per_tensor_host_qparams(device);
  deviceResults.clear();
  return 0;
}
