// Reductions (Nodes/Reduce.def), and the accumulation rules (REDUCE_ACC_<k>, accAdd, ...)
// Selection.cl's kernels share (the files are concatenated in name order). Common.cl says how
// kernels are called.
//
// The Interpreter's rules (lib/Backends/Interpreter/ReduceUtils.h): every float kind accumulates
// in double; integers in 64 bits of their signedness, sums and products wrapping around as
// numpy's do; a result goes back to its kind as a cast (floats round, through float for float16
// and bfloat16; integers keep their low bits). Mean, l2, log_sum and log_sum_exp are real-valued
// and run in double for every kind; a double goes back to an integer kind saturating, NaN
// giving 0.

#define REDUCE_ACC_f32 double
#define REDUCE_ACC_f64 double
#define REDUCE_ACC_f16 double
#define REDUCE_ACC_bf16 double
#define REDUCE_ACC_i8 long
#define REDUCE_ACC_i16 long
#define REDUCE_ACC_i32 long
#define REDUCE_ACC_i64 long
#define REDUCE_ACC_u8 ulong
#define REDUCE_ACC_u16 ulong
#define REDUCE_ACC_u32 ulong
#define REDUCE_ACC_u64 ulong

// What max and min of nothing give: the kind's extremes (infinities for floats).
#define REDUCE_LOWEST_f32 (-(double)INFINITY)
#define REDUCE_LOWEST_f64 (-(double)INFINITY)
#define REDUCE_LOWEST_f16 (-(double)INFINITY)
#define REDUCE_LOWEST_bf16 (-(double)INFINITY)
#define REDUCE_LOWEST_i8 ((long)SCHAR_MIN)
#define REDUCE_LOWEST_i16 ((long)SHRT_MIN)
#define REDUCE_LOWEST_i32 ((long)INT_MIN)
#define REDUCE_LOWEST_i64 LONG_MIN
#define REDUCE_LOWEST_u8 0UL
#define REDUCE_LOWEST_u16 0UL
#define REDUCE_LOWEST_u32 0UL
#define REDUCE_LOWEST_u64 0UL
#define REDUCE_HIGHEST_f32 ((double)INFINITY)
#define REDUCE_HIGHEST_f64 ((double)INFINITY)
#define REDUCE_HIGHEST_f16 ((double)INFINITY)
#define REDUCE_HIGHEST_bf16 ((double)INFINITY)
#define REDUCE_HIGHEST_i8 ((long)SCHAR_MAX)
#define REDUCE_HIGHEST_i16 ((long)SHRT_MAX)
#define REDUCE_HIGHEST_i32 ((long)INT_MAX)
#define REDUCE_HIGHEST_i64 LONG_MAX
#define REDUCE_HIGHEST_u8 ((ulong)UCHAR_MAX)
#define REDUCE_HIGHEST_u16 ((ulong)USHRT_MAX)
#define REDUCE_HIGHEST_u32 ((ulong)UINT_MAX)
#define REDUCE_HIGHEST_u64 ULONG_MAX

// REDUCE_LOAD_ACC: element i as the accumulator type. REDUCE_STORE_REAL_<k>: a double result to
// the kind, saturating for integers (convert_*_sat_rtz: truncation, NaN giving 0).
#define REDUCE_LOAD_ACC(K, p, i) ((REDUCE_ACC_##K)LOAD_##K(p, i))
#define REDUCE_STORE_REAL_f32(p, i, v) STORE_f32(p, i, v)
#define REDUCE_STORE_REAL_f64(p, i, v) STORE_f64(p, i, v)
#define REDUCE_STORE_REAL_f16(p, i, v) STORE_f16(p, i, v)
#define REDUCE_STORE_REAL_bf16(p, i, v) STORE_bf16(p, i, v)
#define REDUCE_STORE_REAL_i8(p, i, v) STORE_i8(p, i, convert_char_sat_rtz(v))
#define REDUCE_STORE_REAL_i16(p, i, v) STORE_i16(p, i, convert_short_sat_rtz(v))
#define REDUCE_STORE_REAL_i32(p, i, v) STORE_i32(p, i, convert_int_sat_rtz(v))
#define REDUCE_STORE_REAL_i64(p, i, v) STORE_i64(p, i, convert_long_sat_rtz(v))
#define REDUCE_STORE_REAL_u8(p, i, v) STORE_u8(p, i, convert_uchar_sat_rtz(v))
#define REDUCE_STORE_REAL_u16(p, i, v) STORE_u16(p, i, convert_ushort_sat_rtz(v))
#define REDUCE_STORE_REAL_u32(p, i, v) STORE_u32(p, i, convert_uint_sat_rtz(v))
#define REDUCE_STORE_REAL_u64(p, i, v) STORE_u64(p, i, convert_ulong_sat_rtz(v))

#define FOR_EACH_NUMERIC_KIND(X) FOR_EACH_FLOAT_KIND(X) FOR_EACH_INT_KIND(X)

