// Stand-ins for LibTorch's libraries in capture_checks_test: a library whose TORCH_CHECKs fail (as
// libtorch_cuda's copy_ does inside a capture), calling libc10's torchCheckFail through the dynamic linker.
#include "torch_check_fail.h"

#include <string>

// A failed TORCH_CHECK whose message is built (the std::string overload).
void failCheckWithBuiltMessage(const std::string &message) {
  c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, message);
}

// A failed TORCH_CHECK whose message is one literal (the const char * overload).
void failCheckWithLiteral() {
  c10::detail::torchCheckFail(
      __func__, __FILE__, __LINE__,
      "Cannot copy between CPU and CUDA tensors during CUDA graph capture unless the CPU "
      "tensor is pinned");
}
