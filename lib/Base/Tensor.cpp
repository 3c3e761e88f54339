#include "ember/Base/Tensor.h"

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

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { // subnormal: normalize
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000 | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) // inf or nan
    return uint16_t(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31)
    return uint16_t(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10)
      return uint16_t(sign);
    mant |= 0x800000;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is the correct rounding
  return uint16_t(half);
}

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
