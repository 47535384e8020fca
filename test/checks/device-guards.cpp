// OLDER-LIBTORCH: the guards are TORCH_CHECK, AT_ASSERTM and TORCH_LIBRARY_IMPL as each release's macros expand them
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-device-to-host --temp %t %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-device-to-host --temp %t-known \
// RUN:   --check-suffix=KNOWN --config="{CheckOptions: {ReportUnknownDevice: false}}" %s -- %libtorch_flags
//
// Guards and branches on a tensor's device, and kernels registered for the
// CPU dispatch key: a tensor whose device is tested is known to be there for
// the rest of the block (a guard that throws or returns otherwise) or inside
// the branch. A tensor that is not on CUDA counts as on the CPU.

#include <ATen/core/Tensor.h>
#include <ATen/ops/sum.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#define CHECK_CPU(x) AT_ASSERTM(x.device().is_cpu(), #x " must be CPU tensor")
#define CHECK_CUDA(x) AT_ASSERTM(x.device().is_cuda(), #x " must be CUDA tensor")

double negativeGuards(const at::Tensor &a, const at::Tensor &b,
                      const at::Tensor &c, at::Tensor d, const at::Tensor &e) {
  TORCH_CHECK(!a.is_cuda(), "a must not be on CUDA");
  TORCH_CHECK(b.device().is_cpu());
  AT_ASSERTM(c.device().is_cpu(), "c must be a CPU tensor");
  CHECK_CPU(d);
  TORCH_CHECK(e.device().type() == c10::DeviceType::CPU && e.dim() > 0);
  return a.item<double>() + b.item<double>() + c.item<double>() +
         d.sum().item<double>() + e.sum().item<double>();
}

double negativeEarlyExits(const at::Tensor &a, const at::Tensor &b) {
  if (!a.is_cpu())
    return 0;
  if (b.is_cuda()) {
    throw std::runtime_error("b must be on the CPU");
  }
  return a.item<double>() + b.item<double>();
}

// A guard before a label still holds after it when every path to the use
// passes the guard (clang's CFG: the guard's passing edge dominates the use);
// a goto from before the guard skips it.
double guardBeforeLabel(const at::Tensor &t, int n) {
  TORCH_CHECK(t.is_cpu());
  double s = 0;
again:
  s += t.sum().item<double>(); // on the CPU
  if (--n > 0)
    goto again;
  return s;
}

double gotoPastGuard(const at::Tensor &t, bool skip) {
  if (skip)
    goto use;
  TORCH_CHECK(t.is_cpu());
use:
  return t.sum().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'item' copies a tensor element
}

double branches(const at::Tensor &src) {
  if (src.device().is_cuda()) {
    return src.sum().item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'item' copies a tensor element
    // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:22: warning: 'item' copies a tensor element
  } else {
    return src.sum().item<double>(); // not on CUDA
  }
}

int64_t cudaLauncher(const at::Tensor &index, const at::Tensor &count) {
  CHECK_CUDA(index);
  TORCH_CHECK(count.is_cuda(), "count must be on CUDA");
  auto total = count.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:22: warning: 'cpu' copies the tensor to the host
  return index.max().item<int64_t>() + total.item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'item' copies a tensor element
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:22: warning: 'item' copies a tensor element
}

double positiveGuards(at::Tensor a, const at::Tensor &b, const at::Tensor &c,
                      int kind) {
  double before = a.item<double>(); // before the guard
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'item' copies a tensor element
  TORCH_CHECK(a.is_cpu());
  a = a.cuda(); // reassigned after the guard
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'cuda' copies a host tensor to the device
  {
    TORCH_CHECK(b.is_cpu()); // holds inside this block only
  }
  // A test that does not stop the function says nothing.
  if (!c.is_cpu())
    before += 1;
  switch (kind) {
  case 0:
    TORCH_CHECK(c.is_cpu());
    [[fallthrough]];
  case 1: // entered past the guard
    before += c.item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'item' copies a tensor element
    break;
  }
  return before + a.item<double>() + b.item<double>() + c.item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'item' copies a tensor element
  // CHECK-MESSAGES: :[[@LINE-2]]:40: warning: 'item' copies a tensor element
  // CHECK-MESSAGES: :[[@LINE-3]]:59: warning: 'item' copies a tensor element
  // The value that reaches 'a' here is the device copy: known to be on CUDA.
  // CHECK-MESSAGES-KNOWN: :[[@LINE-5]]:21: warning: 'item' copies a tensor element
}

// Kernels registered for the CPU dispatch key, and the helpers only they call.
namespace {
double cpuHelper(const at::Tensor &t) { return t.sum().item<double>(); }

double sharedHelper(const at::Tensor &t) { return t.sum().item<double>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:59: warning: 'item' copies a tensor element
} // namespace

at::Tensor cpuKernel(const at::Tensor &x, const at::Tensor &y) {
  double s = x.sum().item<double>() + cpuHelper(y) + sharedHelper(y);
  return s > 0 ? x : y;
}

at::Tensor cpuKernelByFn(const at::Tensor &x) {
  return x.sum().item<double>() > 0 ? x : -x;
}

at::Tensor cudaKernel(const at::Tensor &x) {
  return x.sum().item<double>() > 0 ? x : -x;
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'item' copies a tensor element
}

double notAKernel(const at::Tensor &x) { return sharedHelper(x); }

TORCH_LIBRARY_IMPL(guards_test, CPU, m) {
  m.impl("kernel", &cpuKernel);
  m.impl("kernel_by_fn", TORCH_FN(cpuKernelByFn));
  m.impl("lambda", [](const at::Tensor &x) {
    return x.sum().item<double>() > 0 ? x : -x;
  });
}

TORCH_LIBRARY_IMPL(guards_test, CUDA, m) { m.impl("kernel", &cudaKernel); }
