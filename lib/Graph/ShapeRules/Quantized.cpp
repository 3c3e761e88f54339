// Shape rules: quantization (QuantizeLinear, Requantize, IntegerConv, IntegerMatMul, ...).
// The recurrent kinds are in Recurrent.cpp.
#include "Common.h"

using namespace llvm;

namespace ember {

using namespace shape;

namespace {

bool isByteKind(ElemKind k) { return k == ElemKind::Int8 || k == ElemKind::UInt8; }

Error expectByteKind(const Type &t, StringRef what) {
  if (!isByteKind(t.kind))
    return makeError(what + " must be int8 or uint8, got " + t.str());
  return Error::success();
}

Error expectKind(const Type &t, ElemKind k, StringRef what) {
  if (t.kind != k)
    return makeError(what + " must be " + elemKindName(k) + ", got " + t.str());
  return Error::success();
}

/// A Scale or ZeroPoint operand describes \p t: same rank, each dim 1 or equal to t's.
Error expectParameterOf(const Type &param, const Type &t, StringRef what) {
  bool ok = param.rank() == t.rank();
  for (unsigned i = 0; ok && i < t.rank(); ++i)
    ok = param.dims[i] == 1 || param.dims[i] == t.dims[i];
  if (!ok)
    return makeError(what + " " + param.str() + " must have the rank of " + t.str() +
                     " and each dim 1 or equal to its dim");
  return Error::success();
}

/// Checks a zero point operand: the kind of the tensor it shifts, and its shape.
Error expectZeroPointOf(const Type &zp, const Type &t, StringRef what) {
  if (zp.kind != t.kind)
    return makeError(what + " " + zp.str() + " must have the kind of " + t.str());
  return expectParameterOf(zp, t, what);
}

/// The checks QuantizeLinear and Requantize share: Scale float32 and ZeroPoint int8/uint8 both
/// describing Input; the result has ZeroPoint's kind and Input's dims.
Expected<TypeList> quantizedResult(const Type &x, const Type &scale, const Type &zp) {
  EMBER_TRY(expectKind(scale, ElemKind::Float32, "scale"));
  EMBER_TRY(expectParameterOf(scale, x, "scale"));
  EMBER_TRY(expectByteKind(zp, "zero point"));
  EMBER_TRY(expectParameterOf(zp, x, "zero point"));
  return TypeList{Type(zp.kind, x.dims)};
}

} // namespace

Expected<TypeList> inferTypesQuantizeLinear(ArrayRef<Type> in, const AttrList &) {
  const Type &x = in[ops::QuantizeLinear::Input];
  if (!isFloatKind(x.kind) && x.kind != ElemKind::Int32)
    return makeError("input must be floating point or int32, got " + x.str());
  return quantizedResult(x, in[ops::QuantizeLinear::Scale], in[ops::QuantizeLinear::ZeroPoint]);
}

Expected<TypeList> inferTypesRequantize(ArrayRef<Type> in, const AttrList &) {
  const Type &x = in[ops::Requantize::Input];
  EMBER_TRY(expectKind(x, ElemKind::Int32, "input"));
  return quantizedResult(x, in[ops::Requantize::Scale], in[ops::Requantize::ZeroPoint]);
}

Expected<TypeList> inferTypesDequantizeLinear(ArrayRef<Type> in, const AttrList &) {
  const Type &x = in[ops::DequantizeLinear::Input], &scale = in[ops::DequantizeLinear::Scale];
  if (!isByteKind(x.kind) && x.kind != ElemKind::Int32)
    return makeError("input must be int8, uint8 or int32, got " + x.str());
  EMBER_TRY(expectKind(scale, ElemKind::Float32, "scale"));
  EMBER_TRY(expectParameterOf(scale, x, "scale"));
  EMBER_TRY(expectZeroPointOf(in[ops::DequantizeLinear::ZeroPoint], x, "zero point"));
  return TypeList{Type(ElemKind::Float32, x.dims)};
}

Expected<TypeList> inferTypesDynamicQuantizeLinear(ArrayRef<Type> in, const AttrList &) {
  const Type &x = in[ops::DynamicQuantizeLinear::Input];
  EMBER_TRY(expectKind(x, ElemKind::Float32, "input"));
  return TypeList{Type(ElemKind::UInt8, x.dims), Type(ElemKind::Float32, {}),
                  Type(ElemKind::UInt8, {})};
}

Expected<TypeList> inferTypesIntegerMatMul(ArrayRef<Type> in, const AttrList &) {
  const Type &a = in[ops::IntegerMatMul::LHS], &b = in[ops::IntegerMatMul::RHS];
  EMBER_TRY(expectByteKind(a, "LHS"));
  EMBER_TRY(expectByteKind(b, "RHS"));
  EMBER_TRY(expectZeroPointOf(in[ops::IntegerMatMul::LHSZeroPoint], a, "LHS zero point"));
  EMBER_TRY(expectZeroPointOf(in[ops::IntegerMatMul::RHSZeroPoint], b, "RHS zero point"));
  unsigned r = a.rank();
  if (r < 2 || b.rank() != r)
    return makeError("operands must have equal ranks >= 2, got " + a.str() + " x " + b.str());
  if (a.dims[r - 1] != b.dims[r - 2])
    return makeError("inner dimensions differ: " + a.str() + " x " + b.str());
  DimsVec dims;
  for (unsigned i = 0; i + 2 < r; ++i) {
    if (a.dims[i] != b.dims[i] && a.dims[i] != 1 && b.dims[i] != 1)
      return makeError("batch dims of " + a.str() + " and " + b.str() + " do not broadcast");
    dims.push_back(a.dims[i] == 1 ? b.dims[i] : a.dims[i]);
  }
  dims.push_back(a.dims[r - 2]);
  dims.push_back(b.dims[r - 1]);
  EMBER_ASSIGN_OR_RETURN(Type y, Type::checkedDims(ElemKind::Int32, dims));
  return TypeList{y};
}

Expected<TypeList> inferTypesIntegerConv(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[ops::IntegerConv::Input], &w = in[ops::IntegerConv::Filter],
             &bias = in[ops::IntegerConv::Bias];
  EMBER_TRY(expectByteKind(x, "input"));
  EMBER_TRY(expectByteKind(w, "filter"));
  EMBER_TRY(expectKind(bias, ElemKind::Int32, "bias"));
  EMBER_TRY(expectZeroPointOf(in[ops::IntegerConv::InputZeroPoint], x, "input zero point"));
  EMBER_TRY(expectZeroPointOf(in[ops::IntegerConv::FilterZeroPoint], w, "filter zero point"));
  EMBER_ASSIGN_OR_RETURN(DimsVec dims, convResultDims(x, w, bias, attrs));
  EMBER_ASSIGN_OR_RETURN(Type y, Type::checkedDims(ElemKind::Int32, dims));
  return TypeList{y};
}

} // namespace ember
