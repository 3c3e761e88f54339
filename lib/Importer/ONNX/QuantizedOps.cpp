// ONNX quantization ops (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinearConv,
// QLinearMatMul, ConvInteger, MatMulInteger).
//
// Scales and zero points become parameter operands in the form Nodes/Quantized.def describes
// (the rank of the tensor they describe, 1s except along the quantized axis, row or column).
#include "DataMovementOps.h"
#include "ONNXTensor.h"
#include "OpContext.h"
#include "WindowAttrs.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

/// Input \p i, or a zero scalar of \p kind when the optional input is omitted.
Expected<NodeValue> inputOrZero(OpContext &ctx, unsigned i, ElemKind kind, StringRef suffix) {
  if (ctx.hasInput(i))
    return ctx.input(i);
  return ctx.createFilled(kind, {}, 0, suffix);
}

/// An ONNX scale or zero point \p p, per tensor (one element) or per axis (a 1-D tensor of
/// \p axisSize), as a parameter of a rank-\p rank tensor quantized along \p axis.
Expected<NodeValue> axisParameter(OpContext &ctx, NodeValue p, unsigned rank, unsigned axis,
                                  dim_t axisSize, StringRef what) {
  const Type &t = p.getType();
  DimsVec dims(rank, 1);
  if (t.numElements() != 1) {
    if (t.rank() != 1 || t.dims[0] != axisSize || axis >= rank)
      return ctx.fail(what + " " + t.str() + " must be a scalar or a 1-D tensor of " +
                      Twine(axisSize) + " elements");
    dims[axis] = axisSize;
  }
  return ctx.reshape(p, dims);
}

/// A per-tensor parameter: one element, as a parameter of a rank-\p rank tensor.
Expected<NodeValue> tensorParameter(OpContext &ctx, NodeValue p, unsigned rank, StringRef what) {
  if (p.getType().numElements() != 1)
    return ctx.fail(what + " " + p.getType().str() + " must have one element (per tensor)");
  return ctx.reshape(p, DimsVec(rank, 1));
}

/// Where a QuantizeLinear or DequantizeLinear scale lies along x: per tensor (one element), per
/// axis (1-D along 'axis', from opset 13) or, from opset 21, blocked ('block_size' > 0: x's rank,
/// 'axis' cut into blocks of block_size elements, the last one maybe shorter).
struct Granularity {
  unsigned axis = 0;
  dim_t axisSize = 1;
  int64_t block = 0;
};

Expected<Granularity> readGranularity(OpContext &ctx, const Type &xt, const Type &st) {
  Granularity g;
  if (st.numElements() == 1)
    return g;
  if (ctx.opset() < 13)
    return ctx.fail("per-axis scales need opset 13; scale is " + st.str());
  EMBER_ASSIGN_OR_RETURN(int64_t a, normalizeAxis(ctx.getInt("axis", 1), xt.rank()));
  g.axis = unsigned(a);
  g.axisSize = xt.dims[g.axis];
  g.block = ctx.opset() >= 21 ? ctx.getInt("block_size", 0) : 0;
  if (g.block < 0)
    return ctx.fail("block_size must be positive, got " + Twine(g.block));
  return g;
}

/// A blocked scale or zero point \p p (x's dims but ceil(n / block_size) along the axis of
/// length n) repeated block_size times along it and cut to n: one element per element of x,
/// which the nodes' parameter form holds, so every backend runs it as it is.
Expected<NodeValue> blockedParameter(OpContext &ctx, NodeValue p, const Type &xt,
                                     const Granularity &g, StringRef what) {
  const Type &t = p.getType();
  dim_t n = xt.dims[g.axis];
  // A block longer than the axis is the whole axis (and never a block of 2^63 elements).
  dim_t block = std::min<dim_t>(dim_t(g.block), n);
  dim_t blocks = block ? n / block + (n % block != 0) : 0;
  bool ok = t.rank() == xt.rank();
  for (unsigned d = 0; ok && d < t.rank(); ++d)
    ok = t.dims[d] == (d == g.axis ? blocks : xt.dims[d]);
  if (!ok)
    return ctx.fail(what + " " + t.str() + " must have the dims of x " + xt.str() + " but " +
                    Twine(blocks) + " along axis " + Twine(g.axis) + " (blocks of " +
                    Twine(g.block) + ")");
  DimsVec split(t.dims.begin(), t.dims.end());
  split.insert(split.begin() + g.axis + 1, 1);
  EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.reshape(p, split));
  split[g.axis + 1] = block;
  EMBER_ASSIGN_OR_RETURN(v, ctx.broadcastTo(v, split));
  DimsVec joined(t.dims.begin(), t.dims.end());
  joined[g.axis] = blocks * block;
  EMBER_ASSIGN_OR_RETURN(v, ctx.reshape(v, joined));
  return sliceAxis(ctx, v, g.axis, 0, n, "block");
}

