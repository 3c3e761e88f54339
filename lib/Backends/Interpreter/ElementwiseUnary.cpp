// One-operand element-wise kernels: Unary (the functions of Nodes/ElementwiseFunctions.def),
// IsNaN, IsInf and the activations (Relu, Sigmoid, Tanh, Elu, Celu, Selu, HardSigmoid,
// LeakyRelu, ThresholdedRelu, Shrink). Floats compute in Compute<T> (float for the 16-bit kinds),
// with the formulas of ember/Semantics/ScalarFormulas.inc.
#include "ElementwiseCommon.h"

#include "ember/Graph/UnaryFunctions.h"
#include "ember/Semantics/Formulas.h"

using namespace llvm;

namespace ember {
namespace interp {

using namespace formula;

namespace {

/// The unsigned type of T's width, through which the integer forms wrap (bool's: uint8_t).
template <typename T> struct UnsignedOfWidth {
  using type = std::make_unsigned_t<T>;
};
template <> struct UnsignedOfWidth<bool> {
  using type = uint8_t;
};

// Each function's forms (Nodes/ElementwiseFunctions.def) as a struct: floatForm over the compute
// type, integerForm over the integer or bool kind itself.
#define FLOAT(...)                                                                                 \
  static constexpr bool kHasFloat = true;                                                          \
  template <typename T> static T floatForm(T x) { return __VA_ARGS__; }
#define NO_FLOAT static constexpr bool kHasFloat = false;
#define INTEGER(...)                                                                               \
  static constexpr bool kHasInteger = true;                                                        \
  template <typename T> static T integerForm(T x) {                                                \
    using U = typename UnsignedOfWidth<T>::type;                                                   \
    (void)sizeof(U);                                                                               \
    return __VA_ARGS__;                                                                            \
  }
#define NO_INTEGER static constexpr bool kHasInteger = false;
#define UNARY_FUNCTION(E, NAME, DOMAIN, FLOAT_FORM, INTEGER_FORM, VECTOR_FORM, FUSE, DOC)     \
  struct E##Forms {                                                                                \
    FLOAT_FORM INTEGER_FORM                                                                        \
  };
#include "ember/Graph/Nodes/ElementwiseFunctions.def"
#undef FLOAT
#undef NO_FLOAT
#undef INTEGER
#undef NO_INTEGER

/// Function F on storage type T (a kind of its domain): floats compute in Compute<T>.
template <typename F, typename T> Error applyUnary(const KernelContext &ctx) {
  if constexpr (kIsFloatLike<T>) {
    if constexpr (F::kHasFloat)
      return unaryLoop<T>(ctx, [](T x) { return F::floatForm(Compute<T>(x)); });
  } else if constexpr (F::kHasInteger) {
    return unaryLoop<T>(ctx, [](T x) { return F::integerForm(x); });
  }
  return ctx.unsupported("no kernel for element kind " + elemKindName(ctx.out().type.kind));
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
  const UnaryFunctionInfo *f = findUnaryFunction(name);
  if (!f)
    return ctx.unsupported("unknown function '" + name + "'");
  ElemKind k = ctx.out().type.kind;
  if (!kindInSet(k, f->domain))
    return ctx.unsupported("no kernel for " + name + " of " + elemKindName(k));
  return dispatchIn<KindSet::NumericOrBool>(ctx, k, [&](auto tag) -> Error {
    using T = decltype(tag);
    switch (f->fn) {
#define UNARY_FUNCTION(E, NAME, DOMAIN, FLOAT_FORM, INTEGER_FORM, VECTOR_FORM, FUSE, DOC)     \
  case UnaryFunction::E: return applyUnary<E##Forms, T>(ctx);
#include "ember/Graph/Nodes/ElementwiseFunctions.def"
    }
    return Error::success();
  });
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
  return unaryFunctionAccepts(n.attr<AttrKind::Function>(), resultKind(n));
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
