// Thrust built in a wrapped namespace, as DGL builds it: with
// THRUST_CUB_WRAPPED_NAMESPACE=dgl, Thrust is 'dgl::thrust' and CUB 'dgl::cub'.
// A graph library's edge processing on tensors' memory, rule by rule.
//
// One rule_* function per call the checker reports: the Thrust algorithms
// that return what the device computed (an end iterator, a position) with any
// policy, 'par_nosync' included; those that only launch, with a synchronous
// policy; and a project helper that sorts with a synchronous policy, reported
// at its call by torch-sync-transitive. One exempt_* function per sync-free
// twin: the launches with 'thrust::cuda::par_nosync.on(stream)', and a helper
// whose wrapped Thrust call does not wait (Thrust's own body has a
// 'cudaStreamSynchronize' for the synchronous policies, which the checker must
// not follow into).
//
// Every call that may synchronize is on a line of its own. Host values go to
// a volatile sink; the buffers stay on the device until the one intended copy
// at the end of main. No LibTorch header here: LibTorch's c10/util/complex.h
// names '::thrust::complex' in CUDA code, which a wrapped Thrust does not
// declare, so a project that wraps Thrust keeps it out of its LibTorch units.
//
// It runs only on a CUDA device: without one, main says so and exits with 0.
#define THRUST_CUB_WRAPPED_NAMESPACE dgl
#include <thrust/binary_search.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <iostream>
#include <vector>

