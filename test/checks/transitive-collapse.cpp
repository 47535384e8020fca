// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t %s -- %libtorch_flags
// OLDER-LIBTORCH: AT_DISPATCH_FLOATING_TYPES's lambda copies as each release's macro makes them
// One warning per call site: a call seen in several template instantiations,
// or in the copies of a lambda that AT_DISPATCH_* makes (one per scalar type),
// is reported once, and the note names the instantiation analysed. A lambda
// is named by the function it is defined in.
#include <ATen/Dispatch.h>
#include <ATen/core/Tensor.h>

float readLoss(const at::Tensor &t) { return t.item<float>(); }

template <typename T> T readAs(const at::Tensor &t) { return T(t.item<float>()); }
template <typename T> T logAs(const at::Tensor &t) {
  return readAs<T>(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'readAs' calls 'item' in its body, which blocks the host
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: in the instantiation 'logAs<float>' (reported once for all instantiations)
  // CHECK-MESSAGES: :12:66: note: 'item' synchronizes here
}
template float logAs<float>(const at::Tensor &);
template double logAs<double>(const at::Tensor &);

template <typename T> struct Meter {
  float read(const at::Tensor &t) { return t.item<float>(); }
  float log(const at::Tensor &t) { return this->read(t); }
  // CHECK-MESSAGES: :[[@LINE-1]]:49: warning: 'Meter<float>::read' calls 'item' in its body
  // CHECK-MESSAGES: :[[@LINE-2]]:49: note: in the instantiation 'Meter<float>::log' (reported once for all instantiations)
};
template struct Meter<float>;
template struct Meter<double>;

// AT_DISPATCH_FLOATING_TYPES calls the lambda once per type, where it is
// written: the lambda's call is not reported, the call inside it once.
void positiveDispatch(const at::Tensor &t) {
  AT_DISPATCH_FLOATING_TYPES(t.scalar_type(), "positiveDispatch", [&] { readLoss(t); });
  // CHECK-MESSAGES: :[[@LINE-1]]:73: warning: 'readLoss' calls 'item' in its body
  // CHECK-MESSAGES: :10:48: note: 'item' synchronizes here
}

// A lambda called where it is defined: its body is reported where it is.
float positiveImmediateLambda(const at::Tensor &t) {
  return [&] { return readLoss(t); }();
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'readLoss' calls 'item' in its body
}

// A lambda called by name, and one defined outside any function.
float positiveNamedLambda(const at::Tensor &t) {
  auto read = [&] { return t.item<float>(); };
  return read();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'lambda in positiveNamedLambda' calls 'item' in its body
  // CHECK-MESSAGES: :[[@LINE-3]]:30: note: 'item' synchronizes here
}
auto globalRead = [](const at::Tensor &t) { return t.item<float>(); };
float positiveGlobalLambda(const at::Tensor &t) {
  return globalRead(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'lambda at {{.*}}:52' calls 'item' in its body
}

// Sync-free twins.
template <typename T> T sizeAs(const at::Tensor &t) { return T(t.dim()); }
template <typename T> T logSize(const at::Tensor &t) { return sizeAs<T>(t); }
template float logSize<float>(const at::Tensor &);
template double logSize<double>(const at::Tensor &);
void negativeDispatch(const at::Tensor &t) {
  AT_DISPATCH_FLOATING_TYPES(t.scalar_type(), "negativeDispatch", [&] { sizeAs<float>(t); });
}
