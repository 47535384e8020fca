// SMOKE: torch-sync-print's matchers on this release's AST (operator<< chains, LibTorch's logging macros)
// OLDER-LIBTORCH: torch-sync-print's facts resolved on each release's declarations (operator<<, at::print, c10::str, the logging macros)
// RUN: %check_torch_sync --checks=-*,torch-sync-print --temp %t %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-print --temp %t-known --check-suffix=KNOWN \
// RUN:   --config="{CheckOptions: {ReportUnknownDevice: false}}" %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-print --temp %t-intended --check-suffix=INTENDED \
// RUN:   --config="{CheckOptions: {IntendedSyncFunctions: 'log_tensor;^Trainer::report$'}}" %s -- %libtorch_flags

#include <ATen/core/Formatting.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>
#include <c10/util/Logging.h>
#include <iostream>
#include <sstream>
#include <string>

// Positive cases.

void positiveStreams(const at::Tensor &t, std::ostream &os) {
  std::cout << "loss " << t << "\n";
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'operator<<' streams a tensor, which copies its values to the host and waits for the current stream [torch-sync-print]
  // CHECK-MESSAGES: :[[@LINE-2]]:24: note: consider printing metadata ('sizes()', 'toString()', 'print()') or printing outside the hot path
  // CHECK-MESSAGES-INTENDED: :[[@LINE-3]]:24: warning: 'operator<<' streams a tensor
  std::cerr << t;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  // CHECK-MESSAGES-INTENDED: :[[@LINE-2]]:13: warning: 'operator<<' streams a tensor
  std::ostringstream ss;
  ss << t.abs();
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'operator<<' streams a tensor
  // CHECK-MESSAGES-INTENDED: :[[@LINE-2]]:6: warning: 'operator<<' streams a tensor
  os << t << t;
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'operator<<' streams a tensor
  // CHECK-MESSAGES: :[[@LINE-2]]:11: warning: 'operator<<' streams a tensor
  // CHECK-MESSAGES-INTENDED: :[[@LINE-3]]:6: warning: 'operator<<' streams a tensor
  // CHECK-MESSAGES-INTENDED: :[[@LINE-4]]:11: warning: 'operator<<' streams a tensor
}

void positiveLoggingMacro(const at::Tensor &t) {
  LOG(INFO) << "weights: " << t;
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'operator<<' streams a tensor
  // CHECK-MESSAGES-INTENDED: :[[@LINE-2]]:28: warning: 'operator<<' streams a tensor
}

void positivePrintAndStr(const at::Tensor &t) {
  at::print(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'at::print' prints a tensor, which copies its values to the host and waits for the current stream [torch-sync-print]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider printing metadata ('sizes()', 'toString()', 'print()') or printing outside the hot path
  // CHECK-MESSAGES-INTENDED: :[[@LINE-3]]:3: warning: 'at::print'
  at::print(std::cout, t, 120);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'at::print' prints a tensor
  // CHECK-MESSAGES-INTENDED: :[[@LINE-2]]:3: warning: 'at::print'
  std::string s = c10::str("t = ", t);
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'c10::str' formats a tensor into a string, which copies its values to the host and waits for the current stream [torch-sync-print]
  // CHECK-MESSAGES: :[[@LINE-2]]:19: note: consider formatting metadata ('sizes()', 'toString()') or formatting outside the hot path
  // CHECK-MESSAGES-INTENDED: :[[@LINE-3]]:19: warning: 'c10::str'
  TORCH_WARN("unexpected value ", t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'TORCH_WARN' formats a tensor into a string, which copies its values to the host
  // CHECK-MESSAGES-INTENDED: :[[@LINE-2]]:3: warning: 'TORCH_WARN'
}

void positiveInLoop(const at::Tensor &t) {
  for (int step = 0; step < 10; ++step)
    std::cout << t << "\n";
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'operator<<' streams a tensor, which copies its values to the host and waits for the current stream
  // CHECK-MESSAGES: :[[@LINE-2]]:15: note: consider
  // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
  // CHECK-MESSAGES-INTENDED: :[[@LINE-4]]:15: warning: 'operator<<'
}

// Negative cases.

// Metadata only: sizes, dtype, device, toString() and TensorBase::print().
void negativeMetadata(const at::Tensor &t) {
  std::cout << t.sizes() << t.dtype() << t.device() << t.toString() << "\n";
  t.print();
  std::string s = c10::str("shape ", t.sizes(), " on ", t.device());
  TORCH_WARN("shape ", t.sizes());
}

// The message of TORCH_CHECK is formatted only when the check fails, and
// so is a message passed to a function that does not return or thrown.
void negativeFailureMessages(const at::Tensor &t) {
  TORCH_CHECK(t.dim() == 2, "expected a matrix, got ", t);
  TORCH_INTERNAL_ASSERT(t.defined(), "undefined tensor ", t);
  if (t.dim() > 4)
    throw std::runtime_error(c10::str("too many dims: ", t));
}

// A tensor known to be on CUDA is reported with ReportUnknownDevice off; an
// undefined tensor is not.
void positiveKnownCuda() {
  auto cuda = at::ones({2}, at::kCUDA);
  std::cout << cuda;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:13: warning: 'operator<<' streams a tensor
  // CHECK-MESSAGES-INTENDED: :[[@LINE-3]]:13: warning: 'operator<<' streams a tensor
  at::Tensor undefined;
  std::cout << undefined;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
  // CHECK-MESSAGES-INTENDED: :[[@LINE-2]]:13: warning: 'operator<<' streams a tensor
}

// Tensors provably on the CPU.
void negativeCpuTensors() {
  auto host = at::zeros({2, 2});
  std::cout << host << "\n";
  at::print(at::ones({3}));
  TORCH_WARN("host tensor ", host);
}

// Printing in a logging helper is intended (option IntendedSyncFunctions).
void log_tensor(const at::Tensor &t) {
  std::cout << t;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'operator<<' streams a tensor
}

struct Trainer {
  void report(const at::Tensor &loss) {
    auto show = [&] { std::cout << loss; };
    // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'operator<<' streams a tensor
    show();
  }
};

// Look-alike: a user type with its own operator<<.
struct Summary {
  int steps;
};
std::ostream &operator<<(std::ostream &os, const Summary &s) { return os << s.steps; }
void negativeLookAlike(const Summary &s) { std::cout << s; }

// Inactive preprocessor branches and comments are not code.
void negativeInactive(const at::Tensor &t) {
#if 0
  std::cout << t;
#endif
  // std::cout << t;
  /* at::print(t); */
}
