// Element-wise kernels (Nodes/Elementwise.def), one per element kind they take (Common.cl's
// FOR_EACH_KIND; kernel_<suffix>). Common.cl says how kernels are called. The operations of the
// ew_unary, ew_binary and ew_compare kernels are the rows of Ops.def, as the cases of the
// EMBER_EW_*_CASES(K) macros generated from it (LaunchesElementwise.cpp); the others (Pow, Clip,
// Where, Cast, IsNaN and IsInf) are written here. Every kind computes in its COMPUTE_<k> type, as
// the Interpreter computes in Compute<T>: float for the 16-bit floats, rounded once on the store.

// Every kind with its index, which the planner passes where a kernel takes a second kind (Pow's
// exponent, Cast's result): the order of FOR_EACH_KIND and of LaunchesElementwise.cpp's table.
#define EW_KINDS(X)                                                                                \
  X(0, f32) X(1, f64) X(2, f16) X(3, bf16) X(4, i8) X(5, u8) X(6, i16) X(7, u16) X(8, i32)         \
  X(9, u32) X(10, i64) X(11, u64) X(12, bool)
#define EW_INDEX_IS_FLOAT(k) ((k) < 4)
#define EW_INDEX_IS_SIGNED_INT(k) ((k) == 4 || (k) == 6 || (k) == 8 || (k) == 10)

#define EW_IS_FLOAT_f32 1
#define EW_IS_FLOAT_f64 1
#define EW_IS_FLOAT_f16 1
#define EW_IS_FLOAT_bf16 1
#define EW_IS_FLOAT_i8 0
#define EW_IS_FLOAT_u8 0
#define EW_IS_FLOAT_i16 0
#define EW_IS_FLOAT_u16 0
#define EW_IS_FLOAT_i32 0
#define EW_IS_FLOAT_u32 0
#define EW_IS_FLOAT_i64 0
#define EW_IS_FLOAT_u64 0
#define EW_IS_FLOAT_bool 0

// The unsigned type of the compute type's width (Ops.def's U; the float kinds' is unused).
#define EW_UNSIGNED_f32 float
#define EW_UNSIGNED_f64 double
#define EW_UNSIGNED_f16 float
#define EW_UNSIGNED_bf16 float
#define EW_UNSIGNED_i8 uint
#define EW_UNSIGNED_u8 uint
#define EW_UNSIGNED_i16 uint
#define EW_UNSIGNED_u16 uint
#define EW_UNSIGNED_i32 uint
#define EW_UNSIGNED_u32 uint
#define EW_UNSIGNED_i64 ulong
#define EW_UNSIGNED_u64 ulong
#define EW_UNSIGNED_bool uchar

// The width of kind K in bits.
#define EW_BITS(K) (8 * sizeof(STORAGE_##K))

// A double converted to kind K's compute type as Cast converts (Interpreter's convertElement):
// floats round to nearest even (the 16-bit ones through float, then again on the store), integers
// truncate toward zero and saturate, NaN giving 0 (Conversions.h), bool is != 0.
#define EW_FROM_DOUBLE(K, d) EW_FROM_DOUBLE_##K(d)
#define EW_FROM_DOUBLE_f32(d) ((float)(d))
#define EW_FROM_DOUBLE_f64(d) ((double)(d))
#define EW_FROM_DOUBLE_f16(d) ((float)(d))
#define EW_FROM_DOUBLE_bf16(d) ((float)(d))
#define EW_FROM_DOUBLE_i8(d) convert_char_sat_rtz(d)
#define EW_FROM_DOUBLE_u8(d) convert_uchar_sat_rtz(d)
#define EW_FROM_DOUBLE_i16(d) convert_short_sat_rtz(d)
#define EW_FROM_DOUBLE_u16(d) convert_ushort_sat_rtz(d)
#define EW_FROM_DOUBLE_i32(d) convert_int_sat_rtz(d)
#define EW_FROM_DOUBLE_u32(d) convert_uint_sat_rtz(d)
#define EW_FROM_DOUBLE_i64(d) convert_long_sat_rtz(d)
#define EW_FROM_DOUBLE_u64(d) convert_ulong_sat_rtz(d)
#define EW_FROM_DOUBLE_bool(d) ((uchar)((d) != 0.0))

