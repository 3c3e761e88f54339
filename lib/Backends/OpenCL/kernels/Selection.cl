// Selections and scans along an axis, and Einsum (Nodes/Reduce.def; Hardmax of
// Nodes/Normalization.def). Common.cl says how kernels are called; the accumulators
// (REDUCE_ACC_<k>, accAdd, ...) are Reduce.cl's, which comes before this file.
//
// Along an axis the input is [outer, len, inner]: line l (of outer * inner) starts at
// (l / inner) * len * inner + l % inner and its elements are inner apart.

static inline long lineStart(long line, long len, long inner) {
  return (line / inner) * len * inner + line % inner;
}

// Whether a should replace the best so far b: larger (or smaller) wins, NaN beats numbers
// (numpy's argmax and argmin both return the first NaN); and whether they tie.
#define SEL_OVERLOADS(A)                                                                           \
  static inline __attribute__((overloadable)) bool selBeats(A a, A b, long largest) {              \
    if (accIsNaN(a) || accIsNaN(b))                                                                \
      return accIsNaN(a) && !accIsNaN(b);                                                          \
    return largest ? a > b : a < b;                                                                \
  }                                                                                                \
  static inline __attribute__((overloadable)) bool selTies(A a, A b) {                             \
    return a == b || (accIsNaN(a) && accIsNaN(b));                                                 \
  }                                                                                                \
  /* TopK's order: a comes before b. NaN ranks above every number, as in numpy's sort: first */    \
  /* when largest, else last. */                                                                   \
  static inline __attribute__((overloadable)) bool selBefore(A a, A b, long largest) {             \
    if (largest)                                                                                   \
      return selBeats(a, b, 1);                                                                    \
    return !accIsNaN(a) && (accIsNaN(b) || a < b);                                                 \
  }
SEL_OVERLOADS(double)
SEL_OVERLOADS(long)
SEL_OVERLOADS(ulong)

// ArgMax / ArgMin: [lines, y (int64), x, len, inner, largest, select last]. One work-item per
// line; ties go to the first index, or with select last to the last.
#define ARGSELECT_KERNEL(K)                                                                        \
  __kernel void argselect_##K(ARGS) {                                                              \
    P += p0;                                                                                       \
    long line = get_global_id(0);                                                                  \
    if (line >= P[0])                                                                              \
      return;                                                                                      \
    __global const uchar *x = PLACE(P[2]);                                                         \
    long len = P[3], inner = P[4], largest = P[5], last = P[6];                                    \
    long start = lineStart(line, len, inner), best = 0;                                            \
    REDUCE_ACC_##K bestVal = REDUCE_LOAD_ACC(K, x, start);                                         \
    for (long k = 1; k < len; ++k) {                                                               \
      REDUCE_ACC_##K v = REDUCE_LOAD_ACC(K, x, start + k * inner);                                 \
      if (selBeats(v, bestVal, largest) || (last && selTies(v, bestVal))) {                        \
        best = k;                                                                                  \
        bestVal = v;                                                                               \
      }                                                                                            \
    }                                                                                              \
    ((__global long *)PLACE(P[1]))[line] = best;                                                   \
  }
FOR_EACH_NUMERIC_KIND(ARGSELECT_KERNEL)

// CumSum: [lines, y, x, len, inner, exclusive, reverse]. One work-item per line, summing in
// the accumulator type and storing each running sum.
#define CUMSUM_KERNEL(K)                                                                           \
  __kernel void cumsum_##K(ARGS) {                                                                 \
    P += p0;                                                                                       \
    long line = get_global_id(0);                                                                  \
    if (line >= P[0])                                                                              \
      return;                                                                                      \
    __global const uchar *x = PLACE(P[2]);                                                         \
    __global uchar *y = PLACE(P[1]);                                                               \
    long len = P[3], inner = P[4], exclusive = P[5], reverse = P[6];                               \
    long start = lineStart(line, len, inner);                                                      \
    REDUCE_ACC_##K sum = 0;                                                                        \
    for (long step = 0; step < len; ++step) {                                                      \
      long at = start + (reverse ? len - 1 - step : step) * inner;                                 \
      REDUCE_ACC_##K v = REDUCE_LOAD_ACC(K, x, at);                                                \
      if (exclusive)                                                                               \
        STORE_##K(y, at, sum);                                                                     \
      sum = accAdd(sum, v);                                                                        \
      if (!exclusive)                                                                              \
        STORE_##K(y, at, sum);                                                                     \
    }                                                                                              \
  }
FOR_EACH_NUMERIC_KIND(CUMSUM_KERNEL)

