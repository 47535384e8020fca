// Minimal reproductions of the SHAPE of each synchronizing construct listed
// in corpus.tsv (written for this corpus, not taken from the projects). One
// function per row, named after its id; the line that blocks the host carries
// a trailing "sync: <id>" comment. Every tensor involved is provably on a CUDA
// device. Rows whose construct needs the CUDA front end (Thrust) are in
// snippets-cuda.cu. Each marked statement stays on one line so that the mark
// sits on the line a finding is reported at.
// clang-format off
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {
torch::TensorOptions cudaLong() {
  return torch::device(torch::kCUDA).dtype(torch::kLong);
}

// A callee that reads the total from the device when the caller gives none
// (row c04; the marked line is the call that reaches it).
torch::Tensor denseToJaggedC04(const torch::Tensor &offsets,
                               c10::optional<int64_t> total) {
  const int64_t n =
      total.has_value() ? *total : offsets[-1].item<int64_t>();
  return torch::empty({n}, offsets.options());
}
} // namespace

torch::Tensor c01_last_offset_item(int64_t batch) {
  torch::Tensor lengths = torch::randint(0, 8, {batch}, cudaLong());
  torch::Tensor offsets = torch::cumsum(lengths, 0);
  const int64_t numOutputs =
      offsets[offsets.numel() - 1].item<int64_t>(); // sync: c01
  return torch::empty({numOutputs}, offsets.options());
}

torch::Tensor c02_output_rows_item(int64_t rows) {
  torch::Tensor outputOffsets = torch::arange(0, rows + 1, cudaLong());
  int64_t numDenseRows =
      outputOffsets[outputOffsets.numel() - 1].item<int64_t>(); // sync: c02
  return torch::zeros({numDenseRows, 16}, torch::device(torch::kCUDA));
}

torch::Tensor c03_backward_rows_item(const torch::Tensor &grad) {
  torch::Tensor inputOffsets = torch::arange(0, 33, cudaLong());
  int64_t numDenseInputRows =
      inputOffsets[inputOffsets.numel() - 1].item<int64_t>(); // sync: c03
  torch::Tensor out = torch::zeros({numDenseInputRows, grad.size(1)},
                                   torch::device(torch::kCUDA));
  return out;
}

torch::Tensor c04_size_left_to_callee(int64_t n) {
  torch::Tensor values = torch::randn({n}, torch::device(torch::kCUDA));
  torch::Tensor offsets = torch::arange(0, n + 1, cudaLong());
  torch::Tensor y = denseToJaggedC04(offsets, c10::nullopt); // sync: c04
  return y.add_(values.sum());
}

int c05_padding_read_per_byte(int64_t ncols) {
  torch::Tensor input =
      torch::zeros({1, ncols}, torch::device(torch::kCUDA).dtype(torch::kByte));
  int totalPad = 0;
  uint8_t pad = 0;
  for (int64_t col = 0; col + 8 <= ncols; col += 8) {
    pad = input[0][col + 4].item<uint8_t>(); // sync: c05
    totalPad += pad;
  }
  return totalPad;
}

int64_t c06_count_by_blocking_copy(int64_t rows) {
  torch::Tensor outPtr = torch::zeros({rows + 1}, cudaLong());
  int64_t newLen = 0;
  int64_t *lastDevice = outPtr.data_ptr<int64_t>() + rows;
  cudaMemcpy(&newLen, lastDevice, sizeof(newLen), cudaMemcpyDeviceToHost); // sync: c06
  return newLen;
}

std::vector<int64_t> c07_counts_then_stream_sync(int64_t ntypes,
                                                 cudaStream_t stream) {
  torch::Tensor counts = torch::zeros({ntypes}, cudaLong());
  std::vector<int64_t> host(ntypes);
  cudaMemcpyAsync(host.data(), counts.data_ptr<int64_t>(),
                  ntypes * sizeof(int64_t), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream); // sync: c07
  return host;
}

