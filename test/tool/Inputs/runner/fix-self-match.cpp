// The fix-it drops '.cpu()'; this CHECK-FIXES line still contains it, unanchored.
// Before the runner stripped CHECK lines, the line below matched its own copy
// in the fixed file, and the wrong expectation passed.
#include <ATen/core/Tensor.h>

float readOne(const at::Tensor &loss) {
  return loss.cpu().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'cpu' copies the tensor to the host
  // CHECK-FIXES: return loss.cpu().item<float>();
}
