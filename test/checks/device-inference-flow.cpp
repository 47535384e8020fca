// SMOKE: the device inference on this release's CFG (reaching writes, branches, loops) and structured bindings
// RUN: %check_torch_sync --checks=-*,torch-sync-*,-torch-sync-transitive --temp %t %s -- %mock_libtorch_flags
//
// Co-location: tensors made with one Device or TensorOptions value share its
// device, whatever it is, so that a copy between them is none. Reassignment:
// the value that reaches a read decides its device ('x = x.cpu()'), along the
// function's control flow (clang's CFG). Pairs and tuples: 'std::tie(a, b) =
// f()' and 'auto [a, b] = f()' give each name its element of what the
// function of the translation unit returns. A local vector that is only
// filled with push_back holds the devices of what was pushed.

#include <ATen/core/Tensor.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/cat.h>
#include <torch/types.h>
#include <tuple>
#include <utility>
#include <vector>

// --- Co-location.
float sameDevice(torch::Device dev, int64_t n) {
  auto a = torch::zeros({n}, dev);
  auto b = torch::ones({n}, torch::TensorOptions().device(dev));
  auto c = torch::randn({n}, torch::dtype(torch::kFloat).device(dev));
  auto d = torch::zeros({n}, at::device(dev));
  auto e = a.to(b);           // no diagnostic
  auto f = a.to(dev);         // no diagnostic
  auto g = b.to(a.device());  // no diagnostic
  auto h = c.to(d.options()); // no diagnostic
  return (e + f + g + h).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'item' copies a tensor element to the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:32: note: consider {{.*}}
}

float sameOptions(const torch::TensorOptions &opts, int64_t n) {
  // A const reference names one options value for the whole function.
  auto a = torch::zeros({n}, opts);
  auto b = torch::ones({n}, opts.dtype(torch::kDouble));
  return a.to(b).sum().item<float>(); // no diagnostic for 'to'
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'item' copies a tensor element
}

// Two device values, or one reassigned between the tensors: still reported.
float twoDevices(torch::Device dev, torch::Device other, int64_t n) {
  auto a = torch::zeros({n}, dev);
  auto b = torch::ones({n}, other);
  auto c = a.to(b);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'to' may copy the tensor between host and device
  return c.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'item' copies a tensor element
}

float reassignedDevice(torch::Device dev, torch::Device other, int64_t n) {
  auto a = torch::zeros({n}, dev);
  dev = other;
  auto b = torch::ones({n}, dev);
  auto c = a.to(b);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'to' may copy the tensor between host and device
  return c.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'item' copies a tensor element
}

// A tensor on an unknown device copied to one made on another: reported.
at::Tensor intoOther(const at::Tensor &x, torch::Device dev) {
  auto y = torch::zeros({2}, dev);
  return x.to(y);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'to' may copy the tensor between host and device
}

// --- Reassignment.
float reassignedFromCopy(at::Tensor x) {
  x = x.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'cpu' copies the tensor to the host
  return x.item<float>(); // no diagnostic: 'x' is the host copy here
}

float localReassigned(const at::Tensor &input) {
  auto t = input.sum();
  float before = t.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'item' copies a tensor element
  t = t.to(torch::kCPU);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'to' copies the tensor to the host
  float after = t.item<float>(); // no diagnostic
  return before + after;
}

// On one branch only: the read after the join may see the device tensor.
float oneBranch(at::Tensor x, bool small) {
  if (small)
    x = x.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'cpu' copies the tensor to the host
  return x.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'item' copies a tensor element
}

// On both branches: the read sees a host tensor either way.
float bothBranches(at::Tensor x, bool small) {
  if (small)
    x = x.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'cpu' copies the tensor to the host
  else
    x = x.to(torch::kCPU, torch::kDouble);
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'to' copies the tensor to the host
  return x.item<float>(); // no diagnostic
}

// In a loop, the read at the top sees the previous iteration's value too.
float inLoop(at::Tensor x, int n) {
  float sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += x.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'item' copies a tensor element to the host and waits for the current stream
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    x = x.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'cpu' copies the tensor to the host
  }
  return sum;
}

// After a loop that makes it a host tensor on every path through the body,
// the read still sees the value from before the loop (zero iterations).
float afterLoop(at::Tensor x, int n) {
  for (int i = 0; i < n; ++i)
    x = x.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'cpu' copies the tensor to the host
  return x.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'item' copies a tensor element
}

