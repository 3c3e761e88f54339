// Element-wise kernels that compare, combine truth values or bits, select, clamp or convert:
// Equal, Less, LessOrEqual, Greater, GreaterOrEqual, And, Or, Xor, Where, Clip and Cast.
#include "ElementwiseCommon.h"

#include "ember/Semantics/NarrowKinds.h"

#include <cstring>
#include <functional>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// r[i] = cmp(a[i], b[i]) as bool, for operands of any numeric or bool kind. Floats compare as
/// IEEE (every comparison with NaN is false).
template <typename Cmp> Error compare(const KernelContext &ctx, Cmp cmp) {
  return dispatchIn<KindSet::NumericOrBool>(ctx, ctx.in(0).type.kind, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T, bool>(ctx, [&](T a, T b) { return cmp(Compute<T>(a), Compute<T>(b)); });
  });
}

/// Bitwise \p op on bool or an integer kind (on bool, whose values are 0 and 1, the logical one).
template <typename Op> Error logic(const KernelContext &ctx, Op op) {
  return dispatchIn<KindSet::IntegerOrBool>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    return binaryLoop<T>(ctx, op);
  });
}

bool comparable(const Node &n) { return kindInSet(operandKind(n, 0), KindSet::NumericOrBool); }

} // namespace

Error runEqual(const KernelContext &ctx) { return compare(ctx, std::equal_to<>()); }
Error runLess(const KernelContext &ctx) { return compare(ctx, std::less<>()); }
Error runLessOrEqual(const KernelContext &ctx) { return compare(ctx, std::less_equal<>()); }
Error runGreater(const KernelContext &ctx) { return compare(ctx, std::greater<>()); }
Error runGreaterOrEqual(const KernelContext &ctx) { return compare(ctx, std::greater_equal<>()); }

Error runAnd(const KernelContext &ctx) { return logic(ctx, std::bit_and<>()); }
Error runOr(const KernelContext &ctx) { return logic(ctx, std::bit_or<>()); }
Error runXor(const KernelContext &ctx) { return logic(ctx, std::bit_xor<>()); }

Error runWhere(const KernelContext &ctx) {
  return dispatchIn<KindSet::NumericOrBool>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    const bool *cond = ctx.in(ops::Where::Condition).as<bool>();
    const T *a = ctx.in(ops::Where::LHS).as<T>();
    const T *b = ctx.in(ops::Where::RHS).as<T>();
    T *r = ctx.out().as<T>();
    for (size_t i = 0, n = ctx.out().numElements(); i < n; ++i)
      r[i] = cond[i] ? a[i] : b[i];
    return Error::success();
  });
}

Error runClip(const KernelContext &ctx) {
  return dispatchIn<KindSet::Numeric>(ctx, ctx.out().type.kind, [&](auto tag) {
    using T = decltype(tag);
    using C = Compute<T>;
    C lo = ctx.in(ops::Clip::Min).as<T>()[0], hi = ctx.in(ops::Clip::Max).as<T>()[0];
    // A NaN input fails both comparisons and stays NaN; Min > Max gives Max, as numpy.clip.
    return unaryLoop<T>(ctx, [lo, hi](T v) {
      C x = v;
      x = x < lo ? lo : x;
      return hi < x ? hi : x;
    });
  });
}

namespace {

/// Cast's conversion: convertElement's, except that to bfloat16 the float value's low 16 bits
/// are dropped (NaN stays a quiet NaN). ONNX 1.12's reference and the onnxruntime of its time
/// cast that way, and the suite's expected outputs come from them (later ONNX rounds to nearest).
template <typename To, typename From> To castElement(From x) {
  if constexpr (std::is_same_v<To, bfloat16_t> && !std::is_same_v<From, bfloat16_t>) {
    float f = convertElement<float>(x);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    bfloat16_t r;
    r.bits = uint16_t(bits >> 16) | (std::isnan(f) ? 0x40 : 0);
    return r;
  } else {
    return convertElement<To>(x);
  }
}

/// Cast to or from a narrow kind (ember/Semantics/NarrowKinds.h): a narrow value becomes a float
/// (exactly) and goes on as a float's Cast; a value of another kind goes to a narrow kind as a
/// double (exactly: float16 and bfloat16 through float).
Error castNarrow(const KernelContext &ctx) {
  ElemKind from = ctx.in(0).type.kind, to = ctx.out().type.kind;
  const uint8_t *narrowIn = ctx.in(0).as<uint8_t>();
  size_t n = ctx.out().numElements();
  if (isNarrowKind(to)) {
    long code = narrowKindCode(to);
    long saturate = castSaturates(ctx.instr().getAttrs()) != 0;
    uint8_t *r = ctx.out().as<uint8_t>();
    if (isNarrowKind(from)) {
      long fromCode = narrowKindCode(from);
      for (size_t i = 0; i < n; ++i)
        r[i] = uint8_t(
            ember_narrow_from_double(code, ember_narrow_to_float(fromCode, narrowIn[i]), saturate));
      return Error::success();
    }
    return dispatchIn<KindSet::NumericOrBool>(ctx, from, [&](auto fromTag) {
      using From = decltype(fromTag);
      const From *x = ctx.in(0).as<From>();
      for (size_t i = 0; i < n; ++i)
        r[i] = uint8_t(ember_narrow_from_double(code, convertElement<double>(x[i]), saturate));
      return Error::success();
    });
  }
  long fromCode = narrowKindCode(from);
  return dispatchIn<KindSet::NumericOrBool>(ctx, to, [&](auto toTag) {
    using To = decltype(toTag);
    To *r = ctx.out().as<To>();
    for (size_t i = 0; i < n; ++i)
      r[i] = castElement<To, float>(ember_narrow_to_float(fromCode, narrowIn[i]));
    return Error::success();
  });
}

} // namespace

Error runCast(const KernelContext &ctx) {
  if (isNarrowKind(ctx.in(0).type.kind) || isNarrowKind(ctx.out().type.kind))
    return castNarrow(ctx);
  return dispatchIn<KindSet::NumericOrBool>(ctx, ctx.in(0).type.kind, [&](auto fromTag) {
    using From = decltype(fromTag);
    return dispatchIn<KindSet::NumericOrBool>(ctx, ctx.out().type.kind, [&](auto toTag) {
      using To = decltype(toTag);
      return unaryLoop<From, To>(ctx, castElement<To, From>);
    });
  });
}

bool supportsEqual(const Node &n) { return comparable(n); }
bool supportsLess(const Node &n) { return comparable(n); }
bool supportsLessOrEqual(const Node &n) { return comparable(n); }
bool supportsGreater(const Node &n) { return comparable(n); }
bool supportsGreaterOrEqual(const Node &n) { return comparable(n); }
bool supportsAnd(const Node &n) { return kindInSet(resultKind(n), KindSet::IntegerOrBool); }
bool supportsOr(const Node &n) { return kindInSet(resultKind(n), KindSet::IntegerOrBool); }
bool supportsXor(const Node &n) { return kindInSet(resultKind(n), KindSet::IntegerOrBool); }
bool supportsWhere(const Node &n) { return kindInSet(resultKind(n), KindSet::NumericOrBool); }
bool supportsClip(const Node &n) { return kindInSet(resultKind(n), KindSet::Numeric); }
bool supportsCast(const Node &n) {
  auto convertible = [](ElemKind k) {
    return kindInSet(k, KindSet::NumericOrBool) || isNarrowKind(k);
  };
  return convertible(operandKind(n, 0)) && convertible(resultKind(n));
}

} // namespace interp
} // namespace ember
