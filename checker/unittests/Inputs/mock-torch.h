// A tiny stand-in for LibTorch's headers, for the unit tests of the device
// inference: the classes, functions and namespaces that the checker
// recognises (at::Tensor, c10::Device, c10::DeviceType, c10::TensorOptions,
// the factories of at and torch, torch::nn::ModuleHolder and a leaf module),
// with none of their bodies. The checker knows LibTorch's declarations by
// their namespaces and names, so these are recognised as LibTorch's.
#pragma once

namespace c10 {
enum class DeviceType : signed char { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
enum class ScalarType : signed char { Float, Bool };

struct Device {
  Device(DeviceType Type, signed char Index = -1);
  Device(const char *Spec);
  bool is_cpu() const;
  bool is_cuda() const;
  DeviceType type() const;
};
bool operator==(const Device &A, const Device &B);
bool operator!=(const Device &A, const Device &B);

template <typename T> class ArrayRef {
public:
  ArrayRef(const T &One);
};
using IntArrayRef = ArrayRef<long>;

struct TensorOptions {
  TensorOptions();
  TensorOptions(Device D);
  TensorOptions(DeviceType T);
  TensorOptions(ScalarType S);
  TensorOptions dtype(ScalarType S) const;
  TensorOptions device(Device D) const;
};

namespace detail {
[[noreturn]] void torchCheckFail(const char *Message);
} // namespace detail
} // namespace c10

#define TORCH_CHECK(cond, ...)                                                 \
  if (!(cond)) {                                                               \
    ::c10::detail::torchCheckFail(#cond);                                      \
  }

namespace at {
using c10::Device;
using c10::DeviceType;
using c10::IntArrayRef;
using c10::kCPU;
using c10::kCUDA;
using c10::ScalarType;
using c10::TensorOptions;

class TensorBase {};
class Tensor : public TensorBase {
public:
  Tensor();
  Tensor(const Tensor &Other);
  Tensor &operator=(const Tensor &Other);
  Tensor cpu() const;
  Tensor cuda() const;
  Tensor to(Device D, bool non_blocking = false, bool copy = false) const;
  Device device() const;
  TensorOptions options() const;
  bool is_cpu() const;
  bool is_cuda() const;
  Tensor abs() const;
  Tensor add(const Tensor &Other) const;
  double item() const;
};
Tensor operator+(const Tensor &A, const Tensor &B);

Tensor zeros(IntArrayRef Size, TensorOptions Options = {});
Tensor ones(IntArrayRef Size, TensorOptions Options = {});
Tensor randn(IntArrayRef Size, TensorOptions Options = {});
} // namespace at

namespace torch {
using at::Device;
using at::kCPU;
using at::kCUDA;
using at::Tensor;
using at::TensorOptions;
Tensor zeros(at::IntArrayRef Size, TensorOptions Options = {});
Tensor ones(at::IntArrayRef Size, TensorOptions Options = {});
Tensor randn(at::IntArrayRef Size, TensorOptions Options = {});

namespace nn {
class Module {
public:
  virtual ~Module();
  void train(bool On = true);
  void to(Device D, bool non_blocking = false);
};

template <typename Contained> class ModuleHolder {
public:
  Contained *operator->();
  const Contained *operator->() const;
};

class LinearImpl : public Module {
public:
  LinearImpl(long In, long Out);
  Tensor forward(const Tensor &Input);
  Tensor weight;
  Tensor bias;
};

class Linear : public ModuleHolder<LinearImpl> {
public:
  Linear(long In, long Out);
};
} // namespace nn
} // namespace torch
