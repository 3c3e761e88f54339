// Shared by the reduction and normalization kernels (Reduce*.cpp, Normalization*.cpp): the
// types they accumulate in and the conversions back to storage, with the rules of the
// Interpreter's ReduceUtils.h, and the walk over a tensor grouped by its reduced axes.
//  - Accum<T>: double for every float kind (f16/bf16 read through float), int64 / uint64 for
//    integers, where sums and products wrap (two's complement) as numpy's do;
//  - toStorage<T>: a double rounds to T (f16/bf16 through float); to an integer it truncates
//    and saturates, NaN giving 0; an integer accumulator wraps to T.
// Everything here has internal linkage: other kernel files may use the same names.
#ifndef EMBER_CPU_KERNELS_REDUCECOMMON_H
#define EMBER_CPU_KERNELS_REDUCECOMMON_H

#include "Libm.h"
#include "Types.h"


namespace {

template <typename T, bool IsFloat = kIsFloat<T>, bool IsSigned = kIsSigned<T>> struct AccumSel {
  typedef double type;
};
template <typename T> struct AccumSel<T, false, true> {
  typedef i64 type;
};
template <typename T> struct AccumSel<T, false, false> {
  typedef u64 type;
};
template <typename T> using Accum = typename AccumSel<T>::type;

/// Element i of p in its accumulation type (exact: f16/bf16 -> float -> double).
template <typename T> EMBER_INLINE Accum<T> loadA(const T *p, i64 i) {
  return Accum<T>(ld(p, i));
}
/// Element i of p as a double (the real-valued reductions and the normalizations).
template <typename T> EMBER_INLINE double loadD(const T *p, i64 i) { return double(ld(p, i)); }

/// A double result stored as T.
template <typename T> EMBER_INLINE T fromDouble(double v) {
  if constexpr (kIsFloat<T>)
    return Elem<T>::store(ComputeOf<T>(v));
  else
    return T(convert<T, double>(v));
}
/// An accumulator stored as T (integers wrap).
template <typename T, typename A> EMBER_INLINE T toStorage(A v) {
  if constexpr (kSame<A, double>)
    return fromDouble<T>(v);
  else
    return T(v);
}

/// a + b and a * b wrapping for integer accumulators.
template <typename A> EMBER_INLINE A wrapAdd(A a, A b) {
  if constexpr (kSame<A, double>)
    return a + b;
  else
    return A(u64(a) + u64(b));
}
template <typename A> EMBER_INLINE A wrapMul(A a, A b) {
  if constexpr (kSame<A, double>)
    return a * b;
  else
    return A(u64(a) * u64(b));
}

template <typename A> EMBER_INLINE bool nanOf(A v) {
  if constexpr (kSame<A, double> || kSame<A, float>)
    return v != v;
  else
    return false;
}

/// max and min that propagate NaN (the first one met), as numpy's.
template <typename A> EMBER_INLINE A maxOf(A a, A b) {
  if (nanOf(a) || nanOf(b))
    return nanOf(a) ? a : b;
  return a < b ? b : a;
}
template <typename A> EMBER_INLINE A minOf(A a, A b) {
  if (nanOf(a) || nanOf(b))
    return nanOf(a) ? a : b;
  return b < a ? b : a;
}

/// Whether \p a should replace the best so far \p b (ArgMax/ArgMin/TopK): larger (smaller)
/// wins, and NaN beats every number.
template <bool Largest, typename A> EMBER_INLINE bool beats(A a, A b) {
  if (nanOf(a) || nanOf(b))
    return nanOf(a) && !nanOf(b);
  return Largest ? b < a : a < b;
}
template <typename A> EMBER_INLINE bool ties(A a, A b) {
  return a == b || (nanOf(a) && nanOf(b));
}

/// A float operand of a kind known only at run time (per-channel parameters and statistics,
/// which may be of another float kind than the data): codes of FloatKindCode in codegen.
enum FloatCode { FC_F32 = 0, FC_F64 = 1, FC_F16 = 2, FC_BF16 = 3 };

EMBER_INLINE double loadAny(const void *p, i64 code, i64 i) {
  switch (code) {
  case FC_F64:
    return ((const double *)p)[i];
  case FC_F16:
    return double(halfToFloat(((const u16 *)p)[i]));
  case FC_BF16:
    return double(bfloatToFloat(((const u16 *)p)[i]));
  default:
    return double(((const float *)p)[i]);
  }
}
EMBER_INLINE void storeAny(void *p, i64 code, i64 i, double v) {
  switch (code) {
  case FC_F64:
    ((double *)p)[i] = v;
    break;
  case FC_F16:
    ((u16 *)p)[i] = floatToHalf(float(v));
    break;
  case FC_BF16:
    ((u16 *)p)[i] = floatToBfloat(float(v));
    break;
  default:
    ((float *)p)[i] = float(v);
    break;
  }
}

/// A tensor walked in row-major order with each element's group: the position of the element
/// in the tensor whose reduced axes are collapsed to 1. Codegen (ReduceView in
/// CodeGenReduce.cpp) drops axes of size 1 and merges neighbours of the same class, and gives
/// per axis its size and its group stride (0 for a reduced axis, the row-major stride over the
/// kept axes otherwise): the innermost axis is then one run whose group is constant (reduced)
/// or steps by one (kept). fn(offset, group, runLength, groupStep) is called per run.
template <typename Fn>
EMBER_INLINE void forEachRun(i64 rank, const i64 *dims, const i64 *gstr, Fn &&fn) {
  i64 runs = 1;
  for (i64 a = 0; a + 1 < rank; ++a)
    runs *= dims[a];
  i64 len = dims[rank - 1], step = gstr[rank - 1];
  if (len == 0)
    return;
  i64 idx[16] = {};
  i64 g = 0;
  for (i64 r = 0; r < runs; ++r) {
    fn(r * len, g, len, step);
    for (i64 a = rank - 1; a-- > 0;) {
      if (++idx[a] < dims[a]) {
        g += gstr[a];
        break;
      }
      g -= gstr[a] * (dims[a] - 1);
      idx[a] = 0;
    }
  }
}

} // namespace

// Instantiation list of the kinds the reductions and selections take (numbers, not bool).
#define EMBER_FOR_REDUCE_KINDS(X) EMBER_FOR_NUMERIC_KINDS(X)

#endif
