// Element-wise arithmetic kernels: Add, Sub, Mul, Div, Max, Min, Mod, Pow, ShiftLeft,
// ShiftRight and PRelu, for every numeric kind (see ElementwiseCommon.h for the conventions).
#include "ElementwiseCommon.h"
#include "ember/Semantics/Formulas.h"
#include "ember/Semantics/Remainder.h"

using namespace llvm;

namespace ember {
namespace interp {

namespace {

// Integer arithmetic wraps (two's complement) instead of overflowing: signed overflow is
// undefined behaviour in C++, and a reference kernel must not have any. Floats are plain IEEE,
// the 16-bit ones computed in float.
template <typename T> T wrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(WrapType<T>(a) + WrapType<T>(b));
  else
    return T(Compute<T>(a) + Compute<T>(b));
}
template <typename T> T wrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(WrapType<T>(a) - WrapType<T>(b));
  else
    return T(Compute<T>(a) - Compute<T>(b));
}
template <typename T> T wrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(WrapType<T>(a) * WrapType<T>(b));
  else
    return T(Compute<T>(a) * Compute<T>(b));
}

/// numpy's maximum/minimum: a NaN operand wins (ScalarFormulas.inc), the stored operand itself
/// the result.
template <typename T> T maxOf(T a, T b) {
  if constexpr (kIsFloatLike<T>)
    return formula::ember_max_takes_second(Compute<T>(a), Compute<T>(b)) ? b : a;
  else
    return a < b ? b : a;
}
template <typename T> T minOf(T a, T b) {
  if constexpr (kIsFloatLike<T>)
    return formula::ember_min_takes_second(Compute<T>(a), Compute<T>(b)) ? b : a;
  else
    return b < a ? b : a;
}

/// Integer division and remainder trap on a zero divisor: check them all before computing.
template <typename T> Error checkNonZeroDivisors(const KernelContext &ctx, StringRef what) {
  const T *b = ctx.in(1).as<T>();
  for (size_t i = 0, n = ctx.out().numElements(); i < n; ++i)
    if (b[i] == 0)
      return ctx.unsupported("integer " + what + " by zero");
  return Error::success();
}

template <typename T> Error divide(const KernelContext &ctx) {
  if constexpr (kIsFloatLike<T>) {
    // x/0 is inf or NaN, as IEEE says.
    return binaryLoop<T>(ctx, [](T a, T b) { return Compute<T>(a) / Compute<T>(b); });
  } else {
    EMBER_TRY(checkNonZeroDivisors<T>(ctx, "division"));
    return binaryLoop<T>(ctx, [](T a, T b) {
      // min / -1 overflows (and traps on x86); its wrapped value is min itself.
      if constexpr (std::is_signed_v<T>)
        if (b == -1)
          return wrapSub<T>(0, a);
      return T(a / b); // C++ integer division truncates toward zero
    });
  }
}

/// Mod: fmod 1 gives the remainder with the dividend's sign (C's % and fmod), fmod 0 the one
/// with the divisor's sign (Python's %, integers only; the shape rule refuses it for floats).
template <typename T> Error remainder(const KernelContext &ctx) {
  if constexpr (kIsFloatLike<T>) {
    return binaryLoop<T>(ctx, [](T a, T b) { return std::fmod(Compute<T>(a), Compute<T>(b)); });
  } else {
    EMBER_TRY(checkNonZeroDivisors<T>(ctx, "remainder"));
    int divisorSign = ctx.attr<AttrKind::FMod>() == 0;
    return binaryLoop<T>(ctx, [divisorSign](T a, T b) {
      if constexpr (std::is_signed_v<T>)
        return T(ember_signed_remainder(a, b, divisorSign));
      else
        return T(a % b);
    });
  }
}

/// Integer base ^ integer exponent, exactly (wrapping). A negative exponent truncates 1/base^e
/// toward zero like the floating point result converted back would; 0 to a negative power has
/// no value.
template <typename B, typename E> Error integerPower(const KernelContext &ctx) {
  const B *base = ctx.in(ops::Pow::Base).as<B>();
  const E *exponent = ctx.in(ops::Pow::Exponent).as<E>();
  B *r = ctx.out().as<B>();
  for (size_t i = 0, n = ctx.out().numElements(); i < n; ++i) {
    B b = base[i];
    E e = exponent[i];
    if constexpr (std::is_signed_v<E>) {
      if (e < 0) {
        if (b == 0)
          return ctx.unsupported("integer 0 raised to a negative power");
        r[i] = b == 1 ? B(1) : b == -1 ? B(e % 2 ? -1 : 1) : B(0);
        continue;
      }
    }
    WrapType<B> acc = 1, square = WrapType<B>(b);
    for (auto bits = std::make_unsigned_t<E>(e); bits; bits >>= 1) {
      if (bits & 1)
        acc = WrapType<B>(acc * square);
      square = WrapType<B>(square * square);
    }
    r[i] = B(acc);
  }
  return Error::success();
}

