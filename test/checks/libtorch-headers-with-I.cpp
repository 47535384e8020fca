// LibTorch's headers are included with -I (not -isystem), so clang-tidy treats
// them as user headers; LibTorch's own inline code synchronizes in places
// (Tensor::operator[](Tensor) calls item()). None of it is reported, also with
// --header-filter=.*; the LibTorchHeaderRegex option is what keeps it quiet,
// as the second run shows. The runs parse the headers (--no-pch): the shared
// precompiled headers are built with LibTorch's folders as system folders, and
// so would hide what the second run shows.
//
// RUN: rm -rf %t-include && mkdir -p %t-include
// RUN: ln -s %libtorch_include/ATen %libtorch_include/c10 %libtorch_include/caffe2 %t-include/
// RUN: %check_torch_sync --no-pch --checks=-*,torch-sync-item --temp %t --tidy-arg=--header-filter=.* %s -- \
// RUN:   -std=c++17 -I%t-include -I%libtorch_include -I%libtorch_api_include
// RUN: %check_torch_sync --no-pch --checks=-*,torch-sync-item --temp %t-regex --check-suffix=NOREGEX --tidy-arg=--header-filter=.* \
// RUN:   --config="{CheckOptions: {LibTorchHeaderRegex: 'no-such-path'}}" %s -- \
// RUN:   -std=c++17 -I%t-include -I%libtorch_include -I%libtorch_api_include

#include <ATen/core/Tensor.h>

float userCode(const at::Tensor &t) {
  return t.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-NOREGEX-DAG: :[[@LINE-2]]:12: warning: 'item' copies a tensor element to the host
}

// CHECK-MESSAGES-NOREGEX-DAG: TensorBody.h:{{[0-9]+}}:{{[0-9]+}}: warning: 'item' copies a tensor element
