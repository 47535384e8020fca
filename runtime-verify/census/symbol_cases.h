// The copies from a __device__ symbol that frontend_census measures (symbol_cases.cu, compiled by nvcc: a
// symbol is declared in a CUDA source): 1 MiB into pageable and into pinned host memory, on the current
// stream.
#pragma once

#include <functional>
#include <string>
#include <vector>

struct SourceCase {
  std::string function;  // "cudaMemcpyFromSymbolAsync"
  std::string arguments; // "1 MiB __device__ array into pageable memory, current stream"
  std::function<void()> call;
};

// The cases, copying into the 1 MiB buffers \p pageable and \p pinned, which outlive them.
std::vector<SourceCase> symbolCases(void *pageable, void *pinned);
