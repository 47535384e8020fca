// torch-sync's CUDA host prelude: the host functions that nvcc's headers
// declare and clang's CUDA headers do not, so that the host side of a .cu
// source parses under clang as it does under nvcc. Force-included (-include)
// into CUDA translation units by scan-project.sh, sarif.sh and the pre-commit
// hook; add it to your own compile flags for clangd or clang-tidy
// (docs/editors.md). Outside clang's CUDA mode it is empty.
//
// Source of the declarations: CUDA's crt/math_functions.h and
// crt/math_functions.hpp, where nvcc makes min and max of every integer and
// floating-point pair __host__ __device__; clang declares them __device__ only
// (__clang_cuda_math.h), so a host call such as `min(n, 65535)` in a launch
// configuration is "no matching function for call to 'min'". The overloads
// below are nvcc's set, host-only: clang allows a __host__ and a __device__
// function of one signature side by side.
#ifndef TORCH_SYNC_CUDA_HOST_H
#define TORCH_SYNC_CUDA_HOST_H
#if defined(__clang__) && defined(__CUDA__)

#define TORCH_SYNC_HOST_MIN_MAX(R, A, B)                                       \
  static inline __host__ R min(const A a, const B b) {                         \
    return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(a)           \
                                                 : static_cast<R>(b);          \
  }                                                                            \
  static inline __host__ R max(const A a, const B b) {                         \
    return static_cast<R>(a) > static_cast<R>(b) ? static_cast<R>(a)           \
                                                 : static_cast<R>(b);          \
  }

TORCH_SYNC_HOST_MIN_MAX(int, int, int)
TORCH_SYNC_HOST_MIN_MAX(unsigned int, unsigned int, unsigned int)
TORCH_SYNC_HOST_MIN_MAX(unsigned int, int, unsigned int)
TORCH_SYNC_HOST_MIN_MAX(unsigned int, unsigned int, int)
TORCH_SYNC_HOST_MIN_MAX(long int, long int, long int)
TORCH_SYNC_HOST_MIN_MAX(unsigned long int, unsigned long int, unsigned long int)
TORCH_SYNC_HOST_MIN_MAX(unsigned long int, long int, unsigned long int)
TORCH_SYNC_HOST_MIN_MAX(unsigned long int, unsigned long int, long int)
TORCH_SYNC_HOST_MIN_MAX(long long int, long long int, long long int)
TORCH_SYNC_HOST_MIN_MAX(unsigned long long int, unsigned long long int,
                        unsigned long long int)
TORCH_SYNC_HOST_MIN_MAX(unsigned long long int, long long int,
                        unsigned long long int)
TORCH_SYNC_HOST_MIN_MAX(unsigned long long int, unsigned long long int,
                        long long int)
TORCH_SYNC_HOST_MIN_MAX(float, float, float)
TORCH_SYNC_HOST_MIN_MAX(double, double, double)
TORCH_SYNC_HOST_MIN_MAX(double, float, double)
TORCH_SYNC_HOST_MIN_MAX(double, double, float)

#undef TORCH_SYNC_HOST_MIN_MAX

#endif // __clang__ && __CUDA__
#endif // TORCH_SYNC_CUDA_HOST_H
