// The Thrust algorithms that frontend_census measures (thrust_cases.cu, compiled by nvcc): each one called
// with a device execution policy or device iterators on 1 Mi ints, on the current stream, and a host-policy
// twin.
#pragma once

#include <functional>
#include <string>
#include <vector>

struct ThrustCase {
  std::string function;  // "thrust::reduce"
  std::string arguments; // "thrust::device, device_ptr<int> range of 1 Mi"
  std::function<void()> call;
};

// The cases, with their buffers allocated (on the current CUDA device) for the life of the program.
std::vector<ThrustCase> thrustCases();