#define EW_SIGNED ((T)-1 < (T)0)

// What a row's expression evaluates to on a run-time error: the binary function flags it, and
// the kernel calls FAIL().
#define EW_FAIL() (*fail = 1, (T)0)

// The switch functions of kind K over the rows of the classes in CLASS (FLOAT, INT or BOOL).
#define EW_FUNCTIONS(K, CLASS)                                                                     \
  static inline COMPUTE_##K ew_unary_fn_##K(int op, COMPUTE_##K x, float p0, float p1) {           \
    typedef COMPUTE_##K T;                                                                         \
    typedef EW_UNSIGNED_##K U;                                                                     \
    switch (op) { EMBER_EW_UNARY_##CLASS##_CASES(K) }                                              \
    return x;                                                                                      \
  }                                                                                                \
  static inline COMPUTE_##K ew_binary_fn_##K(int op, COMPUTE_##K a, COMPUTE_##K b,                 \
                                              int *fail) {                                         \
    typedef COMPUTE_##K T;                                                                         \
    typedef EW_UNSIGNED_##K U;                                                                     \
    switch (op) { EMBER_EW_BINARY_##CLASS##_CASES(K) }                                             \
    return a;                                                                                      \
  }                                                                                                \
  static inline uchar ew_compare_fn_##K(int op, COMPUTE_##K a, COMPUTE_##K b) {                    \
    switch (op) { EMBER_EW_COMPARE_CASES(K) }                                                      \
    return 0;                                                                                      \
  }
#define EW_FLOAT_FUNCTIONS(K) EW_FUNCTIONS(K, FLOAT)
#define EW_INT_FUNCTIONS(K) EW_FUNCTIONS(K, INT)
FOR_EACH_FLOAT_KIND(EW_FLOAT_FUNCTIONS)
FOR_EACH_INT_KIND(EW_INT_FUNCTIONS)
EW_FUNCTIONS(bool, BOOL)

#define EW_PROLOGUE                                                                                \
  P += p0;                                                                                         \
  long i = get_global_id(0);                                                                       \
  if (i >= P[0])                                                                                   \
    return;

// y = op(x): [n, op, y, x, p0 bits, p1 bits]
// y = op(a, b), all of one shape (the importer makes broadcasts explicit): [n, op, y, a, b]
// y = cmp(a, b), y bool: [n, op, y, a, b]
#define EW_KERNELS(K)                                                                              \
  __kernel void ew_unary_##K(ARGS) {                                                               \
    EW_PROLOGUE                                                                                    \
    COMPUTE_##K r = ew_unary_fn_##K((int)P[1], LOAD_##K(PLACE(P[3]), i), PF(4), PF(5));            \
    STORE_##K(PLACE(P[2]), i, r);                                                                  \
  }                                                                                                \
  __kernel void ew_binary_##K(ARGS) {                                                              \
    EW_PROLOGUE                                                                                    \
    int fail = 0;                                                                                  \
    COMPUTE_##K r = ew_binary_fn_##K((int)P[1], LOAD_##K(PLACE(P[3]), i),                          \
                                     LOAD_##K(PLACE(P[4]), i), &fail);                             \
    if (fail)                                                                                      \
      FAIL();                                                                                      \
    STORE_##K(PLACE(P[2]), i, r);                                                                  \
  }                                                                                                \
  __kernel void ew_compare_##K(ARGS) {                                                             \
    EW_PROLOGUE                                                                                    \
    PLACE(P[2])[i] = ew_compare_fn_##K((int)P[1], LOAD_##K(PLACE(P[3]), i),                        \
                                       LOAD_##K(PLACE(P[4]), i));                                  \
  }
FOR_EACH_KIND(EW_KERNELS)

// Clip: [n, y, x, min, max]; min and max are one element each. ember_clip's rule: max first,
// then min, so that min > max gives max; NaN stays NaN. Integers take the same steps (the
// formulas are for floats only).
#define EW_CLIP(K, CLIP)                                                                           \
  __kernel void ew_clip_##K(ARGS) {                                                                \
    EW_PROLOGUE                                                                                    \
    COMPUTE_##K x = LOAD_##K(PLACE(P[2]), i), lo = LOAD_##K(PLACE(P[3]), 0);                       \
    COMPUTE_##K hi = LOAD_##K(PLACE(P[4]), 0);                                                     \
    STORE_##K(PLACE(P[1]), i, CLIP);                                                               \
  }
