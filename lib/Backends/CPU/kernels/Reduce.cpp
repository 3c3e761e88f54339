// Reductions (Reduce: sum, mean, max, min, prod, sum_square, l1, l2, log_sum, log_sum_exp),
// ArgMax/ArgMin and CumSum, with the Interpreter's semantics (lib/Backends/Interpreter/
// Reduce.cpp): floats accumulate in double, integer sums and products wrap, max and min
// propagate NaN, mean/l2/log_sum/log_sum_exp compute in double whatever the kind.
//
// Two Reduce paths. float32 over one run of reduced axes (the tensor seen as [outer, len,
// inner]: ReduceMean over the trailing axes, global pooling) has its own kernel with no
// scratch and vector partial sums; everything else walks the input once in row-major order
// (forEachRun) into per-group accumulators in scratch, the Interpreter's own order.
#include "ReduceCommon.h"

typedef double DVec __attribute__((ext_vector_type(8)));

namespace {

// The numbering codegen uses (CodeGenReduce.cpp: reduceOp).
enum ReduceOp { RSum, RMean, RMax, RMin, RProd, RSumSquare, RL1, RL2, RLogSum, RLogSumExp };

EMBER_INLINE double combineF(i64 op, double acc, double v) {
  switch (op) {
  case RMax:
    return maxOf(acc, v);
  case RMin:
    return minOf(acc, v);
  case RProd:
    return acc * v;
  case RSumSquare:
  case RL2:
    return acc + v * v;
  case RL1:
    return acc + __builtin_fabs(v);
  default:
    return acc + v;
  }
}

EMBER_INLINE double initialF(i64 op) {
  return op == RMax ? -__builtin_inf() : op == RMin ? __builtin_inf() : op == RProd ? 1.0 : 0.0;
}

EMBER_INLINE double finishF(i64 op, double acc, i64 len) {
  switch (op) {
  case RMean:
    return acc / double(len);
  case RL2:
    return sqrt(acc);
  case RLogSum:
    return log(acc);
  default:
    return acc;
  }
}

} // namespace

/// float32: out[o, i] = reduction over k of in[o, k, i]. LogSumExp subtracts the line's max
/// first.
EMBER_KERNEL EMBER_NOINLINE void ember_reduce_f32(float *out, const float *in, i64 outer, i64 len,
                                                  i64 inner, i64 op) {
  constexpr i64 kChunk = 64;
  for (i64 o = 0; o < outer; ++o)
    for (i64 i0 = 0; i0 < inner; i0 += kChunk) {
      i64 w = minI(kChunk, inner - i0);
      double acc[kChunk], mx[kChunk];
      const float *x = in + o * len * inner + i0;
      if (op == RLogSumExp) {
        for (i64 q = 0; q < w; ++q)
          mx[q] = -__builtin_inf();
        for (i64 k = 0; k < len; ++k)
          for (i64 q = 0; q < w; ++q)
            mx[q] = maxOf(mx[q], double(x[k * inner + q]));
        for (i64 q = 0; q < w; ++q)
          acc[q] = 0.0;
        for (i64 k = 0; k < len; ++k)
          for (i64 q = 0; q < w; ++q)
            acc[q] += exp(double(x[k * inner + q]) - mx[q]);
        for (i64 q = 0; q < w; ++q) {
          bool inf = mx[q] == __builtin_inf() || mx[q] == -__builtin_inf();
          out[o * inner + i0 + q] = float(inf ? mx[q] : mx[q] + log(acc[q]));
        }
        continue;
      }
      for (i64 q = 0; q < w; ++q)
        acc[q] = initialF(op);
      if (w == 1 && (op == RSum || op == RMean)) {
        // A long contiguous sum (inner == 1): vector partial sums in double.
        DVec a = (DVec)(0.0);
        i64 k = 0;
        for (; k + 8 <= len; k += 8) {
          float t[8];
          __builtin_memcpy(t, x + k, sizeof t);
          DVec v = {t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]};
          a += v;
        }
        double s = 0;
        for (int q = 0; q < 8; ++q)
          s += a[q];
        for (; k < len; ++k)
          s += double(x[k]);
        acc[0] = s;
      } else {
        for (i64 k = 0; k < len; ++k)
          for (i64 q = 0; q < w; ++q)
            acc[q] = combineF(op, acc[q], double(x[k * inner + q]));
      }
      for (i64 q = 0; q < w; ++q)
        out[o * inner + i0 + q] = float(finishF(op, acc[q], len));
    }
}

