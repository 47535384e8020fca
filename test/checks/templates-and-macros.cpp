// SMOKE: template instantiations, dependent calls, generic lambdas and macro expansion locations in this release's AST
// RUN: %check_torch_sync --checks=-*,torch-sync-item --temp %t %s -- %mock_libtorch_flags

#include <ATen/core/Tensor.h>
#include <ATen/ops/zeros.h>

// A dependent call is resolved in each instantiation and reported once.
template <typename T> float readDependent(const T &t) {
  return t.template item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'item' copies a tensor element to the host
}

// A non-dependent call inside a template, instantiated twice, is reported once.
template <typename Scale> float readScaled(const at::Tensor &t, Scale scale) {
  return t.item<float>() * scale;
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'item' copies a tensor element to the host
}

// Never instantiated: nothing to resolve, nothing reported, no crash.
template <typename T> float neverInstantiated(const T &t) {
  return t.template item<float>() + t.cpu().sum().template item<float>();
}

// A look-alike type with a member template 'item'.
struct FakeTensor {
  template <typename U> U item() const { return U(); }
};

float useTemplates(const at::Tensor &t, const at::Tensor &u) {
  return readDependent(t) + readDependent(u) + readDependent(FakeTensor{}) +
         readScaled(t, 1.0f) + readScaled(u, 2.0);
}

// Macros: a call written in the user's macro is reported where the macro is
// used, with a note at the macro's definition.
#define READ_VALUE(tensor) (tensor).item<float>()
float useMacro(const at::Tensor &t) {
  return READ_VALUE(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES: :[[@LINE-4]]:37: note: expanded from macro 'READ_VALUE'
}

// A macro that expands to nothing leaves nothing to report.
#define DEBUG_PRINT(tensor)
void useEmptyMacro(const at::Tensor &t) { DEBUG_PRINT(t.item<float>()); }

// Generic lambdas are templates too.
float useGenericLambda(const at::Tensor &t) {
  auto read = [](const auto &x) { return x.template item<float>(); };
  // CHECK-MESSAGES: :[[@LINE-1]]:53: warning: 'item' copies a tensor element to the host
  return read(t);
}