#define EW_CLIP_FLOAT(K) EW_CLIP(K, ember_clip(x, lo, hi))
#define EW_CLIP_INT(K) EW_CLIP(K, hi < (x < lo ? lo : x) ? hi : (x < lo ? lo : x))
FOR_EACH_FLOAT_KIND(EW_CLIP_FLOAT)
FOR_EACH_INT_KIND(EW_CLIP_INT)

// Element i of the kind of index `kind` (EW_KINDS), as a double and as 64 bits (sign-extended
// from signed kinds, zero-extended from the others).
#define EW_LOAD_DOUBLE_CASE(N, K)                                                                  \
  case N:                                                                                          \
    return (double)LOAD_##K(p, i);
static inline double ew_load_double(__global const uchar *p, long i, long kind) {
  switch (kind) { EW_KINDS(EW_LOAD_DOUBLE_CASE) }
  return 0.0;
}
#define EW_LOAD_LONG_CASE(N, K)                                                                    \
  case N:                                                                                          \
    return (long)LOAD_##K(p, i);
static inline long ew_load_long(__global const uchar *p, long i, long kind) {
  switch (kind) { EW_KINDS(EW_LOAD_LONG_CASE) }
  return 0;
}

// Pow, per base kind (float kinds, int32, int64): [n, y, base, exponent, exponent kind index].
// A float on either side: pow in double, converted to the base's kind as Cast converts. Integer
// ^ integer: exact, wrapping, by square-and-multiply over the exponent's bits; a negative
// exponent truncates 1 / base^e toward zero (1, -1 or 0), and 0 to a negative power is an error.
#define EW_POW(K)                                                                                  \
  __kernel void ew_pow_##K(ARGS) {                                                                 \
    EW_PROLOGUE                                                                                    \
    typedef COMPUTE_##K T;                                                                         \
    typedef EW_UNSIGNED_##K U;                                                                     \
    __global const uchar *ep = PLACE(P[3]);                                                        \
    long ek = P[4];                                                                                \
    T b = LOAD_##K(PLACE(P[2]), i), r;                                                             \
    if (EW_IS_FLOAT_##K || EW_INDEX_IS_FLOAT(ek)) {                                                \
      r = EW_FROM_DOUBLE(K, pow((double)b, ew_load_double(ep, i, ek)));                            \
    } else {                                                                                       \
      long e = ew_load_long(ep, i, ek);                                                            \
      if (EW_INDEX_IS_SIGNED_INT(ek) && e < 0) {                                                   \
        if (b == (T)0)                                                                             \
          FAIL();                                                                                  \
        r = b == (T)1 ? (T)1 : b == (T)-1 ? (e % 2 ? (T)-1 : (T)1) : (T)0;                         \
      } else {                                                                                     \
        U acc = 1, square = (U)b;                                                                  \
        for (ulong bits = (ulong)e; bits; bits >>= 1) {                                            \
          if (bits & 1)                                                                            \
            acc *= square;                                                                         \
          square *= square;                                                                        \
        }                                                                                          \
        r = (T)acc;                                                                                \
      }                                                                                            \
    }                                                                                              \
    STORE_##K(PLACE(P[1]), i, r);                                                                  \
  }
FOR_EACH_FLOAT_KIND(EW_POW)
EW_POW(i32)
EW_POW(i64)

// Where, by element size: [n, y, condition (bool), a, b].
#define EW_WHERE(BYTES, T)                                                                         \
  __kernel void ew_where_##BYTES(ARGS) {                                                           \
    EW_PROLOGUE                                                                                    \
    __global const T *a = (__global const T *)PLACE(P[3]);                                         \
    __global const T *b = (__global const T *)PLACE(P[4]);                                         \
    ((__global T *)PLACE(P[1]))[i] = PLACE(P[2])[i] ? a[i] : b[i];                                 \
  }
