// LibTorch's headers reach the checks through a precompiled header
// (-include-pch, as CMake's target_precompile_headers builds use) or a prefix
// header (-include): the findings are those of a plain #include, the sync-free
// twins stay quiet, and the LibTorch release is still read from the version
// macros that the precompiled header holds (the 1.x-only read of
// repeat_interleave(int64_t) is reported on the 1.13 headers alone). Macros read
// from a precompiled header have no source text in memory; reading them once
// crashed the checks.
//
// SMOKE: the checks on an AST and macros read from this clang's precompiled header (-include-pch, -include)
// OLDER-LIBTORCH: the LIBTORCH1 line: the version is read from the macros that the precompiled header holds
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clangxx -x c++-header %libtorch_flags %S/Inputs/precompiled/torch-prefix.h -o %t/torch-prefix.pch
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-dynamic-shape --temp %t/pch \
// RUN:   %if libtorch-1.x %{--check-suffix=,LIBTORCH1%} %s -- %libtorch_flags -include-pch %t/torch-prefix.pch
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-dynamic-shape --temp %t/prefix \
// RUN:   %if libtorch-1.x %{--check-suffix=,LIBTORCH1%} %s -- %libtorch_flags -include %S/Inputs/precompiled/tensor-prefix.h
//
// A precompiled header built with LibTorch's folders given with -I (user
// headers, as torch.utils.cpp_extension names them): nothing is reported inside
// LibTorch's inline code, also with --header-filter=.* (Tensor::operator[]
// (Tensor) calls item()).
// RUN: mkdir -p %t/include && ln -s %libtorch_include/ATen %libtorch_include/c10 %libtorch_include/caffe2 %t/include/
// RUN: %clangxx -x c++-header -std=c++17 -I%t/include -I%libtorch_include -I%libtorch_api_include \
// RUN:   %S/Inputs/precompiled/tensor-prefix.h -o %t/tensor-prefix-I.pch
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-dynamic-shape --temp %t/pch-I \
// RUN:   --tidy-arg=--header-filter=.* %if libtorch-1.x %{--check-suffix=,LIBTORCH1%} %s -- \
// RUN:   -std=c++17 -I%t/include -I%libtorch_include -I%libtorch_api_include -include-pch %t/tensor-prefix-I.pch

float meanLoss(const at::Tensor &loss) {
  return loss.mean().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'item' copies a tensor element to the host and waits for the current stream [torch-sync-item]
  // CHECK-MESSAGES: :[[@LINE-2]]:22: note: consider keeping the value on the device {{.*}}
}

// Sync-free twin: the mean stays on the device.
at::Tensor meanLossOnDevice(const at::Tensor &loss) { return loss.mean(); }

at::Tensor repeatEach(const at::Tensor &x, const at::Tensor &repeats) {
  auto a = x.repeat_interleave(repeats);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'repeat_interleave' without 'output_size' reads the sum of the repeats from the device {{.*}} [torch-sync-dynamic-shape]
  // Computed on the host since LibTorch 2.1.
  auto b = x.repeat_interleave(2);
  // CHECK-MESSAGES-LIBTORCH1: :[[@LINE-1]]:14: warning: 'repeat_interleave' without 'output_size' reads
  return a.add(b);
}

// Sync-free twin: the host knows the total.
at::Tensor repeatEachSized(const at::Tensor &x, const at::Tensor &repeats,
                           int64_t total) {
  return x.repeat_interleave(repeats, 0, total);
}
