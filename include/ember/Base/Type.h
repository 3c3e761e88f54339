// Element kinds and tensor types. A Type is a small value: kind, dims, and quantization params.
#ifndef EMBER_BASE_TYPE_H
#define EMBER_BASE_TYPE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace ember {

using dim_t = size_t;
using DimsVec = llvm::SmallVector<dim_t, 6>;

enum class ElemKind : uint8_t {
#define ELEM_KIND(E, N, T) E,
#include "ember/Base/ElemKinds.def"
};

/// Bytes per element.
size_t elemSize(ElemKind k);
/// The printed name ("float32", "int64", ...).
llvm::StringRef elemKindName(ElemKind k);
/// Parses a printed name back; false if unknown.
bool parseElemKind(llvm::StringRef name, ElemKind &k);
bool isFloatKind(ElemKind k);
bool isQuantizedKind(ElemKind k);
bool isIntegerKind(ElemKind k);
/// float8 (the four ONNX kinds), int4, uint4 and float4e2m1: stored one element per byte,
/// converted by Cast and moved by data movement, computed on by nothing else.
bool isNarrowKind(ElemKind k);
/// A narrow kind's code for ember/Semantics/NarrowKinds.h (EMBER_NARROW_*): its place among
/// the narrow kinds, which ElemKinds.def declares in that order from Float8E4M3FN.
inline long narrowKindCode(ElemKind k) { return long(k) - long(ElemKind::Float8E4M3FN); }

/// Maps a C++ storage type to its ElemKind (float -> Float32, ...).
template <typename T> struct ElemKindOf;
template <> struct ElemKindOf<float> { static constexpr ElemKind value = ElemKind::Float32; };
template <> struct ElemKindOf<double> { static constexpr ElemKind value = ElemKind::Float64; };
template <> struct ElemKindOf<int8_t> { static constexpr ElemKind value = ElemKind::Int8; };
template <> struct ElemKindOf<uint8_t> { static constexpr ElemKind value = ElemKind::UInt8; };
template <> struct ElemKindOf<int16_t> { static constexpr ElemKind value = ElemKind::Int16; };
template <> struct ElemKindOf<int32_t> { static constexpr ElemKind value = ElemKind::Int32; };
template <> struct ElemKindOf<int64_t> { static constexpr ElemKind value = ElemKind::Int64; };
template <> struct ElemKindOf<bool> { static constexpr ElemKind value = ElemKind::Bool; };

/// Largest tensor ember accepts, in bytes (1 TiB): keeps all later offset arithmetic far from overflow.
constexpr size_t kMaxTensorBytes = size_t(1) << 40;

class Type {
public:
  ElemKind kind = ElemKind::Float32;
  DimsVec dims;
  /// Quantization parameters; meaningful only for quantized kinds.
  float scale = 1.0f;
  int32_t offset = 0;

  Type() = default;
  Type(ElemKind k, llvm::ArrayRef<dim_t> d) : kind(k), dims(d.begin(), d.end()) {}
  Type(ElemKind k, llvm::ArrayRef<dim_t> d, float s, int32_t o)
      : kind(k), dims(d.begin(), d.end()), scale(s), offset(o) {}

  /// A type from dims that come from user data: refuses negative dims and sizes over kMaxTensorBytes.
  static llvm::Expected<Type> checked(ElemKind k, llvm::ArrayRef<int64_t> dims);
  /// Same as checked() for unsigned dims computed by shape rules.
  static llvm::Expected<Type> checkedDims(ElemKind k, llvm::ArrayRef<dim_t> dims);

  unsigned rank() const { return dims.size(); }
  size_t numElements() const;
  size_t sizeInBytes() const { return numElements() * elemSize(kind); }
  size_t elementSize() const { return elemSize(kind); }
  bool isQuantized() const { return isQuantizedKind(kind); }
  /// Same kind and quantization, other dims.
  Type withDims(llvm::ArrayRef<dim_t> d) const { return Type(kind, d, scale, offset); }

  bool operator==(const Type &o) const;
  bool operator!=(const Type &o) const { return !(*this == o); }
  /// "float32<2 x 3 x 4>"; quantized: "qint8<2 x 3>{scale:0.1,offset:3}".
  std::string str() const;
  size_t hash() const;
};

/// "2 x 3 x 4" (or "scalar" for rank 0).
std::string dimsToString(llvm::ArrayRef<dim_t> dims);
/// "[1, -1, 3]": attribute values and shapes as users wrote them.
std::string intsToString(llvm::ArrayRef<int64_t> values);

} // namespace ember

#endif