/// A scale or zero point \p p of x \p xt in the parameter form of Nodes/Quantized.def.
Expected<NodeValue> quantizationParameter(OpContext &ctx, NodeValue p, const Type &xt,
                                          const Granularity &g, StringRef what) {
  if (g.block > 0)
    return blockedParameter(ctx, p, xt, g, what);
  return axisParameter(ctx, p, xt.rank(), g.axis, g.axisSize, what);
}

/// A scale and its zero point have the same shape, or one element each (a scalar and a [1], as
/// ONNX's own tests pair them: both per tensor).
Error expectParametersAlike(OpContext &ctx, const Type &scale, const Type &zp) {
  if (ArrayRef<dim_t>(zp.dims) == ArrayRef<dim_t>(scale.dims) ||
      (zp.numElements() == 1 && scale.numElements() == 1))
    return Error::success();
  return ctx.fail("scale " + scale.str() + " and zero point " + zp.str() +
                  " must have the same shape");
}

/// The element kind the attribute \p name (a TensorProto data type, 0 when absent) names.
Expected<ElemKind> kindAttr(OpContext &ctx, StringRef name, ElemKind def) {
  int64_t dataType = ctx.getInt(name, 0);
  if (dataType == 0)
    return def;
  auto kind = elemKindFromONNX(int(dataType));
  if (!kind)
    return ctx.fail("'" + name + "': " + toString(kind.takeError()));
  return *kind;
}

bool isByteKind(ElemKind k) { return k == ElemKind::Int8 || k == ElemKind::UInt8; }
/// The integer kinds quantized by element-wise steps rather than the nodes (opset 21).
bool isComposedIntKind(ElemKind k) {
  return k == ElemKind::Int16 || k == ElemKind::UInt16 || k == ElemKind::Int4 ||
         k == ElemKind::UInt4;
}
/// float8 (opset 19) and float4e2m1 (opset 23): quantized by Cast alone, with no zero point.
bool isNarrowFloatKind(ElemKind k) {
  return isNarrowKind(k) && k != ElemKind::Int4 && k != ElemKind::UInt4;
}
/// The floating-point kinds ONNX scales have (float8 E8M0 from opset 24 is no ember kind).
bool isScaleKind(ElemKind k) {
  return k == ElemKind::Float32 || k == ElemKind::Float16 || k == ElemKind::BFloat16;
}
/// The floating-point kinds ember computes in (not the narrow float8 and float4 ones).
bool isArithmeticFloat(ElemKind k) { return isScaleKind(k) || k == ElemKind::Float64; }

/// The opset from which QuantizeLinear and DequantizeLinear take quantized kind \p k.
int64_t firstQuantizationOpset(ElemKind k) {
  if (k == ElemKind::Float4E2M1)
    return 23;
  if (isComposedIntKind(k))
    return 21;
  return isNarrowFloatKind(k) ? 19 : 10;
}

/// The kind numpy divides \p a by \p b in (the ONNX reference's x / y_scale): a kind divided by
/// itself stays; an integer with anything gives float64, as does float64; other mixed floats
/// float32.
ElemKind divisionKind(ElemKind a, ElemKind b) {
  if (a == b && isArithmeticFloat(a))
    return a;
  if (!isArithmeticFloat(a) || !isArithmeticFloat(b) || a == ElemKind::Float64 ||
      b == ElemKind::Float64)
    return ElemKind::Float64;
  return ElemKind::Float32;
}

