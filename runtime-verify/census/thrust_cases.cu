// thrust_cases.cu: the Thrust algorithms of the census (thrust_cases.h). Thrust's CUDA backend runs an
// algorithm on a stream and, with the default policies (thrust::device, thrust::cuda::par), waits for that
// stream before it returns; an algorithm that returns a value or an end iterator copies it to the host.
// thrust::cuda::par_nosync drops the wait where nothing comes back. What each call does is measured, not
// assumed from this.
#include "thrust_cases.h"

#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/for_each.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/logical.h>
#include <thrust/mismatch.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/replace.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>
#include <thrust/tabulate.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/transform_scan.h>
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
struct Touch {
  __host__ __device__ void operator()(int &x) const { x += 1; }
};

constexpr int N = 1 << 20;

} // namespace

std::vector<ThrustCase> thrustCases() {
  auto in = std::make_shared<thrust::device_vector<int>>(N, 1);
  auto out = std::make_shared<thrust::device_vector<int>>(N, 0);
  auto host = std::make_shared<std::vector<int>>(N, 1);
  auto sink = std::make_shared<long long>(0);
  auto third = std::make_shared<thrust::device_vector<int>>(N, 0);
  auto sorted = std::make_shared<thrust::device_vector<int>>(N, 0);
  thrust::sequence(sorted->begin(), sorted->end()); // 0 .. N-1: sorted, and valid indices
  auto p = [in] { return in->data(); };
  auto q = [out] { return out->data(); };
  auto r = [third] { return third->data(); };
  auto s = [sorted] { return sorted->data(); };
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

  // The other algorithms that return a value or a position the device computed (the searches' one-value
  // forms among them), then those that return nothing the device computed (the searches' vector forms).
  add("thrust::none_of", "thrust::device, device_ptr<int> range of 1 Mi ints, a predicate",
      [=] { *sink += thrust::none_of(thrust::device, p(), p() + N, IsOdd()); });
  add("thrust::equal", "thrust::device, two device_ptr<int> ranges of 1 Mi ints",
      [=] { *sink += thrust::equal(thrust::device, p(), p() + N, q()); });
  add("thrust::equal", "thrust::cuda::par_nosync.on(current stream), two device_ptr<int> ranges of 1 Mi ints",
      [=] { *sink += thrust::equal(thrust::cuda::par_nosync.on(stream()), p(), p() + N, q()); });
  add("thrust::is_sorted", "thrust::device, device_ptr<int> range of 1 Mi ints",
      [=] { *sink += thrust::is_sorted(thrust::device, p(), p() + N); });
  add("thrust::is_partitioned", "thrust::device, device_ptr<int> range of 1 Mi ints, a predicate",
      [=] { *sink += thrust::is_partitioned(thrust::device, p(), p() + N, IsOdd()); });
  add("thrust::unique_count", "thrust::device, device_ptr<int> range of 1 Mi ints",
      [=] { *sink += thrust::unique_count(thrust::device, p(), p() + N); });
  add("thrust::is_sorted_until", "thrust::device, device_ptr<int> range of 1 Mi ints",
      [=] { *sink += thrust::is_sorted_until(thrust::device, p(), p() + N) - p(); });
  add("thrust::minmax_element", "thrust::device, device_ptr<int> range of 1 Mi ints",
      [=] { *sink += thrust::minmax_element(thrust::device, p(), p() + N).first - p(); });
  add("thrust::find_if", "thrust::device, device_ptr<int> range of 1 Mi ints, a predicate",
      [=] { *sink += thrust::find_if(thrust::device, p(), p() + N, IsOdd()) - p(); });
  add("thrust::find_if_not", "thrust::device, device_ptr<int> range of 1 Mi ints, a predicate",
      [=] { *sink += thrust::find_if_not(thrust::device, p(), p() + N, IsOdd()) - p(); });
  add("thrust::mismatch", "thrust::device, two device_ptr<int> ranges of 1 Mi ints",
      [=] { *sink += thrust::mismatch(thrust::device, p(), p() + N, q()).first - p(); });
  add("thrust::partition_point", "thrust::device, device_ptr<int> range of 1 Mi ints, a predicate",
      [=] { *sink += thrust::partition_point(thrust::device, p(), p() + N, IsOdd()) - p(); });
  add("thrust::equal_range", "thrust::device, sorted device_ptr<int> range of 1 Mi ints, a value",
      [=] { *sink += thrust::equal_range(thrust::device, s(), s() + N, 7).first - s(); });
  add("thrust::lower_bound", "thrust::device, sorted device_ptr<int> range of 1 Mi ints, a value",
      [=] { *sink += thrust::lower_bound(thrust::device, s(), s() + N, 7) - s(); });
  add("thrust::lower_bound",
      "thrust::cuda::par_nosync.on(current stream), sorted device_ptr<int> range of 1 Mi ints, a value",
      [=] { *sink += thrust::lower_bound(thrust::cuda::par_nosync.on(stream()), s(), s() + N, 7) - s(); });
  add("thrust::upper_bound", "thrust::device, sorted device_ptr<int> range of 1 Mi ints, a value",
      [=] { *sink += thrust::upper_bound(thrust::device, s(), s() + N, 7) - s(); });
  add("thrust::binary_search", "thrust::device, sorted device_ptr<int> range of 1 Mi ints, a value",
      [=] { *sink += thrust::binary_search(thrust::device, s(), s() + N, 7); });
  add("thrust::remove", "thrust::device, device_ptr<int> range of 1 Mi ints, value 1",
      [=] { *sink += thrust::remove(thrust::device, q(), q() + N, 1) - q(); });
  add("thrust::remove_copy", "thrust::device, device_ptr<int> range of 1 Mi ints into another, value 1",
      [=] { *sink += thrust::remove_copy(thrust::device, p(), p() + N, q(), 1) - q(); });
  add("thrust::remove_copy_if",
      "thrust::device, device_ptr<int> range of 1 Mi ints into another, a predicate",
      [=] { *sink += thrust::remove_copy_if(thrust::device, p(), p() + N, q(), IsOdd()) - q(); });
  add("thrust::remove_copy_if",
      "thrust::cuda::par_nosync.on(current stream), device_ptr<int> range of 1 Mi ints into another, a "
      "predicate",
      [=] {
        *sink +=
            thrust::remove_copy_if(thrust::cuda::par_nosync.on(stream()), p(), p() + N, q(), IsOdd()) - q();
      });
  add("thrust::remove_copy_if",
      "thrust::cuda::par.on(current stream), device_ptr<int> range of 1 Mi ints into another, a predicate",
      [=] {
        *sink += thrust::remove_copy_if(thrust::cuda::par.on(stream()), p(), p() + N, q(), IsOdd()) - q();
      });
  add("thrust::unique_copy", "thrust::device, device_ptr<int> range of 1 Mi ints into another",
      [=] { *sink += thrust::unique_copy(thrust::device, p(), p() + N, q()) - q(); });
  add("thrust::unique_by_key", "thrust::device, device_ptr<int> range of 1 Mi ints of keys and one of values",
      [=] { *sink += thrust::unique_by_key(thrust::device, q(), q() + N, r()).first - q(); });
  add("thrust::unique_by_key_copy",
      "thrust::device, device_ptr<int> range of 1 Mi ints of keys and one of values into two others",
      [=] { *sink += thrust::unique_by_key_copy(thrust::device, p(), p() + N, p(), q(), r()).first - q(); });
  add("thrust::reduce_by_key",
      "thrust::device, device_ptr<int> range of 1 Mi ints of keys and one of values into two others",
      [=] { *sink += thrust::reduce_by_key(thrust::device, p(), p() + N, p(), q(), r()).first - q(); });
  add("thrust::reduce_by_key",
      "thrust::cuda::par_nosync.on(current stream), device_ptr<int> range of 1 Mi ints of keys and one of "
      "values into two others",
      [=] {
        *sink +=
            thrust::reduce_by_key(thrust::cuda::par_nosync.on(stream()), p(), p() + N, p(), q(), r()).first -
            q();
      });
  add("thrust::partition", "thrust::device, device_ptr<int> range of 1 Mi ints, a predicate",
      [=] { *sink += thrust::partition(thrust::device, q(), q() + N, IsOdd()) - q(); });
  add("thrust::partition",
      "thrust::cuda::par_nosync.on(current stream), device_ptr<int> range of 1 Mi ints, a predicate", [=] {
        *sink += thrust::partition(thrust::cuda::par_nosync.on(stream()), q(), q() + N, IsOdd()) - q();
      });
  add("thrust::stable_partition", "thrust::device, device_ptr<int> range of 1 Mi ints, a predicate",
      [=] { *sink += thrust::stable_partition(thrust::device, q(), q() + N, IsOdd()) - q(); });
  add("thrust::partition_copy",
      "thrust::device, device_ptr<int> range of 1 Mi ints into two others, a predicate",
      [=] { *sink += thrust::partition_copy(thrust::device, p(), p() + N, q(), r(), IsOdd()).first - q(); });
  add("thrust::stable_partition_copy",
      "thrust::device, device_ptr<int> range of 1 Mi ints into two others, a predicate", [=] {
        *sink += thrust::stable_partition_copy(thrust::device, p(), p() + N, q(), r(), IsOdd()).first - q();
      });
  add("thrust::set_union", "thrust::device, two sorted device_ptr<int> ranges of 1 Mi ints into another",
      [=] { *sink += thrust::set_union(thrust::device, s(), s() + N / 2, s(), s() + N / 2, q()) - q(); });
  add("thrust::set_union",
      "thrust::cuda::par_nosync.on(current stream), two sorted device_ptr<int> ranges of 1 Mi ints into "
      "another",
      [=] {
        *sink += thrust::set_union(thrust::cuda::par_nosync.on(stream()), s(), s() + N / 2, s(), s() + N / 2,
                                   q()) -
                 q();
      });
  add("thrust::set_intersection",
      "thrust::device, two sorted device_ptr<int> ranges of 1 Mi ints into another", [=] {
        *sink += thrust::set_intersection(thrust::device, s(), s() + N / 2, s(), s() + N / 2, q()) - q();
      });
  add("thrust::set_difference", "thrust::device, two sorted device_ptr<int> ranges of 1 Mi ints into another",
      [=] {
        *sink += thrust::set_difference(thrust::device, s(), s() + N / 2, s(), s() + N / 2, q()) - q();
      });
  add("thrust::set_symmetric_difference",
      "thrust::device, two sorted device_ptr<int> ranges of 1 Mi ints into another", [=] {
        *sink +=
            thrust::set_symmetric_difference(thrust::device, s(), s() + N / 2, s(), s() + N / 2, q()) - q();
      });
  add("thrust::set_union_by_key",
      "thrust::device, two sorted device_ptr<int> ranges of 1 Mi ints of keys with values into two others",
      [=] {
        *sink +=
            thrust::set_union_by_key(thrust::device, s(), s() + N / 4, s(), s() + N / 4, p(), p(), q(), r())
                .first -
            q();
      });
  add("thrust::set_intersection_by_key",
      "thrust::device, two sorted device_ptr<int> ranges of 1 Mi ints of keys with values into two others",
      [=] {
        *sink +=
            thrust::set_intersection_by_key(thrust::device, s(), s() + N / 4, s(), s() + N / 4, p(), q(), r())
                .first -
            q();
      });
  add("thrust::set_difference_by_key",
      "thrust::device, two sorted device_ptr<int> ranges of 1 Mi ints of keys with values into two others",
      [=] {
        *sink += thrust::set_difference_by_key(thrust::device, s(), s() + N / 4, s(), s() + N / 4, p(), p(),
                                               q(), r())
                     .first -
                 q();
      });
  add("thrust::set_symmetric_difference_by_key",
      "thrust::device, two sorted device_ptr<int> ranges of 1 Mi ints of keys with values into two others",
      [=] {
        *sink += thrust::set_symmetric_difference_by_key(thrust::device, s(), s() + N / 4, s(), s() + N / 4,
                                                         p(), p(), q(), r())
                     .first -
                 q();
      });
  add("thrust::sort_by_key", "thrust::device, device_ptr<int> range of 1 Mi ints of keys and one of values",
      [=] { thrust::sort_by_key(thrust::device, q(), q() + N, r()); });
  add("thrust::sort_by_key",
      "thrust::cuda::par_nosync.on(current stream), device_ptr<int> range of 1 Mi ints of keys and one of "
      "values",
      [=] { thrust::sort_by_key(thrust::cuda::par_nosync.on(stream()), q(), q() + N, r()); });
  add("thrust::sort_by_key",
      "thrust::cuda::par.on(current stream), device_ptr<int> range of 1 Mi ints of keys and one of values",
      [=] { thrust::sort_by_key(thrust::cuda::par.on(stream()), q(), q() + N, r()); });
  add("thrust::stable_sort", "thrust::device, device_ptr<int> range of 1 Mi ints",
      [=] { thrust::stable_sort(thrust::device, q(), q() + N); });
  add("thrust::stable_sort",
      "thrust::cuda::par_nosync.on(current stream), device_ptr<int> range of 1 Mi ints",
      [=] { thrust::stable_sort(thrust::cuda::par_nosync.on(stream()), q(), q() + N); });
  add("thrust::stable_sort_by_key",
      "thrust::device, device_ptr<int> range of 1 Mi ints of keys and one of values",
      [=] { thrust::stable_sort_by_key(thrust::device, q(), q() + N, r()); });
  add("thrust::for_each", "thrust::device, device_ptr<int> range of 1 Mi ints, a functor",
      [=] { thrust::for_each(thrust::device, q(), q() + N, Touch()); });
  add("thrust::for_each",
      "thrust::cuda::par_nosync.on(current stream), device_ptr<int> range of 1 Mi ints, a functor",
      [=] { thrust::for_each(thrust::cuda::par_nosync.on(stream()), q(), q() + N, Touch()); });
  add("thrust::for_each",
      "thrust::cuda::par.on(current stream), device_ptr<int> range of 1 Mi ints, a functor",
      [=] { thrust::for_each(thrust::cuda::par.on(stream()), q(), q() + N, Touch()); });
  add("thrust::gather", "thrust::device, device_ptr<int> range of 1 Mi ints of indices into another",
      [=] { thrust::gather(thrust::device, s(), s() + N, p(), q()); });
  add("thrust::gather",
      "thrust::cuda::par_nosync.on(current stream), device_ptr<int> range of 1 Mi ints of indices into "
      "another",
      [=] { thrust::gather(thrust::cuda::par_nosync.on(stream()), s(), s() + N, p(), q()); });
  add("thrust::scatter",
      "thrust::device, device_ptr<int> range of 1 Mi ints through device_ptr<int> map of 1 Mi ints into "
      "another",
      [=] { thrust::scatter(thrust::device, p(), p() + N, s(), q()); });
  add("thrust::scatter",
      "thrust::cuda::par_nosync.on(current stream), device_ptr<int> range of 1 Mi ints through "
      "device_ptr<int> map of 1 Mi ints into another",
      [=] { thrust::scatter(thrust::cuda::par_nosync.on(stream()), p(), p() + N, s(), q()); });
  add("thrust::adjacent_difference", "thrust::device, device_ptr<int> range of 1 Mi ints into another",
      [=] { thrust::adjacent_difference(thrust::device, p(), p() + N, q()); });
  add("thrust::adjacent_difference",
      "thrust::cuda::par_nosync.on(current stream), device_ptr<int> range of 1 Mi ints into another",
      [=] { thrust::adjacent_difference(thrust::cuda::par_nosync.on(stream()), p(), p() + N, q()); });
  add("thrust::transform_inclusive_scan",
      "thrust::device, device_ptr<int> range of 1 Mi ints into another, a unary op", [=] {
        thrust::transform_inclusive_scan(thrust::device, p(), p() + N, q(), Twice(), thrust::plus<int>());
      });
  add("thrust::transform_inclusive_scan",
      "thrust::cuda::par_nosync.on(current stream), device_ptr<int> range of 1 Mi ints into another, a unary "
      "op",
      [=] {
        thrust::transform_inclusive_scan(thrust::cuda::par_nosync.on(stream()), p(), p() + N, q(), Twice(),
                                         thrust::plus<int>());
      });
  add("thrust::transform_exclusive_scan",
      "thrust::device, device_ptr<int> range of 1 Mi ints into another, a unary op", [=] {
        thrust::transform_exclusive_scan(thrust::device, p(), p() + N, q(), Twice(), 0, thrust::plus<int>());
      });
  add("thrust::inclusive_scan_by_key",
      "thrust::device, device_ptr<int> range of 1 Mi ints of keys and one of values into another",
      [=] { thrust::inclusive_scan_by_key(thrust::device, p(), p() + N, p(), q()); });
  add("thrust::exclusive_scan_by_key",
      "thrust::device, device_ptr<int> range of 1 Mi ints of keys and one of values into another",
      [=] { thrust::exclusive_scan_by_key(thrust::device, p(), p() + N, p(), q()); });
  add("thrust::replace_if", "thrust::device, device_ptr<int> range of 1 Mi ints, a predicate",
      [=] { thrust::replace_if(thrust::device, q(), q() + N, IsOdd(), 0); });
  add("thrust::tabulate", "thrust::device, device_ptr<int> range of 1 Mi ints, a unary op",
      [=] { thrust::tabulate(thrust::device, q(), q() + N, Twice()); });
  add("thrust::lower_bound",
      "thrust::device, sorted device_ptr<int> range of 1 Mi ints, device_ptr<int> range of values of 1 Mi "
      "ints into another (vector form)",
      [=] { thrust::lower_bound(thrust::device, s(), s() + N, p(), p() + N, q()); });
  add("thrust::lower_bound",
      "thrust::cuda::par_nosync.on(current stream), sorted device_ptr<int> range of 1 Mi ints, "
      "device_ptr<int> range of values of 1 Mi ints into another (vector form)",
      [=] { thrust::lower_bound(thrust::cuda::par_nosync.on(stream()), s(), s() + N, p(), p() + N, q()); });
  add("thrust::binary_search",
      "thrust::device, sorted device_ptr<int> range of 1 Mi ints, device_ptr<int> range of values of 1 Mi "
      "ints into another (vector form)",
      [=] { thrust::binary_search(thrust::device, s(), s() + N, p(), p() + N, q()); });
  add("thrust::binary_search",
      "thrust::cuda::par_nosync.on(current stream), sorted device_ptr<int> range of 1 Mi ints, "
      "device_ptr<int> range of values of 1 Mi ints into another (vector form)",
      [=] { thrust::binary_search(thrust::cuda::par_nosync.on(stream()), s(), s() + N, p(), p() + N, q()); });

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
