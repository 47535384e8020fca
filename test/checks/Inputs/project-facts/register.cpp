// The dispatcher's registrations, and an address that escapes.
#include "ops.h"
#include <torch/library.h>

TORCH_LIBRARY(facts_test, m) { m.def("scale(Tensor t) -> Tensor"); }

TORCH_LIBRARY_IMPL(facts_test, CPU, m) { m.impl("scale", &scaleCpu); }

TORCH_LIBRARY_IMPL(facts_test, CUDA, m) { m.impl("scale", TORCH_FN(scaleCuda)); }

double (*exportedPointer)(const at::Tensor &) = &exported;
