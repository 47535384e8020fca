// Stand-in for the c10/cuda/impl/cuda_cmake_macros.h that a CUDA build of
// LibTorch generates (from c10/cuda/impl/cuda_cmake_macros.h.in) and that
// Debian's CPU-only libtorch-dev lacks; every c10/cuda header includes it
// through c10/cuda/CUDAMacros.h. For LibTorch 1.13 it only defines a build
// macro, whether libc10_cuda is a shared library (newer releases add the
// TORCH_CUDA_VERSION_* macros).
#pragma once

#define C10_CUDA_BUILD_SHARED_LIBS
