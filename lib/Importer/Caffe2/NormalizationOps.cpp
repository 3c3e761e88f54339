// Caffe2's normalizations: Softmax (softmax_op.cc), SpatialBN in test mode
// (spatial_batch_norm_op.h), LRN (local_response_normalization_op.cc), LayerNorm
// (layer_norm_op.h) and RMSNorm (rms_norm_op.cc).
#include "ConvPoolArgs.h"

#include "ember/Base/Dims.h"
#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

/// Softmax: the input coerced to 2-D at `axis` (default 1), softmax over each row: one softmax
/// over all the dims from `axis` on.
Error loadSoftmax(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ArrayRef<dim_t> dims = x.getType().dims;
  int64_t r = int64_t(dims.size()), axis = ctx.getInt("axis", 1);
  if (axis < -r || axis >= r)
    return ctx.fail("axis " + Twine(axis) + " is out of range for " + x.getType().str());
  if (axis < 0)
    axis += r;
  dim_t rows = dimsProduct(dims, 0, size_t(axis));
  dim_t cols = dimsProduct(dims, size_t(axis), dims.size());
  EMBER_ASSIGN_OR_RETURN(NodeValue x2, ctx.reshape(x, {rows, cols}));
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         ctx.create(NodeKind::Softmax, {x2}, AttrList().set<AttrKind::Axis>(1)));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, dims));
  return ctx.setOutput(0, y);
}

/// SpatialBN with is_test = 1: scale * (X - mean) / sqrt(var + epsilon) + bias per channel
/// (axis 1, or the last axis in NHWC order). Training mode computes batch statistics.
Error loadSpatialBN(OpContext &ctx) {
  if (!ctx.getInt("is_test", 0))
    return ctx.fail("SpatialBN in training mode (is_test = 0) is not supported; inference "
                    "needs is_test = 1");
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(5));
  NodeValue x = in[0];
  bool nhwc = ctx.getString("order", "NCHW") == "NHWC";
  size_t rank = x.getType().rank();
  if (rank < 2)
    return ctx.fail("input must have rank >= 2, got " + x.getType().str());
  if (nhwc && rank > 2) {
    EMBER_ASSIGN_OR_RETURN(x, ctx.transpose(x, toChannelsFirst(rank), "nchw"));
  }
  dim_t c = x.getType().dims[1];
  for (unsigned i = 1; i < 5; ++i)
    if (in[i].getType().numElements() != c)
      return ctx.fail("input " + Twine(i) + " " + in[i].getType().str() + " must have " +
                      Twine(c) + " elements, one per channel");
  SmallVector<NodeValue, 5> ops = {x};
  for (unsigned i = 1; i < 5; ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.reshape(in[i], {c}));
    ops.push_back(v);
  }
  EMBER_ASSIGN_OR_RETURN(
      NodeValue y, ctx.create(NodeKind::BatchNorm, ops,
                              AttrList().set<AttrKind::Epsilon>(ctx.getFloat("epsilon", 1e-5f))));
  if (nhwc && rank > 2) {
    EMBER_ASSIGN_OR_RETURN(y, ctx.transpose(y, toChannelsLast(rank), "nhwc"));
  }
  return ctx.setOutput(0, y);
}

/// LRN: X * (bias + alpha / size * sum of squares over the `size` channels around)^-beta; the
/// window starts (size - 1) / 2 channels before. The optional scale output is a work buffer.
Error loadLRN(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  bool nhwc = ctx.getString("order", "NCHW") == "NHWC";
  if (x.getType().rank() != 4)
    return ctx.fail("input must have rank 4, got " + x.getType().str());
  int64_t size = ctx.getInt("size", 0);
  if (size <= 0)
    return ctx.fail("argument 'size' must be > 0");
  if (nhwc) {
    EMBER_ASSIGN_OR_RETURN(x, ctx.transpose(x, toChannelsFirst(4), "nchw"));
  }
  AttrList attrs;
  attrs.set<AttrKind::Alpha>(ctx.getFloat("alpha", 0))
      .set<AttrKind::Beta>(ctx.getFloat("beta", 0))
      .set<AttrKind::Bias>(ctx.getFloat("bias", 1))
      .set<AttrKind::Size>(size);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::LRN, {x}, attrs));
  if (nhwc) {
    EMBER_ASSIGN_OR_RETURN(y, ctx.transpose(y, toChannelsLast(4), "nhwc"));
  }
  ctx.leaveUndefined(1);
  return ctx.setOutput(0, y);
}

/// The canonical `axis` (default 1) of a LayerNorm / RMSNorm input, which needs 2 dims or more.
Expected<int64_t> normAxis(OpContext &ctx, const Type &t, StringRef op) {
  int64_t r = int64_t(t.rank()), axis = ctx.getInt("axis", 1);
  if (r < 2)
    return ctx.fail(op + " requires input dim >= 2, got " + t.str());
  if (axis < -r || axis >= r)
    return ctx.fail("axis " + Twine(axis) + " is out of range for " + t.str() +
                    " (canonical_axis_index)");
  if (t.kind != ElemKind::Float32)
    return ctx.fail("takes a float tensor, got " + t.str());
  return axis < 0 ? axis + r : axis;
}

/// Inputs 1 and 2 (gamma, beta) of N = X[axis..] elements each, shaped as X[axis..].
Expected<SmallVector<NodeValue, 2>> gammaBeta(OpContext &ctx, const Type &t,
                                              ArrayRef<dim_t> normalized) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(3));
  dim_t n = dimsProduct(normalized);
  SmallVector<NodeValue, 2> out;
  for (unsigned i = 1; i < 3; ++i) {
    if (in[i].getType().numElements() != n || in[i].getType().kind != t.kind)
      return ctx.fail(Twine(i == 1 ? "gamma " : "beta ") + in[i].getType().str() +
                      " must hold N = " + Twine(n) + " floats");
    EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.reshape(in[i], normalized));
    out.push_back(v);
  }
  return out;
}

