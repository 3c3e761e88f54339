// ONNX matrix products: MatMul (numpy matmul semantics) and Gemm.
#include "OpContext.h"

#include "ember/Support/Error.h"

#include <cmath>
#include <string>

using namespace llvm;

namespace ember {

namespace {

/// \p value as a constant of \p like's kind broadcast to its dims. Integer kinds take only
/// values they hold exactly: ONNX gives no rounding rule for a fractional alpha on integers.
Expected<NodeValue> splat(OpContext &ctx, float value, const Type &like, StringRef what) {
  bool exact = std::isfinite(value);
  if (isIntegerKind(like.kind)) {
    int bits = int(8 * elemSize(like.kind));
    bool isSigned = like.kind == ElemKind::Int8 || like.kind == ElemKind::Int16 ||
                    like.kind == ElemKind::Int32 || like.kind == ElemKind::Int64;
    double low = isSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
    double high = std::ldexp(1.0, isSigned ? bits - 1 : bits);
    exact = exact && value == std::trunc(value) && value >= low && value < high;
  }
  if (!exact)
    return ctx.fail(what + " " + std::to_string(value) + " is not exactly representable as " +
                    elemKindName(like.kind) + " value");
  Tensor t(like.withDims({1}));
  t.fill(value);
  Constant *c = ctx.createConstant(std::move(t), what);
  return ctx.broadcastTo(c->getResult(), like.dims);
}

/// Y = alpha * op(A) x op(B) + beta * C, with C broadcast (unidirectionally) to [M, N]. Before
/// opset 7 a 'broadcast' attribute had to allow that; accepting it always is a superset.
Error loadGemm(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue a, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue b, ctx.input(1));
  if (a.getType().rank() != 2 || b.getType().rank() != 2)
    return ctx.fail("A and B must be matrices, got " + a.getType().str() + " and " +
                    b.getType().str());
  float alpha = ctx.getFloat("alpha", 1.0f), beta = ctx.getFloat("beta", 1.0f);
  if (ctx.getInt("transA", 0)) {
    EMBER_ASSIGN_OR_RETURN(a, ctx.transpose(a, {1, 0}, "transA"));
  }
  if (ctx.getInt("transB", 0)) {
    EMBER_ASSIGN_OR_RETURN(b, ctx.transpose(b, {1, 0}, "transB"));
  }
  if (a.getType().dims[1] != b.getType().dims[0])
    return ctx.fail("inner dimensions of op(A) " + a.getType().str() + " and op(B) " +
                    b.getType().str() + " differ");
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MatMul, {a, b}, {}, "matmul"));
  if (alpha != 1.0f) {
    EMBER_ASSIGN_OR_RETURN(NodeValue s, splat(ctx, alpha, y.getType(), "alpha"));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Mul, {y, s}, {}, "scale"));
  }
  // beta == 0 ignores C entirely (as onnxruntime does), so an inf or NaN in C stays out.
  if (ctx.hasInput(2) && beta != 0.0f) {
    EMBER_ASSIGN_OR_RETURN(NodeValue c, ctx.input(2));
    const DimsVec &product = y.getType().dims;
    EMBER_ASSIGN_OR_RETURN(DimsVec dims, broadcastShapes(c.getType().dims, product));
    if (dims != product)
      return ctx.fail("C " + c.getType().str() + " does not broadcast to the product " +
                      y.getType().str());
    EMBER_ASSIGN_OR_RETURN(c, ctx.broadcastTo(c, dims));
    if (beta != 1.0f) {
      EMBER_ASSIGN_OR_RETURN(NodeValue s, splat(ctx, beta, c.getType(), "beta"));
      EMBER_ASSIGN_OR_RETURN(c, ctx.create(NodeKind::Mul, {c, s}, {}, "beta_c"));
    }
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Add, {y, c}));
  }
  return ctx.setOutput(0, y);
}

/// numpy matmul: a 1-D LHS is a row [1, K] and a 1-D RHS a column [K, 1] (the added dim is
/// dropped again); the lower-rank operand gets leading 1s; the batch dims broadcast inside
/// MatMul.
Error loadMatMul(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue a, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue b, ctx.input(1));
  const Type &at = a.getType(), &bt = b.getType();
  if (at.rank() == 0 || bt.rank() == 0)
    return ctx.fail("operands must not be scalars, got " + at.str() + " and " + bt.str());
  bool aVector = at.rank() == 1, bVector = bt.rank() == 1;
  DimsVec ad = at.dims, bd = bt.dims;
  if (aVector)
    ad.insert(ad.begin(), 1);
  if (bVector)
    bd.push_back(1);
  size_t rank = std::max(ad.size(), bd.size());
  ad.insert(ad.begin(), rank - ad.size(), 1);
  bd.insert(bd.begin(), rank - bd.size(), 1);
  if (ad[rank - 1] != bd[rank - 2])
    return ctx.fail("inner dimensions differ: " + at.str() + " x " + bt.str());
  EMBER_ASSIGN_OR_RETURN(a, ctx.reshape(a, ad));
  EMBER_ASSIGN_OR_RETURN(b, ctx.reshape(b, bd));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MatMul, {a, b}));
  DimsVec outDims = y.getType().dims;
  if (bVector)
    outDims.pop_back();
  if (aVector)
    outDims.erase(outDims.end() - (bVector ? 1 : 2));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, outDims));
  return ctx.setOutput(0, y);
}

} // namespace

void registerNNMatMulOps(OpRegistry &r) {
  r.add("Gemm", 1, loadGemm);
  r.add("MatMul", 1, loadMatMul);
}

} // namespace ember