/// saturate(round(q) + zp) into the integer kind \p out (int16, uint16, int4, uint4) from the
/// quotient \p q (float), as the ONNX reference does it: round half to even, add the zero point
/// \p zp (already of q's dims), clamp, NaN to the kind's lowest value (as the QuantizeLinear
/// node does for 8 bits). The sum is taken in float32 (float64 for a float64 q): rounded
/// quotients and zero points of these kinds are exact there up to 2^24, and past that the
/// result saturates whatever the rounding.
Expected<NodeValue> quantizeToInteger(OpContext &ctx, NodeValue q, NodeValue zp, ElemKind out) {
  ElemKind f = q.getType().kind == ElemKind::Float64 ? ElemKind::Float64 : ElemKind::Float32;
  const DimsVec &dims = q.getType().dims;
  double lo = out == ElemKind::Int16 ? -32768 : out == ElemKind::Int4 ? -8 : 0;
  double hi = out == ElemKind::Int16 ? 32767 : out == ElemKind::UInt16 ? 65535
                                           : out == ElemKind::Int4    ? 7
                                                                      : 15;
  EMBER_ASSIGN_OR_RETURN(NodeValue r, ctx.create(NodeKind::Unary, {q},
                                                 AttrList().set<AttrKind::Function>("round"),
                                                 "round"));
  EMBER_ASSIGN_OR_RETURN(r, ctx.castTo(r, f, "rounded"));
  EMBER_ASSIGN_OR_RETURN(zp, ctx.castTo(zp, f, "zero_point"));
  EMBER_ASSIGN_OR_RETURN(NodeValue sum, ctx.create(NodeKind::Add, {r, zp}, {}, "shifted"));
  EMBER_ASSIGN_OR_RETURN(NodeValue lowest, ctx.createFilled(f, {}, lo, "lowest"));
  EMBER_ASSIGN_OR_RETURN(NodeValue highest, ctx.createFilled(f, {}, hi, "highest"));
  EMBER_ASSIGN_OR_RETURN(NodeValue clamped,
                         ctx.create(NodeKind::Clip, {sum, lowest, highest}, {}, "clamped"));
  EMBER_ASSIGN_OR_RETURN(NodeValue nan, ctx.create(NodeKind::IsNaN, {sum}, {}, "nan"));
  EMBER_ASSIGN_OR_RETURN(NodeValue lowestAll, ctx.broadcastTo(lowest, dims));
  EMBER_ASSIGN_OR_RETURN(clamped,
                         ctx.create(NodeKind::Where, {nan, lowestAll, clamped}, {}, "nan_lowest"));
  return ctx.castTo(clamped, out, "");
}

