// Mock of c10/core/ScalarType.h, c10/core/Layout.h, c10/core/MemoryFormat.h and
// c10/util/typeid.h (caffe2::TypeMeta).
#pragma once
#include <cstdint>

namespace c10 {
struct Half {
  unsigned short x;
};
struct BFloat16 {
  uint16_t x;
};

enum class ScalarType : int8_t {
  Byte,
  Char,
  Short,
  Int,
  Long,
  Half,
  Float,
  Double,
  ComplexHalf,
  ComplexFloat,
  ComplexDouble,
  Bool,
  BFloat16 = 15,
  Undefined = 44,
};
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

enum class Layout : int8_t { Strided, Sparse, SparseCsr, Mkldnn };
constexpr auto kStrided = Layout::Strided;
constexpr auto kSparse = Layout::Sparse;

enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };
} // namespace c10

namespace caffe2 {
class TypeMeta final {
public:
  TypeMeta() noexcept;
  template <typename T> static TypeMeta Make();
  c10::ScalarType toScalarType() const;
};
} // namespace caffe2
