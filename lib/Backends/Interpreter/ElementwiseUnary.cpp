// One-operand element-wise kernels: Unary (the functions of Nodes/ElementwiseFunctions.def),
// IsNaN, IsInf and the activations (Relu, Sigmoid, Tanh, Elu, Celu, Selu, HardSigmoid,
// LeakyRelu, ThresholdedRelu, Shrink). Floats compute in Compute<T> (float for the 16-bit kinds).
#include "ElementwiseCommon.h"

using namespace llvm;

namespace ember {
namespace interp {

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

/// 1 / (1 + e^-x) without overflow: exp is only ever taken of a non-positive number, so it lies
/// in (0, 1] and neither branch can produce inf/inf for large |x|.
template <typename C> C stableSigmoid(C x) {
  if (x >= 0)
    return C(1) / (C(1) + std::exp(-x));
  C e = std::exp(x);
  return e / (C(1) + e);
}

/// min(max(x, lo), hi), except that NaN stays NaN (std::min and std::max would drop it).
template <typename C> C clampKeepingNaN(C x, C lo, C hi) { return x < lo ? lo : hi < x ? hi : x; }

/// log(1 + e^x) without overflow for large x.
template <typename C> C stableSoftplus(C x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

/// GELU, x * Phi(x) with Phi the standard normal CDF, and its tanh approximation; computed in
/// double for every float kind and rounded once (recognize-gelu replaces the float32 graphs of
/// these formulas by them; they agree to float32 rounding).
double geluErf(double x) {
  constexpr double kSqrtHalf = 0.7071067811865476; // 1 / sqrt(2)
  return 0.5 * x * (1.0 + std::erf(x * kSqrtHalf));
}
double geluTanh(double x) {
  constexpr double kSqrt2OverPi = 0.7978845608028654; // sqrt(2 / pi)
  return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
}

/// \p fn of a float element, computed in C (float or double).
template <typename C> C floatFunction(UnaryFn fn, C x) {
  switch (fn) {
  case UnaryFn::Abs: return std::fabs(x);
  case UnaryFn::Neg: return -x;
  case UnaryFn::Sign: return x > 0 ? C(1) : x < 0 ? C(-1) : x; // 0 and NaN stay
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
  case UnaryFn::Softsign: return x / (C(1) + std::fabs(x));
  case UnaryFn::Softplus: return stableSoftplus(x);
  case UnaryFn::HardSwish: return x * clampKeepingNaN(x / C(6) + C(0.5), C(0), C(1));
  case UnaryFn::Gelu: return C(geluErf(double(x)));
  case UnaryFn::GeluTanh: return C(geluTanh(double(x)));
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
  return floatActivation(ctx, [](auto x) { return stableSigmoid(x); });
}

Error runTanh(const KernelContext &ctx) {
  return floatActivation(ctx, [](auto x) { return std::tanh(x); });
}

Error runElu(const KernelContext &ctx) {
  float alpha = ctx.attr<AttrKind::Alpha>();
  return floatActivation(ctx, [alpha](auto x) {
    using C = decltype(x);
    return x < 0 ? C(alpha) * std::expm1(x) : x;
  });
}

Error runCelu(const KernelContext &ctx) {
  float alpha = ctx.attr<AttrKind::Alpha>();
  // max(0, x) + min(0, alpha * (e^(x/alpha) - 1)): the first term is 0 for x < 0 and the second
  // 0 for x >= 0 (for either sign of alpha), so one branch suffices, and NaN stays NaN.
  return floatActivation(ctx, [alpha](auto x) {
    using C = decltype(x);
    return x < 0 ? C(alpha) * std::expm1(x / C(alpha)) : x;
  });
}

Error runSelu(const KernelContext &ctx) {
  float alpha = ctx.attr<AttrKind::Alpha>(), gamma = ctx.attr<AttrKind::Gamma>();
  return floatActivation(ctx, [alpha, gamma](auto x) {
    using C = decltype(x);
    return C(gamma) * (x <= 0 ? C(alpha) * std::expm1(x) : x);
  });
}

Error runHardSigmoid(const KernelContext &ctx) {
  float alpha = ctx.attr<AttrKind::Alpha>(), beta = ctx.attr<AttrKind::Beta>();
  return floatActivation(ctx, [alpha, beta](auto x) {
    using C = decltype(x);
    return clampKeepingNaN(C(alpha) * x + C(beta), C(0), C(1));
  });
}

Error runLeakyRelu(const KernelContext &ctx) {
  float alpha = ctx.attr<AttrKind::Alpha>();
  return floatActivation(ctx, [alpha](auto x) {
    using C = decltype(x);
    return x < 0 ? C(alpha) * x : x;
  });
}

Error runThresholdedRelu(const KernelContext &ctx) {
  float alpha = ctx.attr<AttrKind::Alpha>();
  return floatActivation(ctx, [alpha](auto x) {
    using C = decltype(x);
    return x <= C(alpha) ? C(0) : x; // NaN stays NaN
  });
}

/// Computed in double for every kind, then converted back (integers truncate and saturate).
Error runShrink(const KernelContext &ctx) {
  double bias = ctx.attr<AttrKind::Bias>(), lambd = ctx.attr<AttrKind::Lambd>();
  return dispatchIn<KindSet::Numeric>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    return unaryLoop<T>(ctx, [&](T v) {
      double x = double(Compute<T>(v));
      return convertElement<T>(x < -lambd ? x + bias : x > lambd ? x - bias : 0.0);
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
