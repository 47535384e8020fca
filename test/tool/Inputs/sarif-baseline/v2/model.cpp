#include <ATen/core/Tensor.h>

// Version 2: these comment lines move every finding below them down; the edits
// are described in sarif-baseline.test.

float loss(const at::Tensor &t /* the loss */) {
    return   t.item<float>();
}

bool positive(const at::Tensor &t) {
  return t.gt(1).all().item<bool>();
}

double total(const at::Tensor &t) {
  at::Tensor unused = t.abs();
  return t.sum().item<double>();
}

float lossAgain(const at::Tensor &t) {
  return t.item<float>();
}
