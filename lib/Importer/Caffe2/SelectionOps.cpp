// Caffe2's selections, value lookups and scatters onto existing node kinds: TopK (top_k.cc),
// Bucketize (bucketize_op.cc), BatchOneHot (one_hot_ops.cc), SparseToDense
// (sparse_to_dense_op.h) and BatchSparseToDense (batch_sparse_to_dense_op.cc).
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
  EMBER_ASSIGN_OR_RETURN(NodeValue y, reduceAlong(ctx, below, "sum", {1}, "count"));
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

/// SparseToDense's output first dim: `output_first_dim` (then exactly 2 inputs), else input 2's
/// first dim, else 1 + the largest index, which must then be known at compile time.
Expected<dim_t> sparseFirstDim(OpContext &ctx) {
  int64_t arg = ctx.getInt("output_first_dim", 0);
  if (arg > 0) {
    if (ctx.numInputs() != 2)
      return ctx.fail("InputSize() == 2 fails with output_first_dim: " +
                      Twine(ctx.numInputs()) + " inputs");
    return dim_t(arg);
  }
  if (ctx.numInputs() == 3) {
    EMBER_ASSIGN_OR_RETURN(NodeValue like, ctx.input(2));
    if (like.getType().rank() < 1)
      return ctx.fail("data_to_infer_dim.dim() >= 1 fails: " + like.getType().str());
    return like.getType().dims[0];
  }
  auto indices = ctx.constantInts(0);
  if (!indices) {
    consumeError(indices.takeError());
    return ctx.fail("the output's first dim is 1 + the largest index, known only at run time: "
                    "give output_first_dim or DATA_TO_INFER_DIM, or constant INDICES");
  }
  if (indices->empty())
    return ctx.fail("the output would have no rows (INDICES is empty)");
  return dim_t(*std::max_element(indices->begin(), indices->end()) + 1);
}

/// SparseToDense: zeros of VALUES' dims with the first replaced, VALUES' row i added into row
/// INDICES[i] (repeated indices accumulate); each index must lie in [0, first dim).
Error loadSparseToDense(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(2));
  NodeValue indices = in[0], values = in[1];
  const Type &it = indices.getType(), &vt = values.getType();
  if (it.rank() != 1 || (it.kind != ElemKind::Int32 && it.kind != ElemKind::Int64))
    return ctx.fail("INDICES must be an int32 or int64 vector (sparse_indices.dim() == 1), got " +
                    it.str());
  if (vt.rank() < 1)
    return ctx.fail("sparse_values.dim() >= 1 fails: " + vt.str());
  if (it.dims[0] != vt.dims[0])
    return ctx.fail("sparse_indices.numel() == sparse_values.size(0) fails: " + it.str() +
                    ", " + vt.str());
  EMBER_ASSIGN_OR_RETURN(dim_t first, sparseFirstDim(ctx));
  DimsVec dims(vt.dims.begin(), vt.dims.end());
  dims[0] = first;
  EMBER_ASSIGN_OR_RETURN(NodeValue zeros, ctx.createFilled(vt.kind, dims, 0.0, "zeros"));
  EMBER_ASSIGN_OR_RETURN(NodeValue idx, ctx.reshape(indices, {it.dims[0], 1}));
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         ctx.create(NodeKind::ScatterND, {zeros, idx, values},
                                    AttrList().set<AttrKind::Reduction>(std::string("add"))));
  return ctx.setOutput(0, y);
}

/// BatchSparseToDense's last dim: input 3's dim 1 (a 2-D shape input), which
/// `dense_last_dim` must then equal if given, else `dense_last_dim` (>= 1).
Expected<dim_t> denseLastDim(OpContext &ctx) {
  int64_t arg = ctx.getInt("dense_last_dim", -1);
  if (ctx.numInputs() == 4) {
    EMBER_ASSIGN_OR_RETURN(NodeValue shaper, ctx.input(3));
    if (shaper.getType().rank() != 2)
      return ctx.fail("shaper.dim() == 2 fails: " + shaper.getType().str());
    dim_t last = shaper.getType().dims[1];
    if (arg != -1 && dim_t(arg) != last)
      return ctx.fail("The last dim argument is not aligned with the shape input last dim: " +
                      Twine(arg) + ", " + shaper.getType().str());
    return last;
  }
  if (arg < 1)
    return ctx.fail("The last dim of dense must be >= 1, got dense_last_dim " + Twine(arg));
  return dim_t(arg);
}

