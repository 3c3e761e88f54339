// Caffe2's element-wise math operators, each as its CPU source in caffe2/operators computes it:
// the one-operand functions (abs_op.cc, ceil_op.cc, floor_op.cc, exp_op.cc, log_op.cc,
// sqrt_op.cc, negative_op.cc, sign via elementwise_ops.h, reciprocal_op.cc, softplus_op.cc,
// gelu_op.cc, log1p_op.cc, swish_op.cc, not via elementwise_ops.h), and those ember builds from
// several nodes: Logit (logit_op.cc), Sqr (sqr_op.cc), Scale (scale_op.h),
// ReplaceNaN (replace_nan_op.cc), Mod (mod_op.cc), Pow (pow_op.h), PRelu (prelu_op.cc),
// ElementwiseLinear (elementwise_linear_op.cc) and BatchBoxCox (batch_box_cox_op.cc).
#include "OpContext.h"

#include "ember/Base/Dims.h"
#include "ember/Support/Error.h"

#include <limits>

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

/// Operators that are one of the `Unary` node's functions.
struct UnaryFunction {
  const char *op, *function;
};
constexpr UnaryFunction kUnaryFunctions[] = {
    {"Abs", "abs"},         {"Ceil", "ceil"},   {"Floor", "floor"},
    {"Exp", "exp"},         {"Log", "log"},     {"Sqrt", "sqrt"},
    {"Negative", "neg"},    {"Neg", "neg"},     {"Sign", "sign"},
    {"Reciprocal", "reciprocal"}, {"Softplus", "softplus"}, {"Not", "not"},
    {"Swish", "silu"}, // x / (1 + exp(-x)) (swish_op.cc), that is x * sigmoid(x)
};

Error loadUnaryFunction(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  for (const UnaryFunction &f : kUnaryFunctions)
    if (ctx.proto().type() == f.op) {
      EMBER_ASSIGN_OR_RETURN(NodeValue y, unaryFunction(ctx, x, f.function));
      return ctx.setOutput(0, y);
    }
  return ctx.fail("no function for this operator"); // registered from kUnaryFunctions only
}

Error requireFloat(OpContext &ctx, NodeValue x) {
  if (!isFloatKind(x.getType().kind))
    return ctx.fail("takes float tensors, got " + x.getType().str());
  return Error::success();
}

/// Gelu: x * Phi(x) (math::CdfNorm), or with `fast_gelu` the tanh approximation.
Error loadGelu(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         unaryFunction(ctx, x, ctx.getInt("fast_gelu", 0) ? "gelu_tanh" : "gelu"));
  return ctx.setOutput(0, y);
}

/// Log1p: std::log1p of each element (the Unary function log1p).
Error loadLog1p(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_TRY(requireFloat(ctx, x));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, unaryFunction(ctx, x, "log1p"));
  return ctx.setOutput(0, y);
}

/// Logit: x clamped to at most 1 - eps, then at least eps (`eps` default 1e-6), then
/// log(x / (1 - x)).
Error loadLogit(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_TRY(requireFloat(ctx, x));
  float eps = ctx.getFloat("eps", 1e-6f);
  double inf = std::numeric_limits<double>::infinity();
  auto clip = [&](NodeValue v, double lo, double hi, StringRef name) -> Expected<NodeValue> {
    EMBER_ASSIGN_OR_RETURN(NodeValue l, ctx.createFilled(v.getType().kind, {}, lo, "lo"));
    EMBER_ASSIGN_OR_RETURN(NodeValue h, ctx.createFilled(v.getType().kind, {}, hi, "hi"));
    return ctx.create(NodeKind::Clip, {v, l, h}, {}, name);
  };
  // Two clamps in Caffe2's order, so that eps > 0.5 gives what it gives (eps everywhere).
  EMBER_ASSIGN_OR_RETURN(NodeValue c, clip(x, -inf, double(1.0f - eps), "upper"));
  EMBER_ASSIGN_OR_RETURN(c, clip(c, double(eps), inf, "lower"));
  EMBER_ASSIGN_OR_RETURN(NodeValue one, ctx.splat(c, 1.0, "one"));
  EMBER_ASSIGN_OR_RETURN(NodeValue rest, ctx.create(NodeKind::Sub, {one, c}, {}, "rest"));
  EMBER_ASSIGN_OR_RETURN(NodeValue odds, ctx.create(NodeKind::Div, {c, rest}, {}, "odds"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, unaryFunction(ctx, odds, "log"));
  return ctx.setOutput(0, y);
}

/// Sqr: x * x.
Error loadSqr(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Mul, {x, x}));
  return ctx.setOutput(0, y);
}

/// Scale: x * `scale` (a float, default 1).
Error loadScale(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_TRY(requireFloat(ctx, x));
  EMBER_ASSIGN_OR_RETURN(NodeValue s, ctx.splat(x, double(ctx.getFloat("scale", 1)), "scale"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Mul, {x, s}));
  return ctx.setOutput(0, y);
}

