// Caffe2's matrix products: FC and FCTransposed (fully_connected_op.h), MatMul (matmul_op.h)
// and BatchMatMul (batch_matmul_op.h). Operands are "coerced to 2-D" at an axis as Caffe2 does:
// the dims before it multiply into rows, the rest into columns.
#include "OpContext.h"

#include "ember/Base/Dims.h"
#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

/// Caffe2's canonical_axis_index: a negative axis counts from the end.
Expected<size_t> canonicalAxis(OpContext &ctx, StringRef arg, int64_t axis, size_t rank) {
  int64_t r = int64_t(rank);
  if (axis < -r || axis > r)
    return ctx.fail("argument '" + arg + "' " + Twine(axis) + " is out of range for rank " +
                    Twine(rank));
  return size_t(axis < 0 ? axis + r : axis);
}

/// [prod(dims[:axis]), prod(dims[axis:])].
Expected<NodeValue> coerce2D(OpContext &ctx, NodeValue v, size_t axis) {
  ArrayRef<dim_t> dims = v.getType().dims;
  return ctx.reshape(v, {dimsProduct(dims.take_front(axis)), dimsProduct(dims.drop_front(axis))});
}

/// FC: Y = X W^T + b with X coerced at `axis` to [M, K], W at `axis_w` to [N, K] (FC) or
/// [K, N] (FCTransposed), b [N]; Y has X's dims before `axis`, then N.
template <bool Transposed> Error loadFC(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(3));
  NodeValue x = in[0], w = in[1], b = in[2];
  EMBER_ASSIGN_OR_RETURN(size_t axis,
                         canonicalAxis(ctx, "axis", ctx.getInt("axis", 1), x.getType().rank()));
  EMBER_ASSIGN_OR_RETURN(
      size_t axisW, canonicalAxis(ctx, "axis_w", ctx.getInt("axis_w", 1), w.getType().rank()));
  ArrayRef<dim_t> xd = x.getType().dims, wd = w.getType().dims;
  dim_t k = dimsProduct(xd.drop_front(axis));
  dim_t n = Transposed ? dimsProduct(wd.drop_front(axisW)) : dimsProduct(wd.take_front(axisW));
  dim_t wk = Transposed ? dimsProduct(wd.take_front(axisW)) : dimsProduct(wd.drop_front(axisW));
  if (wk != k)
    return ctx.fail("input " + x.getType().str() + " has " + Twine(k) + " columns at axis " +
                    Twine(axis) + ", weights " + w.getType().str() + " have " + Twine(wk));
  if (b.getType().numElements() != n)
    return ctx.fail("bias " + b.getType().str() + " must have " + Twine(n) + " elements");
  EMBER_ASSIGN_OR_RETURN(NodeValue x2, coerce2D(ctx, x, axis));
  NodeValue w2;
  if (Transposed) {
    EMBER_ASSIGN_OR_RETURN(w2, ctx.reshape(w, {k, n}));
  } else {
    EMBER_ASSIGN_OR_RETURN(NodeValue wnk, ctx.reshape(w, {n, k}));
    EMBER_ASSIGN_OR_RETURN(w2, ctx.transpose(wnk, {1, 0}, "weights_t"));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MatMul, {x2, w2}, {}, "matmul"));
  EMBER_ASSIGN_OR_RETURN(NodeValue b1, ctx.reshape(b, {n}));
  EMBER_ASSIGN_OR_RETURN(NodeValue bb, ctx.broadcastTo(b1, y.getType().dims));
  EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Add, {y, bb}));
  DimsVec outDims(xd.begin(), xd.begin() + axis);
  outDims.push_back(n);
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, outDims));
  return ctx.setOutput(0, y);
}

