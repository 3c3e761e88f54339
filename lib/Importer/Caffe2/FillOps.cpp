// Caffe2's fill operators: how an init_net holds the weights (GivenTensor*Fill with literal
// values, ConstantFill), as caffe2/operators/given_tensor_fill_op.h (and .cc, the Fp16 form),
// given_tensor_byte_string_to_uint8_fill_op.h, filler_op.h and quantized/int8_given_tensor_fill_op.h
// define them. Each output becomes a Constant named after its blob.
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

/// The fill's `shape` argument (FillerOp: `shape`, then `extra_shape` appended); negative dims
/// are refused.
Expected<Type> fillType(OpContext &ctx, ElemKind kind) {
  std::vector<int64_t> shape = ctx.getInts("shape");
  for (int64_t d : ctx.getInts("extra_shape"))
    shape.push_back(d);
  if (ctx.getInt("input_as_shape", 0))
    return ctx.fail("input_as_shape needs an input; a fill without inputs takes `shape`");
  auto ty = Type::checked(kind, shape);
  if (!ty)
    return withContext(ty.takeError(), "argument 'shape'");
  return ty;
}

Error bindConstant(OpContext &ctx, Tensor t) {
  if (ctx.numOutputs() != 1)
    return ctx.fail("expects one output, got " + Twine(ctx.numOutputs()));
  Constant *c = ctx.module().createConstant(std::move(t), ctx.proto().output(0));
  return ctx.setOutput(0, c->getResult());
}

Error checkCount(OpContext &ctx, size_t have, const Type &ty) {
  if (have != ty.numElements())
    return ctx.fail("argument 'values' holds " + Twine(have) + " values, but `shape` [" +
                    dimsToString(ty.dims) + "] needs " + Twine(ty.numElements()));
  return Error::success();
}

/// GivenTensorFill (float `values`), GivenTensorDoubleFill.
template <ElemKind K, typename T> Error loadGivenFloats(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(Type ty, fillType(ctx, K));
  std::vector<float> values = ctx.getFloats("values");
  EMBER_TRY(checkCount(ctx, values.size(), ty));
  Tensor t(ty);
  for (size_t i = 0; i < values.size(); ++i)
    t.dataAs<T>()[i] = T(values[i]);
  return bindConstant(ctx, std::move(t));
}

/// GivenTensorFp16Fill: float `values` rounded to float16 (to nearest even, as at::Half does).
Error loadGivenFp16(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(Type ty, fillType(ctx, ElemKind::Float16));
  std::vector<float> values = ctx.getFloats("values");
  EMBER_TRY(checkCount(ctx, values.size(), ty));
  Tensor t(ty);
  for (size_t i = 0; i < values.size(); ++i)
    t.setElementFromDouble(i, double(values[i]));
  return bindConstant(ctx, std::move(t));
}

/// GivenTensorIntFill, GivenTensorInt64Fill, GivenTensorInt16Fill, GivenTensorBoolFill:
/// integer `values` (field ints) converted to the element type as C++ converts them.
template <ElemKind K, typename T> Error loadGivenInts(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(Type ty, fillType(ctx, K));
  std::vector<int64_t> values = ctx.getInts("values");
  EMBER_TRY(checkCount(ctx, values.size(), ty));
  Tensor t(ty);
  for (size_t i = 0; i < values.size(); ++i)
    t.dataAs<T>()[i] = T(values[i]);
  return bindConstant(ctx, std::move(t));
}

/// The bytes of a `values` argument that is one string (field strings with one entry, or s).
Expected<std::string> byteValues(OpContext &ctx) {
  const caffe2::Argument *a = ctx.arg("values");
  if (!a)
    return ctx.fail("argument 'values' is required");
  if (a->strings_size() == 1)
    return a->strings(0);
  if (a->has_s())
    return a->s();
  return ctx.fail("argument 'values' must be one byte string");
}

/// GivenTensorByteStringToUInt8Fill: the bytes of one string, as uint8.
Error loadByteStringFill(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(Type ty, fillType(ctx, ElemKind::UInt8));
  EMBER_ASSIGN_OR_RETURN(std::string bytes, byteValues(ctx));
  EMBER_TRY(checkCount(ctx, bytes.size(), ty));
  Tensor t(ty);
  std::copy(bytes.begin(), bytes.end(), t.dataAs<char>());
  return bindConstant(ctx, std::move(t));
}

