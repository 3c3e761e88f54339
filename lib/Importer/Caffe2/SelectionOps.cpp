// Caffe2's selections and value lookups onto existing node kinds: TopK (top_k.cc), Bucketize
// (bucketize_op.cc) and BatchOneHot (one_hot_ops.cc).
#include "OpContext.h"

#include "ember/Base/Dims.h"
#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

/// A constant of \p kind and \p dims filled with \p value, as \p x's padding along \p axis.
Expected<NodeValue> padding(OpContext &ctx, ElemKind kind, ArrayRef<dim_t> dims, size_t axis,
                            dim_t size, double value, StringRef suffix) {
  DimsVec padDims(dims.begin(), dims.end());
  padDims[axis] = size;
  return ctx.createFilled(kind, padDims, value, suffix);
}

/// TopK: the `k` largest elements along `axis` (default -1), largest first, equal values by
/// lower index; int64 indices. When k exceeds the axis, the values are padded with 0 and the
/// indices with -1. The optional third output, each index into the flattened input, is not
/// supported.
Error loadTopK(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ArrayRef<dim_t> dims = x.getType().dims;
  int64_t r = int64_t(dims.size()), axis = ctx.getInt("axis", -1), k = ctx.getInt("k", -1);
  if (axis == -1)
    axis = r - 1;
  if (axis < 0 || axis >= r)
    return ctx.fail("axis_ >= 0 and axis_ < input_dims.size() fail: axis " + Twine(axis) +
                    ", " + x.getType().str());
  if (k < 1)
    return ctx.fail("argument 'k' must be at least 1, got " + Twine(k));
  if (ctx.numOutputs() > 2)
    return ctx.fail("the third output (flatten indices) is not supported");
  dim_t n = dims[size_t(axis)], count = std::min(dim_t(k), n);
  AttrList attrs;
  attrs.set<AttrKind::Axis>(axis).set<AttrKind::Count>(int64_t(count)).set<AttrKind::Largest>(1);
  EMBER_ASSIGN_OR_RETURN(NodeValue values, ctx.create(NodeKind::TopK, {x}, attrs));
  NodeValue indices = values.node->getResult(ops::TopK::Indices);
  if (dim_t(k) > n) {
    size_t a = size_t(axis);
    dim_t extra = dim_t(k) - n;
    EMBER_ASSIGN_OR_RETURN(NodeValue zeros,
                           padding(ctx, x.getType().kind, dims, a, extra, 0.0, "pad_values"));
    EMBER_ASSIGN_OR_RETURN(NodeValue minus1,
                           padding(ctx, ElemKind::Int64, dims, a, extra, -1.0, "pad_indices"));
    AttrList cat = AttrList().set<AttrKind::Axis>(axis);
    EMBER_ASSIGN_OR_RETURN(values, ctx.create(NodeKind::Concat, {values, zeros}, cat, "values"));
    EMBER_ASSIGN_OR_RETURN(indices,
                           ctx.create(NodeKind::Concat, {indices, minus1}, cat, "indices"));
  }
  EMBER_TRY(ctx.setOutput(0, values));
  return ctx.setOutput(1, indices);
}

