// REQUIRES: cuda-headers
// OLDER-LIBTORCH: the uses are told on each release's declarations (item<T>, data_ptr<T>, torch::tensor, from_blob, Slice)
// The advice follows the shape of the use (sync-facts.yaml 'advice_by_use', checker/analysis/ReadUse.h): a value
// read that sizes something, a count, a value the host holds, repeated uploads, a wait that guards a staging
// buffer; each with a twin of another shape, which keeps the fact's own advice.
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-device-index,torch-sync-device-to-host,torch-sync-explicit,torch-sync-dynamic-shape \
// RUN:   --temp %t %s -- %libtorch_flags %cuda_flags %libtorch_cuda_flags

#include <ATen/TensorIndexing.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/count_nonzero.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/nonzero.h>
#include <cstdlib>
#include <cuda_runtime_api.h>
#include <torch/types.h>
#include <vector>

using at::indexing::Slice;

// Size: the value read sizes a tensor, a container, an allocation, a slice or a loop.

at::Tensor sizeInitialised(const at::Tensor &offsets, const at::Tensor &x) {
  int64_t n = offsets[-1].item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'item' reads a value from the device that sizes, slices or indexes a tensor (a dynamic shape) and waits for the current stream [torch-sync-device-index]
  // CHECK-MESSAGES: :[[@LINE-2]]:27: note: consider passing the size in where the caller knows it (an 'output_size' argument, a size saved in the forward pass, a known bound) or writing into a preallocated 'out' tensor, or keeping sizes on the host
  return at::empty({n}, x.options());
}

at::Tensor sizeAssigned(const at::Tensor &offsets, const at::Tensor &x) {
  int64_t n = 0;
  n = offsets[-1].item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item' copies a tensor element to the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:19: note: consider passing the size in where the caller knows it
  return at::empty({n + 1}, x.options());
}

at::Tensor sizeThroughHostCopy(const at::Tensor &indptr, const at::Tensor &x) {
  const int64_t nnz = indptr[-1].cpu().data_ptr<int64_t>()[0];
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'cpu' copies the tensor to the host and waits for the current stream [torch-sync-device-to-host]
  // CHECK-MESSAGES: :[[@LINE-2]]:34: note: consider passing the size in where the caller knows it
  return at::empty({nnz}, x.options());
}

std::vector<float> sizeVectorThroughHostItem(const at::Tensor &count) {
  auto n = count.cpu().item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'cpu' copies the tensor to the host and waits for the current stream [torch-sync-device-to-host]
  // CHECK-MESSAGES: :[[@LINE-2]]:18: note: consider passing the size in where the caller knows it
  return std::vector<float>(n);
}

void sizeReserve(const at::Tensor &count, std::vector<int64_t> &out) {
  out.reserve(count.item<int64_t>());
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'item' copies a tensor element to the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:21: note: consider passing the size in where the caller knows it
}

float *sizeAllocation(const at::Tensor &count) {
  int64_t n;
  n = count.item<int64_t>() * 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:13: note: consider passing the size in where the caller knows it
  return static_cast<float *>(std::malloc(n * sizeof(float)));
}

at::Tensor sizeSliceBound(const at::Tensor &t, const at::Tensor &lengths) {
  return t.index({Slice(0, lengths.max().item<int64_t>())});
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'item' reads a value from the device that sizes, slices or indexes a tensor
  // CHECK-MESSAGES: :[[@LINE-2]]:42: note: consider passing the size in where the caller knows it
}

int64_t sizeLoopBound(const at::Tensor &count) {
  int64_t total = 0;
  const int64_t n = count.item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:27: note: consider passing the size in where the caller knows it
  for (int64_t i = 0; i < n; ++i)
    total += i;
  return total;
}

