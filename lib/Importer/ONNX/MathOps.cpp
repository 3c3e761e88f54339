// ONNX element-wise arithmetic, activations, Gemm and MatMul.
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

/// Binary element-wise op with numpy broadcasting: both operands are broadcast to the common
/// shape, so the ember node sees equal types.
template <NodeKind K> Error loadBinary(OpContext &ctx) {
  if (ctx.opset() < 7 && ctx.hasAttr("broadcast"))
    return ctx.fail("legacy 'broadcast' attribute (opset < 7) is not supported");
  EMBER_ASSIGN_OR_RETURN(NodeValue a, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue b, ctx.input(1));
  if (a.getType().kind != b.getType().kind)
    return ctx.fail("operand types differ: " + a.getType().str() + " and " + b.getType().str());
  EMBER_ASSIGN_OR_RETURN(DimsVec dims, broadcastShapes(a.getType().dims, b.getType().dims));
  EMBER_ASSIGN_OR_RETURN(a, ctx.broadcastTo(a, dims));
  EMBER_ASSIGN_OR_RETURN(b, ctx.broadcastTo(b, dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue r, ctx.create(K, {a, b}));
  return ctx.setOutput(0, r);
}

template <NodeKind K> Error loadUnary(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue r, ctx.create(K, {x}));
  return ctx.setOutput(0, r);
}

/// A scalar of \p kind broadcast to \p dims, as a graph value.
Expected<NodeValue> splat(OpContext &ctx, float value, const Type &like, StringRef suffix) {
  if (like.kind != ElemKind::Float32)
    return ctx.fail("scaling factors are supported for float32 only, got " + like.str());
  Constant *c = ctx.createConstant(Tensor::fromValues<float>({1}, {value}), suffix);
  return ctx.broadcastTo(c->getResult(), like.dims);
}

Expected<NodeValue> transpose2D(OpContext &ctx, NodeValue v, StringRef suffix) {
  return ctx.create(NodeKind::Transpose, {v}, AttrList().set<AttrKind::Shuffle>({1, 0}), suffix);
}

/// Y = alpha * op(A) x op(B) + beta * C, with C broadcast to [M, N].
Error loadGemm(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue a, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue b, ctx.input(1));
  if (a.getType().rank() != 2 || b.getType().rank() != 2)
    return ctx.fail("A and B must be matrices, got " + a.getType().str() + " and " +
                    b.getType().str());
  float alpha = ctx.getFloat("alpha", 1.0f), beta = ctx.getFloat("beta", 1.0f);
  if (ctx.getInt("transA", 0)) {
    EMBER_ASSIGN_OR_RETURN(a, transpose2D(ctx, a, "transA"));
  }
  if (ctx.getInt("transB", 0)) {
    EMBER_ASSIGN_OR_RETURN(b, transpose2D(ctx, b, "transB"));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MatMul, {a, b}, {}, "matmul"));
  if (alpha != 1.0f) {
    EMBER_ASSIGN_OR_RETURN(NodeValue s, splat(ctx, alpha, y.getType(), "alpha"));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Mul, {y, s}, {}, "scale"));
  }
  if (ctx.hasInput(2) && beta != 0.0f) {
    EMBER_ASSIGN_OR_RETURN(NodeValue c, ctx.input(2));
    EMBER_ASSIGN_OR_RETURN(DimsVec dims, broadcastShapes(c.getType().dims, y.getType().dims));
    if (ArrayRef<dim_t>(dims) != ArrayRef<dim_t>(y.getType().dims))
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

/// numpy matmul for the cases a 2-D MatMul covers: 1-D operands are promoted and the promoted
/// dim removed again; a batched LHS times a matrix folds the batch into the rows.
Error loadMatMul(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue a, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue b, ctx.input(1));
  DimsVec ad = a.getType().dims, bd = b.getType().dims;
  if (ad.empty() || bd.empty())
    return ctx.fail("operands must not be scalars");
  if (bd.size() > 2)
    return ctx.fail("batched right operand " + b.getType().str() + " is not supported yet");
  bool aVector = ad.size() == 1, bVector = bd.size() == 1;
  if (bVector)
    bd = {bd[0], 1};
  dim_t k = ad.back(), rows = 1;
  for (size_t i = 0; i + 1 < ad.size(); ++i)
    rows *= ad[i];
  if (k != bd[0])
    return ctx.fail("inner dimensions differ: " + a.getType().str() + " x " + b.getType().str());
  EMBER_ASSIGN_OR_RETURN(NodeValue a2, ctx.reshape(a, {rows, k}));
  EMBER_ASSIGN_OR_RETURN(NodeValue b2, ctx.reshape(b, bd));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MatMul, {a2, b2}, {}, "matmul"));
  DimsVec outDims(ad.begin(), ad.end() - 1);
  if (!bVector)
    outDims.push_back(bd[1]);
  (void)aVector; // a 1-D LHS simply contributes no leading dims
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, outDims));
  return ctx.setOutput(0, y);
}

} // namespace

void registerMathOps(OpRegistry &r) {
  r.add("Add", 1, loadBinary<NodeKind::Add>);
  r.add("Sub", 1, loadBinary<NodeKind::Sub>);
  r.add("Mul", 1, loadBinary<NodeKind::Mul>);
  r.add("Div", 1, loadBinary<NodeKind::Div>);
  r.add("Relu", 1, loadUnary<NodeKind::Relu>);
  r.add("Sigmoid", 1, loadUnary<NodeKind::Sigmoid>);
  r.add("Tanh", 1, loadUnary<NodeKind::Tanh>);
  r.add("Gemm", 1, loadGemm);
  r.add("MatMul", 1, loadMatMul);
}

} // namespace ember
