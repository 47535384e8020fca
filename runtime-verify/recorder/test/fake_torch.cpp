// Stand-ins for LibTorch's libraries in capture_checks_test: a library whose TORCH_CHECKs fail (as
// libtorch_cuda's copy_ does inside a capture), calling libc10's torchCheckFail through the dynamic linker.
#include <cstdint>
#include <string>

namespace c10::detail {
[[noreturn]] void torchCheckFail(const char *func, const char *file, uint32_t line, const std::string &msg);
[[noreturn]] void torchCheckFail(const char *func, const char *file, uint32_t line, const char *msg);
} // namespace c10::detail

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