at::Tensor sizeFromCudaMemcpy(const int64_t *device_count, const at::Tensor &x) {
  int64_t n = 0;
  cudaMemcpy(&n, device_count, sizeof(n), cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy' copies synchronously, after the work queued on the default stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider passing the size in where the caller knows it
  return at::empty({n}, x.options());
}

// The twins: the value read is tested, returned or indexes an element: the fact's own advice.

bool valueTested(const at::Tensor &t) {
  int64_t v = 0;
  v = t.item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:9: note: consider keeping the value on the device ('at::where', 'clamp', 'at::_assert_async') or reading it once, outside the hot path
  return v > 0;
}

int64_t valueReturnedThroughHostCopy(const at::Tensor &indptr) {
  return indptr[-1].cpu().data_ptr<int64_t>()[0];
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:21: note: consider keeping the computation on the device, or 'to(at::kCPU, /*non_blocking=*/true)' into pinned memory, read after a later synchronization
}

at::Tensor valueIndexes(const at::Tensor &t, const at::Tensor &i) {
  return t.index({i.item<int64_t>()});
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'item' reads a value from the device that sizes, slices or indexes a tensor
  // CHECK-MESSAGES: :[[@LINE-2]]:21: note: consider keeping the index on the device ('index_select', 'gather', a 1-element long tensor as index) or keeping offsets on the host
}

int64_t valueInRangeFor(const at::Tensor &t, const std::vector<int64_t> &v) {
  int64_t total = t.item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:21: note: consider keeping the value on the device
  for (int64_t e : v)
    total += e;
  return total;
}

// Count: the value read counts the true elements of a mask.

int64_t countOfMask(const at::Tensor &x) {
  return (x > 0).sum().item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:24: note: consider counting on the device ('count_nonzero', or 'cub::DeviceReduce::Sum' in CUDA code) into a pinned host scalar with an asynchronous copy, read after an event only where the host needs the count
}

at::Tensor countSizesOutput(const at::Tensor &x) {
  auto valid = x.isfinite();
  const int64_t n = valid.sum().item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'item' reads a value from the device that sizes, slices or indexes a tensor
  // CHECK-MESSAGES: :[[@LINE-2]]:33: note: consider counting on the device
  return at::empty({n}, x.options());
}

int64_t countNonzero(const at::Tensor &x) {
  return at::count_nonzero(x).cpu().item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:31: note: consider counting on the device
}

int64_t countOfNonzeroResult(const at::Tensor &x) {
  return x.nonzero().size(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'nonzero' reads the number of nonzero elements from the device to size its output and waits for the current stream [torch-sync-dynamic-shape]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider counting on the device
}

// The twins: a sum of values, not of a mask; a nonzero result used as indices.

int64_t sumOfValues(const at::Tensor &x) {
  return x.sum().item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:18: note: consider keeping the value on the device
}

at::Tensor nonzeroIndices(const at::Tensor &x) {
  return x.nonzero();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'nonzero' reads the number of nonzero elements
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider a fixed-size formulation
}

// HostValue: the tensor read was made here from host values and moved to the device.

int64_t hostValueFromVector(const std::vector<int64_t> &sizes) {
  auto offsets = torch::tensor(sizes).to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'to' copies a host tensor to the device and waits for the current stream [torch-sync-device-to-host]
  return offsets.sum().item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:24: note: consider using the host values the tensor was made from
}

at::Tensor hostValueFromBlob(std::vector<int64_t> &host, const at::Tensor &x) {
  auto device_sizes = torch::from_blob(host.data(), {static_cast<int64_t>(host.size())}, torch::kLong).cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:104: warning: 'cuda' copies a host tensor to the device
  const int64_t total = device_sizes[-1].cpu().data_ptr<int64_t>()[0];
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:42: note: consider using the host values the tensor was made from
  return at::empty({total}, x.options());
}

// The twin: the tensor was changed on the device since.
int64_t changedOnDevice(const std::vector<int64_t> &sizes) {
  auto offsets = torch::tensor(sizes).to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'to' copies a host tensor to the device
  offsets.cumsum_(0);
  return offsets[-1].item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:22: note: consider keeping the value on the device
}

// RepeatedUpload: several small uploads in a row, or one per iteration.

void uploadsInARow(const std::vector<int64_t> &a, const std::vector<int64_t> &b, at::Tensor &da,
                   at::Tensor &db) {
  da = torch::tensor(a, torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'torch::tensor' copies a list of host values to the device
  // CHECK-MESSAGES: :[[@LINE-2]]:8: note: consider one pinned staging buffer filled on the host and uploaded once with 'non_blocking' (or 'cudaMemcpyAsync'), instead of one blocking upload each
  db = torch::tensor(b, torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'torch::tensor' copies a list of host values to the device
  // CHECK-MESSAGES: :[[@LINE-2]]:8: note: consider one pinned staging buffer
}

void uploadPerIteration(std::vector<std::vector<int64_t>> &rows, std::vector<at::Tensor> &out) {
  for (auto &row : rows)
    out.push_back(torch::from_blob(row.data(), {2}, torch::kLong).to(torch::kCUDA));
  // CHECK-MESSAGES: :[[@LINE-1]]:67: warning: 'to' copies a host tensor to the device
  // CHECK-MESSAGES: :[[@LINE-2]]:67: note: consider one pinned staging buffer
}

void memcpyUploadsInARow(int64_t *d_a, int64_t *d_b, const int64_t *a, const int64_t *b) {
  cudaMemcpy(d_a, a, 2 * sizeof(int64_t), cudaMemcpyHostToDevice);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy' copies synchronously
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider one pinned staging buffer
  cudaMemcpy(d_b, b, 2 * sizeof(int64_t), cudaMemcpyHostToDevice);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy' copies synchronously
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider one pinned staging buffer
}

// The twins: one upload, alone in its block.

at::Tensor oneUpload(const std::vector<int64_t> &a) {
  return torch::tensor(a, torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'torch::tensor' copies a list of host values to the device
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: consider building it once outside the hot path
}

void oneMemcpyUpload(int64_t *d_a, const int64_t *a) {
  cudaMemcpy(d_a, a, 2 * sizeof(int64_t), cudaMemcpyHostToDevice);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy' copies synchronously
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cudaMemcpyAsync' into or from pinned host memory
}

// StagingWait: the wait guards the host buffer of an asynchronous upload.

void stagingStreamWait(float *device, float *pinned, cudaStream_t stream) {
  cudaMemcpyAsync(device, pinned, 4 * sizeof(float), cudaMemcpyHostToDevice, stream);
  cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaStreamSynchronize' waits for the work queued on that stream [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing the wait with the staging buffer it guards: upload from a fresh pinned tensor each time (the caching host allocator keeps it until the copy has run) or pass the few values as kernel arguments
}

void stagingEventWait(float *device, float *pinned, cudaStream_t stream, cudaEvent_t done) {
  cudaEventSynchronize(done);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaEventSynchronize' waits for the work recorded in that event [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing the wait with the staging buffer it guards
  pinned[0] = 1.0f;
  cudaMemcpyAsync(device, pinned, sizeof(float), cudaMemcpyHostToDevice, stream);
  cudaEventRecord(done, stream);
}

// ResultWait: the wait follows an asynchronous copy to the host.
float resultWait(float *device, float *pinned, cudaStream_t stream) {
  cudaMemcpyAsync(device, pinned, sizeof(float), cudaMemcpyHostToDevice, stream);
  cudaMemcpyAsync(pinned, device, sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaStreamSynchronize' waits for the work queued on that stream
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider an event recorded right after the asynchronous copy into pinned memory, waited on only where the host reads the copied data, once the work that does not need it is queued
  return pinned[0];
}

// The twin: a wait with no copy in its function keeps the fact's advice.
void waitAfterWork(float *device, cudaStream_t stream) {
  cudaMemsetAsync(device, 0, sizeof(float), stream);
  cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaStreamSynchronize' waits for the work queued on that stream
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing it where the host reads no result after it
}

// Unused: nothing reads the copy.
at::Tensor unusedCopy(const at::Tensor &distances) {
  at::Tensor debugCopy = distances.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:36: note: consider removing the copy, whose result nothing reads
  return distances * 2;
}

at::Tensor unusedMemcpy(const at::Tensor &betweenness, int64_t n) {
  std::vector<float> hostCopy(n);
  cudaMemcpy(hostCopy.data(), betweenness.data_ptr<float>(), n * sizeof(float), cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy' copies synchronously
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing the copy, whose result nothing reads
  return betweenness * 2;
}

// The twins: the copy is returned, or read.
float readMemcpy(const at::Tensor &betweenness, int64_t n) {
  std::vector<float> hostCopy(n);
  cudaMemcpy(hostCopy.data(), betweenness.data_ptr<float>(), n * sizeof(float), cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy' copies synchronously
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'cudaMemcpyAsync' into or from pinned host memory
  return hostCopy[0];
}

at::Tensor returnedCopy(const at::Tensor &distances) {
  at::Tensor copy = distances.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:31: note: consider keeping the computation on the device
  return copy;
}

// Accumulated: the reads of a loop are added up on the host.
int accumulatedPerIteration(const at::Tensor &input, int64_t ncols) {
  int total = 0;
  uint8_t pad = 0;
  for (int64_t col = 0; col + 8 <= ncols; col += 8) {
    pad = input[0][col + 4].item<uint8_t>();
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'item' copies a tensor element to the host
    // CHECK-MESSAGES: :[[@LINE-2]]:29: note: consider reducing on the device ('sum', or 'cub::DeviceReduce' in CUDA code) and reading the result once, instead of adding up one read per iteration on the host
    total += pad;
  }
  return total;
}

// The twin: one read per iteration, each used on its own: the loop's advice.
void readPerIteration(const at::Tensor &input, std::vector<int64_t> &out) {
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(input[i].item<int64_t>());
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:28: note: consider one bulk copy instead of a read per iteration
}
