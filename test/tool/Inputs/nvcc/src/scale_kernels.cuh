// Kernels and their launcher, in a header that the extension's .cu sources include.
#pragma once
#include <cuda_runtime.h>

__global__ void scale_kernel(float* x, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < min(n, 1 << 30)) x[i] *= f;  // the device min: clang's own
}

inline void launch_scale(float* x, int n, float f, cudaStream_t stream) {
  // Spaced chevrons, as an old formatter wrote them; nvcc takes them.
  scale_kernel<< <max((n + 255) >> 8, 1), 256, 0, stream >> >(x, n, f);
}