/// QuantizeLinear: x, y_scale and the optional zero point (its kind is the result's; else
/// output_dtype, from opset 21; else uint8), per tensor, per axis or blocked. int8 and uint8 are
/// the QuantizeLinear node; int16, uint16, int4 and uint4 (opset 21) its steps as element-wise
/// nodes. x is divided by the scale in the kind numpy divides them in, as the ONNX reference
/// does (from opset 23, 'precision' names it): where the node would divide otherwise, the
/// quotient is computed first and the node divides it by 1. As the reference, a float8 result
/// is the quotient cast to it (saturating unless 'saturate' is 0), the zero point unused, and a
/// float4e2m1 one (opset 23) the quotient plus the zero point, cast.
Error loadQuantizeLinear(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue scale, ctx.input(1));
  const Type &xt = x.getType(), &st = scale.getType();
  ElemKind out = ElemKind::UInt8;
  if (ctx.opset() >= 21) {
    EMBER_ASSIGN_OR_RETURN(out, kindAttr(ctx, "output_dtype", out));
  }
  NodeValue zp;
  if (ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(zp, ctx.input(2));
    ElemKind zk = zp.getType().kind;
    if (ctx.getInt("output_dtype", 0) != 0 && zk != out)
      return ctx.fail("output_dtype " + elemKindName(out) + " differs from the zero point's kind " +
                      elemKindName(zk));
    out = zk;
  }
  if (!isByteKind(out) && !isComposedIntKind(out) && !isNarrowFloatKind(out))
    return ctx.fail("cannot quantize to " + elemKindName(out) +
                    ": ember quantizes to int8, uint8, int16, uint16, int4, uint4, float8 and "
                    "float4e2m1");
  if (ctx.opset() < firstQuantizationOpset(out))
    return ctx.fail("quantizing to " + elemKindName(out) + " needs opset " +
                    Twine(firstQuantizationOpset(out)));
  if (!isArithmeticFloat(xt.kind) && xt.kind != ElemKind::Int32)
    return ctx.fail("x must be floating point or int32, got " + xt.str());
  if (!isArithmeticFloat(st.kind) && st.kind != ElemKind::Int32)
    return ctx.fail("scale must be floating point or int32, got " + st.str());
  if (!zp) {
    EMBER_ASSIGN_OR_RETURN(zp, ctx.createFilled(out, st.dims, 0, "zero_point"));
  }
  EMBER_TRY(expectParametersAlike(ctx, st, zp.getType()));
  EMBER_ASSIGN_OR_RETURN(Granularity g, readGranularity(ctx, xt, st));
  EMBER_ASSIGN_OR_RETURN(scale, quantizationParameter(ctx, scale, xt, g, "scale"));
  EMBER_ASSIGN_OR_RETURN(zp, quantizationParameter(ctx, zp, xt, g, "zero point"));

  ElemKind div = divisionKind(xt.kind, st.kind);
  if (ctx.opset() >= 23) {
    EMBER_ASSIGN_OR_RETURN(div, kindAttr(ctx, "precision", div));
    if (!isArithmeticFloat(div))
      return ctx.fail("precision must be a floating-point kind, got " + elemKindName(div));
    // numpy rounds x and the scale to bfloat16 to nearest even, ember's Cast truncates.
    if (div == ElemKind::BFloat16 &&
        (xt.kind != ElemKind::BFloat16 || st.kind != ElemKind::BFloat16))
      return ctx.fail("precision bfloat16 needs bfloat16 x and scale (ember's Cast to bfloat16 "
                      "truncates, the reference rounds to nearest even); x is " + xt.str() +
                      ", scale " + st.str());
  }
  // The node divides in float32 a float32, float16 or bfloat16 x, in float64 a float64 or int32
  // one, by a float32 scale (which a 16-bit float scale converts to exactly).
  ElemKind nodeDiv = xt.kind == ElemKind::Float64 || xt.kind == ElemKind::Int32
                         ? ElemKind::Float64
                         : ElemKind::Float32;
  if (isByteKind(out) && isScaleKind(st.kind) && div == nodeDiv) {
    EMBER_ASSIGN_OR_RETURN(scale, ctx.castTo(scale, ElemKind::Float32, "scale"));
    EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::QuantizeLinear, {x, scale, zp}));
    return ctx.setOutput(0, y);
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue xd, ctx.castTo(x, div, "x"));
  EMBER_ASSIGN_OR_RETURN(NodeValue sd, ctx.castTo(scale, div, "scale"));
  EMBER_ASSIGN_OR_RETURN(sd, ctx.broadcastTo(sd, xt.dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue q, ctx.create(NodeKind::Div, {xd, sd}, {}, "quotient"));
  NodeValue y;
  if (isByteKind(out)) {
    EMBER_ASSIGN_OR_RETURN(NodeValue one,
                           ctx.createFilled(ElemKind::Float32, DimsVec(xt.rank(), 1), 1, "one"));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::QuantizeLinear, {q, one, zp}));
  } else if (isComposedIntKind(out)) {
    EMBER_ASSIGN_OR_RETURN(zp, ctx.broadcastTo(zp, xt.dims));
    EMBER_ASSIGN_OR_RETURN(y, quantizeToInteger(ctx, q, zp, out));
  } else {
    if (out == ElemKind::Float4E2M1) {
      EMBER_ASSIGN_OR_RETURN(zp, ctx.castTo(zp, q.getType().kind, "zero_point"));
      EMBER_ASSIGN_OR_RETURN(zp, ctx.broadcastTo(zp, xt.dims));
      EMBER_ASSIGN_OR_RETURN(q, ctx.create(NodeKind::Add, {q, zp}, {}, "shifted"));
    }
    AttrList cast;
    cast.set<AttrKind::ResultKind>(elemKindName(out).str());
    if (out != ElemKind::Float4E2M1 && ctx.getInt("saturate", 1) == 0)
      cast.set<AttrKind::Saturate>(0);
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Cast, {q}, cast));
  }
  return ctx.setOutput(0, y);
}

