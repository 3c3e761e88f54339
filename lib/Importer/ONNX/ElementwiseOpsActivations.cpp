// ONNX one-input element-wise functions and activations: the functions of a `Unary` node (Abs,
// Sin, Round, Not, Mish, ...), IsNaN, IsInf, Relu, Sigmoid, Tanh, Gelu, Swish and the activations
// with attributes.
#include "ElementwiseOps.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

/// ONNX ops that become a `Unary` node, with the function's name in
/// Graph/Nodes/ElementwiseFunctions.def and the first opset of the op.
struct UnaryFunctionOp {
  const char *opType;
  int64_t sinceOpset;
  const char *function;
};

const UnaryFunctionOp kUnaryFunctionOps[] = {
    {"Abs", 1, "abs"},       {"Neg", 1, "neg"},
    {"Sign", 9, "sign"},     {"Reciprocal", 1, "reciprocal"},
    {"Floor", 1, "floor"},   {"Ceil", 1, "ceil"},
    {"Round", 11, "round"},  {"Exp", 1, "exp"},
    {"Log", 1, "log"},       {"Sqrt", 1, "sqrt"},
    {"Sin", 7, "sin"},       {"Cos", 7, "cos"},
    {"Tan", 7, "tan"},       {"Asin", 7, "asin"},
    {"Acos", 7, "acos"},     {"Atan", 7, "atan"},
    {"Sinh", 9, "sinh"},     {"Cosh", 9, "cosh"},
    {"Asinh", 9, "asinh"},   {"Acosh", 9, "acosh"},
    {"Atanh", 9, "atanh"},   {"Erf", 9, "erf"},
    {"Softsign", 1, "softsign"}, {"Softplus", 1, "softplus"},
    {"HardSwish", 14, "hard_swish"}, {"Not", 1, "not"},
    {"Mish", 18, "mish"},
};

/// Creates \p kind with \p attrs on the node's one input.
Error loadOneInput(OpContext &ctx, NodeKind kind, AttrList attrs = {}) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(kind, {x}, std::move(attrs)));
  return ctx.setOutput(0, y);
}

Error loadUnaryFunction(OpContext &ctx) {
  for (const UnaryFunctionOp &op : kUnaryFunctionOps)
    if (ctx.proto().op_type() == op.opType)
      return loadOneInput(ctx, NodeKind::Unary,
                          AttrList().set<AttrKind::Function>(op.function));
  return ctx.fail("no element-wise function for this op"); // registration and table disagree
}

template <NodeKind K> Error loadPlain(OpContext &ctx) { return loadOneInput(ctx, K); }

Error loadIsInf(OpContext &ctx) {
  return loadOneInput(ctx, NodeKind::IsInf,
                      AttrList()
                          .set<AttrKind::DetectNegative>(ctx.getInt("detect_negative", 1))
                          .set<AttrKind::DetectPositive>(ctx.getInt("detect_positive", 1)));
}

/// Elu, Celu, LeakyRelu and ThresholdedRelu: one 'alpha' attribute with the default given.
template <NodeKind K, int DefaultAlphaTimes100> Error loadAlphaActivation(OpContext &ctx) {
  float alpha = ctx.getFloat("alpha", float(DefaultAlphaTimes100) / 100.0f);
  return loadOneInput(ctx, K, AttrList().set<AttrKind::Alpha>(alpha));
}

Error loadSelu(OpContext &ctx) {
  // The defaults are the float32 values of the constants in the Selu paper, as ONNX gives them.
  return loadOneInput(ctx, NodeKind::Selu,
                      AttrList()
                          .set<AttrKind::Alpha>(ctx.getFloat("alpha", 1.67326319217681884765625f))
                          .set<AttrKind::Gamma>(ctx.getFloat("gamma", 1.05070102214813232421875f)));
}

Error loadHardSigmoid(OpContext &ctx) {
  return loadOneInput(ctx, NodeKind::HardSigmoid,
                      AttrList()
                          .set<AttrKind::Alpha>(ctx.getFloat("alpha", 0.2f))
                          .set<AttrKind::Beta>(ctx.getFloat("beta", 0.5f)));
}

Error loadShrink(OpContext &ctx) {
  return loadOneInput(ctx, NodeKind::Shrink,
                      AttrList()
                          .set<AttrKind::Bias>(ctx.getFloat("bias", 0.0f))
                          .set<AttrKind::Lambd>(ctx.getFloat("lambd", 0.5f)));
}

/// Gelu: the exact form or its tanh approximation, the two `Unary` functions recognize-gelu
/// also lands the graphs of these formulas on (so the CPU's vector kernels and fused
/// epilogues serve either).
Error loadGelu(OpContext &ctx) {
  std::string approximate = ctx.getString("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return ctx.fail("approximate must be \"none\" or \"tanh\", got \"" + approximate + "\"");
  return loadOneInput(ctx, NodeKind::Unary,
                      AttrList().set<AttrKind::Function>(approximate == "none" ? "gelu"
                                                                               : "gelu_tanh"));
}

/// Swish (opset 24): x * sigmoid(alpha * x), its ONNX function body's nodes (alpha rounded to
/// x's kind, as its CastLike does), so a 16-bit float rounds after each step as the function
/// does. An alpha of 1 folds away (simplify-arithmetic), leaving the Sigmoid and the Mul.
Error loadSwish(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  if (!isFloatKind(t.kind))
    return ctx.fail("x must be floating point, got " + t.str());
  EMBER_ASSIGN_OR_RETURN(NodeValue alpha,
                         ctx.createFilled(t.kind, {}, ctx.getFloat("alpha", 1.0f), "alpha"));
  EMBER_ASSIGN_OR_RETURN(alpha, ctx.broadcastTo(alpha, t.dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue scaled, ctx.create(NodeKind::Mul, {alpha, x}, {}, "scaled"));
  EMBER_ASSIGN_OR_RETURN(NodeValue gate, ctx.create(NodeKind::Sigmoid, {scaled}, {}, "gate"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Mul, {x, gate}));
  return ctx.setOutput(0, y);
}

} // namespace

void registerElementwiseActivationOps(OpRegistry &r) {
  for (const UnaryFunctionOp &op : kUnaryFunctionOps)
    r.add(op.opType, op.sinceOpset, loadUnaryFunction);
  r.add("IsNaN", 9, loadPlain<NodeKind::IsNaN>);
  r.add("IsInf", 10, loadIsInf);
  r.add("Relu", 1, loadPlain<NodeKind::Relu>);
  r.add("Sigmoid", 1, loadPlain<NodeKind::Sigmoid>);
  r.add("Tanh", 1, loadPlain<NodeKind::Tanh>);
  r.add("Elu", 1, loadAlphaActivation<NodeKind::Elu, 100>);
  r.add("Celu", 12, loadAlphaActivation<NodeKind::Celu, 100>);
  r.add("LeakyRelu", 1, loadAlphaActivation<NodeKind::LeakyRelu, 1>);
  r.add("ThresholdedRelu", 10, loadAlphaActivation<NodeKind::ThresholdedRelu, 100>);
  r.add("Selu", 1, loadSelu);
  r.add("HardSigmoid", 1, loadHardSigmoid);
  r.add("Shrink", 9, loadShrink);
  r.add("Gelu", 20, loadGelu);
  r.add("Swish", 24, loadSwish);
}

} // namespace ember