// Written through a reference: the reads are not followed.
void replace(at::Tensor &t);
float escaped(at::Tensor x) {
  x = x.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'cpu' copies the tensor to the host
  replace(x);
  return x.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'item' copies a tensor element
}

// Assigned in a lambda: the CFG does not say when the lambda runs.
float inLambda(at::Tensor x) {
  auto toHost = [&] { x = x.cpu(); };
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'cpu' copies the tensor to the host
  toHost();
  return x.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'item' copies a tensor element
}

// --- Pairs and tuples.
std::pair<at::Tensor, at::Tensor> hostPair(int64_t n) {
  auto x = at::randn({n});
  auto y = at::zeros({n});
  return std::make_pair(x, y);
}

std::pair<at::Tensor, at::Tensor> halfOnHost(const at::Tensor &t) {
  return {t * 2, at::zeros({3})};
}

std::pair<at::Tensor, at::Tensor> declaredOnly(int64_t n);

void keep(std::tuple<at::Tensor &, at::Tensor &> refs);

float tiedHost(int64_t n) {
  at::Tensor a, b;
  std::tie(a, b) = hostPair(n);
  return a.sum().item<float>() + b.sum().item<float>(); // no diagnostic
}

float boundHost(int64_t n) {
  auto [p, q] = hostPair(n);
  return p.sum().item<float>() * q.sum().item<float>(); // no diagnostic
}

float tiedHalf(const at::Tensor &t) {
  at::Tensor a, b;
  std::tie(a, b) = halfOnHost(t);
  float host = b.sum().item<float>(); // no diagnostic
  return host + a.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'item' copies a tensor element
}

// A function whose body is not in the translation unit: anything.
float tiedUnknown(int64_t n) {
  at::Tensor a, b;
  std::tie(a, b) = declaredOnly(n);
  return a.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'item' copies a tensor element
}

// A tie passed on lets its callee write the variables: not followed.
float tiePassedOn(int64_t n) {
  at::Tensor a = at::zeros({n}), b = at::zeros({n});
  keep(std::tie(a, b));
  return a.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'item' copies a tensor element
}

// A structured binding written afterwards: not followed.
float boundThenWritten(const at::Tensor &t, int64_t n) {
  auto [p, q] = hostPair(n);
  p = t;
  return p.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'item' copies a tensor element
}

// --- Vectors filled in the function.
float pushedHost(int64_t n) {
  std::vector<at::Tensor> parts;
  parts.reserve(4);
  for (int64_t i = 0; i < 4; ++i)
    parts.push_back(at::randn({n}).pow(i));
  return at::cat(parts, 0).sum().item<float>(); // no diagnostic
}

float pushedMixed(const at::Tensor &t, int64_t n) {
  std::vector<at::Tensor> parts;
  parts.push_back(at::zeros({n}));
  parts.push_back(t);
  return at::cat(parts, 0).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'item' copies a tensor element
}

void fillIn(std::vector<at::Tensor> &parts);

// Handed out by non-const reference: anything may be in it.
float handedOut(int64_t n) {
  std::vector<at::Tensor> parts;
  parts.push_back(at::zeros({n}));
  fillIn(parts);
  return at::cat(parts, 0).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'item' copies a tensor element
}

// An element replaced through operator[]: not followed.
float elementReplaced(const at::Tensor &t, int64_t n) {
  std::vector<at::Tensor> parts;
  parts.push_back(at::zeros({n}));
  parts[0] = t;
  return at::cat(parts, 0).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'item' copies a tensor element
}

// --- What a function of the translation unit returns.
static at::Tensor features(const at::Tensor &x) {
  std::vector<at::Tensor> columns;
  for (int64_t i = 1; i <= 3; ++i)
    columns.push_back(x.pow(i));
  return at::cat(columns, 1);
}

at::Tensor onDevice(const at::Tensor &x);

float hostFeatures(int64_t n) {
  auto x = at::randn({n, 1});
  return features(x).sum().item<float>(); // no diagnostic
}

float deviceFeatures(int64_t n) {
  auto x = at::randn({n, 1});
  return onDevice(x).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'item' copies a tensor element
}
