// ONNX convolution, matrix multiplication, pooling and normalization.
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

void registerNNOps(OpRegistry &r) {
  r.add("Conv", 1, loadConv);
  r.add("Gemm", 1, loadGemm);
  r.add("MatMul", 1, loadMatMul);
  r.add("MaxPool", 1, loadPool<NodeKind::MaxPool>);
  r.add("AveragePool", 1, loadPool<NodeKind::AvgPool>);
  r.add("GlobalAveragePool", 1, loadGlobalAveragePool);
}

} // namespace ember