/// ReplaceNaN: NaN elements become `value` (default 0), the others stay.
Error loadReplaceNaN(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_TRY(requireFloat(ctx, x));
  EMBER_ASSIGN_OR_RETURN(NodeValue nan, ctx.create(NodeKind::IsNaN, {x}, {}, "isnan"));
  EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.splat(x, double(ctx.getFloat("value", 0)), "value"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Where, {nan, v, x}));
  return ctx.setOutput(0, y);
}

/// Mod: int32 or int64 x % `divisor` (C++'s %, the dividend's sign); with
/// `sign_follow_divisor` a nonzero result whose sign differs from the divisor's gets the divisor
/// added, which is Python's %.
Error loadMod(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ElemKind kind = x.getType().kind;
  if (kind != ElemKind::Int32 && kind != ElemKind::Int64)
    return ctx.fail("takes int32 or int64 data, got " + x.getType().str());
  int64_t divisor = ctx.getInt("divisor", 0);
  if (divisor == 0)
    return ctx.fail("divisor must not be 0");
  bool pythonMod = ctx.getInt("sign_follow_divisor", 0) != 0;
  EMBER_ASSIGN_OR_RETURN(NodeValue d, ctx.splat(x, double(divisor), "divisor"));
  AttrList attrs = AttrList().set<AttrKind::FMod>(pythonMod ? 0 : 1);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Mod, {x, d}, attrs));
  return ctx.setOutput(0, y);
}

/// Pow: one input and the float `exponent` argument, or two inputs, with the legacy
/// `broadcast`/`axis` rule when broadcast = 1 and equal shapes otherwise.
Error loadPow(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue a, ctx.input(0));
  EMBER_TRY(requireFloat(ctx, a));
  NodeValue b;
  if (ctx.numInputs() == 1 && ctx.hasArg("exponent")) {
    EMBER_ASSIGN_OR_RETURN(b, ctx.splat(a, double(ctx.getFloat("exponent", 0)), "exponent"));
  } else if (ctx.numInputs() == 2) {
    EMBER_ASSIGN_OR_RETURN(b, ctx.input(1));
    if (ctx.getInt("broadcast", 0)) {
      EMBER_TRY(broadcastOperands(ctx, a, b));
    } else if (ctx.hasArg("axis") || ctx.hasArg("axis_str")) {
      return ctx.fail("Do not specify axis or axis_str if broadcast is not enabled.");
    } else if (a.getType() != b.getType()) {
      return ctx.fail("Dimension mismatch - did you forget to set broadcast=1? (A " +
                      a.getType().str() + ", B " + b.getType().str() + ")");
    }
  } else {
    return ctx.fail("Only a tensor with an argument or two input tensors are supported as "
                    "input to pow operator.");
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Pow, {a, b}));
  return ctx.setOutput(0, y);
}

/// The channel axis of `order` (NCHW: 1, NHWC: the last).
Expected<size_t> channelAxis(OpContext &ctx, size_t rank) {
  std::string order = ctx.getString("order", "NCHW");
  if (order != "NCHW" && order != "NHWC")
    return ctx.fail("order '" + order + "' must be NCHW or NHWC");
  if (rank < 2)
    return ctx.fail("needs at least 2 dims");
  return order == "NCHW" ? size_t(1) : rank - 1;
}

/// PRelu: x > 0 ? x : slope * x, the slope one value shared by all channels or one per
/// channel of `order`.
Error loadPRelu(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(2));
  NodeValue x = in[0], w = in[1];
  if (x.getType().kind != ElemKind::Float32 || w.getType().kind != ElemKind::Float32)
    return ctx.fail("takes float tensors, got " + x.getType().str() + " and " +
                    w.getType().str());
  ArrayRef<dim_t> dims = x.getType().dims;
  EMBER_ASSIGN_OR_RETURN(size_t axis, channelAxis(ctx, dims.size()));
  dim_t n = w.getType().numElements();
  DimsVec slopeDims(dims.size(), 1);
  if (n != 1) {
    if (n != dims[axis])
      return ctx.fail("C == W.size() fails: " + Twine(dims[axis]) + " channels in X " +
                      x.getType().str() + ", " + Twine(n) + " slopes");
    slopeDims[axis] = n;
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue s, ctx.reshape(w, slopeDims));
  EMBER_ASSIGN_OR_RETURN(s, ctx.broadcastTo(s, dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::PRelu, {x, s}));
  return ctx.setOutput(0, y);
}

