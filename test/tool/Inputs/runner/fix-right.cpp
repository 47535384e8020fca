// The same source with the expectation that the fix really meets.
#include <ATen/core/Tensor.h>

float readOne(const at::Tensor &loss) {
  return loss.cpu().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'cpu' copies the tensor to the host
  // CHECK-FIXES: return loss.item<float>();
}