int64_t c10_wait_before_count_read(int64_t n) {
  torch::Tensor keys = torch::arange(n, cudaLong());
  torch::Tensor missing =
      torch::empty({1}, torch::dtype(torch::kLong).pinned_memory(true));
  missing.copy_(keys.sum().reshape({1}), /*non_blocking=*/true);
  c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
  stream.synchronize(); // sync: c10
  return missing.data_ptr<int64_t>()[0];
}

void c11_wait_for_scalar_upload(cudaStream_t stream) {
  torch::Tensor amax = torch::ones({1}, torch::device(torch::kCUDA));
  float zero = 0.0f;
  cudaMemcpyAsync(amax.data_ptr<float>(), &zero, sizeof(float),
                  cudaMemcpyHostToDevice, stream);
  cudaStreamSynchronize(stream); // sync: c11
}

torch::Tensor c12_wait_after_gemm(cudaStream_t stream) {
  torch::Tensor a = torch::randn({64, 64}, torch::device(torch::kCUDA));
  torch::Tensor c = torch::mm(a, a);
  cudaStreamSynchronize(stream); // sync: c12
  return c;
}

std::vector<int32_t> c13_indptr_copied_for_plan(int64_t batch,
                                                cudaStream_t stream) {
  torch::Tensor kvIndptr =
      torch::zeros({batch + 1}, torch::device(torch::kCUDA).dtype(torch::kInt));
  std::vector<int32_t> indptrHost(batch + 1);
  cudaMemcpyAsync(indptrHost.data(), kvIndptr.data_ptr<int32_t>(),
                  (batch + 1) * sizeof(int32_t), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream); // sync: c13
  return indptrHost;
}

int32_t c14_two_arrays_copied_for_plan(int64_t batch, cudaStream_t stream) {
  auto opts = torch::device(torch::kCUDA).dtype(torch::kInt);
  torch::Tensor indptr = torch::zeros({batch + 1}, opts);
  torch::Tensor lastPageLen = torch::ones({batch}, opts);
  std::vector<int32_t> indptrH(batch + 1), lastH(batch);
  cudaMemcpyAsync(indptrH.data(), indptr.data_ptr<int32_t>(),
                  (batch + 1) * sizeof(int32_t), cudaMemcpyDeviceToHost, stream);
  cudaMemcpyAsync(lastH.data(), lastPageLen.data_ptr<int32_t>(),
                  batch * sizeof(int32_t), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream); // sync: c14
  return indptrH.back() + lastH.back();
}

torch::Tensor c15_repeated_stream_wait(cudaStream_t stream) {
  torch::Tensor q = torch::randn({128, 64}, torch::device(torch::kCUDA));
  torch::Tensor o = torch::softmax(q, 1);
  // The stream was already drained before the softmax; nothing is read here.
  cudaStreamSynchronize(stream); // sync: c15
  return o;
}

torch::Tensor c16_wait_after_device_reduce(cudaStream_t stream) {
  torch::Tensor x = torch::randn({1 << 16}, torch::device(torch::kCUDA));
  torch::Tensor total = x.sum();
  cudaStreamSynchronize(stream); // sync: c16
  return total;
}

void c17_optimizer_step_wait(torch::Tensor &weights, cudaStream_t stream) {
  torch::Tensor grad = torch::randn({256, 256}, torch::device(torch::kCUDA));
  torch::Tensor precond = torch::mm(grad, grad.t());
  weights = torch::randn({256, 256}, torch::device(torch::kCUDA));
  weights.sub_(torch::mm(precond, grad), 0.01);
  cudaStreamSynchronize(stream); // sync: c17
}

torch::Tensor c18_debug_copy_to_host(int64_t n) {
  torch::Tensor distances =
      torch::randn({n, 8, 256}, torch::device(torch::kCUDA));
  torch::Tensor debugCopy = distances.cpu(); // sync: c18
  return distances.mul_(2.0);
}

int64_t c19_metadata_back_to_host(int64_t groupSize) {
  // Forward built this metadata on the host and moved it to the GPU.
  torch::Tensor savedData = torch::zeros({5}, cudaLong());
  savedData = savedData.to(torch::kCPU); // sync: c19
  const int64_t *ptr = savedData.data_ptr<int64_t>();
  return ptr[0] == groupSize ? ptr[4] : 0;
}

