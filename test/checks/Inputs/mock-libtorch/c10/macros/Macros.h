// Mock of c10/macros/Macros.h (torch/headeronly/macros/Macros.h in 2.11): ATen sees c10's names.
#pragma once

namespace c10 {}
namespace at {
using namespace c10;
}
namespace c10::cuda {}
namespace at::cuda {
using namespace c10::cuda;
}
