// thrust_cases.cu: the Thrust algorithms of the census (thrust_cases.h). Thrust's CUDA backend runs an
// algorithm on a stream and, with the default policies (thrust::device, thrust::cuda::par), waits for that
// stream before it returns; an algorithm that returns a value or an end iterator copies it to the host.
// thrust::cuda::par_nosync drops the wait where nothing comes back. What each call does is measured, not
// assumed from this.
#include "thrust_cases.h"

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/logical.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>

#include <c10/cuda/CUDAStream.h>

#include <memory>
#include <vector>

namespace {

struct IsOdd {
  __host__ __device__ bool operator()(int x) const { return x % 2 != 0; }
};
struct Twice {
  __host__ __device__ int operator()(int x) const { return 2 * x; }
};

constexpr int N = 1 << 20;

} // namespace

std::vector<ThrustCase> thrustCases() {
  auto in = std::make_shared<thrust::device_vector<int>>(N, 1);
  auto out = std::make_shared<thrust::device_vector<int>>(N, 0);
  auto host = std::make_shared<std::vector<int>>(N, 1);
  auto sink = std::make_shared<long long>(0);
  auto p = [in] { return in->data(); };
  auto q = [out] { return out->data(); };
  auto stream = [] { return c10::cuda::getCurrentCUDAStream().stream(); };
  const std::string range = "device_ptr<int> range of 1 Mi ints";
  std::vector<ThrustCase> list;
  auto add = [&](std::string f, std::string a, std::function<void()> c) {
    list.push_back({std::move(f), std::move(a), std::move(c)});
  };

  // Algorithms that return a value or an iterator to the host.
  add("thrust::reduce", "thrust::device, " + range,
      [=] { *sink += thrust::reduce(thrust::device, p(), p() + N); });
  add("thrust::reduce", "thrust::cuda::par.on(current stream), " + range,
      [=] { *sink += thrust::reduce(thrust::cuda::par.on(stream()), p(), p() + N); });
  add("thrust::reduce", "thrust::cuda::par_nosync.on(current stream), " + range,
      [=] { *sink += thrust::reduce(thrust::cuda::par_nosync.on(stream()), p(), p() + N); });
  add("thrust::reduce", "device_vector<int> iterators of 1 Mi ints, no policy",
      [=] { *sink += thrust::reduce(in->begin(), in->end()); });
  add("thrust::reduce", "thrust::host, std::vector<int> of 1 Mi ints",
      [=] { *sink += thrust::reduce(thrust::host, host->begin(), host->end()); });
  add("thrust::count", "thrust::device, " + range + ", value 1",
      [=] { *sink += thrust::count(thrust::device, p(), p() + N, 1); });
  add("thrust::count_if", "thrust::device, " + range + ", a predicate",
      [=] { *sink += thrust::count_if(thrust::device, p(), p() + N, IsOdd()); });
  add("thrust::all_of", "thrust::device, " + range + ", a predicate",
      [=] { *sink += thrust::all_of(thrust::device, p(), p() + N, IsOdd()); });
  add("thrust::any_of", "thrust::device, " + range + ", a predicate",
      [=] { *sink += thrust::any_of(thrust::device, p(), p() + N, IsOdd()); });
  add("thrust::find", "thrust::device, " + range + ", a value not present",
      [=] { *sink += thrust::find(thrust::device, p(), p() + N, 7) - p(); });
  add("thrust::min_element", "thrust::device, " + range,
      [=] { *sink += thrust::min_element(thrust::device, p(), p() + N) - p(); });
  add("thrust::max_element", "thrust::device, " + range,
      [=] { *sink += thrust::max_element(thrust::device, p(), p() + N) - p(); });
  add("thrust::inner_product", "thrust::device, two device_ptr<int> ranges of 1 Mi ints",
      [=] { *sink += thrust::inner_product(thrust::device, p(), p() + N, q(), 0); });
  add("thrust::transform_reduce", "thrust::device, " + range + ", a unary op", [=] {
    *sink += thrust::transform_reduce(thrust::device, p(), p() + N, Twice(), 0, thrust::plus<int>());
  });
  add("thrust::copy_if", "thrust::device, " + range + " into another, a predicate",
      [=] { *sink += thrust::copy_if(thrust::device, p(), p() + N, q(), IsOdd()) - q(); });
  add("thrust::remove_if", "thrust::device, " + range + ", a predicate",
      [=] { *sink += thrust::remove_if(thrust::device, q(), q() + N, IsOdd()) - q(); });
  add("thrust::unique", "thrust::device, " + range,
      [=] { *sink += thrust::unique(thrust::device, q(), q() + N) - q(); });
  add("thrust::copy_if",
      "thrust::cuda::par_nosync.on(current stream), " + range + " into another, a predicate", [=] {
        *sink += thrust::copy_if(thrust::cuda::par_nosync.on(stream()), p(), p() + N, q(), IsOdd()) - q();
      });

  // Algorithms that return nothing the device computed.
  add("thrust::transform", "thrust::device, " + range + " into another, a unary op",
      [=] { thrust::transform(thrust::device, p(), p() + N, q(), Twice()); });
  add("thrust::transform", "thrust::cuda::par.on(current stream), " + range + " into another, a unary op",
      [=] { thrust::transform(thrust::cuda::par.on(stream()), p(), p() + N, q(), Twice()); });
  add("thrust::transform",
      "thrust::cuda::par_nosync.on(current stream), " + range + " into another, a unary op",
      [=] { thrust::transform(thrust::cuda::par_nosync.on(stream()), p(), p() + N, q(), Twice()); });
  add("thrust::fill", "thrust::device, " + range, [=] { thrust::fill(thrust::device, q(), q() + N, 3); });
  add("thrust::fill", "thrust::cuda::par_nosync.on(current stream), " + range,
      [=] { thrust::fill(thrust::cuda::par_nosync.on(stream()), q(), q() + N, 3); });
  add("thrust::sequence", "thrust::device, " + range,
      [=] { thrust::sequence(thrust::device, q(), q() + N); });
  add("thrust::sort", "thrust::device, " + range, [=] { thrust::sort(thrust::device, q(), q() + N); });
  add("thrust::sort", "thrust::cuda::par_nosync.on(current stream), " + range,
      [=] { thrust::sort(thrust::cuda::par_nosync.on(stream()), q(), q() + N); });
  add("thrust::inclusive_scan", "thrust::device, " + range + " into another",
      [=] { thrust::inclusive_scan(thrust::device, p(), p() + N, q()); });
  add("thrust::inclusive_scan", "thrust::cuda::par_nosync.on(current stream), " + range + " into another",
      [=] { thrust::inclusive_scan(thrust::cuda::par_nosync.on(stream()), p(), p() + N, q()); });
  add("thrust::exclusive_scan", "thrust::device, " + range + " into another",
      [=] { thrust::exclusive_scan(thrust::device, p(), p() + N, q()); });

  // Containers.
  add("thrust::device_vector::operator[]", "one element of a device_vector<int>, read on the host",
      [=] { *sink += (*in)[N / 2]; });
  add("thrust::host_vector::host_vector", "copy of a device_vector<int> of 1 Mi ints", [=] {
    thrust::host_vector<int> h(*in);
    *sink += h[0];
  });
  add("thrust::device_vector::device_vector", "1 Mi ints with a value",
      [=] { thrust::device_vector<int> d(N, 2); });
  return list;
}
