#include "ember/Base/Type.h"

#include "ember/Base/Dims.h"
#include "ember/Semantics/NarrowKinds.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;

namespace ember {

size_t elemSize(ElemKind k) {
  switch (k) {
#define ELEM_KIND(E, N, T)                                                                         \
  case ElemKind::E:                                                                                \
    return sizeof(T);
#include "ember/Base/ElemKinds.def"
  }
  return 0;
}

StringRef elemKindName(ElemKind k) {
  switch (k) {
#define ELEM_KIND(E, N, T)                                                                         \
  case ElemKind::E:                                                                                \
    return N;
#include "ember/Base/ElemKinds.def"
  }
  return "?";
}

bool parseElemKind(StringRef name, ElemKind &k) {
#define ELEM_KIND(E, N, T)                                                                         \
  if (name == N) {                                                                                 \
    k = ElemKind::E;                                                                               \
    return true;                                                                                   \
  }
#include "ember/Base/ElemKinds.def"
  return false;
}

bool isFloatKind(ElemKind k) {
  return k == ElemKind::Float32 || k == ElemKind::Float64 || k == ElemKind::Float16 ||
         k == ElemKind::BFloat16;
}
bool isQuantizedKind(ElemKind k) { return k == ElemKind::QInt8 || k == ElemKind::QUInt8; }
static_assert(EMBER_NARROW_F8E4M3FN == 0 &&
                  long(ElemKind::Float8E4M3FNUZ) - long(ElemKind::Float8E4M3FN) ==
                      EMBER_NARROW_F8E4M3FNUZ &&
                  long(ElemKind::Float8E5M2) - long(ElemKind::Float8E4M3FN) == EMBER_NARROW_F8E5M2 &&
                  long(ElemKind::Float8E5M2FNUZ) - long(ElemKind::Float8E4M3FN) ==
                      EMBER_NARROW_F8E5M2FNUZ &&
                  long(ElemKind::Int4) - long(ElemKind::Float8E4M3FN) == EMBER_NARROW_INT4 &&
                  long(ElemKind::UInt4) - long(ElemKind::Float8E4M3FN) == EMBER_NARROW_UINT4 &&
                  long(ElemKind::Float4E2M1) - long(ElemKind::Float8E4M3FN) == EMBER_NARROW_F4E2M1,
              "ElemKinds.def declares the narrow kinds in NarrowKinds.h's order");

bool isNarrowKind(ElemKind k) {
  return k == ElemKind::Float8E4M3FN || k == ElemKind::Float8E4M3FNUZ ||
         k == ElemKind::Float8E5M2 || k == ElemKind::Float8E5M2FNUZ || k == ElemKind::Int4 ||
         k == ElemKind::UInt4 || k == ElemKind::Float4E2M1;
}
bool isIntegerKind(ElemKind k) {
  return !isFloatKind(k) && !isQuantizedKind(k) && k != ElemKind::Bool && !isNarrowKind(k);
}

Expected<Type> Type::checked(ElemKind k, ArrayRef<int64_t> dims) {
  DimsVec d;
  for (int64_t v : dims) {
    if (v < 0)
      return makeError("negative dimension " + Twine(v) + " in shape " + intsToString(dims));
    d.push_back(dim_t(v));
  }
  return checkedDims(k, d);
}

Expected<Type> Type::checkedDims(ElemKind k, ArrayRef<dim_t> dims) {
  size_t bytes = elemSize(k);
  for (dim_t v : dims)
    if (!checkedMul(bytes, v, bytes) || bytes > kMaxTensorBytes)
      return makeError("shape " + dimsToString(dims) + " of " + elemKindName(k) +
                       " overflows the largest tensor size (" + Twine(kMaxTensorBytes) + " bytes)");
  return Type(k, dims);
}

size_t Type::numElements() const { return dimsProduct(dims); }

bool Type::operator==(const Type &o) const {
  if (kind != o.kind || dims != o.dims)
    return false;
  return !isQuantized() || (scale == o.scale && offset == o.offset);
}

std::string intsToString(ArrayRef<int64_t> values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

std::string dimsToString(ArrayRef<dim_t> dims) {
  if (dims.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? " x " : "") + std::to_string(dims[i]);
  return s;
}

std::string Type::str() const {
  std::string s;
  raw_string_ostream os(s);
  os << elemKindName(kind) << "<" << dimsToString(dims) << ">";
  if (isQuantized())
    os << "{scale:" << format("%g", scale) << ",offset:" << offset << "}";
  return os.str();
}

size_t Type::hash() const {
  uint32_t scaleBits;
  std::memcpy(&scaleBits, &scale, sizeof(scaleBits));
  return hash_combine(unsigned(kind), hash_combine_range(dims.begin(), dims.end()),
                      isQuantized() ? hash_combine(scaleBits, offset) : hash_code(0));
}

} // namespace ember
