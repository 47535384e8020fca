// A stand-in sample for the capture comparison's own test (not a program that runs).
#include <ATen/core/Tensor.h>
void endCapture();
double helper(const at::Tensor &t) {
  return t.item<double>(); // line 5: fails capture (observed); torch-sync-item, no sync observed: unverified
}

void rule_helper(const at::Tensor &t) {
  helper(t); // line 9: graph-capture (true positive) and transitive (unverified) findings
  endCapture(); // line 10: cudaStreamEndCapture reports the invalidated capture: a consequence, not compared
}

void rule_missed(const at::Tensor &t) {
  t.cpu(); // line 14: fails capture after its sync (observed); no graph-capture finding: a false negative
}

void exempt_flagged(const at::Tensor &t) {
  t.sum(); // line 18: a graph-capture finding, no failure observed: a false positive
}

void rule_refused(const at::Tensor &t) {
  t.cpu(); // line 22: LibTorch's check refuses it in a capture, a c10::Error before any CUDA call (observed)
}
