// Caffe2's normalizations: Softmax (softmax_op.cc), SpatialBN in test mode
// (spatial_batch_norm_op.h) and LRN (local_response_normalization_op.cc).
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

} // namespace

void registerNormalizationOps(OpRegistry &r) {
  r.add("Softmax", loadSoftmax);
  r.add("SpatialBN", loadSpatialBN);
  r.add("LRN", loadLRN);
}

} // namespace c2
} // namespace ember