/// BatchSparseToDense: [len(LENGTHS), last dim] of `default_value` (default 0), row i getting
/// VALUES[k] at column INDICES[k] for the LENGTHS[i] entries k of its segment (int64 LENGTHS
/// and INDICES, float VALUES). A segment's row is the count of LENGTHS' running sums at or
/// below k, so the lengths may be known only at run time; an index past the last dim, or
/// lengths summing to less than INDICES holds, is a run-time error.
Error loadBatchSparseToDense(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(3));
  NodeValue lengths = in[0], indices = in[1], values = in[2];
  const Type &lt = lengths.getType(), &it = indices.getType(), &vt = values.getType();
  if (it.numElements() != vt.numElements())
    return ctx.fail("indices.numel() == values.numel() fails: " + it.str() + ", " + vt.str());
  if (lt.rank() != 1 || it.rank() != 1)
    return ctx.fail("LENGTHS and INDICES must be vectors (dim() == 1), got " + lt.str() +
                    " and " + it.str());
  EMBER_ASSIGN_OR_RETURN(dim_t last, denseLastDim(ctx));
  if (lt.kind != ElemKind::Int64 || it.kind != ElemKind::Int64 || vt.kind != ElemKind::Float32)
    return ctx.fail("takes int64 LENGTHS and INDICES and float VALUES, got " + lt.str() + ", " +
                    it.str() + ", " + vt.str());
  dim_t b = lt.dims[0], k = it.dims[0];
  EMBER_ASSIGN_OR_RETURN(NodeValue dense, ctx.createFilled(ElemKind::Float32, {b, last},
                                                           ctx.getFloat("default_value", 0),
                                                           "default"));
  if (k == 0 || b == 0)
    return ctx.setOutput(0, dense);
  EMBER_ASSIGN_OR_RETURN(NodeValue ends, ctx.create(NodeKind::CumSum, {lengths},
                                                    AttrList()
                                                        .set<AttrKind::Axis>(0)
                                                        .set<AttrKind::Exclusive>(0)
                                                        .set<AttrKind::Reverse>(0),
                                                    "ends"));
  Tensor pos(Type(ElemKind::Int64, {k, 1}));
  for (dim_t j = 0; j < k; ++j)
    pos.dataAs<int64_t>()[j] = int64_t(j);
  NodeValue posC = ctx.createConstant(std::move(pos), "positions")->getResult();
  EMBER_ASSIGN_OR_RETURN(NodeValue e, ctx.reshape(ends, {1, b}));
  EMBER_ASSIGN_OR_RETURN(e, ctx.broadcastTo(e, {k, b}));
  EMBER_ASSIGN_OR_RETURN(posC, ctx.broadcastTo(posC, {k, b}));
  EMBER_ASSIGN_OR_RETURN(NodeValue done,
                         ctx.create(NodeKind::LessOrEqual, {e, posC}, {}, "segments_done"));
  EMBER_ASSIGN_OR_RETURN(done, ctx.castTo(done, ElemKind::Int64));
  EMBER_ASSIGN_OR_RETURN(NodeValue row, reduceAlong(ctx, done, "sum", {1}, "rows"));
  EMBER_ASSIGN_OR_RETURN(NodeValue col, ctx.reshape(indices, {k, 1}));
  EMBER_ASSIGN_OR_RETURN(NodeValue idx, ctx.create(NodeKind::Concat, {row, col},
                                                   AttrList().set<AttrKind::Axis>(1), "cells"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         ctx.create(NodeKind::ScatterND, {dense, idx, values},
                                    AttrList().set<AttrKind::Reduction>(std::string("none"))));
  return ctx.setOutput(0, y);
}

} // namespace

void registerRecommendationOps(OpRegistry &r); // RecommendationOps.cpp

void registerSelectionOps(OpRegistry &r) {
  registerRecommendationOps(r);
  r.add("TopK", loadTopK);
  r.add("Bucketize", loadBucketize);
  r.add("BatchOneHot", loadBatchOneHot);
  r.add("SparseToDense", loadSparseToDense);
  r.add("BatchSparseToDense", loadBatchSparseToDense);
}

} // namespace c2
} // namespace ember
