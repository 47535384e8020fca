// SMOKE: torch-sync-item's matchers on this release's AST (member templates, the Scalar overloads, loops)
// OLDER-LIBTORCH: torch-sync-item's facts resolved on each release's declarations (item<T>, _local_scalar_dense, equal, allclose)
// RUN: %check_torch_sync --checks=-*,torch-sync-item --temp %t %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-item --temp %t-known --check-suffix=KNOWN \
// RUN:   --config="{CheckOptions: {torch-sync-item.ReportUnknownDevice: false}}" %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-item --temp %t-loops --check-suffix=LOOPS \
// RUN:   --config="{CheckOptions: {LoopsOnly: true}}" %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-item --temp %t-user --check-suffix=USER \
// RUN:   --config="{CheckOptions: {torch-sync-item.SyncFunctions: 'project::read_.*', torch-sync-item.IntendedSyncFunctions: '^debug::'}}" \
// RUN:   %s -- %libtorch_flags

#include <ATen/core/Tensor.h>
#include <ATen/ops/_local_scalar_dense.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/is_nonzero.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros.h>
#include <torch/types.h>
#include <optional>

namespace project {
float read_scalar(const at::Tensor &t);
} // namespace project

// Positive cases: a tensor of unknown device (a parameter) read on the host.

float positiveItemTemplate(const at::Tensor &t) {
  return t.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'item' copies a tensor element to the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider keeping the value on the device ('at::where', 'clamp', 'at::_assert_async') or reading it once, outside the hot path
  // CHECK-MESSAGES-USER: :[[@LINE-3]]:12: warning: 'item' copies
}

double positiveItemScalar(const torch::Tensor &t) {
  at::Scalar s = t.item();
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'item' copies a tensor element
  // CHECK-MESSAGES-USER: :[[@LINE-2]]:20: warning: 'item' copies
  return s.toDouble();
}

using MyTensor = torch::Tensor;
bool positiveAliasesAndAuto(MyTensor t) {
  auto &ref = t;
  auto v = ref.sum().item().toDouble();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'item' copies a tensor element
  // CHECK-MESSAGES-USER: :[[@LINE-2]]:22: warning: 'item' copies
  return v > 0;
}

