// Mock of c10/util/ArrayRef.h and c10/util/OptionalArrayRef.h.
#pragma once
#include <c10/util/Optional.h>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace c10 {

template <typename T> class ArrayRef final {
public:
  using iterator = const T *;
  using const_iterator = const T *;
  using size_type = size_t;
  using value_type = T;

  constexpr ArrayRef() : Data(nullptr), Length(0) {}
  constexpr ArrayRef(const T &OneElt) : Data(&OneElt), Length(1) {}
  constexpr ArrayRef(const T *data, size_t length) : Data(data), Length(length) {}
  constexpr ArrayRef(const T *begin, const T *end) : Data(begin), Length(end - begin) {}
  template <typename A>
  ArrayRef(const std::vector<T, A> &Vec) : Data(Vec.data()), Length(Vec.size()) {}
  template <size_t N>
  constexpr ArrayRef(const T (&Arr)[N]) : Data(Arr), Length(N) {}
  constexpr ArrayRef(const std::initializer_list<T> &Vec)
      : Data(Vec.begin() == Vec.end() ? static_cast<T *>(nullptr) : Vec.begin()),
        Length(Vec.size()) {}

  constexpr iterator begin() const { return Data; }
  constexpr iterator end() const { return Data + Length; }
  constexpr const T *data() const { return Data; }
  constexpr size_t size() const { return Length; }
  constexpr bool empty() const { return Length == 0; }
  constexpr const T &operator[](size_t Index) const { return Data[Index]; }
  std::vector<T> vec() const { return std::vector<T>(Data, Data + Length); }

private:
  const T *Data;
  size_type Length;
};

using IntArrayRef = ArrayRef<int64_t>;

template <typename T> class OptionalArrayRef final {
public:
  constexpr OptionalArrayRef() noexcept = default;
  constexpr OptionalArrayRef(nullopt_t) noexcept {}
  template <typename U = ArrayRef<T>>
  constexpr OptionalArrayRef(U &&value) : wrapped_opt_array_ref(std::forward<U>(value)) {}
  constexpr OptionalArrayRef(const std::initializer_list<T> &Vec)
      : wrapped_opt_array_ref(ArrayRef<T>(Vec)) {}
  constexpr bool has_value() const noexcept { return wrapped_opt_array_ref.has_value(); }

private:
  optional<ArrayRef<T>> wrapped_opt_array_ref;
};

using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

} // namespace c10
