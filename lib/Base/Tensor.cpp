#include "ember/Base/Tensor.h"
#include "ember/Base/HalfBits.h"
#include "ember/Semantics/NarrowKinds.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include "ember/Base/Float16.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace llvm;

namespace ember {

void Tensor::FreeDeleter::operator()(uint8_t *p) const { std::free(p); }

Tensor::Tensor(const Type &ty) : type_(ty) {
  size_t bytes = ty.sizeInBytes();
  // aligned_alloc wants a multiple of the alignment, and a non-zero size for a distinct pointer.
  size_t rounded = (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  if (rounded == 0)
    rounded = kTensorAlignment;
  void *p = std::aligned_alloc(kTensorAlignment, rounded);
  if (!p)
    throw std::bad_alloc();
  std::memset(p, 0, rounded);
  data_.reset(static_cast<uint8_t *>(p));
}

Tensor Tensor::clone() const {
  Tensor t(type_);
  if (sizeInBytes())
    std::memcpy(t.data(), data(), sizeInBytes());
  return t;
}

void Tensor::reshape(ArrayRef<dim_t> dims) {
  Type nt = type_.withDims(dims);
  assert(nt.numElements() == type_.numElements() && "reshape changes the element count");
  type_ = nt;
}

bool Tensor::bitwiseEqual(const Tensor &o) const {
  return type_ == o.type_ && std::memcmp(data(), o.data(), sizeInBytes()) == 0;
}

float halfToFloat(uint16_t h) { return halfbits::halfToFloat(h); }
uint16_t floatToHalf(float f) { return halfbits::floatToHalf(f); }

double Tensor::elementAsDouble(size_t i) const {
  switch (type_.kind) {
  case ElemKind::Float16:
    return halfToFloat(dataAs<uint16_t>()[i]);
  case ElemKind::BFloat16: {
    uint32_t bits = uint32_t(dataAs<uint16_t>()[i]) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case ElemKind::QInt8:
    return type_.scale * (double(dataAs<int8_t>()[i]) - type_.offset);
  case ElemKind::QUInt8:
    return type_.scale * (double(dataAs<uint8_t>()[i]) - type_.offset);
  case ElemKind::Float32:
    return dataAs<float>()[i];
  case ElemKind::Float64:
    return dataAs<double>()[i];
  case ElemKind::Int8:
    return dataAs<int8_t>()[i];
  case ElemKind::UInt8:
    return dataAs<uint8_t>()[i];
  case ElemKind::Int16:
    return dataAs<int16_t>()[i];
  case ElemKind::UInt16:
    return dataAs<uint16_t>()[i];
  case ElemKind::Int32:
    return dataAs<int32_t>()[i];
  case ElemKind::UInt32:
    return dataAs<uint32_t>()[i];
  case ElemKind::Int64:
    return double(dataAs<int64_t>()[i]);
  case ElemKind::UInt64:
    return double(dataAs<uint64_t>()[i]);
  case ElemKind::Bool:
    return dataAs<bool>()[i] ? 1.0 : 0.0;
  case ElemKind::Float8E4M3FN:
  case ElemKind::Float8E4M3FNUZ:
  case ElemKind::Float8E5M2:
  case ElemKind::Float8E5M2FNUZ:
  case ElemKind::Int4:
  case ElemKind::UInt4:
  case ElemKind::Float4E2M1:
    return ember_narrow_to_float(narrowKindCode(type_.kind), dataAs<uint8_t>()[i]);
  }
  return 0;
}

void Tensor::setElementFromDouble(size_t i, double v) {
  switch (type_.kind) {
  case ElemKind::Float32: dataAs<float>()[i] = float(v); return;
  case ElemKind::Float64: dataAs<double>()[i] = v; return;
  case ElemKind::Float16: dataAs<float16_t>()[i] = float16_t(float(v)); return;
  case ElemKind::BFloat16: dataAs<bfloat16_t>()[i] = bfloat16_t(float(v)); return;
  case ElemKind::Int8: dataAs<int8_t>()[i] = int8_t(v); return;
  case ElemKind::UInt8: dataAs<uint8_t>()[i] = uint8_t(v); return;
  case ElemKind::Int16: dataAs<int16_t>()[i] = int16_t(v); return;
  case ElemKind::UInt16: dataAs<uint16_t>()[i] = uint16_t(v); return;
  case ElemKind::Int32: dataAs<int32_t>()[i] = int32_t(v); return;
  case ElemKind::UInt32: dataAs<uint32_t>()[i] = uint32_t(v); return;
  case ElemKind::Int64: dataAs<int64_t>()[i] = int64_t(v); return;
  case ElemKind::UInt64: dataAs<uint64_t>()[i] = uint64_t(v); return;
  case ElemKind::Bool: dataAs<bool>()[i] = v != 0; return;
  case ElemKind::QInt8:
    dataAs<int8_t>()[i] =
        int8_t(std::clamp(std::nearbyint(v / type_.scale) + type_.offset, -128.0, 127.0));
    return;
  case ElemKind::QUInt8:
    dataAs<uint8_t>()[i] =
        uint8_t(std::clamp(std::nearbyint(v / type_.scale) + type_.offset, 0.0, 255.0));
    return;
  case ElemKind::Float8E4M3FN:
  case ElemKind::Float8E4M3FNUZ:
  case ElemKind::Float8E5M2:
  case ElemKind::Float8E5M2FNUZ:
  case ElemKind::Int4:
  case ElemKind::UInt4:
  case ElemKind::Float4E2M1:
    dataAs<uint8_t>()[i] =
        uint8_t(ember_narrow_from_double(narrowKindCode(type_.kind), v, /*saturate=*/1));
    return;
  }
}

void Tensor::print(raw_ostream &os, size_t maxValues) const {
  os << type_.str() << " [";
  size_t n = numElements();
  for (size_t i = 0; i < n && i < maxValues; ++i) {
    if (i)
      os << ", ";
    os << format("%.7g", elementAsDouble(i));
  }
  if (n > maxValues)
    os << ", ...";
  os << "]";
}

} // namespace ember