/// ElementwiseLinear: X as [N, D] at `axis` (default 1), Y[n, d] = X[n, d] * a[d] + b[d] with
/// a and b vectors of D.
Error loadElementwiseLinear(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(3));
  NodeValue x = in[0];
  EMBER_TRY(requireFloat(ctx, x));
  ArrayRef<dim_t> dims = x.getType().dims;
  int64_t rank = int64_t(dims.size()), axis = ctx.getInt("axis", 1);
  if (axis < -rank || axis >= rank)
    return ctx.fail("axis " + Twine(axis) + " is out of range for " + x.getType().str());
  if (axis < 0)
    axis += rank;
  dim_t n = dimsProduct(dims.take_front(size_t(axis)));
  dim_t d = dimsProduct(dims.drop_front(size_t(axis)));
  for (unsigned i = 1; i < 3; ++i)
    if (in[i].getType().rank() != 1 || in[i].getType().dims[0] != d)
      return ctx.fail(Twine(i == 1 ? "a" : "b") + " " + in[i].getType().str() +
                      " must be a vector of D = " + Twine(d) + " (X " + x.getType().str() +
                      " at axis " + Twine(axis) + ")");
  EMBER_ASSIGN_OR_RETURN(NodeValue x2, ctx.reshape(x, {n, d}));
  EMBER_ASSIGN_OR_RETURN(NodeValue a, ctx.broadcastTo(in[1], {n, d}));
  EMBER_ASSIGN_OR_RETURN(NodeValue b, ctx.broadcastTo(in[2], {n, d}));
  EMBER_ASSIGN_OR_RETURN(NodeValue ax, ctx.create(NodeKind::Mul, {x2, a}, {}, "scaled"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Add, {ax, b}, {}, "shifted"));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, dims));
  return ctx.setOutput(0, y);
}

/// BatchBoxCox: DATA seen as [N, D], column j with lambda1[j], lambda2[j] (D each):
/// t = max(x + lambda2, 1e-6), then log(t) where lambda1 is 0, else (t^lambda1 - 1) / lambda1
/// (batch_box_cox_op.cc, BoxCoxNaive).
Error loadBatchBoxCox(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(3));
  const Type &t = in[0].getType();
  if (t.rank() < 1 || t.kind != ElemKind::Float32)
    return ctx.fail("data must be a float tensor of at least 1 dim, got " + t.str());
  dim_t n = t.dims[0], d = dimsProduct(t.dims, 1, t.rank());
  for (unsigned i = 1; i < 3; ++i) // checked only for a non-empty DATA, as the source does
    if ((n && in[i].getType().numElements() != d) || in[i].getType().kind != t.kind)
      return ctx.fail("lambda" + Twine(i) + ".numel() == D fails: " + in[i].getType().str() +
                      ", D = " + Twine(d));
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.reshape(in[0], {n, d}));
  SmallVector<NodeValue, 2> lambda;
  for (unsigned i = 1; i < 3; ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue l, ctx.reshape(in[i], {1, d}));
    EMBER_ASSIGN_OR_RETURN(l, ctx.broadcastTo(l, {n, d}));
    lambda.push_back(l);
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue shifted,
                         ctx.create(NodeKind::Add, {x, lambda[1]}, {}, "shifted"));
  EMBER_ASSIGN_OR_RETURN(NodeValue eps, ctx.splat(shifted, double(1e-6f), "eps"));
  EMBER_ASSIGN_OR_RETURN(shifted, ctx.create(NodeKind::Max, {shifted, eps}, {}, "clamped"));
  EMBER_ASSIGN_OR_RETURN(NodeValue log, unaryFunction(ctx, shifted, "log", "log"));
  EMBER_ASSIGN_OR_RETURN(NodeValue pow,
                         ctx.create(NodeKind::Pow, {shifted, lambda[0]}, {}, "pow"));
  EMBER_ASSIGN_OR_RETURN(NodeValue one, ctx.splat(pow, 1.0, "one"));
  EMBER_ASSIGN_OR_RETURN(pow, ctx.create(NodeKind::Sub, {pow, one}, {}, "pow_1"));
  EMBER_ASSIGN_OR_RETURN(pow, ctx.create(NodeKind::Div, {pow, lambda[0]}, {}, "box_cox"));
  EMBER_ASSIGN_OR_RETURN(NodeValue zero, ctx.splat(pow, 0.0, "zero"));
  EMBER_ASSIGN_OR_RETURN(NodeValue isZero,
                         ctx.create(NodeKind::Equal, {lambda[0], zero}, {}, "lambda1_0"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Where, {isZero, log, pow}));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, t.dims));
  return ctx.setOutput(0, y);
}

} // namespace

void registerElementwiseMathOps(OpRegistry &r) {
  for (const UnaryFunction &f : kUnaryFunctions)
    r.add(f.op, loadUnaryFunction);
  r.add("Gelu", loadGelu);
  r.add("Log1p", loadLog1p);
  r.add("Logit", loadLogit);
  r.add("Sqr", loadSqr);
  r.add("Scale", loadScale);
  r.add("ReplaceNaN", loadReplaceNaN);
  r.add("Mod", loadMod);
  r.add("Pow", loadPow);
  r.add("PRelu", loadPRelu);
  r.add("ElementwiseLinear", loadElementwiseLinear);
  r.add("BatchBoxCox", loadBatchBoxCox);
}

} // namespace c2
} // namespace ember
