// A Tensor owns a 64-byte aligned buffer of one Type. Move-only: copies are explicit (clone()).
#ifndef EMBER_BASE_TENSOR_H
#define EMBER_BASE_TENSOR_H

#include "ember/Base/Type.h"

#include "llvm/ADT/ArrayRef.h"

#include <cassert>
#include <cstdint>
#include <memory>

namespace llvm {
class raw_ostream;
}

namespace ember {

/// Every buffer ember allocates or plans is aligned to this many bytes.
constexpr size_t kTensorAlignment = 64;

class Tensor {
  struct FreeDeleter {
    void operator()(uint8_t *p) const;
  };
  Type type_;
  std::unique_ptr<uint8_t, FreeDeleter> data_;

public:
  Tensor() = default;
  /// Zero-filled tensor of \p ty. The type must already be size-checked (Type::checked).
  explicit Tensor(const Type &ty);
  Tensor(Tensor &&) = default;
  Tensor &operator=(Tensor &&) = default;

  /// A tensor holding a copy of \p values with \p dims.
  template <typename T> static Tensor fromValues(llvm::ArrayRef<dim_t> dims, llvm::ArrayRef<T> values) {
    Tensor t(Type(ElemKindOf<T>::value, dims));
    assert(values.size() == t.getType().numElements() && "value count does not match dims");
    std::copy(values.begin(), values.end(), t.dataAs<T>());
    return t;
  }

  Tensor clone() const;
  const Type &getType() const { return type_; }
  size_t sizeInBytes() const { return type_.sizeInBytes(); }
  size_t numElements() const { return type_.numElements(); }
  uint8_t *data() { return data_.get(); }
  const uint8_t *data() const { return data_.get(); }
  template <typename T> T *dataAs() { return reinterpret_cast<T *>(data_.get()); }
  template <typename T> const T *dataAs() const { return reinterpret_cast<const T *>(data_.get()); }
  template <typename T> llvm::ArrayRef<T> values() const {
    return llvm::ArrayRef<T>(dataAs<T>(), numElements());
  }
  /// Same bytes, new dims (same element count).
  void reshape(llvm::ArrayRef<dim_t> dims);
  bool bitwiseEqual(const Tensor &o) const;
  /// Element \p i converted to double, for printing and comparisons of any kind.
  double elementAsDouble(size_t i) const;
  /// Sets element \p i to \p v converted to the element kind (C++ conversion rules; float16
  /// and bfloat16 round to nearest even; quantized kinds store round(v / scale) + offset).
  void setElementFromDouble(size_t i, double v);
  /// Sets every element to \p v, converted as by setElementFromDouble.
  void fill(double v) {
    for (size_t i = 0, e = numElements(); i < e; ++i)
      setElementFromDouble(i, v);
  }
  /// Prints the type and up to \p maxValues values.
  void print(llvm::raw_ostream &os, size_t maxValues = 16) const;
};

/// Converts between IEEE half and float.
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);

} // namespace ember

#endif