/// ConstantFill without inputs: `shape`, `value` of `dtype` (FLOAT by default; an integer
/// dtype reads `value` from field i). With an input the fill takes the input's shape.
Error loadConstantFill(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(ElemKind kind,
                         elemKindFromCaffe2(int(ctx.getInt("dtype", caffe2::TensorProto::FLOAT))));
  Type ty;
  if (ctx.numInputs() > 0) {
    EMBER_ASSIGN_OR_RETURN(NodeValue in, ctx.input(0));
    if (ctx.getInt("input_as_shape", 0)) {
      EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.constantInts(0));
      EMBER_ASSIGN_OR_RETURN(ty, Type::checked(kind, shape));
    } else {
      ty = Type(kind, in.getType().dims);
      std::vector<int64_t> extra = ctx.getInts("extra_shape");
      for (int64_t d : extra)
        ty.dims.push_back(dim_t(d));
      EMBER_ASSIGN_OR_RETURN(ty, Type::checkedDims(kind, ty.dims));
    }
  } else {
    EMBER_ASSIGN_OR_RETURN(ty, fillType(ctx, kind));
  }
  double value = isFloatKind(kind) ? double(ctx.getFloat("value", 0)) : double(ctx.getInt("value", 0));
  // The shape alone may claim any size: refuse what the memory budget cannot hold.
  EMBER_ASSIGN_OR_RETURN(Tensor t, ctx.newTensor(ty, "the filled constant"));
  t.fill(value);
  return bindConstant(ctx, std::move(t));
}

/// Int8GivenTensorFill: uint8 `values` as one byte string, with `Y_scale` and `Y_zero_point`.
Error loadInt8GivenTensorFill(OpContext &ctx) {
  float scale = ctx.getFloat("Y_scale", 1);
  int64_t zeroPoint = ctx.getInt("Y_zero_point", 0);
  if (!(scale > 0) || zeroPoint < 0 || zeroPoint > 255)
    return ctx.fail("Y_scale " + std::to_string(scale) + " must be > 0 and Y_zero_point " +
                    Twine(zeroPoint) + " in [0, 255]");
  EMBER_ASSIGN_OR_RETURN(Type ty, fillType(ctx, ElemKind::UInt8));
  EMBER_ASSIGN_OR_RETURN(std::string bytes, byteValues(ctx));
  EMBER_TRY(checkCount(ctx, bytes.size(), ty));
  Tensor t(ty);
  std::copy(bytes.begin(), bytes.end(), t.dataAs<char>());
  if (ctx.numOutputs() != 1)
    return ctx.fail("expects one output, got " + Twine(ctx.numOutputs()));
  Constant *c = ctx.module().createConstant(std::move(t), ctx.proto().output(0));
  return ctx.setQuantOutput(0, c->getResult(), {scale, int32_t(zeroPoint)});
}

/// Int8GivenIntTensorFill: int32 `values` (a quantized bias, whose scale Caffe2's int8
/// operators take to be input scale times filter scale), kept as plain int32.
Error loadInt8GivenIntTensorFill(OpContext &ctx) {
  return loadGivenInts<ElemKind::Int32, int32_t>(ctx);
}

} // namespace

void registerFillOps(OpRegistry &r) {
  r.add("GivenTensorFill", loadGivenFloats<ElemKind::Float32, float>);
  r.add("GivenTensorDoubleFill", loadGivenFloats<ElemKind::Float64, double>);
  r.add("GivenTensorFp16Fill", loadGivenFp16);
  r.add("GivenTensorIntFill", loadGivenInts<ElemKind::Int32, int32_t>);
  r.add("GivenTensorInt16Fill", loadGivenInts<ElemKind::Int16, int16_t>);
  r.add("GivenTensorInt64Fill", loadGivenInts<ElemKind::Int64, int64_t>);
  r.add("GivenTensorBoolFill", loadGivenInts<ElemKind::Bool, bool>);
  r.add("GivenTensorByteStringToUInt8Fill", loadByteStringFill);
  r.add("ConstantFill", loadConstantFill);
  r.add("Int8GivenTensorFill", loadInt8GivenTensorFill);
  r.add("Int8GivenIntTensorFill", loadInt8GivenIntTensorFill);
}

} // namespace c2
} // namespace ember
