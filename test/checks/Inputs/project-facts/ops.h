// The functions of a small extension, each defined in its own file.
#include <ATen/core/Tensor.h>

// Reached from sum() in dispatch.cpp, one per device branch.
double sumCpu(const at::Tensor &t);
double sumCuda(const at::Tensor &t);
// Registered for the CPU and CUDA dispatch keys in register.cpp.
at::Tensor scaleCpu(const at::Tensor &t);
at::Tensor scaleCuda(const at::Tensor &t);
// dispatch.cpp calls the first with a CPU tensor; it passes its parameter on
// to the second (chain.cpp, chain_inner.cpp).
double chainOuter(const at::Tensor &t);
double chainInner(const at::Tensor &t);
// Called with a CPU tensor, and its address escapes (register.cpp).
double exported(const at::Tensor &t);
// What they return: a CPU copy, and their argument's device.
at::Tensor hostCopy(const at::Tensor &t);
at::Tensor sameDevice(const at::Tensor &t);
