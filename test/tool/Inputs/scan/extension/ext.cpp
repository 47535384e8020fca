#include <torch/extension.h>

float first(const torch::Tensor &t) { return t.item<float>(); }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("first", &first); }