/// DequantizeLinear: x, x_scale and the optional zero point (zeros of x's kind), per tensor, per
/// axis or blocked. As the ONNX reference: (x - zero point) * scale in float32, then rounded to
/// the result kind, the scale's (float32, float16, bfloat16) or, from opset 23, output_dtype.
/// int8, uint8 and int32 are the DequantizeLinear node; int16, uint16, int4 and uint4 (opset
/// 21) its steps as element-wise nodes (exact in float32 too); float8 (opset 19) and float4e2m1
/// (opset 23) x is converted as it is, the zero point unused, as the reference does.
Error loadDequantizeLinear(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue scale, ctx.input(1));
  const Type &xt = x.getType(), &st = scale.getType();
  bool viaNode = isByteKind(xt.kind) || xt.kind == ElemKind::Int32;
  if (!viaNode && !isComposedIntKind(xt.kind) && !isNarrowFloatKind(xt.kind))
    return ctx.fail("cannot dequantize " + xt.str() +
                    ": ember dequantizes int8, uint8, int16, uint16, int32, int4, uint4, float8 "
                    "and float4e2m1");
  if (ctx.opset() < firstQuantizationOpset(xt.kind))
    return ctx.fail("dequantizing " + elemKindName(xt.kind) + " needs opset " +
                    Twine(firstQuantizationOpset(xt.kind)));
  if (!isScaleKind(st.kind))
    return ctx.fail("scale must be float32, float16 or bfloat16, got " + st.str());
  ElemKind out = st.kind;
  if (ctx.opset() >= 23) {
    EMBER_ASSIGN_OR_RETURN(out, kindAttr(ctx, "output_dtype", out));
  }
  if (!isArithmeticFloat(out))
    return ctx.fail("output_dtype must be a floating-point kind, got " + elemKindName(out));
  NodeValue zp;
  if (ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(zp, ctx.input(2));
    if (zp.getType().kind != xt.kind)
      return ctx.fail("zero point " + zp.getType().str() + " must have the kind of x " +
                      xt.str());
  } else {
    EMBER_ASSIGN_OR_RETURN(zp, ctx.createFilled(xt.kind, st.dims, 0, "zero_point"));
  }
  EMBER_TRY(expectParametersAlike(ctx, st, zp.getType()));
  EMBER_ASSIGN_OR_RETURN(Granularity g, readGranularity(ctx, xt, st));
  EMBER_ASSIGN_OR_RETURN(scale, quantizationParameter(ctx, scale, xt, g, "scale"));
  EMBER_ASSIGN_OR_RETURN(zp, quantizationParameter(ctx, zp, xt, g, "zero point"));
  // The reference rounds the float32 product to bfloat16 to nearest even, and ember's Cast to
  // bfloat16 truncates. A bfloat16 Mul rounds so: its operands are exact when the scale is
  // bfloat16 and x - zero point has at most 8 significant bits (an 8- or 4-bit difference, a
  // float8 or float4 value).
  bool bfloat16 = out == ElemKind::BFloat16;
  if (bfloat16 && (st.kind != ElemKind::BFloat16 || xt.kind == ElemKind::Int32 ||
                   xt.kind == ElemKind::Int16 || xt.kind == ElemKind::UInt16))
    return ctx.fail("a bfloat16 result needs a bfloat16 scale and x of 8 bits or fewer (ember "
                    "rounds to bfloat16 only in bfloat16 arithmetic); x is " + xt.str() +
                    ", scale " + st.str());
  NodeValue y;
  if (viaNode && !bfloat16) {
    EMBER_ASSIGN_OR_RETURN(scale, ctx.castTo(scale, ElemKind::Float32, "scale"));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::DequantizeLinear, {x, scale, zp}));
  } else {
    // x - zero point in float32, exact for all these kinds.
    EMBER_ASSIGN_OR_RETURN(NodeValue d, ctx.castTo(x, ElemKind::Float32, "x"));
    if (!isNarrowFloatKind(xt.kind)) {
      EMBER_ASSIGN_OR_RETURN(zp, ctx.castTo(zp, ElemKind::Float32, "zero_point"));
      EMBER_ASSIGN_OR_RETURN(zp, ctx.broadcastTo(zp, xt.dims));
      EMBER_ASSIGN_OR_RETURN(d, ctx.create(NodeKind::Sub, {d, zp}, {}, "shifted"));
    }
    ElemKind product = bfloat16 ? ElemKind::BFloat16 : ElemKind::Float32;
    EMBER_ASSIGN_OR_RETURN(d, ctx.castTo(d, product, "shifted"));
    EMBER_ASSIGN_OR_RETURN(scale, ctx.castTo(scale, product, "scale"));
    EMBER_ASSIGN_OR_RETURN(scale, ctx.broadcastTo(scale, xt.dims));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Mul, {d, scale}, {}, "scaled"));
  }
  EMBER_ASSIGN_OR_RETURN(y, ctx.castTo(y, out, ""));
  return ctx.setOutput(0, y);
}

