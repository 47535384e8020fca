// Mock of ATen/core/TensorBase.h and ATen/core/TensorAccessor.h.
#pragma once
#include <c10/core/Device.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/core/TensorOptions.h>
#include <c10/macros/Macros.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/Optional.h>
#include <cstddef>
#include <cstdint>
#include <string>

namespace at {
using c10::IntArrayRef;
using c10::OptionalIntArrayRef;

template <typename T> struct DefaultPtrTraits {
  typedef T *PtrType;
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class TensorAccessor {
public:
  TensorAccessor(T *data_, const index_t *sizes_, const index_t *strides_);
  TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i);
  const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const;
};
template <typename T, template <typename U> class PtrTraits, typename index_t>
class TensorAccessor<T, 1, PtrTraits, index_t> {
public:
  TensorAccessor(T *data_, const index_t *sizes_, const index_t *strides_);
  T &operator[](index_t i);
  const T &operator[](index_t i) const;
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class GenericPackedTensorAccessor {
public:
  GenericPackedTensorAccessor(typename PtrTraits<T>::PtrType data_, const index_t *sizes_,
                              const index_t *strides_);
};
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;

class TensorBase {
public:
  TensorBase() = default;
  TensorBase(const TensorBase &) = default;
  TensorBase(TensorBase &&) noexcept = default;
  TensorBase &operator=(const TensorBase &x) &;
  TensorBase &operator=(TensorBase &&x) & noexcept;

  int64_t dim() const;
  int64_t storage_offset() const;
  TensorBase contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  bool defined() const;
  void reset();
  bool is_same(const TensorBase &other) const noexcept;
  std::string toString() const;
  IntArrayRef sizes() const;
  IntArrayRef strides() const;
  int64_t ndimension() const { return dim(); }
  bool is_contiguous(at::MemoryFormat memory_format = at::MemoryFormat::Contiguous) const;
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  size_t nbytes() const;
  int64_t numel() const;
  size_t itemsize() const;
  int64_t element_size() const;
  caffe2::TypeMeta dtype() const noexcept;
  Layout layout() const;
  ScalarType scalar_type() const;
  bool has_storage() const;
  bool is_complex() const;
  bool is_floating_point() const;
  bool is_signed() const;
  Device device() const;
  DeviceIndex get_device() const;
  bool is_cpu() const;
  bool is_cuda() const;
  bool is_xpu() const;
  bool is_mps() const;
  bool is_meta() const;
  bool is_sparse() const;
  bool is_pinned(std::optional<c10::Device> device = std::nullopt) const;
  TensorOptions options() const {
    return TensorOptions().dtype(dtype()).device(device()).layout(layout());
  }
  const void *const_data_ptr() const;
  void *mutable_data_ptr() const;
  void *data_ptr() const { return mutable_data_ptr(); }
  template <typename T, std::enable_if_t<!std::is_const_v<T>, int> = 0>
  const T *const_data_ptr() const;
  template <typename T, std::enable_if_t<std::is_const_v<T>, int> = 0>
  const std::remove_const_t<T> *const_data_ptr() const;
  template <typename T> T *mutable_data_ptr() const;
  template <typename T> T *data_ptr() const;
  void print() const;

  template <typename T, size_t N> TensorAccessor<T, N> accessor() const & {
    static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
    T *ptr = mutable_data_ptr<T>();
    return TensorAccessor<T, N>(ptr, sizes().data(), strides().data());
  }
  template <typename T, size_t N> TensorAccessor<T, N> accessor() && = delete;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
            typename index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> generic_packed_accessor() const & {
    T *ptr = mutable_data_ptr<T>();
    return GenericPackedTensorAccessor<T, N, PtrTraits, index_t>(
        static_cast<typename PtrTraits<T>::PtrType>(ptr), nullptr, nullptr);
  }
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const & {
    return generic_packed_accessor<T, N, PtrTraits, int32_t>();
  }
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() && = delete;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const & {
    return generic_packed_accessor<T, N, PtrTraits, int64_t>();
  }
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() && = delete;

  bool requires_grad() const;
  const TensorBase &set_requires_grad(bool requires_grad) const;
  bool is_leaf() const;
  int64_t output_nr() const;
  void set_data(const TensorBase &new_data) const;
  TensorBase data() const;
  bool is_view() const;

protected:
  void *impl_ = nullptr;
};
} // namespace at
