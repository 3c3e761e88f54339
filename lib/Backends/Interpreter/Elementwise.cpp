// Element-wise kernels: arithmetic (Add, Sub, Mul, Div) and activations (Relu, Sigmoid, Tanh).
// Operands have the result's exact type (the importer inserts Broadcasts), so every kernel is one
// loop over the flat element index. Reading and writing the same index also keeps the loops
// correct if the memory planner ever lets the result share an operand's buffer.
#include "KernelUtils.h"

#include <cmath>
#include <type_traits>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// The kinds the arithmetic kernels (and Relu) are instantiated for.
constexpr std::initializer_list<ElemKind> kArithKinds = {ElemKind::Float32, ElemKind::Int32,
                                                         ElemKind::Int64};

/// Calls fn(T()) with T the C++ type of the result's element kind, for the kinds the arithmetic
/// kernels support.
template <typename Fn> Error dispatchArith(const KernelContext &ctx, Fn &&fn) {
  ElemKind k = ctx.out().type.kind;
  switch (k) {
  case ElemKind::Float32:
    return fn(float());
  case ElemKind::Int32:
    return fn(int32_t());
  case ElemKind::Int64:
    return fn(int64_t());
  default:
    return ctx.unsupported("no kernel for element kind " + elemKindName(k));
  }
}

// Integer arithmetic wraps (two's complement) instead of overflowing: signed overflow is
// undefined behaviour in C++, and a reference kernel must not have any. Floats are plain IEEE.
template <typename T> T wrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
  else
    return a + b;
}
template <typename T> T wrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(std::make_unsigned_t<T>(a) - std::make_unsigned_t<T>(b));
  else
    return a - b;
}
template <typename T> T wrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(std::make_unsigned_t<T>(a) * std::make_unsigned_t<T>(b));
  else
    return a * b;
}

/// r[i] = op(lhs[i], rhs[i]) over the whole result.
template <typename T, typename Op> Error binaryLoop(const KernelContext &ctx, Op op) {
  // All four arithmetic kinds name their operands LHS, RHS in that order.
  const T *a = ctx.in(ops::Add::LHS).as<T>();
  const T *b = ctx.in(ops::Add::RHS).as<T>();
  T *r = ctx.out().as<T>();
  size_t n = ctx.out().numElements();
  for (size_t i = 0; i < n; ++i)
    r[i] = op(a[i], b[i]);
  return Error::success();
}

/// r[i] = op(in[i]) over the whole result.
template <typename T, typename Op> Error unaryLoop(const KernelContext &ctx, Op op) {
  const T *x = ctx.in(ops::Relu::Input).as<T>();
  T *r = ctx.out().as<T>();
  size_t n = ctx.out().numElements();
  for (size_t i = 0; i < n; ++i)
    r[i] = op(x[i]);
  return Error::success();
}

template <typename T> Error divide(const KernelContext &ctx) {
  if constexpr (std::is_floating_point_v<T>) {
    return binaryLoop<T>(ctx, [](T a, T b) { return a / b; }); // x/0 is inf or NaN, as IEEE says
  } else {
    // Division by zero traps on most hardware, so check every divisor before dividing anything.
    const T *b = ctx.in(ops::Div::RHS).as<T>();
    size_t n = ctx.out().numElements();
    for (size_t i = 0; i < n; ++i)
      if (b[i] == 0)
        return ctx.unsupported("integer division by zero");
    return binaryLoop<T>(ctx, [](T a, T b) {
      // min / -1 overflows (and traps on x86); its wrapped value is min itself.
      if (b == -1)
        return wrapSub<T>(0, a);
      return T(a / b); // C++ integer division truncates toward zero
    });
  }
}

/// 1 / (1 + e^-x) without overflow: exp is only ever taken of a non-positive number, so it lies
/// in (0, 1] and neither branch can produce inf/inf for large |x|.
float stableSigmoid(float x) {
  if (x >= 0)
    return 1.0f / (1.0f + std::exp(-x));
  float e = std::exp(x);
  return e / (1.0f + e);
}

} // namespace

Error runAdd(const KernelContext &ctx) {
  return dispatchArith(ctx, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T>(ctx, wrapAdd<T>);
  });
}

Error runSub(const KernelContext &ctx) {
  return dispatchArith(ctx, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T>(ctx, wrapSub<T>);
  });
}

Error runMul(const KernelContext &ctx) {
  return dispatchArith(ctx, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T>(ctx, wrapMul<T>);
  });
}

Error runDiv(const KernelContext &ctx) {
  return dispatchArith(ctx, [&](auto tag) { return divide<decltype(tag)>(ctx); });
}

Error runRelu(const KernelContext &ctx) {
  return dispatchArith(ctx, [&](auto tag) {
    using T = decltype(tag);
    return unaryLoop<T>(ctx, [](T x) { return x > T(0) ? x : T(0); });
  });
}

Error runSigmoid(const KernelContext &ctx) {
  EMBER_TRY(expectFloat32(ctx));
  return unaryLoop<float>(ctx, stableSigmoid);
}

Error runTanh(const KernelContext &ctx) {
  EMBER_TRY(expectFloat32(ctx));
  return unaryLoop<float>(ctx, [](float x) { return std::tanh(x); });
}

bool supportsAdd(const Node &n) { return resultKindIn(n, kArithKinds); }
bool supportsSub(const Node &n) { return resultKindIn(n, kArithKinds); }
bool supportsMul(const Node &n) { return resultKindIn(n, kArithKinds); }
bool supportsDiv(const Node &n) { return resultKindIn(n, kArithKinds); }
bool supportsRelu(const Node &n) { return resultKindIn(n, kArithKinds); }
bool supportsSigmoid(const Node &n) { return resultKindIn(n, {ElemKind::Float32}); }
bool supportsTanh(const Node &n) { return resultKindIn(n, {ElemKind::Float32}); }

} // namespace interp
} // namespace ember