EW_WHERE(1, uchar)
EW_WHERE(2, ushort)
EW_WHERE(4, uint)
EW_WHERE(8, ulong)

// IsNaN and IsInf of the float kinds: [n, y (bool), x, NaN counts, -inf counts, +inf counts].
#define EW_CLASSIFY(K)                                                                             \
  __kernel void ew_classify_##K(ARGS) {                                                            \
    EW_PROLOGUE                                                                                    \
    COMPUTE_##K x = LOAD_##K(PLACE(P[2]), i);                                                      \
    PLACE(P[1])[i] = isnan(x) ? P[3] != 0 : isinf(x) && (x < 0 ? P[4] != 0 : P[5] != 0);           \
  }
FOR_EACH_FLOAT_KIND(EW_CLASSIFY)

// Cast to bfloat16: the float value's low 16 bits dropped, NaN staying a quiet NaN (the
// Interpreter's castElement, as ONNX 1.12's reference casts; other conversions to bfloat16
// round). From bfloat16 itself this is the identity, as convertElement's is.
static inline ushort ew_truncate_to_bfloat(float f) {
  return (ushort)(as_uint(f) >> 16) | (isnan(f) ? 0x40 : 0);
}

// Cast, per source kind: [n, y, x, result kind index]. Floats to integers truncate toward zero
// and saturate, NaN giving 0 (convert_*_sat_rtz, Conversions.h's rule); integers to integers
// wrap; to floats rounds to nearest even (the 16-bit ones through float); to bool is != 0.
#define EW_CAST_CASE(N, D)                                                                         \
  case N:                                                                                          \
    if (N == 3)                                                                                    \
      ((__global ushort *)y)[i] = ew_truncate_to_bfloat((float)v);                                 \
    else if (EW_IS_FLOAT_##D || N == 12 || !fromFloat)                                             \
      STORE_##D(y, i, v);                                                                          \
    else                                                                                           \
      STORE_PLAIN(D, y, i, EW_FROM_DOUBLE(D, v));                                                  \
    break;
#define EW_CAST(K)                                                                                 \
  __kernel void ew_cast_##K(ARGS) {                                                                \
    EW_PROLOGUE                                                                                    \
    const bool fromFloat = EW_IS_FLOAT_##K;                                                        \
    COMPUTE_##K v = LOAD_##K(PLACE(P[2]), i);                                                      \
    __global uchar *y = PLACE(P[1]);                                                               \
    switch (P[3]) { EW_KINDS(EW_CAST_CASE) }                                                       \
  }
FOR_EACH_KIND(EW_CAST)

// Cast to and from the narrow kinds (ember/Semantics/NarrowKinds.h), whose code is a parameter:
// to one from every other kind through double, [n, y, x, narrow code, saturate]; from one to
// every other kind through float, as a float's Cast above, [n, y, x, narrow code, result kind
// index]; between two, [n, y, x, source code, result code, saturate].
#define EW_CAST_TO_NARROW(K)                                                                       \
  __kernel void ew_cast_##K##_narrow(ARGS) {                                                       \
    EW_PROLOGUE                                                                                    \
    double v = (double)LOAD_##K(PLACE(P[2]), i);                                                   \
    PLACE(P[1])[i] = (uchar)ember_narrow_from_double(P[3], v, P[4]);                               \
  }
FOR_EACH_KIND(EW_CAST_TO_NARROW)

__kernel void ew_cast_narrow(ARGS) {
  EW_PROLOGUE
  const bool fromFloat = true;
  float v = ember_narrow_to_float(P[3], PLACE(P[2])[i]);
  __global uchar *y = PLACE(P[1]);
  switch (P[4]) { EW_KINDS(EW_CAST_CASE) }
}

__kernel void ew_cast_narrow_narrow(ARGS) {
  EW_PROLOGUE
  float v = ember_narrow_to_float(P[3], PLACE(P[2])[i]);
  PLACE(P[1])[i] = (uchar)ember_narrow_from_double(P[4], v, P[5]);
}

