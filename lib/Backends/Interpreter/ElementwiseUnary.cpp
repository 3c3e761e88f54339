// One-operand element-wise kernels: Unary (the functions of Nodes/ElementwiseFunctions.def),
// IsNaN, IsInf and the activations (Relu, Sigmoid, Tanh, Elu, Celu, Selu, HardSigmoid,
// LeakyRelu, ThresholdedRelu, Shrink). Floats compute in Compute<T> (float for the 16-bit kinds),
// with the formulas of ember/Semantics/ScalarFormulas.inc.
#include "ElementwiseCommon.h"

#include "ember/Semantics/Formulas.h"

using namespace llvm;

namespace ember {
namespace interp {

using namespace formula;

namespace {

enum class UnaryFn {
#define UNARY_FUNCTION(E, NAME, DOMAIN, DOC) E,
#include "ember/Graph/Nodes/ElementwiseFunctions.def"
};

struct UnaryFnInfo {
  UnaryFn fn;
  StringRef name;
  KindSet domain;
};

const UnaryFnInfo kUnaryFunctions[] = {
#define UNARY_FUNCTION(E, NAME, DOMAIN, DOC) {UnaryFn::E, NAME, KindSet::DOMAIN},
#include "ember/Graph/Nodes/ElementwiseFunctions.def"
};

const UnaryFnInfo *findUnaryFunction(StringRef name) {
  for (const UnaryFnInfo &f : kUnaryFunctions)
    if (f.name == name)
      return &f;
  return nullptr;
}

/// \p fn of a float element, computed in C (float or double).
template <typename C> C floatFunction(UnaryFn fn, C x) {
  switch (fn) {
  case UnaryFn::Abs: return std::fabs(x);
  case UnaryFn::Neg: return -x;
  case UnaryFn::Sign: return ember_sign(x);
  case UnaryFn::Reciprocal: return C(1) / x;
  case UnaryFn::Floor: return std::floor(x);
  case UnaryFn::Ceil: return std::ceil(x);
  case UnaryFn::Round: return std::nearbyint(x); // the default rounding mode: halves to even
  case UnaryFn::Exp: return std::exp(x);
  case UnaryFn::Log: return std::log(x);
  case UnaryFn::Sqrt: return std::sqrt(x);
  case UnaryFn::Sin: return std::sin(x);
  case UnaryFn::Cos: return std::cos(x);
  case UnaryFn::Tan: return std::tan(x);
  case UnaryFn::Asin: return std::asin(x);
  case UnaryFn::Acos: return std::acos(x);
  case UnaryFn::Atan: return std::atan(x);
  case UnaryFn::Sinh: return std::sinh(x);
  case UnaryFn::Cosh: return std::cosh(x);
  case UnaryFn::Asinh: return std::asinh(x);
  case UnaryFn::Acosh: return std::acosh(x);
  case UnaryFn::Atanh: return std::atanh(x);
  case UnaryFn::Erf: return std::erf(x);
  case UnaryFn::Softsign: return ember_softsign(x);
  case UnaryFn::Softplus: return ember_softplus(x);
  case UnaryFn::HardSwish: return ember_hard_swish(x);
  case UnaryFn::Gelu: return ember_gelu(x);
  case UnaryFn::GeluTanh: return ember_gelu_tanh(x);
  case UnaryFn::Mish: return ember_mish(x);
  case UnaryFn::Not: break; // bool only
  }
  return x;
}

/// \p fn of an integer element; integers wrap (the most negative value is its own negation).
template <typename T> T integerFunction(UnaryFn fn, T x) {
  auto negate = [](T v) { return T(WrapType<T>(0) - WrapType<T>(v)); };
  bool negative = false;
  if constexpr (std::is_signed_v<T>)
    negative = x < 0;
  switch (fn) {
  case UnaryFn::Abs: return negative ? negate(x) : x;
  case UnaryFn::Neg: return negate(x);
  case UnaryFn::Sign: return negative ? negate(T(1)) : T(x != 0);
  case UnaryFn::Erf: return convertElement<T>(std::erf(double(x)));
  default: break; // float or bool only
  }
  return x;
}

template <typename T> Error applyUnary(const KernelContext &ctx, UnaryFn fn) {
  if constexpr (std::is_same_v<T, bool>)
    return unaryLoop<T>(ctx, [](bool x) { return !x; }); // Not, the only bool function
  else if constexpr (kIsFloatLike<T>)
    return unaryLoop<T>(ctx, [fn](T x) { return floatFunction(fn, Compute<T>(x)); });
  else
    return unaryLoop<T>(ctx, [fn](T x) { return integerFunction(fn, x); });
}

/// Runs op on a float input, computing in Compute<T>.
template <typename Op> Error floatActivation(const KernelContext &ctx, Op op) {
  return dispatchIn<KindSet::Float>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    return unaryLoop<T>(ctx, [&](T x) { return op(Compute<T>(x)); });
  });
}

/// Runs classify on a float input; the result is bool.
template <typename Op> Error floatPredicate(const KernelContext &ctx, Op classify) {
  return dispatchIn<KindSet::Float>(ctx, ctx.in(0).type.kind, [&](auto tag) {
    using T = decltype(tag);
    return unaryLoop<T, bool>(ctx, [&](T x) { return classify(Compute<T>(x)); });
  });
}

bool outputIsFloat(const Node &n) { return kindInSet(resultKind(n), KindSet::Float); }

} // namespace

