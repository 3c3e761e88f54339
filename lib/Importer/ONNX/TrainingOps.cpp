// ONNX's ai.onnx.preview.training optimizers, opset 1: Adagrad, Adam and Momentum (standard and
// Nesterov). Each computes one update step of several tensors, given as R (the learning rate), T
// (the update count), then the tensors of every optimized parameter grouped by role (X_1..X_n,
// G_1..G_n, ...), and gives the new tensors grouped the same way. They become ember's
// element-wise nodes in the order of operations of ONNX's reference
// (onnx/backend/test/case/node/{adagrad,adam,momentum}.py), so results round as it does. R and T
// stay run-time inputs (T > 0 is a Where); the attributes become constants.
#include "ElementwiseOps.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace ember {

namespace {

/// Element-wise arithmetic in the optimized tensors' float kind, so the reference's formulas read
/// as written. Operands broadcast as numpy does (the scalars R, T and the attributes to a
/// tensor's dims); num() is a scalar constant. The first error is kept for takeError(), and the
/// operations after it build nothing (each returns its first operand).
class Formula {
  OpContext &ctx_;
  ElemKind kind_;
  Error error_ = Error::success();

  /// \p built, or \p fallback after keeping its error.
  NodeValue keep(Expected<NodeValue> built, NodeValue fallback) {
    if (built)
      return *built;
    error_ = joinErrors(std::move(error_), built.takeError());
    return fallback;
  }
  NodeValue apply(NodeKind kind, ArrayRef<NodeValue> operands, AttrList attrs = {}) {
    if (error_)
      return operands[0];
    auto same = broadcastTogether(ctx_, operands);
    if (!same)
      return keep(same.takeError(), operands[0]);
    return keep(ctx_.create(kind, *same, std::move(attrs)), operands[0]);
  }

public:
  Formula(OpContext &ctx, ElemKind kind) : ctx_(ctx), kind_(kind) {}
  ~Formula() { consumeError(std::move(error_)); }
  Error takeError() { return std::move(error_); }

  NodeValue num(double v) { return keep(ctx_.createFilled(kind_, {}, v, "coefficient"), {}); }
  NodeValue add(NodeValue a, NodeValue b) { return apply(NodeKind::Add, {a, b}); }
  NodeValue sub(NodeValue a, NodeValue b) { return apply(NodeKind::Sub, {a, b}); }
  NodeValue mul(NodeValue a, NodeValue b) { return apply(NodeKind::Mul, {a, b}); }
  NodeValue div(NodeValue a, NodeValue b) { return apply(NodeKind::Div, {a, b}); }
  NodeValue pow(NodeValue a, NodeValue b) { return apply(NodeKind::Pow, {a, b}); }
  NodeValue where(NodeValue cond, NodeValue a, NodeValue b) {
    return apply(NodeKind::Where, {cond, a, b});
  }
  NodeValue sqrt(NodeValue a) {
    return apply(NodeKind::Unary, {a}, AttrList().set<AttrKind::Function>("sqrt"));
  }
};

/// An optimizer node's operands: R and T as scalars of the tensors' kind (T also as the
/// condition T > 0), and each parameter's tensors by role.
struct OptimizerInputs {
  ElemKind kind;
  NodeValue rate, step, stepPositive;
  /// tensors[p][role]: role 0 is X, then the roles the optimizer names after it.
  std::vector<SmallVector<NodeValue, 4>> tensors;
};

/// Reads R, T and the \p roles tensors of every parameter (X first), checking that the outputs
/// are \p outputRoles per parameter.
Expected<OptimizerInputs> readOptimizerInputs(OpContext &ctx, ArrayRef<StringRef> roles,
                                              unsigned outputRoles) {
  unsigned perParam = roles.size();
  if (ctx.numInputs() < 2 + perParam || (ctx.numInputs() - 2) % perParam != 0)
    return ctx.fail("takes R, T and the tensors " + join(roles, ", ") +
                    " of each parameter, got " + Twine(ctx.numInputs()) + " inputs");
  unsigned params = (ctx.numInputs() - 2) / perParam;
  if (ctx.numOutputs() > params * outputRoles)
    return ctx.fail("has " + Twine(ctx.numOutputs()) + " outputs for " + Twine(params) +
                    " parameters, at most " + Twine(params * outputRoles) + " expected");
  OptimizerInputs in;
  for (unsigned p = 0; p < params; ++p) {
    in.tensors.emplace_back();
    for (unsigned role = 0; role < perParam; ++role) {
      EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.input(2 + role * params + p));
      const Type &x = role ? in.tensors[p][0].getType() : v.getType();
      if (!role && x.kind != ElemKind::Float32 && x.kind != ElemKind::Float64)
        return ctx.fail("optimized tensor " + Twine(p + 1) + " is " + x.str() +
                        ", float32 or float64 expected");
      if (v.getType() != x)
        return ctx.fail(roles[role] + Twine(p + 1) + " is " + v.getType().str() + ", but " +
                        roles[0] + Twine(p + 1) + " is " + x.str());
      in.tensors[p].push_back(v);
    }
  }
  in.kind = in.tensors[0][0].getType().kind;
  for (const auto &t : in.tensors)
    if (t[0].getType().kind != in.kind)
      return ctx.fail("the optimized tensors have different element kinds");

