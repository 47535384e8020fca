// A stand-in sample for the comparison's own test (not a program that runs).
#include <ATen/core/Tensor.h>

double helper(const at::Tensor &t) {
  return t.item<double>(); // line 5: a sync, flagged by torch-sync-item
}

double caller(const at::Tensor &t) {
  return helper(t); // line 9: flagged by torch-sync-transitive; on the stack of line 5's sync
}

double unflagged(const at::Tensor &t) {
  return t.data_ptr<float>() ? 1.0 : 0.0; // line 13: "observed" below, not flagged: a false negative
}

at::Tensor twin(const at::Tensor &t) {
  return t.cpu(); // line 17: flagged by torch-sync-device-to-host, no sync observed: a false positive
}