// The float32 fast path of the common element-wise operations (LaunchesElementwise.cpp's
// FastUnary and FastBinary codes): 64 elements per work-item in float16 vectors, where the
// generic kernels above take one element and a switch over every row of Ops.def per work-item.
// Each operation is the same formula as its Ops.def row, written once for float and float16
// (OpenCL's builtins and select() take both), so the last partial vector runs it lane by lane
// and gets the same values. Both sigmoid branches use exp(-|x|): exp(-x) for x >= 0, exp(x)
// otherwise, as ember_sigmoid.
#define EWV_UNARY(V, SUFFIX)                                                                       \
  static inline V ewv_unary_##SUFFIX(long op, V x) {                                               \
    switch (op) {                                                                                  \
    case 1: /* Relu */                                                                             \
      return select(x, (V)(0.0f), x < (V)(0.0f));                                                  \
    case 2: { /* Sigmoid */                                                                        \
      V e = exp(-fabs(x));                                                                         \
      return select(e / ((V)(1.0f) + e), (V)(1.0f) / ((V)(1.0f) + e), x >= (V)(0.0f));             \
    }                                                                                              \
    case 3: /* Tanh */                                                                             \
      return tanh(x);                                                                              \
    default:                                                                                       \
      return x;                                                                                    \
    }                                                                                              \
  }                                                                                                \
  static inline V ewv_binary_##SUFFIX(long op, V a, V b) {                                         \
    switch (op) {                                                                                  \
    case 1: return a + b;                                                                          \
    case 2: return a - b;                                                                          \
    case 3: return a * b;                                                                          \
    case 4: return a / b;                                                                          \
    case 5: /* Max: a NaN operand wins */                                                          \
      return select(select(select(a, b, a < b), b, isnan(b)), a, isnan(a));                        \
    case 6: /* Min */                                                                              \
      return select(select(select(a, b, b < a), b, isnan(b)), a, isnan(a));                        \
    default:                                                                                       \
      return a;                                                                                    \
    }                                                                                              \
  }
EWV_UNARY(float, 1)
EWV_UNARY(float16, 16)

// y = B(U(a), c), or B(c, U(a)) when swapped, where c is b (element-wise or broadcast) or, for
// a fused chain such as SiLU's x * sigmoid(x), a itself; no U is the identity, no B returns
// U(a). [work-items, elements, y, a, b place (-1: c is a), U code, B code, swapped, b's
// inner, b's count]: element i of the result reads b[(i / inner) % count] (same shape: inner
// 1, count n; per channel of NCHW: inner H*W, count C; a scalar: count 1).
#define EWV_CHUNK 64
__kernel void ewv_f32(ARGS) {
  P += p0;
  long item = get_global_id(0);
  if (item >= P[0])
    return;
  long n = P[1], uop = P[5], bop = P[6], swapped = P[7], inner = P[8], count = P[9];
  __global float *y = FP(P[2]);
  __global const float *a = FP(P[3]);
  __global const float *b = P[4] >= 0 ? FP(P[4]) : 0;
  long begin = item * EWV_CHUNK, end = min(begin + EWV_CHUNK, n), i = begin;
  for (; i + 16 <= end; i += 16) {
    float16 x = vload16(0, a + i), u = ewv_unary_16(uop, x), c;
    if (!b) {
      c = x;
    } else if (inner == 1 && count == n) {
      c = vload16(0, b + i);
    } else if (i % inner + 16 <= inner) { /* one b element for the whole vector */
      c = (float16)(b[(i / inner) % count]);
    } else {
      float lanes[16];
      long at = i % inner, k = (i / inner) % count;
      for (int j = 0; j < 16; ++j) {
        lanes[j] = b[k];
        if (++at == inner) {
          at = 0;
          k = k + 1 == count ? 0 : k + 1;
        }
      }
      c = vload16(0, lanes);
    }
    float16 r = !bop ? u : swapped ? ewv_binary_16(bop, c, u) : ewv_binary_16(bop, u, c);
    vstore16(r, 0, y + i);
  }
  for (; i < end; ++i) {
    float x = a[i], u = ewv_unary_1(uop, x), c = !b ? x : b[(i / inner) % count];
    y[i] = !bop ? u : swapped ? ewv_binary_1(bop, c, u) : ewv_binary_1(bop, u, c);
  }
}
