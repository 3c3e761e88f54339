// Helpers shared by the element-wise kernel files (Elementwise*.cpp): which element kinds a
// kernel accepts, dispatch restricted to them, conversions between kinds, and the loops.
// Operands of an element-wise instruction have the result's dims (the importer inserts
// Broadcasts), so every kernel is one loop over the flat element index. Reading and writing the
// same index keeps the loops right even if a result shares an operand's buffer.
#ifndef EMBER_LIB_BACKENDS_INTERPRETER_ELEMENTWISECOMMON_H
#define EMBER_LIB_BACKENDS_INTERPRETER_ELEMENTWISECOMMON_H

#include "KernelUtils.h"

#include "ember/Base/KindSets.h"
#include "ember/Semantics/Conversions.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace ember {
namespace interp {

template <typename T>
constexpr bool kIsFloatLike =
    std::is_floating_point_v<T> || std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;

/// The type a kernel computes T in: float for the 16-bit floats, T itself otherwise.
template <typename T>
using Compute =
    std::conditional_t<std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>, float, T>;

/// Whether storage type T (as dispatchAllKinds passes it) belongs to \p s.
template <typename T> constexpr bool typeInSet(KindSet s) {
  constexpr bool isBool = std::is_same_v<T, bool>;
  constexpr bool isUnsigned = std::is_integral_v<T> && std::is_unsigned_v<T> && !isBool;
  return classInSet(s, kIsFloatLike<T>, isBool, isUnsigned);
}

/// Calls fn(T()) with T the storage type of \p k if \p k is in \p S; otherwise an error naming
/// the instruction. fn is instantiated only for the types of S, so its body may use operations
/// those types alone have.
template <KindSet S, typename Fn>
llvm::Error dispatchIn(const KernelContext &ctx, ElemKind k, Fn &&fn) {
  if (!kindInSet(k, S))
    return ctx.unsupported("no kernel for element kind " + elemKindName(k));
  return dispatchAllKinds(k, [&](auto tag) -> llvm::Error {
    if constexpr (typeInSet<decltype(tag)>(S))
      return fn(tag);
    else
      return llvm::Error::success(); // unreachable: kindInSet refused k above
  });
}

/// The kind of operand \p i of \p n.
inline ElemKind operandKind(const Node &n, unsigned i) { return n.getOperand(i).getType().kind; }

/// \p x converted to To, defined for every pair of numeric and bool types: to bool is x != 0
/// (NaN is true); floats to integers truncate toward zero and saturate, NaN gives 0
/// (ember/Semantics/Conversions.h); integers to
/// narrower integers wrap (two's complement, as GCC and Clang define the conversion); to a float
/// rounds to nearest even.
template <typename To, typename From> To convertElement(From x) {
  if constexpr (std::is_same_v<To, bool>) {
    return Compute<From>(x) != Compute<From>(0);
  } else if constexpr (kIsFloatLike<To>) {
    if constexpr (std::is_same_v<From, bool>)
      return To(Compute<To>(x ? 1 : 0));
    else
      return To(Compute<To>(Compute<From>(x)));
  } else if constexpr (kIsFloatLike<From>) {
    return conversions::truncateAndSaturate(double(Compute<From>(x)),
                                            std::numeric_limits<To>::lowest(),
                                            std::numeric_limits<To>::max());
  } else {
    return To(x);
  }
}

/// Unsigned arithmetic wide enough that T's values do not promote to int: integer kernels
/// compute in it so that overflow wraps instead of being undefined behaviour.
template <typename T> using WrapType = decltype(0u + std::make_unsigned_t<T>());

/// r[i] = op(in[i]) over the whole result; In and Out are the storage types.
template <typename In, typename Out = In, typename Op>
llvm::Error unaryLoop(const KernelContext &ctx, Op op) {
  const In *x = ctx.in(0).as<In>();
  Out *r = ctx.out().as<Out>();
  for (size_t i = 0, n = ctx.out().numElements(); i < n; ++i)
    r[i] = Out(op(x[i]));
  return llvm::Error::success();
}

/// r[i] = op(a[i], b[i]) over the whole result, for operands 0 and 1.
template <typename A, typename Out = A, typename B = A, typename Op>
llvm::Error binaryLoop(const KernelContext &ctx, Op op) {
  const A *a = ctx.in(0).as<A>();
  const B *b = ctx.in(1).as<B>();
  Out *r = ctx.out().as<Out>();
  for (size_t i = 0, n = ctx.out().numElements(); i < n; ++i)
    r[i] = Out(op(a[i], b[i]));
  return llvm::Error::success();
}

} // namespace interp
} // namespace ember

#endif
