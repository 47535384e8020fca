// Stand-in for the CUDA header texture_fetch_functions.h, which CUDA 13
// removed and clang 19's __clang_cuda_runtime_wrapper.h still includes when
// it parses a CUDA source (clang 22 no longer does). Empty on purpose: the
// tests do not fetch from textures.