Error loadDynamicQuantizeLinear(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::DynamicQuantizeLinear, {x}));
  for (unsigned i = 0; i < 3; ++i)
    EMBER_TRY(ctx.setOutput(i, y.node->getResult(i)));
  return Error::success();
}

/// Requantize(acc, (scaleA * scaleB) / outScale, outZero): the multiplier in onnxruntime's
/// order. The scales are parameters of \p acc already; the multiplier takes their joint dims.
/// 16-bit float scales (QLinearMatMul-21) give the multiplier in their kind, as the ONNX
/// reference computes it, then exactly in float32.
Expected<NodeValue> requantize(OpContext &ctx, NodeValue acc, NodeValue scaleA, NodeValue scaleB,
                               NodeValue outScale, NodeValue outZero) {
  EMBER_ASSIGN_OR_RETURN(DimsVec dims, broadcastShapes(scaleA.getType().dims,
                                                       scaleB.getType().dims));
  EMBER_ASSIGN_OR_RETURN(scaleA, ctx.broadcastTo(scaleA, dims));
  EMBER_ASSIGN_OR_RETURN(scaleB, ctx.broadcastTo(scaleB, dims));
  EMBER_ASSIGN_OR_RETURN(outScale, ctx.broadcastTo(outScale, dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue product,
                         ctx.create(NodeKind::Mul, {scaleA, scaleB}, {}, "input_scale"));
  EMBER_ASSIGN_OR_RETURN(NodeValue multiplier,
                         ctx.create(NodeKind::Div, {product, outScale}, {}, "multiplier"));
  EMBER_ASSIGN_OR_RETURN(multiplier, ctx.castTo(multiplier, ElemKind::Float32, "multiplier"));
  return ctx.create(NodeKind::Requantize, {acc, multiplier, outZero});
}

// ---- Integer matrix products -------------------------------------------------------------

/// numpy matmul operands promoted to IntegerMatMul's form: equal ranks >= 2 (a 1-D LHS is a
/// row, a 1-D RHS a column, leading 1s added to the lower rank).
struct MatMulOperands {
  NodeValue lhs, rhs;
  bool lhsVector, rhsVector;
  unsigned rank() const { return lhs.getType().rank(); }
};

Expected<MatMulOperands> promoteMatMulOperands(OpContext &ctx, NodeValue a, NodeValue b) {
  DimsVec ad = a.getType().dims, bd = b.getType().dims;
  if (ad.empty() || bd.empty())
    return ctx.fail("matrix product operands must not be scalars: " + a.getType().str() + " x " +
                    b.getType().str());
  MatMulOperands m;
  m.lhsVector = ad.size() == 1;
  m.rhsVector = bd.size() == 1;
  if (m.lhsVector)
    ad.insert(ad.begin(), 1);
  if (m.rhsVector)
    bd.push_back(1);
  while (ad.size() < bd.size())
    ad.insert(ad.begin(), 1);
  while (bd.size() < ad.size())
    bd.insert(bd.begin(), 1);
  EMBER_ASSIGN_OR_RETURN(m.lhs, ctx.reshape(a, ad));
  EMBER_ASSIGN_OR_RETURN(m.rhs, ctx.reshape(b, bd));
  return m;
}

/// An ONNX matmul scale or zero point of the LHS (per row) or RHS (per column) as a parameter
/// of the promoted operand \p op: one element, a 1-D vector of M rows / N columns, or an N-D
/// tensor ([D.., M, 1] / [D.., 1, N]) that gets leading 1s.
Expected<NodeValue> matmulParameter(OpContext &ctx, NodeValue p, NodeValue op, bool lhs,
                                    StringRef what) {
  const Type &t = p.getType(), &ot = op.getType();
  unsigned r = ot.rank();
  if (t.numElements() == 1)
    return ctx.reshape(p, DimsVec(r, 1));
  if (t.rank() == 1) {
    unsigned axis = lhs ? r - 2 : r - 1;
    return axisParameter(ctx, p, r, axis, ot.dims[axis], what);
  }
  if (t.rank() > r)
    return ctx.fail(what + " " + t.str() + " has a higher rank than its operand " + ot.str());
  DimsVec dims(r - t.rank(), 1);
  dims.append(t.dims.begin(), t.dims.end());
  return ctx.reshape(p, dims);
}

/// IntegerMatMul of inputs \p a and \p b with zero points \p aZero / \p bZero (ONNX forms).
Expected<NodeValue> integerMatMul(OpContext &ctx, const MatMulOperands &m, NodeValue aZero,
                                  NodeValue bZero) {
  EMBER_ASSIGN_OR_RETURN(aZero, matmulParameter(ctx, aZero, m.lhs, true, "a_zero_point"));
  EMBER_ASSIGN_OR_RETURN(bZero, matmulParameter(ctx, bZero, m.rhs, false, "b_zero_point"));
  return ctx.create(NodeKind::IntegerMatMul, {m.lhs, m.rhs, aZero, bZero}, {}, "acc");
}

/// Drops the dims promoteMatMulOperands added for 1-D operands from the product \p y.
Expected<NodeValue> unpromote(OpContext &ctx, const MatMulOperands &m, NodeValue y) {
  DimsVec dims = y.getType().dims;
  if (m.rhsVector)
    dims.erase(dims.end() - 1);
  if (m.lhsVector)
    dims.erase(dims.end() - (m.rhsVector ? 1 : 2));
  return ctx.reshape(y, dims);
}

Error loadMatMulInteger(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue a, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue b, ctx.input(1));
  EMBER_ASSIGN_OR_RETURN(MatMulOperands m, promoteMatMulOperands(ctx, a, b));
  EMBER_ASSIGN_OR_RETURN(NodeValue aZero, inputOrZero(ctx, 2, a.getType().kind, "a_zero"));
  EMBER_ASSIGN_OR_RETURN(NodeValue bZero, inputOrZero(ctx, 3, b.getType().kind, "b_zero"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, integerMatMul(ctx, m, aZero, bZero));
  EMBER_ASSIGN_OR_RETURN(y, unpromote(ctx, m, y));
  return ctx.setOutput(0, y);
}

/// Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point.
Error loadQLinearMatMul(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(8));
  EMBER_ASSIGN_OR_RETURN(MatMulOperands m, promoteMatMulOperands(ctx, in[0], in[3]));
  EMBER_ASSIGN_OR_RETURN(NodeValue acc, integerMatMul(ctx, m, in[2], in[5]));
  unsigned r = m.rank();
  EMBER_ASSIGN_OR_RETURN(NodeValue aScale, matmulParameter(ctx, in[1], m.lhs, true, "a_scale"));
  EMBER_ASSIGN_OR_RETURN(NodeValue bScale, matmulParameter(ctx, in[4], m.rhs, false, "b_scale"));
  EMBER_ASSIGN_OR_RETURN(NodeValue yScale, tensorParameter(ctx, in[6], r, "y_scale"));
  EMBER_ASSIGN_OR_RETURN(NodeValue yZero, tensorParameter(ctx, in[7], r, "y_zero_point"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, requantize(ctx, acc, aScale, bScale, yScale, yZero));
  EMBER_ASSIGN_OR_RETURN(y, unpromote(ctx, m, y));
  return ctx.setOutput(0, y);
}

// ---- Integer convolutions ----------------------------------------------------------------

/// IntegerConv's window attributes for input \p x and filter \p w, auto_pad resolved: the same
/// reading as the float Conv's (WindowAttrs.h).
Expected<AttrList> convWindow(OpContext &ctx, const Type &x, const Type &w) {
  if (x.rank() < 3 || w.rank() != x.rank())
    return ctx.fail("input " + x.str() + " must be [N, C, D1, ...] and filter " + w.str() +
                    " of the same rank");
  EMBER_ASSIGN_OR_RETURN(WindowAttrs win, readWindowAttrs(ctx, x, filterKernels(ctx, w)));
  resolveForwardAutoPad(win, x);
  AttrList attrs = windowAttrList(win);
  attrs.set<AttrKind::Dilations>(win.dilations).set<AttrKind::Group>(ctx.getInt("group", 1));
  return attrs;
}

/// IntegerConv of \p x and \p w; the input zero point is per tensor, the filter's per tensor or
/// per output channel (ONNX forms).
Expected<NodeValue> integerConv(OpContext &ctx, NodeValue x, NodeValue w, NodeValue bias,
                                NodeValue xZero, NodeValue wZero) {
  const Type &xt = x.getType(), &wt = w.getType();
  EMBER_ASSIGN_OR_RETURN(AttrList attrs, convWindow(ctx, xt, wt));
  EMBER_ASSIGN_OR_RETURN(xZero, tensorParameter(ctx, xZero, xt.rank(), "x_zero_point"));
  EMBER_ASSIGN_OR_RETURN(wZero,
                         axisParameter(ctx, wZero, wt.rank(), 0, wt.dims[0], "w_zero_point"));
  return ctx.create(NodeKind::IntegerConv, {x, w, bias, xZero, wZero}, std::move(attrs), "acc");
}

Error loadConvInteger(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue w, ctx.input(1));
  if (w.getType().rank() < 1)
    return ctx.fail("filter must be [M, C/group, k1, ...], got " + w.getType().str());
  EMBER_ASSIGN_OR_RETURN(NodeValue xZero, inputOrZero(ctx, 2, x.getType().kind, "x_zero"));
  EMBER_ASSIGN_OR_RETURN(NodeValue wZero, inputOrZero(ctx, 3, w.getType().kind, "w_zero"));
  EMBER_ASSIGN_OR_RETURN(NodeValue bias,
                         ctx.createFilled(ElemKind::Int32, {w.getType().dims[0]}, 0, "bias"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, integerConv(ctx, x, w, bias, xZero, wZero));
  return ctx.setOutput(0, y);
}

/// Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, [B].
Error loadQLinearConv(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(8));
  const Type &wt = in[3].getType();
  if (wt.rank() < 1)
    return ctx.fail("filter must be [M, C/group, k1, ...], got " + wt.str());
  dim_t channels = wt.dims[0];
  NodeValue bias;
  if (ctx.hasInput(8)) {
    EMBER_ASSIGN_OR_RETURN(bias, ctx.input(8));
  } else {
    EMBER_ASSIGN_OR_RETURN(bias, ctx.createFilled(ElemKind::Int32, {channels}, 0, "bias"));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue acc, integerConv(ctx, in[0], in[3], bias, in[2], in[5]));
  unsigned r = acc.getType().rank();
  EMBER_ASSIGN_OR_RETURN(NodeValue xScale, tensorParameter(ctx, in[1], r, "x_scale"));
  EMBER_ASSIGN_OR_RETURN(NodeValue wScale, axisParameter(ctx, in[4], r, 1, channels, "w_scale"));
  EMBER_ASSIGN_OR_RETURN(NodeValue yScale, tensorParameter(ctx, in[6], r, "y_scale"));
  EMBER_ASSIGN_OR_RETURN(NodeValue yZero, tensorParameter(ctx, in[7], r, "y_zero_point"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, requantize(ctx, acc, xScale, wScale, yScale, yZero));
  return ctx.setOutput(0, y);
}

} // namespace

void registerQuantizedOps(OpRegistry &r) {
  // One loader for every version: it reads each attribute from the opset that brought it
  // (QuantizeLinear-19: saturate; 21: blocks, 16-bit kinds, QuantizeLinear's output_dtype; 23:
  // QuantizeLinear's precision, DequantizeLinear's output_dtype). 24 and 25 added only kinds
  // ember does not have (float8 E8M0 scales, int2), which the loaders refuse;
  // DequantizeLinear-19 is a widened version (ONNXOpsetChanges.cpp).
  for (int64_t opset : {10, 19, 21, 23, 24, 25})
    r.add("QuantizeLinear", opset, loadQuantizeLinear);
  for (int64_t opset : {10, 21, 23, 24, 25})
    r.add("DequantizeLinear", opset, loadDequantizeLinear);
  r.add("DynamicQuantizeLinear", 11, loadDynamicQuantizeLinear);
  r.add("MatMulInteger", 10, loadMatMulInteger);
  r.add("QLinearMatMul", 10, loadQLinearMatMul);
  r.add("ConvInteger", 10, loadConvInteger);
  r.add("QLinearConv", 10, loadQLinearConv);
}

} // namespace ember