  // R and T as scalars of the tensors' kind (the reference's arithmetic on them converts too).
  auto scalar = [&](unsigned i, StringRef name, bool isFloat) -> Expected<NodeValue> {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.input(i));
    const Type &t = v.getType();
    if (t.numElements() != 1 || (isFloat ? !isFloatKind(t.kind) : t.kind != ElemKind::Int64))
      return ctx.fail(name + " must be a " + (isFloat ? "float" : "int64") + " scalar, got " +
                      t.str());
    return ctx.reshape(v, {});
  };
  auto toKind = [&](NodeValue v, StringRef suffix) -> Expected<NodeValue> {
    if (v.getType().kind == in.kind)
      return v;
    return ctx.create(NodeKind::Cast, {v},
                      AttrList().set<AttrKind::ResultKind>(elemKindName(in.kind).str()), suffix);
  };
  EMBER_ASSIGN_OR_RETURN(NodeValue rate, scalar(0, "R", true));
  EMBER_ASSIGN_OR_RETURN(in.rate, toKind(rate, "R"));
  EMBER_ASSIGN_OR_RETURN(NodeValue step, scalar(1, "T", false));
  EMBER_ASSIGN_OR_RETURN(in.step, toKind(step, "T"));
  EMBER_ASSIGN_OR_RETURN(NodeValue zero, ctx.createFilled(ElemKind::Int64, {}, 0, "zero"));
  EMBER_ASSIGN_OR_RETURN(in.stepPositive, ctx.create(NodeKind::Greater, {step, zero}, {},
                                                     "T_positive"));
  return in;
}

/// Binds the outputs: outputs[p][role] to output role * params + p.
Error setOptimizerOutputs(OpContext &ctx, Formula &f,
                          const std::vector<SmallVector<NodeValue, 3>> &outputs) {
  EMBER_TRY(f.takeError());
  size_t params = outputs.size();
  for (size_t p = 0; p < params; ++p)
    for (size_t role = 0; role < outputs[p].size(); ++role)
      if (ctx.hasOutput(role * params + p))
        EMBER_TRY(ctx.setOutput(role * params + p, outputs[p][role]));
  return Error::success();
}

/// The attribute \p name as a float, which Momentum requires.
Expected<double> requiredFloat(OpContext &ctx, StringRef name) {
  if (!ctx.hasAttr(name))
    return ctx.fail("needs the attribute '" + name + "'");
  return ctx.getFloat(name, 0);
}

Error loadAdagrad(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(OptimizerInputs in, readOptimizerInputs(ctx, {"X", "G", "H"}, 2));
  Formula f(ctx, in.kind);
  NodeValue norm = f.num(ctx.getFloat("norm_coefficient", 0));
  NodeValue epsilon = f.num(ctx.getFloat("epsilon", 1e-6f));
  NodeValue decay = f.num(ctx.getFloat("decay_factor", 0));
  // r = R / (1 + T * decay_factor)
  NodeValue r = f.div(in.rate, f.add(f.num(1), f.mul(in.step, decay)));
  std::vector<SmallVector<NodeValue, 3>> outputs;
  for (const auto &t : in.tensors) {
    NodeValue x = t[0], g = t[1], h = t[2];
    NodeValue gRegularized = f.add(f.mul(norm, x), g);
    NodeValue hNew = f.add(h, f.mul(gRegularized, gRegularized));
    NodeValue hAdaptive = f.add(f.sqrt(hNew), epsilon);
    NodeValue xNew = f.sub(x, f.div(f.mul(r, gRegularized), hAdaptive));
    outputs.push_back({xNew, hNew});
  }
  return setOptimizerOutputs(ctx, f, outputs);
}

