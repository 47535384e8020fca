// Thrust's algorithms (runtime-verify/census/thrust_cases.cu measured them):
// with a CUDA execution policy or device iterators, one that returns a value
// or an iterator copies it to the host, whatever the policy; one that returns
// nothing from the device waits for its stream unless the policy is
// 'thrust::cuda::par_nosync'. Host policies and host iterators stay silent,
// and so do iterators whose system is not known.
//
// REQUIRES: cuda-headers
// SMOKE: Thrust's execution policies and iterators through CCCL's templates, in this release's CUDA front end
// RUN: %check_torch_sync --checks=-*,torch-sync-explicit,torch-sync-transitive --temp %t %s -- \
// RUN:   %cuda_source_flags %libtorch_cuda_flags %libtorch_flags

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>
#include <thrust/binary_search.h>
#include <thrust/equal.h>
#include <thrust/logical.h>
#include <thrust/partition.h>
#include <thrust/remove.h>
#include <thrust/set_operations.h>

#include <cuda_runtime_api.h>
#include <vector>

struct IsOdd {
  __host__ __device__ bool operator()(int x) const { return x % 2 != 0; }
};
struct Twice {
  __host__ __device__ int operator()(int x) const { return 2 * x; }
};

int positiveValues(int *raw, int n, cudaStream_t stream) {
  thrust::device_ptr<int> p = thrust::device_pointer_cast(raw);
  int total = thrust::reduce(thrust::device, p, p + n);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'thrust::reduce' copies its result to the host and waits for the algorithm's stream, even with 'par_nosync' [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:15: note: consider a 'cub::DeviceReduce' algorithm writing into device memory, copied asynchronously into pinned memory and read after an event only where the host needs it, or keeping the value on the device
  total += thrust::reduce(thrust::cuda::par_nosync.on(stream), p, p + n);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'thrust::reduce' copies its result
  total += thrust::count_if(thrust::cuda::par.on(stream), p, p + n, IsOdd());
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'thrust::count_if' copies its result
  total += thrust::min_element(thrust::device, p, p + n) - p;
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'thrust::min_element' copies the position it found to the host
  return total;
}

int positiveDeviceIterators(thrust::device_vector<int> &v, thrust::device_vector<int> &out) {
  // No policy: device_vector's iterators are the CUDA system's.
  int total = thrust::reduce(v.begin(), v.end());
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'thrust::reduce' copies its result
  auto end = thrust::copy_if(thrust::device, v.begin(), v.end(), out.begin(), IsOdd());
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'thrust::copy_if' copies its end iterator to the host
  total += static_cast<int>(thrust::unique(out.begin(), end) - out.begin());
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'thrust::unique' copies its end iterator
  return total;
}

