// Mock of torch/csrc/api/include/torch/cuda.h.
#pragma once
#include <c10/core/Device.h>
#include <cstdint>

namespace torch::cuda {
c10::DeviceIndex device_count();
bool is_available();
bool cudnn_is_available();
void manual_seed(uint64_t seed);
void manual_seed_all(uint64_t seed);
void synchronize(int64_t device_index = -1);
} // namespace torch::cuda
