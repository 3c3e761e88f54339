// ONNX convolution, pooling and normalization.
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

/// Spatial window attributes of Conv and the pools, with auto_pad resolved into explicit pads.
struct WindowAttrs {
  std::vector<int64_t> kernels, strides, pads, dilations;
};

Expected<WindowAttrs> readWindow(OpContext &ctx, const Type &input,
                                 std::vector<int64_t> kernels) {
  if (input.rank() != 4)
    return ctx.fail("only 2-D spatial inputs (rank 4, NCHW) are supported, got " + input.str());
  const size_t n = 2;
  WindowAttrs w;
  w.kernels = std::move(kernels);
  w.strides = ctx.getInts("strides", std::vector<int64_t>(n, 1));
  w.dilations = ctx.getInts("dilations", std::vector<int64_t>(n, 1));
  w.pads = ctx.getInts("pads", std::vector<int64_t>(2 * n, 0));
  if (w.kernels.size() != n || w.strides.size() != n || w.dilations.size() != n ||
      w.pads.size() != 2 * n)
    return ctx.fail("kernel_shape " + intsToString(w.kernels) + ", strides " + intsToString(w.strides) +
                    ", dilations " + intsToString(w.dilations) + " and pads " + intsToString(w.pads) +
                    " do not describe 2 spatial dims");
  for (size_t i = 0; i < n; ++i)
    if (w.strides[i] <= 0 || w.dilations[i] <= 0 || w.kernels[i] <= 0)
      return ctx.fail("kernel_shape, strides and dilations must be positive");
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    // Output = ceil(in / stride); the total padding needed goes to the end (UPPER) or begin.
    for (size_t i = 0; i < n; ++i) {
      int64_t in = int64_t(input.dims[2 + i]);
      int64_t out = (in + w.strides[i] - 1) / w.strides[i];
      int64_t effective = (w.kernels[i] - 1) * w.dilations[i] + 1;
      int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + effective - in);
      int64_t small = total / 2, large = total - small;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[i + n] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad != "NOTSET") {
    return ctx.fail("unknown auto_pad '" + autoPad + "'");
  }
  return w;
}

Error loadConv(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue w, ctx.input(1));
  const Type &wt = w.getType();
  if (wt.rank() != 4)
    return ctx.fail("only 2-D convolution is supported; filter is " + wt.str());
  std::vector<int64_t> kernels =
      ctx.getInts("kernel_shape", {int64_t(wt.dims[2]), int64_t(wt.dims[3])});
  EMBER_ASSIGN_OR_RETURN(WindowAttrs win, readWindow(ctx, x.getType(), kernels));
  NodeValue bias;
  if (ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(bias, ctx.input(2));
  } else {
    Tensor zeros(wt.withDims({wt.dims[0]}));
    bias = ctx.createConstant(std::move(zeros), "bias")->getResult();
  }
  AttrList attrs;
  attrs.set<AttrKind::Kernels>(win.kernels)
      .set<AttrKind::Strides>(win.strides)
      .set<AttrKind::Pads>(win.pads)
      .set<AttrKind::Dilations>(win.dilations)
      .set<AttrKind::Group>(ctx.getInt("group", 1));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Conv, {x, w, bias}, attrs));
  return ctx.setOutput(0, y);
}

template <NodeKind K> Error loadPool(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  if (!ctx.hasAttr("kernel_shape"))
    return ctx.fail("attribute 'kernel_shape' is required");
  EMBER_ASSIGN_OR_RETURN(WindowAttrs win,
                         readWindow(ctx, x.getType(), ctx.getInts("kernel_shape")));
  for (int64_t d : win.dilations)
    if (d != 1)
      return ctx.fail("dilated pooling is not supported");
  if (ctx.getInt("storage_order", 0) != 0)
    return ctx.fail("storage_order 1 is not supported");
  if (ctx.hasOutput(1))
    return ctx.fail("the Indices output is not supported");
  AttrList attrs;
  attrs.set<AttrKind::Kernels>(win.kernels)
      .set<AttrKind::Strides>(win.strides)
      .set<AttrKind::Pads>(win.pads)
      .set<AttrKind::CeilMode>(ctx.getInt("ceil_mode", 0));
  if (K == NodeKind::AvgPool)
    attrs.set<AttrKind::CountIncludePad>(ctx.getInt("count_include_pad", 0));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(K, {x}, attrs));
  return ctx.setOutput(0, y);
}

Error loadGlobalAveragePool(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  if (t.rank() != 4)
    return ctx.fail("only rank-4 (NCHW) inputs are supported, got " + t.str());
  AttrList attrs;
  attrs.set<AttrKind::Kernels>({int64_t(t.dims[2]), int64_t(t.dims[3])})
      .set<AttrKind::Strides>({1, 1})
      .set<AttrKind::Pads>({0, 0, 0, 0})
      .set<AttrKind::CeilMode>(0)
      .set<AttrKind::CountIncludePad>(0);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::AvgPool, {x}, attrs));
  return ctx.setOutput(0, y);
}

Error loadBatchNormalization(OpContext &ctx) {
  if (ctx.getInt("training_mode", 0) != 0)
    return ctx.fail("training mode is not supported");
  if (ctx.getInt("spatial", 1) != 1)
    return ctx.fail("spatial=0 is not supported");
  for (unsigned i = 1; i < ctx.numOutputs(); ++i)
    if (ctx.hasOutput(i))
      return ctx.fail("training outputs (running mean/var) are not supported");
  SmallVector<NodeValue, 5> operands;
  for (unsigned i = 0; i < 5; ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.input(i));
    operands.push_back(v);
  }
  AttrList attrs;
  attrs.set<AttrKind::Epsilon>(ctx.getFloat("epsilon", 1e-5f));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::BatchNorm, operands, attrs));
  return ctx.setOutput(0, y);
}

/// Opset 13+: softmax along one axis (default -1).
Error loadSoftmax13(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(int64_t axis, normalizeAxis(ctx.getInt("axis", -1), x.getType().rank()));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Softmax, {x},
                                                 AttrList().set<AttrKind::Axis>(axis)));
  return ctx.setOutput(0, y);
}

/// Opsets 1-12: the input is coerced to 2-D at axis (default 1) and softmax runs over the
/// flattened trailing dims.
Error loadSoftmaxLegacy(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  EMBER_ASSIGN_OR_RETURN(int64_t axis, normalizeAxis(ctx.getInt("axis", 1), t.rank()));
  dim_t outer = 1, inner = 1;
  for (unsigned i = 0; i < t.rank(); ++i)
    (int64_t(i) < axis ? outer : inner) *= t.dims[i];
  EMBER_ASSIGN_OR_RETURN(NodeValue flat, ctx.reshape(x, {outer, inner}));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Softmax, {flat},
                                                 AttrList().set<AttrKind::Axis>(1)));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, t.dims));
  return ctx.setOutput(0, y);
}

} // namespace

void registerNNOps(OpRegistry &r) {
  r.add("Conv", 1, loadConv);
  r.add("MaxPool", 1, loadPool<NodeKind::MaxPool>);
  r.add("AveragePool", 1, loadPool<NodeKind::AvgPool>);
  r.add("GlobalAveragePool", 1, loadGlobalAveragePool);
  r.add("BatchNormalization", 1, loadBatchNormalization);
  r.add("Softmax", 1, loadSoftmaxLegacy);
  r.add("Softmax", 13, loadSoftmax13);
}

} // namespace ember