void positiveSynchronousLaunches(thrust::device_vector<int> &v, thrust::device_vector<int> &out,
                                 cudaStream_t stream) {
  thrust::transform(thrust::device, v.begin(), v.end(), out.begin(), Twice());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'thrust::transform' waits for the algorithm's stream before it returns (a synchronous policy) [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'thrust::cuda::par_nosync.on(stream)', which returns without waiting
  thrust::sort(thrust::cuda::par.on(stream), out.begin(), out.end());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'thrust::sort' waits for the algorithm's stream
  thrust::fill(out.begin(), out.end(), 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'thrust::fill' waits for the algorithm's stream
}

// The other algorithms whose result the device computed: a value, a
// position, or an end iterator.
long long positiveMoreResults(thrust::device_vector<int> &v, thrust::device_vector<int> &out,
                              thrust::device_vector<int> &values, cudaStream_t stream) {
  long long total = thrust::none_of(thrust::device, v.begin(), v.end(), IsOdd());
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'thrust::none_of' copies its result to the host
  total += thrust::equal(thrust::cuda::par_nosync.on(stream), v.begin(), v.end(), out.begin());
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'thrust::equal' copies its result to the host
  total += thrust::remove_copy_if(thrust::cuda::par_nosync.on(stream), v.begin(), v.end(), out.begin(),
                                  IsOdd()) - out.begin();
  // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: 'thrust::remove_copy_if' copies its end iterator to the host
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: consider 'cub::DeviceSelect'
  total += thrust::partition(thrust::device, out.begin(), out.end(), IsOdd()) - out.begin();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'thrust::partition' copies its end iterator to the host
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider 'cub::DevicePartition'
  total += thrust::set_union(thrust::device, v.begin(), v.end(), out.begin(), out.end(), values.begin()) -
           values.begin();
  // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: 'thrust::set_union' copies its end iterator to the host
  total += thrust::reduce_by_key(thrust::device, v.begin(), v.end(), out.begin(), values.begin(),
                                 out.begin()).first - values.begin();
  // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: 'thrust::reduce_by_key' copies its end iterator to the host
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: consider 'cub::DeviceReduce::ReduceByKey'
  return total;
}

// A search's one-value form returns its position (or a bool) to the host,
// whatever the policy; its vector form writes into device memory and waits
// only with a synchronous policy.
long long positiveSearches(thrust::device_vector<int> &sorted, thrust::device_vector<int> &values,
                           thrust::device_vector<int> &out, cudaStream_t stream) {
  long long total = thrust::lower_bound(thrust::cuda::par_nosync.on(stream), sorted.begin(), sorted.end(), 7) -
                    sorted.begin();
  // CHECK-MESSAGES: :[[@LINE-2]]:21: warning: 'thrust::lower_bound' copies the position it found to the host
  // CHECK-MESSAGES: :[[@LINE-3]]:21: note: consider the vector form
  total += thrust::binary_search(sorted.begin(), sorted.end(), 7);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'thrust::binary_search' copies the position it found to the host
  thrust::upper_bound(thrust::device, sorted.begin(), sorted.end(), values.begin(), values.end(), out.begin());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'thrust::upper_bound' waits for the algorithm's stream before it returns (a synchronous policy) [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider 'thrust::cuda::par_nosync.on(stream)'
  thrust::sort_by_key(thrust::cuda::par.on(stream), out.begin(), out.end(), values.begin());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'thrust::sort_by_key' waits for the algorithm's stream before it returns
  return total;
}

void negativeVectorSearches(thrust::device_vector<int> &sorted, thrust::device_vector<int> &values,
                            thrust::device_vector<int> &out, cudaStream_t stream) {
  thrust::lower_bound(thrust::cuda::par_nosync.on(stream), sorted.begin(), sorted.end(), values.begin(),
                      values.end(), out.begin());
  thrust::binary_search(thrust::cuda::par_nosync.on(stream), sorted.begin(), sorted.end(), values.begin(),
                        values.end(), out.begin(), thrust::less<int>());
  thrust::sort_by_key(thrust::cuda::par_nosync.on(stream), out.begin(), out.end(), values.begin());
}

int negativeHostSearches(std::vector<int> &h) {
  return static_cast<int>(thrust::lower_bound(thrust::host, h.begin(), h.end(), 7) - h.begin()) +
         thrust::binary_search(h.begin(), h.end(), 7);
}

// Sync-free twins: par_nosync for what returns nothing, host policies and
// host iterators, and iterators whose system is not known.
void negativeNoSyncLaunches(thrust::device_vector<int> &v, thrust::device_vector<int> &out,
                            cudaStream_t stream) {
  thrust::transform(thrust::cuda::par_nosync.on(stream), v.begin(), v.end(), out.begin(), Twice());
  thrust::sort(thrust::cuda::par_nosync.on(stream), out.begin(), out.end());
  thrust::fill(thrust::cuda::par_nosync, out.begin(), out.end(), 0);
}

int negativeHost(std::vector<int> &h, int *raw, int n) {
  int total = thrust::reduce(thrust::host, h.begin(), h.end());
  total += thrust::reduce(h.begin(), h.end());
  total += thrust::reduce(raw, raw + n);
  thrust::sort(thrust::seq, h.begin(), h.end());
  total += thrust::count(thrust::host, raw, raw + n, 1);
  return total;
}

int negativeUnknownSystem(int n) {
  // A counting_iterator belongs to any system: where it runs is not known.
  return thrust::reduce(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n));
}

// The bodies of Thrust's and CUB's functions are not followed by
// torch-sync-transitive: their stream waits depend on the policy at run time
// ('thrust::gather' with 'par_nosync' does not wait).
#include <thrust/gather.h>
void negativeNotFollowed(thrust::device_vector<int> &map, thrust::device_vector<int> &in,
                         thrust::device_vector<int> &out, cudaStream_t stream) {
  thrust::gather(thrust::cuda::par_nosync.on(stream), map.begin(), map.end(), in.begin(),
                 out.begin());
}