/// MatMul: A coerced at `axis_a`, B at `axis_b`, each optionally transposed (`trans_a`,
/// `trans_b`); the 2-D product.
Error loadMatMul(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(2));
  EMBER_ASSIGN_OR_RETURN(size_t axisA, canonicalAxis(ctx, "axis_a", ctx.getInt("axis_a", 1),
                                                     in[0].getType().rank()));
  EMBER_ASSIGN_OR_RETURN(size_t axisB, canonicalAxis(ctx, "axis_b", ctx.getInt("axis_b", 1),
                                                     in[1].getType().rank()));
  EMBER_ASSIGN_OR_RETURN(NodeValue a, coerce2D(ctx, in[0], axisA));
  EMBER_ASSIGN_OR_RETURN(NodeValue b, coerce2D(ctx, in[1], axisB));
  if (ctx.getInt("trans_a", 0)) {
    EMBER_ASSIGN_OR_RETURN(a, ctx.transpose(a, {1, 0}, "a_t"));
  }
  if (ctx.getInt("trans_b", 0)) {
    EMBER_ASSIGN_OR_RETURN(b, ctx.transpose(b, {1, 0}, "b_t"));
  }
  if (a.getType().dims[1] != b.getType().dims[0])
    return ctx.fail("cannot multiply " + a.getType().str() + " by " + b.getType().str());
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MatMul, {a, b}));
  return ctx.setOutput(0, y);
}

/// BatchMatMul: matrices in the last two dims (`trans_a`, `trans_b` swap them), batch dims
/// broadcast as numpy's matmul does (the newest batch_matmul_op.h applies this whatever
/// `broadcast` says); a 1-D operand is a row or column vector whose dim is dropped after, and
/// two 1-D operands give their dot product as [1].
Error loadBatchMatMul(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(2));
  NodeValue a = in[0], b = in[1];
  bool transA = ctx.getInt("trans_a", 0) != 0, transB = ctx.getInt("trans_b", 0) != 0;
  (void)ctx.getInt("broadcast", 0); // read for its type check only
  size_t ra = a.getType().rank(), rb = b.getType().rank();
  if (ra == 0 || rb == 0)
    return ctx.fail("operands must have rank >= 1");
  bool vecA = ra == 1, vecB = rb == 1;
  if (vecA) { // trans_a is meaningless for a vector: it is a row
    EMBER_ASSIGN_OR_RETURN(a, ctx.reshape(a, {1, a.getType().dims[0]}));
  }
  if (vecB) {
    EMBER_ASSIGN_OR_RETURN(b, ctx.reshape(b, {b.getType().dims[0], 1}));
  }
  auto swapLast = [&](NodeValue v, StringRef suffix) {
    std::vector<int64_t> perm;
    size_t r = v.getType().rank();
    for (size_t i = 0; i < r; ++i)
      perm.push_back(int64_t(i));
    std::swap(perm[r - 1], perm[r - 2]);
    return ctx.transpose(v, perm, suffix);
  };
  if (transA && !vecA) {
    EMBER_ASSIGN_OR_RETURN(a, swapLast(a, "a_t"));
  }
  if (transB && !vecB) {
    EMBER_ASSIGN_OR_RETURN(b, swapLast(b, "b_t"));
  }
  // Equal ranks: leading 1s on the shorter operand (MatMul broadcasts batch dims of 1).
  size_t rank = std::max(a.getType().rank(), b.getType().rank());
  auto padRank = [&](NodeValue v) -> Expected<NodeValue> {
    DimsVec dims(rank - v.getType().rank(), 1);
    dims.append(v.getType().dims.begin(), v.getType().dims.end());
    return ctx.reshape(v, dims);
  };
  EMBER_ASSIGN_OR_RETURN(a, padRank(a));
  EMBER_ASSIGN_OR_RETURN(b, padRank(b));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MatMul, {a, b}));
  if (vecA || vecB) { // the vector's dim is dropped, as numpy's matmul does
    ArrayRef<dim_t> yd = y.getType().dims;
    DimsVec dims(yd.begin(), yd.end() - 2);
    if (!vecA)
      dims.push_back(yd[rank - 2]);
    if (!vecB)
      dims.push_back(yd[rank - 1]);
    if (dims.empty())
      dims.push_back(1);
    EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, dims));
  }
  return ctx.setOutput(0, y);
}

} // namespace

void registerNNMatMulOps(OpRegistry &r) {
  r.add("FC", loadFC<false>);
  r.add("FCTransposed", loadFC<true>);
  r.add("MatMul", loadMatMul);
  r.add("BatchMatMul", loadBatchMatMul);
}

} // namespace c2
} // namespace ember