// The arithmetic on accumulators, one overload per accumulator type: integers wrap (unsigned
// arithmetic, as signed overflow is undefined), max and min propagate the first NaN met.
#define REDUCE_OVERLOAD static inline __attribute__((overloadable))
REDUCE_OVERLOAD double accAdd(double a, double b) { return a + b; }
REDUCE_OVERLOAD long accAdd(long a, long b) { return (long)((ulong)a + (ulong)b); }
REDUCE_OVERLOAD ulong accAdd(ulong a, ulong b) { return a + b; }
REDUCE_OVERLOAD double accMul(double a, double b) { return a * b; }
REDUCE_OVERLOAD long accMul(long a, long b) { return (long)((ulong)a * (ulong)b); }
REDUCE_OVERLOAD ulong accMul(ulong a, ulong b) { return a * b; }
REDUCE_OVERLOAD double accAbs(double v) { return fabs(v); }
REDUCE_OVERLOAD long accAbs(long v) { return v < 0 ? (long)(0UL - (ulong)v) : v; }
REDUCE_OVERLOAD ulong accAbs(ulong v) { return v; }
REDUCE_OVERLOAD bool accIsNaN(double v) { return isnan(v); }
REDUCE_OVERLOAD bool accIsNaN(long v) { return false; }
REDUCE_OVERLOAD bool accIsNaN(ulong v) { return false; }
REDUCE_OVERLOAD double accMax(double a, double b) {
  if (isnan(a) || isnan(b))
    return isnan(a) ? a : b;
  return a < b ? b : a;
}
REDUCE_OVERLOAD long accMax(long a, long b) { return a < b ? b : a; }
REDUCE_OVERLOAD ulong accMax(ulong a, ulong b) { return a < b ? b : a; }
REDUCE_OVERLOAD double accMin(double a, double b) {
  if (isnan(a) || isnan(b))
    return isnan(a) ? a : b;
  return b < a ? b : a;
}
REDUCE_OVERLOAD long accMin(long a, long b) { return b < a ? b : a; }
REDUCE_OVERLOAD ulong accMin(ulong a, ulong b) { return b < a ? b : a; }

// Reductions: [count, y, x, op, cells, kept, reduced, then (dim, stride) per run of kept input
// dims and per run of reduced ones, innermost first (LaunchesReduce.cpp merges neighbours)]. op: 0 sum, 1 mean, 2 max, 3 min, 4 prod, 5 sum of
// squares, 6 l1, 7 l2, 8 log sum, 9 log sum exp. One work-item per result element combines its
// `cells` input elements in row-major order, as the Interpreter's loop meets them.

// The input offset of result i's first cell, and of its cell k.
static inline long reduceBase(__global const long *P, long i) {
  long base = 0;
  __global const long *q = P + 7;
  for (long d = 0; d < P[5]; ++d, q += 2) {
    base += (i % q[0]) * q[1];
    i /= q[0];
  }
  return base;
}
static inline long reduceCell(__global const long *P, long base, long k) {
  __global const long *q = P + 7 + 2 * P[5];
  for (long d = 0; d < P[6]; ++d, q += 2) {
    base += (k % q[0]) * q[1];
    k /= q[0];
  }
  return base;
}

#define REDUCE_KERNEL(K)                                                                           \
  __kernel void reduce_##K(ARGS) {                                                                 \
    P += p0;                                                                                       \
    long i = get_global_id(0);                                                                     \
    if (i >= P[0])                                                                                 \
      return;                                                                                      \
    __global const uchar *x = PLACE(P[2]);                                                         \
    __global uchar *y = PLACE(P[1]);                                                               \
    long op = P[3], cells = P[4], base = reduceBase(P, i);                                         \
    if (op == 1 || op == 7 || op == 8 || op == 9) {                                                \
      /* Real-valued; log_sum_exp subtracts the max first so that exp cannot overflow. */          \
      double mx = -(double)INFINITY, sum = 0.0;                                                    \
      if (op == 9)                                                                                 \
        for (long k = 0; k < cells; ++k)                                                           \
          mx = accMax(mx, (double)LOAD_##K(x, reduceCell(P, base, k)));                            \
      for (long k = 0; k < cells; ++k) {                                                           \
        double v = (double)LOAD_##K(x, reduceCell(P, base, k));                                    \
        sum += op == 7 ? v * v : op == 9 ? exp(v - mx) : v;                                        \
      }                                                                                            \
      double r = op == 1   ? sum / (double)cells                                                   \
                 : op == 7 ? sqrt(sum)                                                             \
                 : op == 8 ? log(sum)                                                              \
                 : isinf(mx) ? mx                                                                  \
                             : mx + log(sum);                                                      \
      REDUCE_STORE_REAL_##K(y, i, r);                                                              \
      return;                                                                                      \
    }                                                                                              \
    REDUCE_ACC_##K acc = op == 2   ? REDUCE_LOWEST_##K                                             \
                         : op == 3 ? REDUCE_HIGHEST_##K                                            \
                         : op == 4 ? 1                                                             \
                                   : 0;                                                            \
    for (long k = 0; k < cells; ++k) {                                                             \
      REDUCE_ACC_##K v = REDUCE_LOAD_ACC(K, x, reduceCell(P, base, k));                            \
      switch (op) {                                                                                \
      case 2: acc = accMax(acc, v); break;                                                         \
      case 3: acc = accMin(acc, v); break;                                                         \
      case 4: acc = accMul(acc, v); break;                                                         \
      case 5: acc = accAdd(acc, accMul(v, v)); break;                                              \
      case 6: acc = accAdd(acc, accAbs(v)); break;                                                 \
      default: acc = accAdd(acc, v); break;                                                        \
      }                                                                                            \
    }                                                                                              \
    STORE_##K(y, i, acc);                                                                          \
  }
FOR_EACH_NUMERIC_KIND(REDUCE_KERNEL)
