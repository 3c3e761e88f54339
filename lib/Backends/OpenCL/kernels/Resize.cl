// Resize (Nodes/DataMovement.def; ONNX Resize-13). Common.cl says how kernels are called.
// Where each result coordinate reads on each axis, and with what weights, depends only on the
// attributes and dims: the planner computes it with ember/Semantics/ResizeSampling.h, the
// Interpreter's own, and passes it as per-axis tables in the parameters, so every coordinate
// transformation and mode reads the same taps as the Interpreter. Parameters: [n, y, x, rank,
// extrapolation element's bits, then per axis: result dim, result stride, table start (an index
// into these parameters), row length]. A nearest table row is one long per result coordinate:
// the input offset (index * input stride), or -1 when tf_crop_and_resize maps it outside the
// input. A linear or cubic row is 1 + 2 * (the axis' most taps) longs: the tap count (-1:
// outside), then the taps' input offsets and weights (a double's bits).

// Writes the low `bytes` bytes of `bits` as element i of y (the extrapolation element).
static inline void rs_put(__global uchar *y, long i, long bytes, long bits) {
  for (long b = 0; b < bytes; ++b)
    y[i * bytes + b] = (uchar)(bits >> (8 * b));
}

// Nearest moves elements: per element size in bytes.
#define RESIZE_NEAREST(NAME, T)                                                                 \
  __kernel void NAME(ARGS) {                                                                    \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long off = 0;                                                                               \
    for (long d = 0; d < P[3]; ++d) {                                                           \
      __global const long *q = P + 5 + 4 * d;                                                   \
      long at = P[q[2] + (i / q[1]) % q[0]];                                                    \
      if (at < 0) {                                                                             \
        rs_put(PLACE(P[1]), i, sizeof(T), P[4]);                                                \
        return;                                                                                 \
      }                                                                                         \
      off += at;                                                                                \
    }                                                                                           \
    ((__global T *)PLACE(P[1]))[i] = ((__global const T *)PLACE(P[2]))[off];                    \
  }
RESIZE_NEAREST(resize_nearest_1, uchar)
RESIZE_NEAREST(resize_nearest_2, ushort)
RESIZE_NEAREST(resize_nearest_4, uint)
RESIZE_NEAREST(resize_nearest_8, ulong)

// An interpolated value as each kind, as resizeValueAs: floats round through float; integers
// round half away from zero and saturate, NaN giving 0.
#define RS_INT(v, T) (isnan(v) ? (T)0 : convert_##T##_sat(round(v)))
#define RS_VALUE_f32(v) ((float)(v))
#define RS_VALUE_f64(v) ((float)(v))
#define RS_VALUE_f16(v) ((float)(v))
#define RS_VALUE_bf16(v) ((float)(v))
#define RS_VALUE_i8(v) RS_INT(v, char)
#define RS_VALUE_u8(v) RS_INT(v, uchar)
#define RS_VALUE_i16(v) RS_INT(v, short)
#define RS_VALUE_u16(v) RS_INT(v, ushort)
#define RS_VALUE_i32(v) RS_INT(v, int)
#define RS_VALUE_u32(v) RS_INT(v, uint)
#define RS_VALUE_i64(v) RS_INT(v, long)
#define RS_VALUE_u64(v) RS_INT(v, ulong)

// Linear and cubic, per kind but bool: the sum, in double, over the tensor product of every
// axis' taps (the last axis' fastest) of the product of their weights (first axis' first)
// times the input element, in the Interpreter's order.
#define RESIZE(K)                                                                               \
  __kernel void resize_##K(ARGS) {                                                              \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long rank = P[3], combos = 1;                                                               \
    for (long d = 0; d < rank; ++d) {                                                           \
      __global const long *q = P + 5 + 4 * d;                                                   \
      long taps = P[q[2] + q[3] * ((i / q[1]) % q[0])];                                         \
      if (taps < 0) {                                                                           \
        rs_put(PLACE(P[1]), i, sizeof(STORAGE_##K), P[4]);                                      \
        return;                                                                                 \
      }                                                                                         \
      combos *= taps;                                                                           \
    }                                                                                           \
    __global const uchar *x = PLACE(P[2]);                                                      \
    double sum = 0;                                                                             \
    for (long c = 0; c < combos; ++c) {                                                         \
      long rest = combos, off = 0;                                                              \
      double w = 1;                                                                             \
      for (long d = 0; d < rank; ++d) {                                                         \
        __global const long *q = P + 5 + 4 * d;                                                 \
        __global const long *row = P + q[2] + q[3] * ((i / q[1]) % q[0]);                      \
        rest /= row[0];                                                                         \
        long t = (c / rest) % row[0];                                                           \
        off += row[1 + 2 * t];                                                                  \
        w *= as_double(row[2 + 2 * t]);                                                         \
      }                                                                                         \
      sum += w * (double)LOAD_##K(x, off);                                                      \
    }                                                                                           \
    STORE_##K(PLACE(P[1]), i, RS_VALUE_##K(sum));                                               \
  }
FOR_EACH_FLOAT_KIND(RESIZE)
FOR_EACH_INT_KIND(RESIZE)