std::vector<int32_t> c20_gemm_dims_from_device(int64_t numGemms,
                                               cudaStream_t stream) {
  torch::Tensor dimList = torch::ones(
      {3 * numGemms}, torch::device(torch::kCUDA).dtype(torch::kInt));
  std::vector<int32_t> dimsHost(3 * numGemms);
  cudaMemcpyAsync(dimsHost.data(), dimList.data_ptr<int32_t>(),
                  3 * numGemms * sizeof(int32_t), cudaMemcpyDeviceToHost,
                  stream);
  cudaStreamSynchronize(stream); // sync: c20
  return dimsHost;
}

torch::Tensor c21_small_uploads_per_array(const std::vector<torch::Tensor> &in) {
  const int64_t n = static_cast<int64_t>(in.size());
  auto opts = torch::device(torch::kCUDA).dtype(torch::kLong);
  torch::Tensor ptrs = torch::empty({n}, opts), lds = torch::empty({n}, opts);
  std::vector<int64_t> ptrHost(n), ldHost(n);
  for (int64_t i = 0; i < n; ++i) {
    ptrHost[i] = reinterpret_cast<int64_t>(in[i].data_ptr());
    ldHost[i] = in[i].stride(0);
  }
  const size_t bytes = n * sizeof(int64_t);
  cudaMemcpy(ptrs.data_ptr<int64_t>(), ptrHost.data(), bytes, cudaMemcpyHostToDevice); // sync: c21
  cudaMemcpy(lds.data_ptr<int64_t>(), ldHost.data(), bytes, cudaMemcpyHostToDevice); // sync: c21
  return torch::stack({ptrs, lds});
}

std::vector<int32_t> c22_group_sizes_wait(int64_t numGroups,
                                          cudaStream_t stream) {
  torch::Tensor groupSizes = torch::randint(
      0, 64, {numGroups}, torch::device(torch::kCUDA).dtype(torch::kInt));
  std::vector<int32_t> sizesHost(numGroups);
  cudaMemcpyAsync(sizesHost.data(), groupSizes.data_ptr<int32_t>(),
                  numGroups * sizeof(int32_t), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream); // sync: c22
  return sizesHost;
}

torch::Tensor c23_flags_into_host_tensor(int64_t batch) {
  torch::Tensor allSuccess = torch::empty({batch}, torch::kBool);
  torch::Tensor probs = torch::rand({batch, 32}, torch::device(torch::kCUDA));
  torch::Tensor success = probs.sum(1).gt(0.5);
  allSuccess.narrow(0, 0, batch).copy_(success); // sync: c23
  return allSuccess;
}

void c24_wait_after_upload(const std::vector<float> &host,
                           cudaStream_t stream) {
  torch::Tensor dst = torch::empty({static_cast<int64_t>(host.size())},
                                   torch::device(torch::kCUDA));
  cudaMemcpyAsync(dst.data_ptr<float>(), host.data(),
                  host.size() * sizeof(float), cudaMemcpyHostToDevice, stream);
  cudaStreamSynchronize(stream); // sync: c24
}

torch::Tensor c25_wait_to_keep_host_inputs(const std::vector<int32_t> &lens) {
  const int64_t n = static_cast<int64_t>(lens.size());
  torch::Tensor host =
      torch::empty({n}, torch::dtype(torch::kInt).pinned_memory(true));
  std::copy(lens.begin(), lens.end(), host.data_ptr<int32_t>());
  torch::Tensor dev = torch::empty({n}, torch::device(torch::kCUDA).dtype(torch::kInt));
  dev.copy_(host, /*non_blocking=*/true);
  torch::Tensor logits = dev.to(torch::kFloat).softmax(0);
  torch::cuda::synchronize(); // sync: c25
  return logits;
}

