// Mock of c10/core/Scalar.h.
#pragma once
#include <c10/core/ScalarType.h>
#include <cstdint>
#include <type_traits>

namespace c10 {
class Scalar {
public:
  Scalar() : Scalar(int64_t(0)) {}
  Scalar(uint8_t vv);
  Scalar(int8_t vv);
  Scalar(int16_t vv);
  Scalar(int vv);
  Scalar(long vv);
  Scalar(long long vv);
  Scalar(float vv);
  Scalar(double vv);
  Scalar(c10::Half vv);
  Scalar(c10::BFloat16 vv);
  Scalar(uint16_t vv);
  Scalar(uint32_t vv);
  Scalar(uint64_t vv);
  template <typename T, typename std::enable_if_t<std::is_same_v<T, bool>, bool> * = nullptr>
  Scalar(T vv);
  Scalar(const Scalar &rhs);
  Scalar(Scalar &&rhs) noexcept;
  Scalar &operator=(const Scalar &other);
  ~Scalar();

  double toDouble() const;
  float toFloat() const;
  int64_t toLong() const;
  int toInt() const;
  bool toBool() const;
  uint8_t toByte() const;
  int16_t toShort() const;
  int8_t toChar() const;
  template <typename T> T to() const;
  bool isFloatingPoint() const;
  bool isIntegral(bool includeBool) const;
  ScalarType type() const;
};
} // namespace c10