namespace {

/// |v|, wrapping for the most negative int64.
template <typename A> EMBER_INLINE A absOf(A v) {
  if constexpr (kSame<A, double>)
    return __builtin_fabs(v);
  else if constexpr (kSame<A, i64>)
    return v < 0 ? A(u64(0) - u64(v)) : v;
  else
    return v;
}

/// Folds every element of \p in into acc[its group] by step, in row-major order.
template <typename T, typename A, typename Step>
EMBER_INLINE void accumulate(A *acc, const T *in, i64 rank, const i64 *dims, const i64 *gstr,
                             Step step) {
  forEachRun(rank, dims, gstr, [&](i64 off, i64 g, i64 len, i64 gs) {
    const T *x = in + off;
    if (gs == 0) {
      A a = acc[g];
      for (i64 k = 0; k < len; ++k)
        a = step(a, A(ld(x, k)));
      acc[g] = a;
    } else {
      A *ag = acc + g;
      for (i64 k = 0; k < len; ++k)
        ag[k] = step(ag[k], A(ld(x, k)));
    }
  });
}

/// acc[g] = init for every group, the fold, then out[g] = finish(acc[g]).
template <typename T, typename A, typename Step, typename Finish>
EMBER_INLINE void reduceWith(T *out, const T *in, void *scratch, i64 rank, const i64 *dims,
                             const i64 *gstr, i64 groups, A init, Step step, Finish finish) {
  A *acc = (A *)scratch;
  for (i64 g = 0; g < groups; ++g)
    acc[g] = init;
  accumulate(acc, in, rank, dims, gstr, step);
  for (i64 g = 0; g < groups; ++g)
    out[g] = toStorage<T>(finish(acc[g]));
}

/// Max and min of nothing: the extremes of T (infinities for floats).
template <typename T> EMBER_INLINE Accum<T> lowestOf() {
  if constexpr (kIsFloat<T>)
    return -__builtin_inf();
  else
    return Accum<T>(intMin<T>());
}
template <typename T> EMBER_INLINE Accum<T> highestOf() {
  if constexpr (kIsFloat<T>)
    return __builtin_inf();
  else
    return Accum<T>(intMax<T>());
}

template <typename T, int Op>
EMBER_INLINE void reduceGeneric(T *out, const T *in, void *scratch, i64 rank, const i64 *dims,
                                const i64 *gstr, i64 groups, i64 count) {
  typedef Accum<T> A;
  auto same = [](auto a) { return a; };
  if constexpr (Op == RSum) {
    reduceWith(out, in, scratch, rank, dims, gstr, groups, A(0),
               [](A a, A v) { return wrapAdd(a, v); }, same);
  } else if constexpr (Op == RSumSquare) {
    reduceWith(out, in, scratch, rank, dims, gstr, groups, A(0),
               [](A a, A v) { return wrapAdd(a, wrapMul(v, v)); }, same);
  } else if constexpr (Op == RL1) {
    reduceWith(out, in, scratch, rank, dims, gstr, groups, A(0),
               [](A a, A v) { return wrapAdd(a, absOf(v)); }, same);
  } else if constexpr (Op == RProd) {
    reduceWith(out, in, scratch, rank, dims, gstr, groups, A(1),
               [](A a, A v) { return wrapMul(a, v); }, same);
  } else if constexpr (Op == RMax) {
    reduceWith(out, in, scratch, rank, dims, gstr, groups, lowestOf<T>(),
               [](A a, A v) { return maxOf(a, v); }, same);
  } else if constexpr (Op == RMin) {
    reduceWith(out, in, scratch, rank, dims, gstr, groups, highestOf<T>(),
               [](A a, A v) { return minOf(a, v); }, same);
  } else if constexpr (Op == RMean) {
    // count is the Interpreter's: elements / groups (0 when there are no groups).
    double n = double(count);
    reduceWith(out, in, scratch, rank, dims, gstr, groups, 0.0,
               [](double a, double v) { return a + v; }, [n](double a) { return a / n; });
  } else if constexpr (Op == RL2) {
    reduceWith(out, in, scratch, rank, dims, gstr, groups, 0.0,
               [](double a, double v) { return a + v * v; }, [](double a) { return sqrt(a); });
  } else if constexpr (Op == RLogSum) {
    reduceWith(out, in, scratch, rank, dims, gstr, groups, 0.0,
               [](double a, double v) { return a + v; }, [](double a) { return log(a); });
  } else {
    // log(sum(exp(x))) = m + log(sum(exp(x - m))) with m the group's max: no overflow. An
    // infinite (or empty: -inf) max is the result itself.
    double *mx = (double *)scratch, *sum = mx + groups;
    for (i64 g = 0; g < groups; ++g) {
      mx[g] = -__builtin_inf();
      sum[g] = 0.0;
    }
    accumulate(mx, in, rank, dims, gstr, [](double a, double v) { return maxOf(a, v); });
    forEachRun(rank, dims, gstr, [&](i64 off, i64 g, i64 len, i64 gs) {
      const T *x = in + off;
      for (i64 k = 0; k < len; ++k) {
        i64 at = g + k * gs;
        sum[at] += exp(loadD(x, k) - mx[at]);
      }
    });
    for (i64 g = 0; g < groups; ++g) {
      bool inf = mx[g] == __builtin_inf() || mx[g] == -__builtin_inf();
      out[g] = fromDouble<T>(inf ? mx[g] : mx[g] + log(sum[g]));
    }
  }
}

} // namespace