std::vector<int> c26_device_sync_then_host_loop(int64_t tokens, int64_t ranks) {
  torch::Tensor isTokenInRank = torch::rand(
      {tokens, ranks}, torch::device(torch::kCUDA)).gt(0.5);
  cudaDeviceSynchronize(); // sync: c26
  std::vector<int> indices;
  for (int64_t t = 0; t < tokens; ++t)
    indices.push_back(static_cast<int>(t));
  return indices;
}

std::vector<int32_t> c27_ids_copy_then_wait(int64_t batch) {
  torch::Tensor outputIds = torch::randint(
      0, 32000, {batch}, torch::device(torch::kCUDA).dtype(torch::kInt));
  std::vector<int32_t> idsHost(batch);
  c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
  cudaMemcpyAsync(idsHost.data(), outputIds.data_ptr<int32_t>(),
                  batch * sizeof(int32_t), cudaMemcpyDeviceToHost, stream);
  stream.synchronize(); // sync: c27
  return idsHost;
}

torch::Tensor c28_scale_read_for_scalar_arg(int64_t rows) {
  torch::Tensor x = torch::randn({rows, 256}, torch::device(torch::kCUDA));
  torch::Tensor w = torch::randn({256, 256}, torch::device(torch::kCUDA));
  torch::Tensor wScale = w.abs().max() / 448.0;
  const double scale = wScale.item<double>(); // sync: c28
  return torch::mm(x, w).mul_(scale);
}

torch::Tensor c29_unused_copy_to_host(int64_t vertices) {
  torch::Tensor betweenness = torch::zeros({vertices}, torch::device(torch::kCUDA));
  std::vector<float> hostCopy(vertices);
  cudaMemcpy(hostCopy.data(), betweenness.data_ptr<float>(), vertices * sizeof(float), cudaMemcpyDeviceToHost); // sync: c29
  return betweenness.mul_(0.5);
}

torch::Tensor c30_wait_before_temp_leaves_scope(int64_t n, cudaStream_t stream) {
  torch::Tensor result = torch::zeros({n}, torch::device(torch::kCUDA));
  {
    torch::Tensor tmp = torch::rand({n}, torch::device(torch::kCUDA));
    result.add_(tmp);
    cudaStreamSynchronize(stream); // sync: c30
  }
  return result;
}

torch::Tensor c31_debug_error_check_wait() {
  torch::Tensor x = torch::randn({1024, 64}, torch::device(torch::kCUDA));
  torch::Tensor y = torch::dropout(x, 0.1, /*train=*/true);
  cudaDeviceSynchronize(); // sync: c31
  cudaGetLastError();
  return y;
}

torch::Tensor c32_counts_copied_then_wait(int64_t nodes, cudaStream_t stream) {
  torch::Tensor outIndptr = torch::zeros({nodes + 1}, torch::device(torch::kCUDA).dtype(torch::kLong));
  int64_t edgeCount = 0;
  cudaMemcpyAsync(&edgeCount, outIndptr.data_ptr<int64_t>() + nodes, sizeof(edgeCount), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream); // sync: c32
  return torch::empty({edgeCount}, outIndptr.options());
}

torch::Tensor c33_error_check_before_conv() {
  torch::Tensor in = torch::randn({1, 8, 32, 32}, torch::device(torch::kCUDA));
  torch::Tensor w = torch::randn({16, 8, 3, 3}, torch::device(torch::kCUDA));
  cudaDeviceSynchronize(); // sync: c33
  return torch::conv2d(in, w);
}

torch::Tensor c34_value_or_evaluates_item(c10::optional<int64_t> rows) {
  torch::Tensor outputOffsets = torch::arange(0, 65, torch::device(torch::kCUDA).dtype(torch::kLong));
  const int64_t numRows = rows.value_or(outputOffsets[outputOffsets.numel() - 1].item<int64_t>()); // sync: c34
  return torch::empty({numRows, 8}, torch::device(torch::kCUDA));
}

torch::Tensor c35_device_wide_wait_per_step(int64_t steps) {
  torch::Tensor hidden = torch::randn({8, 128}, torch::device(torch::kCUDA));
  for (int64_t s = 0; s < steps; ++s) {
    hidden = torch::tanh(hidden);
    torch::cuda::synchronize(); // sync: c35
  }
  return hidden;
}

