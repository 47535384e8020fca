// torch-sync-print, rule by rule: tensors formatted as text.
//
// One rule_* function per call the check reports (operator<< into a
// std::ostream, at::print, c10::str, the TORCH_WARN macros built on it) and
// one exempt_* function per sync-free twin it must stay silent on (metadata,
// TensorBase::print(), a message formatted only on failure, a host tensor).
//
// Every call that may synchronize is on a line of its own. The text goes to
// string streams, not to the terminal; the warnings go to stderr. Tensors stay
// on the device; nothing else reads them.
#include <torch/torch.h>

#include <cstddef>
#include <sstream>
#include <string>

namespace {

// Lengths of the formatted text, kept so that no formatting is optimized
// away.
volatile std::size_t textSink = 0;

// Streaming a device tensor into a std::ostream copies it to the host.
void rule_stream_tensor(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  std::ostringstream text;
  text << values;
  textSink = text.str().size();
}

// Twin of rule_stream_tensor: sizes, dtype, device and toString().
void exempt_stream_metadata(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  std::ostringstream text;
  text << values.sizes() << " " << values.dtype() << " " << values.device();
  text << " " << values.toString();
  textSink = text.str().size();
}

// Twin of rule_stream_tensor, rule_at_print, rule_c10_str: a host tensor.
void exempt_format_cpu_tensor() {
  auto values = torch::arange(4);
  std::ostringstream text;
  text << values;
  at::print(text, values, 80);
  std::string message = c10::str("values ", values);
  textSink = text.str().size() + message.size();
}

// at::print formats the values, copying them to the host.
void rule_at_print(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  std::ostringstream text;
  at::print(text, values, 80);
  textSink = text.str().size();
}

// Twin of rule_at_print: TensorBase::print() prints type and sizes only.
void exempt_tensor_print_method(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  values.print();
}

// c10::str formats a tensor through operator<<.
void rule_c10_str(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  std::string message = c10::str("values ", values);
  textSink = message.size();
}

// Twin of rule_c10_str: formatting metadata.
void exempt_c10_str_metadata(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  std::string message =
      c10::str("shape ", values.sizes(), " on ", values.device());
  textSink = message.size();
}

// TORCH_WARN and TORCH_WARN_ONCE format their arguments with c10::str.
void rule_torch_warn(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  TORCH_WARN("values ", values);
  TORCH_WARN_ONCE("values, once ", values);
}

// Twin of rule_torch_warn: a warning with metadata only.
void exempt_torch_warn_metadata(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  TORCH_WARN("shape ", values.sizes());
}

// Twin of rule_torch_warn: TORCH_CHECK formats its message only on failure.
void exempt_torch_check_message(torch::Device device) {
  auto values = torch::arange(4, torch::TensorOptions().device(device));
  TORCH_CHECK(values.dim() == 1, "expected a vector, got ", values);
}

} // namespace

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  rule_stream_tensor(device);
  exempt_stream_metadata(device);
  exempt_format_cpu_tensor();
  rule_at_print(device);
  exempt_tensor_print_method(device);
  rule_c10_str(device);
  exempt_c10_str_metadata(device);
  rule_torch_warn(device);
  exempt_torch_warn_metadata(device);
  exempt_torch_check_message(device);
  return 0;
}
