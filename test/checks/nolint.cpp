// SMOKE: this release's clang-tidy suppression comments (on the line, on the next line, over a range)
// RUN: %check_torch_sync --temp %t %s -- %mock_libtorch_flags

#include <ATen/core/Formatting.h>
#include <ATen/core/Tensor.h>
#include <iostream>

float suppressed(const at::Tensor &t) {
  float a = t.item<float>(); // NOLINT(torch-sync-item)
  float b = t.item<float>(); // NOLINT
  // NOLINTNEXTLINE(torch-sync-item)
  float c = t.item<float>();
  // NOLINTBEGIN(torch-sync-*)
  std::cout << t;
  auto host = t.cpu();
  // NOLINTEND(torch-sync-*)
  return a + b + c + host.numel();
}

float notSuppressed(const at::Tensor &t) {
  // A NOLINT for another check does not hide this one.
  float a = t.item<float>(); // NOLINT(torch-sync-print)
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'item' copies a tensor element to the host
  // NOLINTNEXTLINE(torch-sync-item)

  float b = t.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'item' copies a tensor element to the host
  return a + b;
}