int32_t c36_copy_even_if_host(int64_t batch, cudaStream_t stream) {
  torch::Tensor indptr = torch::zeros({batch + 1}, torch::device(torch::kCUDA).dtype(torch::kInt));
  std::vector<int32_t> indptrHost(batch + 1);
  cudaMemcpyAsync(indptrHost.data(), indptr.data_ptr<int32_t>(), (batch + 1) * sizeof(int32_t), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream); // sync: c36
  return indptrHost.back();
}

torch::Tensor c37_wait_after_reduce_by_key(int64_t n, cudaStream_t stream) {
  torch::Tensor labels = torch::randint(0, 8, {n}, torch::device(torch::kCUDA).dtype(torch::kLong));
  torch::Tensor counts = torch::bincount(labels, {}, 8);
  cudaStreamSynchronize(stream); // sync: c37
  return counts;
}

torch::Tensor c38_wait_after_allocation(int64_t n, cudaStream_t stream) {
  torch::Tensor kernelMap = torch::empty({2, n}, torch::device(torch::kCUDA).dtype(torch::kInt));
  cudaStreamSynchronize(stream); // sync: c38
  return kernelMap.fill_(-1);
}

torch::Tensor c39_repeat_total_from_cumsum(const torch::Tensor &values) {
  torch::Tensor repeats = torch::randint(0, 4, {values.size(0)}, torch::device(torch::kCUDA).dtype(torch::kLong));
  torch::Tensor cumsum = repeats.cumsum(0);
  int64_t total = cumsum[-1].item<int64_t>(); // sync: c39
  return torch::empty({total}, repeats.options());
}

torch::Tensor c40_segment_count_sizes_buffer(int64_t numel) {
  torch::Tensor sortedIndices = std::get<0>(torch::randint(0, 100, {numel}, torch::device(torch::kCUDA).dtype(torch::kLong)).sort());
  torch::Tensor segmentStart = torch::ones({numel}, sortedIndices.options());
  segmentStart.slice(0, 1).copy_(sortedIndices.slice(0, 1).ne(sortedIndices.slice(0, 0, -1)));
  int64_t numSegments = segmentStart.sum().item<int64_t>(); // sync: c40
  return torch::empty({numSegments}, sortedIndices.options());
}

torch::Tensor c41_wait_after_draft_step(int64_t batch) {
  torch::Tensor logits = torch::randn({batch, 512}, torch::device(torch::kCUDA));
  torch::Tensor draftTokens = logits.argmax(1);
  c10::cuda::getDefaultCUDAStream().synchronize(); // sync: c41
  return draftTokens;
}

std::vector<torch::Tensor> c42_upload_each_input(const std::vector<std::vector<int64_t>> &hostInputs) {
  std::vector<torch::Tensor> onDevice;
  for (const std::vector<int64_t> &input : hostInputs) {
    torch::Tensor cpuInput = torch::tensor(input, torch::kLong);
    onDevice.push_back(cpuInput.to(torch::kCUDA)); // sync: c42
  }
  return onDevice;
}

torch::Tensor c43_backward_rows_fallback(const torch::Tensor &grad, c10::optional<int64_t> rows) {
  torch::Tensor inputOffsets = torch::arange(0, 129, torch::device(torch::kCUDA).dtype(torch::kLong));
  const int64_t numRows = rows.has_value() ? *rows : inputOffsets[inputOffsets.numel() - 1].item<int64_t>(); // sync: c43
  return torch::zeros({numRows, 16}, torch::device(torch::kCUDA));
}

torch::Tensor c45_edge_count_then_wait(int64_t nodes, cudaStream_t stream) {
  torch::Tensor outIndptr = torch::arange(0, nodes + 1, torch::device(torch::kCUDA).dtype(torch::kLong));
  int64_t edgeCount = 0;
  cudaMemcpyAsync(&edgeCount, outIndptr.data_ptr<int64_t>() + nodes, sizeof(edgeCount), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream); // sync: c45
  return torch::empty({edgeCount}, outIndptr.options());
}