template <typename B, typename E> Error power(const KernelContext &ctx) {
  if constexpr (std::is_integral_v<B> && std::is_integral_v<E>)
    return integerPower<B, E>(ctx);
  else
    return binaryLoop<B, B, E>(ctx, [](B b, E e) {
      return convertElement<B>(std::pow(double(Compute<B>(b)), double(Compute<E>(e))));
    });
}

/// The kinds Pow's base may have, as storage types and as element kinds.
template <typename T>
constexpr bool kIsPowBase =
    kIsFloatLike<T> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;
bool isPowBaseKind(ElemKind k) {
  return isFloatKind(k) || k == ElemKind::Int32 || k == ElemKind::Int64;
}

template <typename T> T shiftLeft(T a, T b) {
  return b >= std::numeric_limits<T>::digits ? T(0) : T(WrapType<T>(a) << b);
}
template <typename T> T shiftRight(T a, T b) {
  return b >= std::numeric_limits<T>::digits ? T(0) : T(a >> b);
}

} // namespace

Error runAdd(const KernelContext &ctx) {
  return dispatchIn<KindSet::Numeric>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T>(ctx, wrapAdd<T>);
  });
}

Error runSub(const KernelContext &ctx) {
  return dispatchIn<KindSet::Numeric>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T>(ctx, wrapSub<T>);
  });
}

Error runMul(const KernelContext &ctx) {
  return dispatchIn<KindSet::Numeric>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T>(ctx, wrapMul<T>);
  });
}

Error runDiv(const KernelContext &ctx) {
  return dispatchIn<KindSet::Numeric>(ctx, ctx.out().type.kind,
                                      [&](auto tag) { return divide<decltype(tag)>(ctx); });
}

Error runMax(const KernelContext &ctx) {
  return dispatchIn<KindSet::Numeric>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T>(ctx, maxOf<T>);
  });
}

Error runMin(const KernelContext &ctx) {
  return dispatchIn<KindSet::Numeric>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T>(ctx, minOf<T>);
  });
}

Error runMod(const KernelContext &ctx) {
  return dispatchIn<KindSet::Numeric>(ctx, ctx.out().type.kind,
                                      [&](auto tag) { return remainder<decltype(tag)>(ctx); });
}

Error runPow(const KernelContext &ctx) {
  ElemKind baseKind = ctx.out().type.kind;
  if (!isPowBaseKind(baseKind))
    return ctx.unsupported("no kernel for base kind " + elemKindName(baseKind));
  return dispatchIn<KindSet::Numeric>(ctx, baseKind, [&](auto baseTag) -> Error {
    using B = decltype(baseTag);
    if constexpr (kIsPowBase<B>)
      return dispatchIn<KindSet::Numeric>(
          ctx, ctx.in(ops::Pow::Exponent).type.kind,
          [&](auto expTag) { return power<B, decltype(expTag)>(ctx); });
    else
      return Error::success(); // unreachable: isPowBaseKind refused baseKind above
  });
}

Error runShiftLeft(const KernelContext &ctx) {
  return dispatchIn<KindSet::Unsigned>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T>(ctx, shiftLeft<T>);
  });
}

Error runShiftRight(const KernelContext &ctx) {
  return dispatchIn<KindSet::Unsigned>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T>(ctx, shiftRight<T>);
  });
}

Error runPRelu(const KernelContext &ctx) {
  return dispatchIn<KindSet::Numeric>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T>(
        ctx, [](T x, T slope) { return Compute<T>(x) < Compute<T>(0) ? wrapMul<T>(slope, x) : x; });
  });
}

bool supportsAdd(const Node &n) { return kindInSet(resultKind(n), KindSet::Numeric); }
bool supportsSub(const Node &n) { return kindInSet(resultKind(n), KindSet::Numeric); }
bool supportsMul(const Node &n) { return kindInSet(resultKind(n), KindSet::Numeric); }
bool supportsDiv(const Node &n) { return kindInSet(resultKind(n), KindSet::Numeric); }
bool supportsMax(const Node &n) { return kindInSet(resultKind(n), KindSet::Numeric); }
bool supportsMin(const Node &n) { return kindInSet(resultKind(n), KindSet::Numeric); }
bool supportsMod(const Node &n) { return kindInSet(resultKind(n), KindSet::Numeric); }
bool supportsPow(const Node &n) {
  return isPowBaseKind(resultKind(n)) &&
         kindInSet(operandKind(n, ops::Pow::Exponent), KindSet::Numeric);
}
bool supportsShiftLeft(const Node &n) { return kindInSet(resultKind(n), KindSet::Unsigned); }
bool supportsShiftRight(const Node &n) { return kindInSet(resultKind(n), KindSet::Unsigned); }
bool supportsPRelu(const Node &n) { return kindInSet(resultKind(n), KindSet::Numeric); }

} // namespace interp
} // namespace ember
