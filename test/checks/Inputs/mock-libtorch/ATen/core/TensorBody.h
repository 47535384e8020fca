// Mock of ATen/core/TensorBody.h (at::Tensor, LibTorch 2.11's declarations).
#pragma once
#include <ATen/core/IListRef.h>
#include <ATen/core/TensorBase.h>
#include <c10/core/Scalar.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/Optional.h>
#include <initializer_list>
#include <tuple>

namespace at {
class Tensor;
using TensorList = ArrayRef<Tensor>;
using ITensorListRef = c10::IListRef<Tensor>;
namespace indexing {
struct TensorIndex;
} // namespace indexing

class Tensor : public TensorBase {
public:
  Tensor() = default;
  Tensor(const Tensor &tensor) = default;
  Tensor(Tensor &&tensor) = default;
  explicit Tensor(const TensorBase &base) : TensorBase(base) {}
  /*implicit*/ Tensor(TensorBase &&base) : TensorBase(std::move(base)) {}

  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  using TensorBase::size;
  using TensorBase::stride;

  Tensor &operator=(const TensorBase &x) & noexcept;
  Tensor &operator=(TensorBase &&x) & noexcept;
  Tensor &operator=(const Tensor &x) & noexcept;
  Tensor &operator=(Tensor &&x) & noexcept;
  Tensor &operator=(const Scalar &v) &&;
  Tensor &operator=(const Tensor &rhs) &&;
  Tensor &operator=(Tensor &&rhs) &&;

  template <typename T> T item() const;

  Tensor operator~() const;
  Tensor operator-() const;
  Tensor &operator+=(const Tensor &other);
  Tensor &operator+=(const Scalar &other);
  Tensor &operator-=(const Tensor &other);
  Tensor &operator-=(const Scalar &other);
  Tensor &operator*=(const Tensor &other);
  Tensor &operator*=(const Scalar &other);
  Tensor &operator/=(const Tensor &other);
  Tensor &operator/=(const Scalar &other);
  Tensor operator[](const Scalar &index) const;
  Tensor operator[](const Tensor &index) const;
  Tensor operator[](int64_t index) const;
  Tensor index(ArrayRef<at::indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<at::indexing::TensorIndex> indices) const;

  Tensor cpu() const {
    return to(options().device(c10::DeviceType::CPU), /*non_blocking*/ false, /*copy*/ false);
  }
  Tensor cuda() const {
    return to(options().device(c10::DeviceType::CUDA), /*non_blocking*/ false, /*copy*/ false);
  }

  void backward(const Tensor &gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false, std::optional<TensorList> inputs = std::nullopt) const;
  const Tensor &grad() const;
  Tensor &mutable_grad() const;

