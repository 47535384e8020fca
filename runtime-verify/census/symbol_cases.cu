// See symbol_cases.h.
#include "symbol_cases.h"

#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

namespace {

__device__ char censusSymbol[1 << 20];

cudaStream_t currentStream() { return c10::cuda::getCurrentCUDAStream().stream(); }

} // namespace

std::vector<SourceCase> symbolCases(void *pageable, void *pinned) {
  return {
      {"cudaMemcpyFromSymbolAsync", "1 MiB __device__ array into pageable memory, current stream",
       [pageable] {
         cudaMemcpyFromSymbolAsync(pageable, censusSymbol, 1 << 20, 0, cudaMemcpyDeviceToHost,
                                   currentStream());
       }},
      {"cudaMemcpyFromSymbolAsync", "1 MiB __device__ array into pinned memory, current stream",
       [pinned] {
         cudaMemcpyFromSymbolAsync(pinned, censusSymbol, 1 << 20, 0, cudaMemcpyDeviceToHost, currentStream());
       }},
  };
}
