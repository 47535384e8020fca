// Mock of c10/core/DeviceType.h (torch/headeronly/core/DeviceType.h in 2.11).
#pragma once
#include <cstdint>

namespace c10 {
enum class DeviceType : int8_t {
  CPU = 0,
  CUDA = 1,
  HIP = 6,
  XLA = 9,
  Meta = 16,
  MPS = 13,
  XPU = 12,
  PrivateUse1 = 20,
};
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kHIP = DeviceType::HIP;
constexpr DeviceType kMPS = DeviceType::MPS;
constexpr DeviceType kMeta = DeviceType::Meta;
constexpr DeviceType kXPU = DeviceType::XPU;
} // namespace c10

namespace torch::headeronly {
using c10::DeviceType;
using c10::kCPU;
using c10::kCUDA;
} // namespace torch::headeronly
