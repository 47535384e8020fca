#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
#include <ostream>
#include <vector>
#include "scale_kernels.cuh"

template <typename T> struct Box;
template <typename T> std::ostream& operator<<(std::ostream& os, const Box<T>& b);
template <typename T> struct Box {
  T value;
  // Not a launch: explicit template arguments of operator<<.
  friend std::ostream& operator<< <>(std::ostream& os, const Box<T>& b);
};

// Not a launch either: a template's closing chevrons before a call.
std::vector<std::vector<int>> nested(const std::vector<std::vector<int> >& v) {
  return static_cast<std::vector<std::vector<int> > >(v);
}

// Host calls of the min and max that nvcc's headers declare for the host.
int blocks_for(int64_t n, int threads) {
  return min(max(static_cast<int>((n + threads - 1) / threads), 1), 65535);
}
unsigned clamp_count(unsigned count, int limit) { return min(count, limit); }
double clamp_scale(float scale) { return max(scale, 0.5); }

torch::Tensor scale(torch::Tensor x, float f) {
  auto stream = c10::cuda::getCurrentCUDAStream();
  launch_scale(x.data_ptr<float>(), x.numel(), f, stream);
  scale_kernel<< <blocks_for(x.numel(), 256), 256, 0, stream >> >(x.data_ptr<float>(), x.numel(), f);
  scale_kernel<<<blocks_for(x.numel(), 256), 256, 0, stream >> >(x.data_ptr<float>(), x.numel(), f);
  float peak = x.max().item<float>();
  return x / peak;
}
