// Thrust and CUB built in a wrapped namespace, as DGL builds them:
// THRUST_CUB_WRAPPED_NAMESPACE=dgl puts Thrust in 'dgl::thrust' and CUB in
// 'dgl::cub'. The Thrust facts apply there as they do to '::thrust', and
// torch-sync-transitive keeps out of the wrapped libraries' bodies: a project
// function whose Thrust call does not wait ('par_nosync' on an algorithm that
// returns nothing) stays silent, and one whose call waits is reported once,
// at the Thrust call.
//
// REQUIRES: cuda-headers
// RUN: %check_torch_sync --checks=-*,torch-sync-explicit,torch-sync-transitive --temp %t %s -- \
// RUN:   %cuda_source_flags %libtorch_cuda_flags %libtorch_flags

#define THRUST_CUB_WRAPPED_NAMESPACE dgl
#include <cub/device/device_reduce.cuh>
#include <thrust/count.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/gather.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <cuda_runtime_api.h>
#include <vector>

namespace dgl {

struct IsOdd {
  __host__ __device__ bool operator()(int x) const { return x % 2 != 0; }
};
struct Twice {
  __host__ __device__ int operator()(int x) const { return 2 * x; }
};

int positiveWrapped(int *raw, int n, cudaStream_t stream) {
  thrust::device_ptr<int> p = thrust::device_pointer_cast(raw);
  int total = thrust::reduce(thrust::device, p, p + n);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'thrust::reduce' copies its result to the host and waits for the algorithm's stream, even with 'par_nosync' [torch-sync-explicit]
  // CHECK-MESSAGES: :[[@LINE-2]]:15: note: consider a 'cub::DeviceReduce' algorithm
  total += thrust::count(thrust::cuda::par_nosync.on(stream), p, p + n, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'thrust::count' copies its result to the host
  total += thrust::remove_copy_if(thrust::cuda::par.on(stream), p, p + n, p, IsOdd()) - p;
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'thrust::remove_copy_if' copies its end iterator to the host
  thrust::sort(thrust::device, p, p + n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'thrust::sort' waits for the algorithm's stream before it returns (a synchronous policy) [torch-sync-explicit]
  return total;
}

void negativeWrapped(thrust::device_vector<int> &v, thrust::device_vector<int> &out, std::vector<int> &h,
                     cudaStream_t stream) {
  thrust::transform(thrust::cuda::par_nosync.on(stream), v.begin(), v.end(), out.begin(), Twice());
  thrust::sort(thrust::cuda::par_nosync.on(stream), out.begin(), out.end());
  thrust::sort(thrust::host, h.begin(), h.end());
}

// torch-sync-transitive: fixed code calls a wrapped algorithm with
// 'par_nosync' and is silent, though Thrust's own body has a
// 'cudaStreamSynchronize' for the synchronous policies. The unfixed twin is
// reported at its call, pointing at the Thrust call, not into Thrust.
void sortFixed(thrust::device_vector<int> &v, cudaStream_t stream) {
  thrust::sort(thrust::cuda::par_nosync.on(stream), v.begin(), v.end());
}
void gatherFixed(thrust::device_vector<int> &map, thrust::device_vector<int> &in,
                 thrust::device_vector<int> &out, cudaStream_t stream) {
  thrust::gather(thrust::cuda::par_nosync.on(stream), map.begin(), map.end(), in.begin(), out.begin());
}
void sortUnfixed(thrust::device_vector<int> &v) {
  thrust::sort(thrust::device, v.begin(), v.end());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'thrust::sort' waits for the algorithm's stream before it returns (a synchronous policy) [torch-sync-explicit]
}

void callers(thrust::device_vector<int> &map, thrust::device_vector<int> &in,
             thrust::device_vector<int> &out, cudaStream_t stream) {
  sortFixed(in, stream);
  gatherFixed(map, in, out, stream);
  sortUnfixed(in);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dgl::sortUnfixed' calls 'thrust::sort' in its body, which blocks the host
  // CHECK-MESSAGES: :[[@LINE-10]]:3: note: 'thrust::sort' synchronizes here
}

} // namespace dgl

// Outside the wrapper, the wrapped names spelled in full.
long long qualifiedFromOutside(dgl::thrust::device_vector<int> &v, cudaStream_t stream) {
  long long total = dgl::thrust::count_if(dgl::thrust::cuda::par_nosync.on(stream), v.begin(), v.end(),
                                          dgl::IsOdd());
  // CHECK-MESSAGES: :[[@LINE-2]]:21: warning: 'thrust::count_if' copies its result to the host
  dgl::thrust::fill(dgl::thrust::cuda::par_nosync.on(stream), v.begin(), v.end(), 0);
  return total;
}

// A project's own namespace called 'thrust' is not CCCL's: its functions are
// followed (and reported) like any project code.
namespace mylib {
namespace thrust {
inline void reduce(int *device, int *host) { cudaMemcpy(host, device, 4, cudaMemcpyDeviceToHost); }
// CHECK-MESSAGES: :[[@LINE-1]]:46: warning: 'cudaMemcpy' copies synchronously
} // namespace thrust
} // namespace mylib
void ownThrust(int *device, int *host) {
  mylib::thrust::reduce(device, host);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'mylib::thrust::reduce' calls 'cudaMemcpy' in its body, which blocks the host
  // CHECK-MESSAGES: :[[@LINE-7]]:46: note: 'cudaMemcpy' synchronizes here
}
