// ONNX quantization ops (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinearConv,
// QLinearMatMul, ConvInteger, MatMulInteger).
//
// Scales and zero points become parameter operands in the form Nodes/Quantized.def describes
// (the rank of the tensor they describe, 1s except along the quantized axis, row or column).
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

/// QuantizeLinear and DequantizeLinear: x, scale and the zero point (\p zeroKind zeros when
/// omitted), per tensor or, from opset 13, along 'axis'.
Error loadLinearQuantization(OpContext &ctx, NodeKind kind, ElemKind zeroKind) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue scale, ctx.input(1));
  NodeValue zp;
  if (ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(zp, ctx.input(2));
  } else {
    EMBER_ASSIGN_OR_RETURN(zp, ctx.createFilled(zeroKind, scale.getType().dims, 0, "zero_point"));
  }
  const Type &xt = x.getType(), &st = scale.getType();
  if (ArrayRef<dim_t>(zp.getType().dims) != ArrayRef<dim_t>(st.dims))
    return ctx.fail("scale " + st.str() + " and zero point " + zp.getType().str() +
                    " must have the same shape");
  unsigned axis = 0;
  dim_t axisSize = 1;
  if (st.numElements() != 1) {
    if (ctx.opset() < 13)
      return ctx.fail("per-axis scales need opset 13; scale is " + st.str());
    EMBER_ASSIGN_OR_RETURN(int64_t a, normalizeAxis(ctx.getInt("axis", 1), xt.rank()));
    axis = unsigned(a);
    axisSize = xt.dims[axis];
  }
  EMBER_ASSIGN_OR_RETURN(scale, axisParameter(ctx, scale, xt.rank(), axis, axisSize, "scale"));
  EMBER_ASSIGN_OR_RETURN(zp, axisParameter(ctx, zp, xt.rank(), axis, axisSize, "zero point"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(kind, {x, scale, zp}));
  return ctx.setOutput(0, y);
}

Error loadQuantizeLinear(OpContext &ctx) {
  return loadLinearQuantization(ctx, NodeKind::QuantizeLinear, ElemKind::UInt8);
}

Error loadDequantizeLinear(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  return loadLinearQuantization(ctx, NodeKind::DequantizeLinear, x.getType().kind);
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
  r.add("QuantizeLinear", 10, loadQuantizeLinear);
  r.add("DequantizeLinear", 10, loadDequantizeLinear);
  r.add("DynamicQuantizeLinear", 11, loadDynamicQuantizeLinear);
  r.add("MatMulInteger", 10, loadMatMulInteger);
  r.add("QLinearMatMul", 10, loadQLinearMatMul);
  r.add("ConvInteger", 10, loadConvInteger);
  r.add("QLinearConv", 10, loadQLinearConv);
}

} // namespace ember