// ember_reduce_<op>_<kind>(out, in, scratch, rank, dims, groupStrides, groups, count): the
// reduction of every group (see forEachRun); scratch holds groups accumulators of 8 bytes (two
// per group for log_sum_exp).
#define REDUCE_OP_KERNEL(NAME, OP, S, T)                                                           \
  EMBER_KERNEL EMBER_NOINLINE void ember_reduce_##NAME##_##S(T *out, const T *in, void *scratch,  \
                                                             i64 rank, const i64 *dims,          \
                                                             const i64 *gstr, i64 groups,        \
                                                             i64 count) {                        \
    reduceGeneric<T, OP>(out, in, scratch, rank, dims, gstr, groups, count);                      \
  }
#define REDUCE_KERNELS(S, T)                                                                       \
  REDUCE_OP_KERNEL(sum, RSum, S, T)                                                                \
  REDUCE_OP_KERNEL(mean, RMean, S, T)                                                              \
  REDUCE_OP_KERNEL(max, RMax, S, T)                                                                \
  REDUCE_OP_KERNEL(min, RMin, S, T)                                                                \
  REDUCE_OP_KERNEL(prod, RProd, S, T)                                                              \
  REDUCE_OP_KERNEL(sum_square, RSumSquare, S, T)                                                   \
  REDUCE_OP_KERNEL(l1, RL1, S, T)                                                                  \
  REDUCE_OP_KERNEL(l2, RL2, S, T)                                                                  \
  REDUCE_OP_KERNEL(log_sum, RLogSum, S, T)                                                         \
  REDUCE_OP_KERNEL(log_sum_exp, RLogSumExp, S, T)
EMBER_FOR_REDUCE_KINDS(REDUCE_KERNELS)
#undef REDUCE_KERNELS
#undef REDUCE_OP_KERNEL

namespace {

/// ArgMax (Largest) / ArgMin along the middle axis of [outer, len, inner]: the first best
/// index, or the last one among ties with selectLast; NaN beats numbers. Lines are handled a
/// chunk of `inner` at a time so the inner loop is contiguous.
template <bool Largest, typename T>
EMBER_INLINE void argSelect(i64 *out, const T *in, i64 outer, i64 len, i64 inner,
                            i64 selectLast) {
  typedef ComputeOf<T> C;
  constexpr i64 kChunk = 64;
  for (i64 o = 0; o < outer; ++o)
    for (i64 i0 = 0; i0 < inner; i0 += kChunk) {
      i64 w = minI(kChunk, inner - i0);
      const T *x = in + o * len * inner + i0;
      C best[kChunk];
      i64 at[kChunk];
      for (i64 q = 0; q < w; ++q) {
        best[q] = ld(x, q);
        at[q] = 0;
      }
      for (i64 k = 1; k < len; ++k)
        for (i64 q = 0; q < w; ++q) {
          C v = ld(x, k * inner + q);
          if (beats<Largest>(v, best[q]) || (selectLast && ties(v, best[q]))) {
            best[q] = v;
            at[q] = k;
          }
        }
      for (i64 q = 0; q < w; ++q)
        out[o * inner + i0 + q] = at[q];
    }
}

/// Running sums along the middle axis of [outer, len, inner], in the accumulation type.
template <typename T>
EMBER_INLINE void cumSum(T *out, const T *in, i64 outer, i64 len, i64 inner, i64 exclusive,
                         i64 reverse) {
  typedef Accum<T> A;
  constexpr i64 kChunk = 64;
  for (i64 o = 0; o < outer; ++o)
    for (i64 i0 = 0; i0 < inner; i0 += kChunk) {
      i64 w = minI(kChunk, inner - i0);
      A sum[kChunk];
      for (i64 q = 0; q < w; ++q)
        sum[q] = A(0);
      for (i64 s = 0; s < len; ++s) {
        i64 base = o * len * inner + (reverse ? len - 1 - s : s) * inner + i0;
        for (i64 q = 0; q < w; ++q) {
          A v = loadA(in, base + q);
          if (exclusive)
            out[base + q] = toStorage<T>(sum[q]);
          sum[q] = wrapAdd(sum[q], v);
          if (!exclusive)
            out[base + q] = toStorage<T>(sum[q]);
        }
      }
    }
}

} // namespace

#define SELECT_KERNELS(S, T)                                                                       \
  EMBER_KERNEL void ember_argmax_##S(i64 *out, const T *in, i64 outer, i64 len, i64 inner,        \
                                     i64 selectLast) {                                             \
    argSelect<true>(out, in, outer, len, inner, selectLast);                                       \
  }                                                                                                \
  EMBER_KERNEL void ember_argmin_##S(i64 *out, const T *in, i64 outer, i64 len, i64 inner,        \
                                     i64 selectLast) {                                             \
    argSelect<false>(out, in, outer, len, inner, selectLast);                                      \
  }                                                                                                \
  EMBER_KERNEL void ember_cumsum_##S(T *out, const T *in, i64 outer, i64 len, i64 inner,          \
                                     i64 exclusive, i64 reverse) {                                 \
    cumSum(out, in, outer, len, inner, exclusive, reverse);                                        \
  }
EMBER_FOR_REDUCE_KINDS(SELECT_KERNELS)
#undef SELECT_KERNELS