  // The generated methods (native_functions.yaml), those the tests call.
  at::Tensor abs() const;
  at::Tensor add(const at::Tensor &other, const at::Scalar &alpha = 1) const;
  at::Tensor add(const at::Scalar &other, const at::Scalar &alpha = 1) const;
  at::Tensor &add_(const at::Tensor &other, const at::Scalar &alpha = 1) const;
  at::Tensor all(int64_t dim, bool keepdim = false) const;
  at::Tensor all() const;
  bool allclose(const at::Tensor &other, double rtol = 1e-05, double atol = 1e-08,
                bool equal_nan = false) const;
  at::Tensor any(int64_t dim, bool keepdim = false) const;
  at::Tensor any() const;
  at::Tensor argmax(::std::optional<int64_t> dim = ::std::nullopt, bool keepdim = false) const;
  at::Tensor clamp(const ::std::optional<at::Scalar> &min,
                   const ::std::optional<at::Scalar> &max = ::std::nullopt) const;
  at::Tensor clone(::std::optional<at::MemoryFormat> memory_format = ::std::nullopt) const;
  at::Tensor &copy_(const at::Tensor &src, bool non_blocking = false) const;
  at::Tensor detach() const;
  at::Tensor div(const at::Tensor &other) const;
  at::Tensor div(const at::Scalar &other) const;
  bool equal(const at::Tensor &other) const;
  at::Tensor &fill_(const at::Scalar &value) const;
  at::Tensor &fill_(const at::Tensor &value) const;
  bool is_nonzero() const;
  at::Tensor max() const;
  ::std::tuple<at::Tensor, at::Tensor> max(int64_t dim, bool keepdim = false) const;
  at::Tensor max(const at::Tensor &other) const;
  at::Tensor mean(::std::optional<at::ScalarType> dtype = ::std::nullopt) const;
  at::Tensor mean(at::OptionalIntArrayRef dim, bool keepdim = false,
                  ::std::optional<at::ScalarType> dtype = ::std::nullopt) const;
  at::Tensor min() const;
  at::Tensor mul(const at::Tensor &other) const;
  at::Tensor mul(const at::Scalar &other) const;
  at::Tensor neg() const;
  at::Tensor nonzero() const;
  at::Tensor pow(const at::Tensor &exponent) const;
  at::Tensor pow(const at::Scalar &exponent) const;
  at::Tensor reshape(at::IntArrayRef shape) const;
  at::Tensor select(int64_t dim, int64_t index) const;
  at::Tensor squeeze() const;
  at::Tensor sub(const at::Tensor &other, const at::Scalar &alpha = 1) const;
  at::Tensor sub(const at::Scalar &other, const at::Scalar &alpha = 1) const;
  at::Tensor sum(::std::optional<at::ScalarType> dtype = ::std::nullopt) const;
  at::Tensor sum(at::OptionalIntArrayRef dim, bool keepdim = false,
                 ::std::optional<at::ScalarType> dtype = ::std::nullopt) const;
  at::Tensor t() const;
  at::Tensor trace() const;
  at::Tensor
  to(at::TensorOptions options = {}, bool non_blocking = false, bool copy = false,
     ::std::optional<at::MemoryFormat> memory_format = ::std::nullopt) const;
  at::Tensor to(::std::optional<at::ScalarType> dtype, ::std::optional<at::Layout> layout,
                ::std::optional<at::Device> device, ::std::optional<bool> pin_memory,
                bool non_blocking, bool copy,
                ::std::optional<at::MemoryFormat> memory_format) const;
  at::Tensor to(at::Device device, at::ScalarType dtype, bool non_blocking = false,
                bool copy = false,
                ::std::optional<at::MemoryFormat> memory_format = ::std::nullopt) const;
  at::Tensor to(at::ScalarType dtype, bool non_blocking = false, bool copy = false,
                ::std::optional<at::MemoryFormat> memory_format = ::std::nullopt) const;
  at::Tensor to(const at::Tensor &other, bool non_blocking = false, bool copy = false,
                ::std::optional<at::MemoryFormat> memory_format = ::std::nullopt) const;
  at::Scalar item() const;
  at::Tensor view(at::IntArrayRef size) const;
  at::Tensor eq(const at::Scalar &other) const;
  at::Tensor eq(const at::Tensor &other) const;
  at::Tensor ne(const at::Scalar &other) const;
  at::Tensor ne(const at::Tensor &other) const;
  at::Tensor gt(const at::Scalar &other) const;
  at::Tensor gt(const at::Tensor &other) const;
  at::Tensor lt(const at::Scalar &other) const;
  at::Tensor lt(const at::Tensor &other) const;
};

// The item<T>() specializations (ATen/templates/TensorBody.h's DEFINE_ITEM).
#define DEFINE_ITEM(T, name)                                                                  \
  template <> [[nodiscard]] inline T Tensor::item() const { return item().to##name(); }
DEFINE_ITEM(uint8_t, Byte)
DEFINE_ITEM(int8_t, Char)
DEFINE_ITEM(int16_t, Short)
DEFINE_ITEM(int, Int)
DEFINE_ITEM(int64_t, Long)
DEFINE_ITEM(float, Float)
DEFINE_ITEM(double, Double)
DEFINE_ITEM(bool, Bool)
#undef DEFINE_ITEM
} // namespace at