Error loadAdam(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(OptimizerInputs in, readOptimizerInputs(ctx, {"X", "G", "V", "H"}, 3));
  Formula f(ctx, in.kind);
  double alpha = ctx.getFloat("alpha", 0.9f), beta = ctx.getFloat("beta", 0.999f);
  NodeValue norm = f.num(ctx.getFloat("norm_coefficient", 0));
  NodeValue epsilon = f.num(ctx.getFloat("epsilon", 1e-6f));
  // The reference computes 1 - alpha and the like on Python floats: in double.
  NodeValue alphaV = f.num(alpha), oneMinusAlpha = f.num(1 - alpha);
  NodeValue betaV = f.num(beta), oneMinusBeta = f.num(1 - beta);
  NodeValue postScale = f.num(1 - double(ctx.getFloat("norm_coefficient_post", 0)));
  // R_adjusted = T > 0 ? R * sqrt(1 - beta**T) / (1 - alpha**T) : R
  NodeValue one = f.num(1);
  NodeValue corrected = f.div(f.mul(in.rate, f.sqrt(f.sub(one, f.pow(betaV, in.step)))),
                              f.sub(one, f.pow(alphaV, in.step)));
  NodeValue rAdjusted = f.where(in.stepPositive, corrected, in.rate);
  std::vector<SmallVector<NodeValue, 3>> outputs;
  for (const auto &t : in.tensors) {
    NodeValue x = t[0], g = t[1], v = t[2], h = t[3];
    NodeValue gRegularized = f.add(f.mul(norm, x), g);
    NodeValue vNew = f.add(f.mul(alphaV, v), f.mul(oneMinusAlpha, gRegularized));
    NodeValue hNew = f.add(f.mul(betaV, h), f.mul(oneMinusBeta, f.mul(gRegularized, gRegularized)));
    NodeValue hSqrt = f.add(f.sqrt(hNew), epsilon);
    NodeValue xNew = f.sub(x, f.mul(rAdjusted, f.div(vNew, hSqrt)));
    outputs.push_back({f.mul(postScale, xNew), vNew, hNew});
  }
  return setOptimizerOutputs(ctx, f, outputs);
}

Error loadMomentum(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(OptimizerInputs in, readOptimizerInputs(ctx, {"X", "G", "V"}, 2));
  EMBER_ASSIGN_OR_RETURN(double alpha, requiredFloat(ctx, "alpha"));
  EMBER_ASSIGN_OR_RETURN(double beta, requiredFloat(ctx, "beta"));
  EMBER_ASSIGN_OR_RETURN(double normCoefficient, requiredFloat(ctx, "norm_coefficient"));
  if (!ctx.hasAttr("mode"))
    return ctx.fail("needs the attribute 'mode'");
  std::string mode = ctx.getString("mode", "");
  if (mode != "standard" && mode != "nesterov")
    return ctx.fail("mode must be 'standard' or 'nesterov', got '" + mode + "'");
  Formula f(ctx, in.kind);
  NodeValue norm = f.num(normCoefficient), alphaV = f.num(alpha);
  // beta_adjusted = T > 0 ? beta : 1 (the first step takes the whole gradient)
  NodeValue betaAdjusted = f.where(in.stepPositive, f.num(beta), f.num(1));
  std::vector<SmallVector<NodeValue, 3>> outputs;
  for (const auto &t : in.tensors) {
    NodeValue x = t[0], g = t[1], v = t[2];
    NodeValue gRegularized = f.add(f.mul(norm, x), g);
    NodeValue vNew = f.add(f.mul(alphaV, v), f.mul(betaAdjusted, gRegularized));
    NodeValue direction = mode == "nesterov" ? f.add(gRegularized, f.mul(alphaV, vNew)) : vNew;
    outputs.push_back({f.sub(x, f.mul(in.rate, direction)), vNew});
  }
  return setOptimizerOutputs(ctx, f, outputs);
}

} // namespace

// The registry is keyed by op type alone: no default-domain op has these names (a default-domain
// node named Adam is no ONNX operator, and the checker refuses it).
void registerTrainingOps(OpRegistry &r) {
  r.add("Adagrad", 1, loadAdagrad);
  r.add("Adam", 1, loadAdam);
  r.add("Momentum", 1, loadMomentum);
}

} // namespace ember
