// Rows of corpus.tsv whose construct needs the CUDA front end (Thrust with a
// device execution policy). Same conventions as snippets.cpp: one function per
// row named after its id, the blocking line marked "sync: <id>", every tensor
// on a CUDA device, each marked statement on one line.
// clang-format off
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/logical.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>

#include <cstdint>

struct IsTrueCorpus {
  __host__ __device__ bool operator()(bool x) const { return x; }
};

int c08_max_id_by_thrust_reduce(int64_t n) {
  torch::Tensor srcIds = torch::randint(
      0, 1000, {n}, torch::device(torch::kCUDA).dtype(torch::kLong));
  const int64_t *ptr = srcIds.data_ptr<int64_t>();
  auto policy = thrust::cuda::par.on(c10::cuda::getCurrentCUDAStream());
  int64_t maxId = thrust::reduce(policy, ptr, ptr + n, int64_t{0}, thrust::maximum<int64_t>()); // sync: c08
  int bits = 0;
  while ((int64_t{1} << bits) <= maxId)
    ++bits;
  return bits;
}

torch::Tensor c09_all_found_by_thrust_all_of(int64_t n) {
  torch::Tensor found =
      torch::ones({n}, torch::device(torch::kCUDA).dtype(torch::kBool));
  const bool *ptr = found.data_ptr<bool>();
  auto policy = thrust::cuda::par.on(c10::cuda::getCurrentCUDAStream());
  bool allExist = thrust::all_of(policy, ptr, ptr + n, IsTrueCorpus()); // sync: c09
  if (!allExist)
    throw std::out_of_range("Some ids not found.");
  return found;
}

torch::Tensor c44_count_from_thrust_remove_copy_if(int64_t n) {
  auto opts = torch::device(torch::kCUDA).dtype(torch::kLong);
  torch::Tensor srcIds = torch::randint(0, 1000, {n}, opts);
  torch::Tensor isDst = torch::rand({n}, torch::device(torch::kCUDA)).gt(0.5);
  torch::Tensor onlySrc = torch::empty({n}, opts);
  auto policy = thrust::cuda::par.on(c10::cuda::getCurrentCUDAStream());
  const int64_t *src = srcIds.data_ptr<int64_t>();
  int64_t *end = thrust::remove_copy_if(policy, src, src + n, isDst.data_ptr<bool>(), onlySrc.data_ptr<int64_t>(), IsTrueCorpus()); // sync: c44
  return onlySrc.slice(0, 0, end - onlySrc.data_ptr<int64_t>());
}