bool positiveComparisons(const at::Tensor &a, const at::Tensor &b) {
  bool r = a.is_nonzero();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'is_nonzero' reads a tensor element on the host to test it and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:14: note: consider comparing on the device, or 'at::_assert_async' for a check
  // CHECK-MESSAGES-USER: :[[@LINE-3]]:14: warning: 'is_nonzero'
  r = r && a.equal(b);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'equal' reads the result of a tensor comparison on the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:14: note: consider 'at::eq(a, b).all()', which keeps the result on the device
  // CHECK-MESSAGES-USER: :[[@LINE-3]]:14: warning: 'equal'
  r = r && at::equal(a, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::equal' reads the result of a tensor comparison
  // CHECK-MESSAGES-USER: :[[@LINE-2]]:12: warning: 'at::equal'
  r = r && torch::allclose(a, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::allclose' reads the result of a tensor comparison on the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider 'at::isclose(a, b).all()', which keeps the result on the device
  // CHECK-MESSAGES-USER: :[[@LINE-3]]:12: warning: 'at::allclose'
  r = r && at::is_nonzero(a) && at::_local_scalar_dense(b).toBool();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'at::is_nonzero' reads a tensor element
  // CHECK-MESSAGES: :[[@LINE-2]]:33: warning: 'at::_local_scalar_dense' copies a tensor element
  // CHECK-MESSAGES-USER: :[[@LINE-3]]:12: warning: 'at::is_nonzero'
  // CHECK-MESSAGES-USER: :[[@LINE-4]]:33: warning: 'at::_local_scalar_dense'
  return r;
}

// A tensor known to be on CUDA is reported also with ReportUnknownDevice off.
float positiveKnownCuda(int steps) {
  auto x = at::ones({4}, at::TensorOptions().device(at::kCUDA).dtype(at::kFloat));
  float total = 0;
  for (int i = 0; i < steps; ++i) {
    total += x.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'item' copies a tensor element to the host and waits for the current stream
    // CHECK-MESSAGES: :[[@LINE-2]]:22: note: consider
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-KNOWN: :[[@LINE-4]]:22: warning: 'item' copies a tensor element to the host and waits for the current stream
    // CHECK-MESSAGES-KNOWN: :[[@LINE-5]]:22: note: consider
    // CHECK-MESSAGES-KNOWN: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-LOOPS: :[[@LINE-7]]:22: warning: 'item' copies {{.*}}
    // CHECK-MESSAGES-LOOPS: :[[@LINE-8]]:22: note: consider
    // CHECK-MESSAGES-LOOPS: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-USER: :[[@LINE-10]]:22: warning: 'item' copies
  }
  at::Tensor y = at::zeros({2}, at::kCUDA);
  int n = 0;
  while (y.sum().item<int>() < steps)
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'item' copies {{.*}}
    // CHECK-MESSAGES: :[[@LINE-2]]:18: note: consider
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-KNOWN: :[[@LINE-4]]:18: warning: 'item'
    // CHECK-MESSAGES-LOOPS: :[[@LINE-5]]:18: warning: 'item'
    // CHECK-MESSAGES-USER: :[[@LINE-6]]:18: warning: 'item'
    ++n;
  return total + n;
}

// The loop's for-init runs once: not "on every iteration".
int positiveForInitRunsOnce(const at::Tensor &t) {
  int n = 0;
  for (int i = t.item<int>(); i < 3; ++i)
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'item' copies a tensor element to the host and waits for the current stream
    // CHECK-MESSAGES: :[[@LINE-2]]:18: note: consider
    // CHECK-MESSAGES-USER: :[[@LINE-3]]:18: warning: 'item' copies
    ++n;
  return n;
}

// The project's own synchronizing function (option SyncFunctions).
float positiveUserSyncFunction(const at::Tensor &t) {
  return project::read_scalar(t);
  // CHECK-MESSAGES-USER: :[[@LINE-1]]:10: warning: 'project::read_scalar' is declared as synchronizing (option 'SyncFunctions') and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES-USER: :[[@LINE-2]]:10: note: consider moving it out of the hot path
}

// Negative cases: provably on the CPU, so no sync.

float negativeCpuFactory() {
  auto x = at::zeros({3});
  at::Tensor y = torch::ones({3}, torch::kFloat);
  at::Tensor z = x + y;
  auto w = at::sum(z) * 2;
  return x.sum().item<float>() + z.item<float>() + w.item<float>() +
         torch::zeros({1}, at::TensorOptions().dtype(at::kInt)).item<int>();
}

float negativeCpuConversions(const at::Tensor &t) {
  auto host = t.cpu();
  float a = host.item<float>();
  auto host2 = t.to(at::kCPU).abs();
  float b = host2.sum().item<float>();
  at::Tensor host3 = t.to(torch::Device("cpu"), at::kFloat);
  bool same = host3.equal(host2) && at::allclose(host, host2);
  return a + b + same;
}

float negativeReassignedOnCpu() {
  at::Tensor acc;
  acc = at::zeros({1});
  for (int i = 0; i < 3; ++i)
    acc = acc + 1;
  return acc.item<float>();
}

float negativeFromBlob(float *data) {
  auto t = torch::from_blob(data, {4});
  return t.sum().item<float>();
}

// Syncs are intended in debug helpers (option IntendedSyncFunctions).
namespace debug {
float dump(const at::Tensor &t) {
  return t.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'item' copies
}
} // namespace debug

// Look-alikes: not LibTorch tensors, not synchronizing members.
struct FakeTensor {
  float item() const { return 0; }
  bool equal(const FakeTensor &) const { return true; }
};
float negativeLookAlike(const FakeTensor &f, const at::Tensor &t) {
  return f.item() + f.equal(f) + t.dim() + t.numel() + t.sizes()[0];
}

// A reassignment from elsewhere makes the device unknown again.
float positiveReassignedFromParameter(const at::Tensor &p) {
  auto x = at::zeros({1});
  x = p;
  return x.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'item' copies
  // CHECK-MESSAGES-USER: :[[@LINE-2]]:12: warning: 'item' copies
}

// Tensor lists: the result of at::cat lives where its inputs live.
float positiveCatOfCuda() {
  auto a = at::ones({2}, at::kCUDA);
  auto joined = at::cat({a, a});
  return joined.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'item' copies
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:23: warning: 'item' copies
  // CHECK-MESSAGES-USER: :[[@LINE-3]]:23: warning: 'item' copies
}

float negativeCatOfCpu() {
  auto a = at::ones({2});
  return at::cat({a, at::zeros({2})}).sum().item<float>();
}

// A non-const reference to a variable lets it change behind the analysis.
float positiveWriteThroughReference(const at::Tensor &p) {
  auto t = at::zeros({3});
  auto &alias = t;
  alias = p;
  return t.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'item' copies
  // CHECK-MESSAGES-USER: :[[@LINE-2]]:12: warning: 'item' copies
}

// A lambda defined in a loop runs when it is called; a loop inside a lambda
// repeats.
float positiveLambdasAndLoops(const at::Tensor &t) {
  float total = 0;
  for (int i = 0; i < 2; ++i) {
    auto read = [&] { return t.item<float>(); };
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'item' copies a tensor element to the host and waits for the current stream
    // CHECK-MESSAGES: :[[@LINE-2]]:32: note: consider
    // CHECK-MESSAGES-USER: :[[@LINE-3]]:32: warning: 'item' copies
    total += read();
  }
  auto sum = [&] {
    float s = 0;
    for (int i = 0; i < 2; ++i)
      s += t.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'item' copies {{.*}}
    // CHECK-MESSAGES: :[[@LINE-2]]:14: note: consider
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-LOOPS: :[[@LINE-4]]:14: warning: 'item' copies
    // CHECK-MESSAGES-USER: :[[@LINE-5]]:14: warning: 'item' copies
    return s;
  };
  return total + sum();
}

// Where a call runs per iteration comes from the AST around it: a range-for's
// range runs once, its body and a 'while' condition on every iteration, and a
// 'do { ... } while (0)' statement macro inside a loop still repeats.
#define READ_ONCE(x) do { x; } while (0)
float positiveLoopParts(const at::Tensor &t, const at::Tensor &list) {
  float total = 0;
  for (const auto &row : list.cpu().unbind(0)) {
    READ_ONCE(total += t.item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item' copies {{.*}}
    // CHECK-MESSAGES: :[[@LINE-2]]:26: note: consider
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-LOOPS: :[[@LINE-4]]:26: warning: 'item' copies
    // CHECK-MESSAGES-USER: :[[@LINE-5]]:26: warning: 'item' copies
    total += row.size(0);
  }
  while (t.item<float>() > total)
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'item' copies {{.*}}
    // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-LOOPS: :[[@LINE-4]]:12: warning: 'item' copies
    // CHECK-MESSAGES-USER: :[[@LINE-5]]:12: warning: 'item' copies
    total += 1;
  return total;
}

// 'value_or' evaluates its argument whether or not the optional holds a
// value: the advice is to read only when it is empty.
int64_t positiveValueOrDefault(c10::optional<int64_t> size, std::optional<int64_t> other,
                               const at::Tensor &t) {
  int64_t n = size.value_or(t.item<int64_t>());
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'item' copies a tensor element to the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:31: note: consider 'size.has_value() ? *size : ...', which reads only when 'size' is empty ('value_or' evaluates its argument first)
  // CHECK-MESSAGES-USER: :[[@LINE-3]]:31: warning: 'item' copies
  n += other.value_or(t.item<int64_t>() + 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'item' {{.*}}
  // CHECK-MESSAGES: :[[@LINE-2]]:25: note: consider 'other.has_value() ? *other : ...', which reads only
  // CHECK-MESSAGES-USER: :[[@LINE-3]]:25: warning: 'item' copies
  return n;
}

int64_t negativeValueOrGuarded(c10::optional<int64_t> size, const at::Tensor &t) {
  return size.has_value() ? *size : t.to(at::kCPU).item<int64_t>();
}