Error runUnary(const KernelContext &ctx) {
  const std::string &name = ctx.attr<AttrKind::Function>();
  const UnaryFnInfo *f = findUnaryFunction(name);
  if (!f)
    return ctx.unsupported("unknown function '" + name + "'");
  ElemKind k = ctx.out().type.kind;
  if (!kindInSet(k, f->domain))
    return ctx.unsupported("no kernel for " + name + " of " + elemKindName(k));
  return dispatchIn<KindSet::NumericOrBool>(
      ctx, k, [&](auto tag) { return applyUnary<decltype(tag)>(ctx, f->fn); });
}

Error runIsNaN(const KernelContext &ctx) {
  return floatPredicate(ctx, [](auto x) { return std::isnan(x); });
}

Error runIsInf(const KernelContext &ctx) {
  bool negative = ctx.attr<AttrKind::DetectNegative>() != 0;
  bool positive = ctx.attr<AttrKind::DetectPositive>() != 0;
  return floatPredicate(ctx,
                        [&](auto x) { return std::isinf(x) && (x < 0 ? negative : positive); });
}

Error runRelu(const KernelContext &ctx) {
  return dispatchIn<KindSet::Numeric>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    // Written so that NaN fails the test and stays NaN.
    return unaryLoop<T>(ctx, [](T x) { return Compute<T>(x) < Compute<T>(0) ? T(0) : x; });
  });
}

Error runSigmoid(const KernelContext &ctx) {
  return floatActivation(ctx, [](auto x) { return ember_sigmoid(x); });
}

Error runTanh(const KernelContext &ctx) {
  return floatActivation(ctx, [](auto x) { return ember_tanh(x); });
}

Error runElu(const KernelContext &ctx) {
  float alpha = ctx.attr<AttrKind::Alpha>();
  return floatActivation(ctx, [alpha](auto x) { return ember_elu(x, decltype(x)(alpha)); });
}

Error runCelu(const KernelContext &ctx) {
  float alpha = ctx.attr<AttrKind::Alpha>();
  return floatActivation(ctx, [alpha](auto x) { return ember_celu(x, decltype(x)(alpha)); });
}

Error runSelu(const KernelContext &ctx) {
  float alpha = ctx.attr<AttrKind::Alpha>(), gamma = ctx.attr<AttrKind::Gamma>();
  return floatActivation(ctx, [alpha, gamma](auto x) {
    using C = decltype(x);
    return ember_selu(x, C(alpha), C(gamma));
  });
}

Error runHardSigmoid(const KernelContext &ctx) {
  float alpha = ctx.attr<AttrKind::Alpha>(), beta = ctx.attr<AttrKind::Beta>();
  return floatActivation(ctx, [alpha, beta](auto x) {
    using C = decltype(x);
    return ember_hard_sigmoid(x, C(alpha), C(beta));
  });
}

Error runLeakyRelu(const KernelContext &ctx) {
  float alpha = ctx.attr<AttrKind::Alpha>();
  return floatActivation(ctx,
                         [alpha](auto x) { return ember_leaky_relu(x, decltype(x)(alpha)); });
}

Error runThresholdedRelu(const KernelContext &ctx) {
  float alpha = ctx.attr<AttrKind::Alpha>();
  return floatActivation(
      ctx, [alpha](auto x) { return ember_thresholded_relu(x, decltype(x)(alpha)); });
}

/// Computed in double for every kind, then converted back (integers truncate and saturate).
Error runShrink(const KernelContext &ctx) {
  double bias = ctx.attr<AttrKind::Bias>(), lambd = ctx.attr<AttrKind::Lambd>();
  return dispatchIn<KindSet::Numeric>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    return unaryLoop<T>(ctx, [&](T v) {
      return convertElement<T>(ember_shrink(double(Compute<T>(v)), bias, lambd));
    });
  });
}

bool supportsUnary(const Node &n) {
  const UnaryFnInfo *f = findUnaryFunction(n.attr<AttrKind::Function>());
  return f && kindInSet(resultKind(n), f->domain);
}
bool supportsIsNaN(const Node &n) { return kindInSet(operandKind(n, 0), KindSet::Float); }
bool supportsIsInf(const Node &n) { return kindInSet(operandKind(n, 0), KindSet::Float); }
bool supportsRelu(const Node &n) { return kindInSet(resultKind(n), KindSet::Numeric); }
bool supportsSigmoid(const Node &n) { return outputIsFloat(n); }
bool supportsTanh(const Node &n) { return outputIsFloat(n); }
bool supportsElu(const Node &n) { return outputIsFloat(n); }
bool supportsCelu(const Node &n) { return outputIsFloat(n); }
bool supportsSelu(const Node &n) { return outputIsFloat(n); }
bool supportsHardSigmoid(const Node &n) { return outputIsFloat(n); }
bool supportsLeakyRelu(const Node &n) { return outputIsFloat(n); }
bool supportsThresholdedRelu(const Node &n) { return outputIsFloat(n); }
bool supportsShrink(const Node &n) { return kindInSet(resultKind(n), KindSet::Numeric); }

} // namespace interp
} // namespace ember
