// Mock of c10/core/TensorOptions.h.
#pragma once
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <c10/util/Optional.h>
#include <type_traits>
#include <utility>

namespace c10 {
struct TensorOptions {
  TensorOptions()
      : requires_grad_(false), pinned_memory_(false), has_device_(false), has_dtype_(false),
        has_layout_(false), has_requires_grad_(false), has_pinned_memory_(false),
        has_memory_format_(false) {}
  /* implicit */ TensorOptions(Layout layout) : TensorOptions() { this->set_layout(layout); }
  template <typename T, typename = std::enable_if_t<std::is_same_v<std::decay_t<T>, Device>>>
  /* implicit */ TensorOptions(T &&device) : TensorOptions() {
    this->set_device(std::forward<T>(device));
  }
  template <typename... Args,
            typename = std::enable_if_t<std::is_constructible_v<Device, Args &&...>>>
  /* implicit */ TensorOptions(Args &&...args) : TensorOptions(Device(std::forward<Args>(args)...)) {}
  /* implicit */ TensorOptions(caffe2::TypeMeta dtype) : TensorOptions() { this->set_dtype(dtype); }
  /* implicit */ TensorOptions(ScalarType dtype) : TensorOptions() { this->set_dtype(dtype); }
  /* implicit */ TensorOptions(MemoryFormat memory_format) : TensorOptions() {
    set_memory_format(memory_format);
  }

  [[nodiscard]] TensorOptions device(std::optional<Device> device) const noexcept {
    TensorOptions r = *this;
    r.set_device(device);
    return r;
  }
  template <typename... Args>
  [[nodiscard]] TensorOptions device(Args &&...args) const noexcept {
    return device(std::optional<Device>(std::in_place, std::forward<Args>(args)...));
  }
  [[nodiscard]] TensorOptions device_index(c10::DeviceIndex device_index) const noexcept {
    return device(Device::Type::CUDA, device_index);
  }
  [[nodiscard]] TensorOptions dtype(std::optional<caffe2::TypeMeta> dtype) const noexcept {
    TensorOptions r = *this;
    r.set_dtype(dtype);
    return r;
  }
  [[nodiscard]] TensorOptions dtype(std::optional<ScalarType> dtype) const noexcept {
    TensorOptions r = *this;
    r.set_dtype(dtype);
    return r;
  }
  [[nodiscard]] TensorOptions layout(std::optional<Layout> layout) const noexcept {
    TensorOptions r = *this;
    r.set_layout(layout);
    return r;
  }
  [[nodiscard]] TensorOptions requires_grad(std::optional<bool> requires_grad) const noexcept {
    TensorOptions r = *this;
    r.set_requires_grad(requires_grad);
    return r;
  }
  [[nodiscard]] TensorOptions pinned_memory(std::optional<bool> pinned_memory) const noexcept {
    TensorOptions r = *this;
    r.set_pinned_memory(pinned_memory);
    return r;
  }
  [[nodiscard]] TensorOptions
  memory_format(std::optional<MemoryFormat> memory_format) const noexcept {
    TensorOptions r = *this;
    r.set_memory_format(memory_format);
    return r;
  }

  Device device() const noexcept;
  bool has_device() const noexcept { return has_device_; }
  std::optional<Device> device_opt() const noexcept;
  caffe2::TypeMeta dtype() const noexcept;
  bool has_dtype() const noexcept { return has_dtype_; }
  Layout layout() const noexcept;
  bool requires_grad() const noexcept { return has_requires_grad_ ? requires_grad_ : false; }
  bool pinned_memory() const noexcept;

private:
  void set_device(std::optional<Device> device) & noexcept;
  void set_dtype(std::optional<caffe2::TypeMeta> dtype) & noexcept;
  void set_dtype(std::optional<ScalarType> dtype) & noexcept;
  void set_layout(std::optional<Layout> layout) & noexcept;
  void set_requires_grad(std::optional<bool> requires_grad) & noexcept;
  void set_pinned_memory(std::optional<bool> pinned_memory) & noexcept;
  void set_memory_format(std::optional<MemoryFormat> memory_format) & noexcept;

  bool requires_grad_ : 1;
  bool pinned_memory_ : 1;
  bool has_device_ : 1;
  bool has_dtype_ : 1;
  bool has_layout_ : 1;
  bool has_requires_grad_ : 1;
  bool has_pinned_memory_ : 1;
  bool has_memory_format_ : 1;
};

inline TensorOptions dtype(caffe2::TypeMeta dtype) { return TensorOptions().dtype(dtype); }
inline TensorOptions dtype(ScalarType dtype) { return TensorOptions().dtype(dtype); }
inline TensorOptions layout(Layout layout) { return TensorOptions().layout(layout); }
inline TensorOptions device(Device device) { return TensorOptions().device(device); }
inline TensorOptions device_index(c10::DeviceIndex device_index) {
  return TensorOptions().device_index(device_index);
}
inline TensorOptions requires_grad(bool requires_grad = true) {
  return TensorOptions().requires_grad(requires_grad);
}
inline TensorOptions memory_format(MemoryFormat memory_format) {
  return TensorOptions().memory_format(memory_format);
}
} // namespace c10