/// LayerNorm: X seen as [M, N] at `axis` (default 1), each row (X - mean) / sigma with the
/// population variance and sigma = sqrt(var + `epsilon`) (default 1e-5), times gamma plus beta
/// (inputs 1 and 2, N elements each) with `elementwise_affine`. Outputs 1 and 2 are the mean and
/// sigma, dims X[:axis] + [1].
Error loadLayerNorm(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  EMBER_ASSIGN_OR_RETURN(int64_t axis, normAxis(ctx, t, "LayerNorm"));
  ArrayRef<dim_t> normalized = ArrayRef<dim_t>(t.dims).drop_front(size_t(axis));
  NodeValue gamma, beta;
  if (ctx.getInt("elementwise_affine", 0)) {
    if (ctx.numInputs() != 3)
      return ctx.fail("InputSize() == 3 fails with elementwise_affine: " +
                      Twine(ctx.numInputs()) + " inputs");
    EMBER_ASSIGN_OR_RETURN(auto gb, gammaBeta(ctx, t, normalized));
    gamma = gb[0];
    beta = gb[1];
  } else {
    EMBER_ASSIGN_OR_RETURN(gamma, ctx.createFilled(t.kind, normalized, 1.0, "gamma"));
    EMBER_ASSIGN_OR_RETURN(beta, ctx.createFilled(t.kind, normalized, 0.0, "beta"));
  }
  AttrList attrs;
  attrs.set<AttrKind::Axis>(axis)
      .set<AttrKind::Epsilon>(ctx.getFloat("epsilon", 1e-5f))
      .set<AttrKind::StashKind>(elemKindName(t.kind).str());
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::LayerNorm, {x, gamma, beta}, attrs));
  DimsVec momentDims(t.dims.begin(), t.dims.begin() + axis);
  momentDims.push_back(1);
  EMBER_ASSIGN_OR_RETURN(NodeValue mean,
                         ctx.reshape(y.node->getResult(ops::LayerNorm::Mean), momentDims));
  EMBER_ASSIGN_OR_RETURN(NodeValue sigma,
                         unaryFunction(ctx, y.node->getResult(ops::LayerNorm::InvStdDev),
                                       "reciprocal", "sigma"));
  EMBER_ASSIGN_OR_RETURN(sigma, ctx.reshape(sigma, momentDims));
  EMBER_TRY(ctx.setOutput(0, y));
  EMBER_TRY(ctx.setOutput(1, mean));
  return ctx.setOutput(2, sigma);
}

/// RMSNorm: X seen as [M, N] at `axis` (default 1), each row times rrms = 1 / sqrt(mean(x^2) +
/// `eps`) (default 0), times gamma plus beta (inputs 1 and 2, N elements each). Output 1 is
/// rrms, dims X[:axis].
Error loadRMSNorm(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  EMBER_ASSIGN_OR_RETURN(int64_t axis, normAxis(ctx, t, "RMSNorm"));
  ArrayRef<dim_t> normalized = ArrayRef<dim_t>(t.dims).drop_front(size_t(axis));
  EMBER_ASSIGN_OR_RETURN(auto gb, gammaBeta(ctx, t, normalized));
  std::vector<int64_t> axes;
  for (int64_t i = axis; i < int64_t(t.rank()); ++i)
    axes.push_back(i);
  EMBER_ASSIGN_OR_RETURN(NodeValue sq, ctx.create(NodeKind::Mul, {x, x}, {}, "square"));
  EMBER_ASSIGN_OR_RETURN(NodeValue ms, reduceAlong(ctx, sq, "mean", axes, "mean_square"));
  EMBER_ASSIGN_OR_RETURN(NodeValue eps, ctx.splat(ms, ctx.getFloat("eps", 0), "eps"));
  EMBER_ASSIGN_OR_RETURN(ms, ctx.create(NodeKind::Add, {ms, eps}, {}, "plus_eps"));
  EMBER_ASSIGN_OR_RETURN(NodeValue rms, unaryFunction(ctx, ms, "sqrt", "rms"));
  EMBER_ASSIGN_OR_RETURN(NodeValue rrms, unaryFunction(ctx, rms, "reciprocal", "rrms"));
  EMBER_ASSIGN_OR_RETURN(NodeValue r, ctx.broadcastTo(rrms, t.dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue gamma, ctx.broadcastTo(gb[0], t.dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue beta, ctx.broadcastTo(gb[1], t.dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Mul, {r, x}, {}, "scaled"));
  EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Mul, {y, gamma}, {}, "gamma"));
  EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Add, {y, beta}, {}, ""));
  EMBER_ASSIGN_OR_RETURN(rrms, ctx.reshape(rrms, ArrayRef<dim_t>(t.dims).take_front(axis)));
  EMBER_TRY(ctx.setOutput(0, y));
  return ctx.setOutput(1, rrms);
}

} // namespace

void registerNormalizationOps(OpRegistry &r) {
  r.add("Softmax", loadSoftmax);
  r.add("SpatialBN", loadSpatialBN);
  r.add("LRN", loadLRN);
  r.add("LayerNorm", loadLayerNorm);
  r.add("RMSNorm", loadRMSNorm);
}

} // namespace c2
} // namespace ember