/// Bucketize: each float element's bucket, the int32 number of `boundaries` below it
/// (std::lower_bound); the boundaries must be sorted and X at least 1-D. Computed as a sum of
/// comparisons against every boundary.
Error loadBucketize(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  std::vector<float> bounds = ctx.getFloats("boundaries");
  if (!std::is_sorted(bounds.begin(), bounds.end()))
    return ctx.fail("The boundaries need to be monotonically increasing");
  if (x.getType().rank() < 1 || x.getType().kind != ElemKind::Float32)
    return ctx.fail("X must be a float tensor of at least 1 dim, got " + x.getType().str());
  ArrayRef<dim_t> dims = x.getType().dims;
  dim_t numel = x.getType().numElements(), m = dim_t(bounds.size());
  if (m == 0) {
    EMBER_ASSIGN_OR_RETURN(NodeValue zeros, ctx.createFilled(ElemKind::Int32, dims, 0.0, ""));
    return ctx.setOutput(0, zeros);
  }
  Tensor b(Type(ElemKind::Float32, {1, m}));
  std::copy(bounds.begin(), bounds.end(), b.dataAs<float>());
  NodeValue bc = ctx.createConstant(std::move(b), "boundaries")->getResult();
  EMBER_ASSIGN_OR_RETURN(NodeValue col, ctx.reshape(x, {numel, 1}));
  EMBER_ASSIGN_OR_RETURN(col, ctx.broadcastTo(col, {numel, m}));
  EMBER_ASSIGN_OR_RETURN(bc, ctx.broadcastTo(bc, {numel, m}));
  EMBER_ASSIGN_OR_RETURN(NodeValue below, ctx.create(NodeKind::Less, {bc, col}, {}, "below"));
  EMBER_ASSIGN_OR_RETURN(below, ctx.castTo(below, ElemKind::Int32));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Reduce, {below},
                                                 AttrList()
                                                     .set<AttrKind::Reduction>(std::string("sum"))
                                                     .set<AttrKind::Axes>({1}),
                                                 "count"));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, dims));
  return ctx.setOutput(0, y);
}

/// BatchOneHot: X seen as [N, D]; column j expands into lens[j] columns, column k of them
/// 1 where X[i, j] == vals[k] (in X's type). LENS (int32, D values >= 0) must be known at
/// compile time; VALS holds sum(lens) values.
Error loadBatchOneHot(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(3));
  NodeValue x = in[0], vals = in[2];
  if (x.getType().rank() < 1)
    return ctx.fail("X must have at least 1 dim, got " + x.getType().str());
  dim_t n = x.getType().dims[0], d = dimsProduct(x.getType().dims, 1, x.getType().rank());
  EMBER_ASSIGN_OR_RETURN(const Tensor *lensT, ctx.constantInput(1));
  if (lensT->getType().kind != ElemKind::Int32)
    return ctx.fail("LENS must be int32, got " + lensT->getType().str());
  if (lensT->getType().numElements() != d)
    return ctx.fail("lens.numel() == D fails: LENS " + lensT->getType().str() + ", D = " +
                    Twine(d));
  std::vector<int32_t> columns;
  for (dim_t j = 0; j < d; ++j) {
    int32_t len = lensT->dataAs<int32_t>()[j];
    if (len < 0)
      return ctx.fail("lens[" + Twine(j) + "] = " + Twine(len) + " must be >= 0");
    columns.insert(columns.end(), size_t(len), int32_t(j));
  }
  dim_t k = dim_t(columns.size());
  if (vals.getType().numElements() != k || vals.getType().kind != x.getType().kind)
    return ctx.fail("vals.numel() == sum(lens) fails: VALS " + vals.getType().str() + ", " +
                    Twine(k) + " values of X's type");
  if (k == 0)
    return ctx.fail("the output would have no columns (every length is 0)");
  EMBER_ASSIGN_OR_RETURN(NodeValue x2, ctx.reshape(x, {n, d}));
  Tensor idx(Type(ElemKind::Int32, {k}));
  std::copy(columns.begin(), columns.end(), idx.dataAs<int32_t>());
  NodeValue idxC = ctx.createConstant(std::move(idx), "columns")->getResult();
  EMBER_ASSIGN_OR_RETURN(NodeValue picked, ctx.create(NodeKind::Gather, {x2, idxC},
                                                      AttrList().set<AttrKind::Axis>(1),
                                                      "picked"));
  EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.reshape(vals, {1, k}));
  EMBER_ASSIGN_OR_RETURN(v, ctx.broadcastTo(v, {n, k}));
  EMBER_ASSIGN_OR_RETURN(NodeValue eq, ctx.create(NodeKind::Equal, {picked, v}, {}, "equal"));
  EMBER_ASSIGN_OR_RETURN(eq, ctx.castTo(eq, x.getType().kind));
  return ctx.setOutput(0, eq);
}

} // namespace

void registerSelectionOps(OpRegistry &r) {
  r.add("TopK", loadTopK);
  r.add("Bucketize", loadBucketize);
  r.add("BatchOneHot", loadBatchOneHot);
}

} // namespace c2
} // namespace ember