// TopK: [lines * len, values, indices (int64), x, len, inner, k, largest]. The Interpreter
// sorts each line stably by selBefore; here one work-item per element counts the elements that
// come before it in that order (those before it, and equal ones at lower indices): its rank,
// where it lands if below k. Values are copied as stored.
#define TOPK_KERNEL(K)                                                                             \
  __kernel void topk_##K(ARGS) {                                                                   \
    P += p0;                                                                                       \
    long item = get_global_id(0);                                                                  \
    if (item >= P[0])                                                                              \
      return;                                                                                      \
    __global const uchar *x = PLACE(P[3]);                                                         \
    long len = P[4], inner = P[5], k = P[6], largest = P[7];                                       \
    long line = item / len, a = item % len, start = lineStart(line, len, inner);                   \
    REDUCE_ACC_##K va = REDUCE_LOAD_ACC(K, x, start + a * inner);                                  \
    long rank = 0;                                                                                 \
    for (long b = 0; b < len && rank < k; ++b) {                                                   \
      REDUCE_ACC_##K vb = REDUCE_LOAD_ACC(K, x, start + b * inner);                                \
      if (b != a && (selBefore(vb, va, largest) || (b < a && !selBefore(va, vb, largest))))        \
        ++rank;                                                                                    \
    }                                                                                              \
    if (rank >= k)                                                                                 \
      return;                                                                                      \
    long dst = ((line / inner) * k + rank) * inner + line % inner;                                 \
    ((__global STORAGE_##K *)PLACE(P[1]))[dst] =                                                   \
        ((__global const STORAGE_##K *)x)[start + a * inner];                                      \
    ((__global long *)PLACE(P[2]))[dst] = a;                                                       \
  }
FOR_EACH_NUMERIC_KIND(TOPK_KERNEL)

// Hardmax (float kinds): [lines, y, x, len, inner]. 1 at the first largest element of the line
// (compared in double; a NaN is never larger), 0 elsewhere.
#define HARDMAX_KERNEL(K)                                                                          \
  __kernel void hardmax_##K(ARGS) {                                                                \
    P += p0;                                                                                       \
    long line = get_global_id(0);                                                                  \
    if (line >= P[0])                                                                              \
      return;                                                                                      \
    __global const uchar *x = PLACE(P[2]);                                                         \
    __global uchar *y = PLACE(P[1]);                                                               \
    long len = P[3], inner = P[4], start = lineStart(line, len, inner), best = 0;                  \
    for (long k = 1; k < len; ++k)                                                                 \
      if ((double)LOAD_##K(x, start + k * inner) > (double)LOAD_##K(x, start + best * inner))      \
        best = k;                                                                                  \
    for (long k = 0; k < len; ++k)                                                                 \
      STORE_##K(y, start + k * inner, k == best ? 1.0 : 0.0);                                      \
  }
FOR_EACH_FLOAT_KIND(HARDMAX_KERNEL)

// Einsum: [count, y, operands, labels, output labels, combinations of the summed labels, the
// labels' sizes, then per operand: its place and its stride per label]. The output labels come
// first (the result is row-major over them), then the summed ones in order of appearance; a
// label repeated in one operand has the sum of its dims' strides (the diagonal). One work-item
// per result element adds the products over the summed labels, the last label fastest, as the
// Interpreter's loop does.

// The offset of operand strides s at result element i and summed combination c.
static inline long einsumOffset(__global const long *sizes, __global const long *s, long labels,
                                long outLabels, long i, long c) {
  long off = 0;
  for (long l = outLabels - 1; l >= 0; --l) {
    off += (i % sizes[l]) * s[l];
    i /= sizes[l];
  }
  for (long l = labels - 1; l >= outLabels; --l) {
    off += (c % sizes[l]) * s[l];
    c /= sizes[l];
  }
  return off;
}

#define EINSUM_KERNEL(K)                                                                           \
  __kernel void einsum_##K(ARGS) {                                                                 \
    P += p0;                                                                                       \
    long i = get_global_id(0);                                                                     \
    if (i >= P[0])                                                                                 \
      return;                                                                                      \
    long operands = P[2], labels = P[3], outLabels = P[4], combinations = P[5];                    \
    __global const long *sizes = P + 6, *ops = P + 6 + labels;                                     \
    REDUCE_ACC_##K acc = 0;                                                                        \
    for (long c = 0; c < combinations; ++c) {                                                      \
      REDUCE_ACC_##K product = 1;                                                                  \
      for (long op = 0; op < operands; ++op) {                                                     \
        __global const long *q = ops + op * (labels + 1);                                          \
        long off = einsumOffset(sizes, q + 1, labels, outLabels, i, c);                            \
        product = accMul(product, REDUCE_LOAD_ACC(K, PLACE(q[0]), off));                           \
      }                                                                                            \
      acc = accAdd(acc, product);                                                                  \
    }                                                                                              \
    STORE_##K(PLACE(P[1]), i, acc);                                                                \
  }
FOR_EACH_NUMERIC_KIND(EINSUM_KERNEL)