namespace dgl {
namespace {

// Host values read by the samples; volatile, so that no read is optimized
// away.
volatile int64_t hostSink = 0;

struct IsSelfLoop {
  __host__ __device__ bool operator()(int edge) const { return edge % 7 == 0; }
};

// A device buffer of ints.
struct Buffer {
  int *data = nullptr;
  int64_t count = 0;
  int64_t numel() const { return count; }
};

thrust::device_ptr<int> devicePointer(const Buffer &b) {
  return thrust::device_pointer_cast(b.data);
}

// The stream the samples run on, made in main.
cudaStream_t sampleStream = nullptr;
cudaStream_t currentStream() { return sampleStream; }

// The project's helpers: one sorts with a synchronous policy, its twin with
// par_nosync; one gathers with par_nosync.
void sortEdgesSynchronously(const Buffer &edges) {
  auto p = devicePointer(edges);
  thrust::sort(thrust::device, p, p + edges.numel());
}
void sortEdgesOnStream(const Buffer &edges) {
  auto p = devicePointer(edges);
  thrust::sort(thrust::cuda::par_nosync.on(currentStream()), p,
               p + edges.numel());
}
void gatherOnStream(const Buffer &map, const Buffer &in, const Buffer &out) {
  auto m = devicePointer(map);
  thrust::gather(thrust::cuda::par_nosync.on(currentStream()), m,
                 m + map.numel(), devicePointer(in), devicePointer(out));
}

// Algorithms that return what the device computed: reported with every policy.
void rule_remove_copy_if(const Buffer &edges, const Buffer &out) {
  auto p = devicePointer(edges);
  auto q = devicePointer(out);
  // Each call on the first line of its statement, the line the debugger gives.
  auto policy = thrust::cuda::par_nosync.on(currentStream());
  auto last = p + edges.numel();
  hostSink = thrust::remove_copy_if(policy, p, last, q, IsSelfLoop()) - q;
}
void rule_lower_bound(const Buffer &sorted) {
  auto s = devicePointer(sorted);
  hostSink = thrust::lower_bound(thrust::cuda::par_nosync.on(currentStream()),
                                 s, s + sorted.numel(), 1000) -
             s;
}
void rule_partition(const Buffer &edges) {
  auto p = devicePointer(edges);
  auto last = p + edges.numel();
  hostSink = thrust::partition(thrust::device, p, last, IsSelfLoop()) - p;
}
void rule_set_union(const Buffer &sorted, const Buffer &out) {
  auto s = devicePointer(sorted);
  const int64_t half = sorted.numel() / 2;
  hostSink = thrust::set_union(thrust::device, s, s + half, s + half,
                               s + 2 * half, devicePointer(out)) -
             devicePointer(out);
}
void rule_reduce_by_key(const Buffer &keys, const Buffer &values,
                        const Buffer &outKeys, const Buffer &outValues) {
  auto k = devicePointer(keys);
  hostSink = thrust::reduce_by_key(
                 thrust::device, k, k + keys.numel(), devicePointer(values),
                 devicePointer(outKeys), devicePointer(outValues))
                 .first -
             devicePointer(outKeys);
}

// Algorithms that only launch: reported with a synchronous policy.
void rule_sort_by_key(const Buffer &keys, const Buffer &values) {
  auto k = devicePointer(keys);
  thrust::sort_by_key(thrust::cuda::par.on(currentStream()), k,
                      k + keys.numel(), devicePointer(values));
}
void rule_vector_lower_bound(const Buffer &sorted, const Buffer &queries,
                             const Buffer &out) {
  auto s = devicePointer(sorted);
  auto v = devicePointer(queries);
  thrust::lower_bound(thrust::device, s, s + sorted.numel(), v,
                      v + queries.numel(), devicePointer(out));
}
void rule_helper_sort(const Buffer &edges) { sortEdgesSynchronously(edges); }

// Sync-free twins.
void exempt_sort_by_key(const Buffer &keys, const Buffer &values) {
  auto k = devicePointer(keys);
  thrust::sort_by_key(thrust::cuda::par_nosync.on(currentStream()), k,
                      k + keys.numel(), devicePointer(values));
}
void exempt_vector_lower_bound(const Buffer &sorted, const Buffer &queries,
                               const Buffer &out) {
  auto s = devicePointer(sorted);
  auto v = devicePointer(queries);
  thrust::lower_bound(thrust::cuda::par_nosync.on(currentStream()), s,
                      s + sorted.numel(), v, v + queries.numel(),
                      devicePointer(out));
}
void exempt_helper_sort(const Buffer &edges) { sortEdgesOnStream(edges); }
void exempt_helper_gather(const Buffer &map, const Buffer &in,
                          const Buffer &out) {
  gatherOnStream(map, in, out);
}

} // namespace
} // namespace dgl

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::cout << "thrust_wrapped: no CUDA device; nothing to run\n";
    return 0;
  }
  const int64_t n = 1 << 20;
  cudaStreamCreateWithFlags(&dgl::sampleStream, cudaStreamNonBlocking);
  std::vector<int> host(n);
  for (int64_t i = 0; i < n; ++i)
    host[i] = static_cast<int>(i);
  dgl::Buffer edges{nullptr, n}, sorted{nullptr, n}, out{nullptr, n},
      other{nullptr, n};
  for (dgl::Buffer *b : {&edges, &sorted, &out, &other})
    cudaMalloc(&b->data, n * sizeof(int));
  // Setup, before the samples: sorted is 0 .. n-1, edges the same reversed.
  cudaMemcpy(sorted.data, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  for (int64_t i = 0; i < n; ++i)
    host[i] = static_cast<int>(n - 1 - i);
  cudaMemcpy(edges.data, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  for (int round = 0; round < 3; ++round) {
    dgl::rule_remove_copy_if(edges, out);
    dgl::rule_lower_bound(sorted);
    dgl::rule_partition(edges);
    dgl::rule_set_union(sorted, out);
    dgl::rule_reduce_by_key(sorted, edges, out, other);
    dgl::rule_sort_by_key(out, other);
    dgl::rule_vector_lower_bound(sorted, edges, out);
    dgl::rule_helper_sort(out);
    dgl::exempt_sort_by_key(out, other);
    dgl::exempt_vector_lower_bound(sorted, edges, out);
    dgl::exempt_helper_sort(out);
    dgl::exempt_helper_gather(sorted, edges, out);
  }
  // One copy of a result to the host, at the end: an intended sync.
  int first = 0;
  cudaMemcpy(&first, out.data, sizeof(int), cudaMemcpyDeviceToHost);
  std::cout << "first: " << first << "\n";
  for (dgl::Buffer *b : {&edges, &sorted, &out, &other})
    cudaFree(b->data);
  cudaStreamDestroy(dgl::sampleStream);
  return 0;
}
