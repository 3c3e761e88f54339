// Indexed data movement (Nodes/DataMovement.def: Gather, GatherElements, GatherND,
// ScatterElements, ScatterND, OneHot, ReverseSequence; Nodes/NN.def: MaxUnpool). Common.cl says
// how kernels are called. Indices are read at run time: a negative one counts from the end of
// its axis, one out of range makes the run fail (FAIL()) and is never followed. Moves are
// instantiated per element size in bytes; kernels that compute (the scatter reductions) or read
// values as indices (OneHot) per element kind.

// Element i of an index tensor of int32 (bytes 4) or int64 (bytes 8).
static inline long ix_index(__global const uchar *p, long i, long bytes) {
  return bytes == 8 ? ((__global const long *)p)[i] : ((__global const int *)p)[i];
}

// \p index (negative counts from the end) as a position on an axis of length n, or -1 when it
// is out of range. INT64_MIN + n cannot overflow: n >= 0.
static inline long ix_resolve(long index, long n) {
  if (index < 0)
    index += n;
  return index >= 0 && index < n ? index : -1;
}

// Copies element j of src to element i of dst, elements of `bytes` bytes.
static inline void ix_move(__global uchar *dst, long i, __global const uchar *src, long j,
                           long bytes) {
  switch (bytes) {
  case 1: dst[i] = src[j]; break;
  case 2: ((__global ushort *)dst)[i] = ((__global const ushort *)src)[j]; break;
  case 4: ((__global uint *)dst)[i] = ((__global const uint *)src)[j]; break;
  default: ((__global ulong *)dst)[i] = ((__global const ulong *)src)[j]; break;
  }
}

// Gather: data viewed as [outer, axis, inner], nIdx indices: [n, y, data, idx, idx bytes,
// outer, axis, inner, nIdx]; output [outer, nIdx, inner].
#define GATHER(NAME, T)                                                                         \
  __kernel void NAME(ARGS) {                                                                    \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long axis = P[6], inner = P[7], nIdx = P[8];                                                \
    long k = i % inner, j = (i / inner) % nIdx, o = i / (inner * nIdx);                         \
    long at = ix_resolve(ix_index(PLACE(P[3]), j, P[4]), axis);                                 \
    if (at < 0) {                                                                               \
      FAIL();                                                                                   \
      return;                                                                                   \
    }                                                                                           \
    ((__global T *)PLACE(P[1]))[i] =                                                            \
        ((__global const T *)PLACE(P[2]))[(o * axis + at) * inner + k];                         \
  }
GATHER(gather_1, uchar)
GATHER(gather_2, ushort)
GATHER(gather_4, uint)
GATHER(gather_8, ulong)

// GatherElements, one work-item per index (the result has the indices' dims): [n, y, data,
// idx, idx bytes, rank, axis, data axis length, then per dim: indices dim, data stride].
#define GATHER_ELEMENTS(NAME, T)                                                                \
  __kernel void NAME(ARGS) {                                                                    \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long rank = P[5], axis = P[6], rest = i, off = 0;                                           \
    long at = ix_resolve(ix_index(PLACE(P[3]), i, P[4]), P[7]);                                 \
    if (at < 0) {                                                                               \
      FAIL();                                                                                   \
      return;                                                                                   \
    }                                                                                           \
    for (long d = rank - 1; d >= 0; --d) {                                                      \
      __global const long *q = P + 8 + 2 * d;                                                   \
      off += (d == axis ? at : rest % q[0]) * q[1];                                             \
      rest /= q[0];                                                                             \
    }                                                                                           \
    ((__global T *)PLACE(P[1]))[i] = ((__global const T *)PLACE(P[2]))[off];                    \
  }
GATHER_ELEMENTS(gather_elements_1, uchar)
GATHER_ELEMENTS(gather_elements_2, ushort)
GATHER_ELEMENTS(gather_elements_4, uint)
GATHER_ELEMENTS(gather_elements_8, ulong)

// The element offset in data of index tuple t (m indices at idx[t * m ...], naming data axes
// whose dims and strides are at q[2j], q[2j + 1]), or -1 when an index is out of range.
static inline long ix_tuple_offset(__global const uchar *idx, long bytes, long t, long m,
                                   __global const long *q) {
  long off = 0;
  for (long j = 0; j < m; ++j) {
    long at = ix_resolve(ix_index(idx, t * m + j, bytes), q[2 * j]);
    if (at < 0)
      return -1;
    off += at * q[2 * j + 1];
  }
  return off;
}

// GatherND, one work-item per result element: [n, y, data, idx, idx bytes, m (tuple length),
// slice (elements each tuple picks), tuples per batch, data elements per batch, then per tuple
// position j: data dim, data stride of axis batch_dims + j].
#define GATHER_ND(NAME, T)                                                                      \
  __kernel void NAME(ARGS) {                                                                    \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long slice = P[6], t = i / slice;                                                           \
    long off = ix_tuple_offset(PLACE(P[3]), P[4], t, P[5], P + 9);                              \
    if (off < 0) {                                                                              \
      FAIL();                                                                                   \
      return;                                                                                   \
    }                                                                                           \
    off += (t / P[7]) * P[8] + i % slice;                                                       \
    ((__global T *)PLACE(P[1]))[i] = ((__global const T *)PLACE(P[2]))[off];                    \
  }
GATHER_ND(gather_nd_1, uchar)
GATHER_ND(gather_nd_2, ushort)
GATHER_ND(gather_nd_4, uint)
GATHER_ND(gather_nd_8, ulong)

// Where step k of scatter work-item w reads its update and writes the result (x: update
// element, y: result element), or y -1 when its index is out of range. The steps of one
// work-item are the updates of one set of result elements no other work-item touches, in index
// order, so duplicate indices combine in the Interpreter's order.
// form 0, ScatterElements: a work-item is a line of indices along the axis (every indices
// coordinate but the axis'); q = [rank, axis, data axis length, then per dim: indices dim,
// indices stride, data stride].
// form 1, ScatterND: a work-item is a position in the slices; q = [m, slice, then per tuple
// position j: data dim, data stride].
static inline long2 ix_scatter_step(long form, __global const long *q, long w, long k,
                                    __global const uchar *idx, long bytes) {
  if (form == 1) {
    long off = ix_tuple_offset(idx, bytes, k, q[0], q + 2);
    return (long2)(k * q[1] + w, off < 0 ? -1 : off + w);
  }
  long rank = q[0], axis = q[1], rest = w, e = 0, off = 0;
  for (long d = rank - 1; d >= 0; --d) {
    __global const long *r = q + 3 + 3 * d;
    long c = d == axis ? k : rest % r[0];
    e += c * r[1];
    if (d != axis) {
      rest /= r[0];
      off += c * r[2];
    }
  }
  long at = ix_resolve(ix_index(idx, e, bytes), q[2]);
  return (long2)(e, at < 0 ? -1 : off + at * q[3 + 3 * axis + 2]);
}

// The arithmetic of the scatter reductions per kind: integers wrap (two's complement, in 64-bit
// unsigned), bool adds as 'or' and multiplies as 'and' (1 + 1 stores as true), 16-bit floats
// compute in float and round once.
#define IX_MATH_f32 float
#define IX_MATH_f64 double
#define IX_MATH_f16 float
#define IX_MATH_bf16 float
#define IX_MATH_i8 ulong
#define IX_MATH_u8 ulong
#define IX_MATH_i16 ulong
#define IX_MATH_u16 ulong
#define IX_MATH_i32 ulong
#define IX_MATH_u32 ulong
#define IX_MATH_i64 ulong
#define IX_MATH_u64 ulong
#define IX_MATH_bool uchar

// The type max and min compare a kind in: its values, signed or not (1 + 1 never happens).
#define IX_CMP_f32 float
#define IX_CMP_f64 double
#define IX_CMP_f16 float
#define IX_CMP_bf16 float
#define IX_CMP_i8 long
#define IX_CMP_u8 ulong
#define IX_CMP_i16 long
#define IX_CMP_u16 ulong
#define IX_CMP_i32 long
#define IX_CMP_u32 ulong
#define IX_CMP_i64 long
#define IX_CMP_u64 ulong
#define IX_CMP_bool uchar

// ScatterElements and ScatterND (the result already holds a copy of data): [n, y, updates,
// idx, idx bytes, reduction (ember::ScatterReduction's code, Graph/ScatterReduction.h: 0 none,
// 1 add, 2 mul, 3 max, 4 min), form, steps per work-item, then ix_scatter_step's q]. Replacing
// copies the stored bits, and so do max and min, of the winner (a NaN wins, the result's first;
// on bool they are 'or' and 'and').
#define SCATTER(K)                                                                              \
  __kernel void scatter_##K(ARGS) {                                                             \
    P += p0;                                                                                    \
    long w = get_global_id(0);                                                                  \
    if (w >= P[0])                                                                              \
      return;                                                                                   \
    __global uchar *y = PLACE(P[1]);                                                            \
    __global const uchar *u = PLACE(P[2]), *idx = PLACE(P[3]);                                  \
    long how = P[5];                                                                            \
    for (long k = 0; k < P[7]; ++k) {                                                           \
      long2 at = ix_scatter_step(P[6], P + 8, w, k, idx, P[4]);                                 \
      if (at.y < 0) {                                                                           \
        FAIL();                                                                                 \
        return;                                                                                 \
      }                                                                                         \
      if (how == 0) {                                                                           \
        ((__global STORAGE_##K *)y)[at.y] = ((__global const STORAGE_##K *)u)[at.x];            \
      } else if (how >= 3) {                                                                    \
        IX_CMP_##K a = (IX_CMP_##K)LOAD_##K(y, at.y), b = (IX_CMP_##K)LOAD_##K(u, at.x);        \
        if (a == a && (b != b || (how == 3 ? a < b : b < a)))                                   \
          ((__global STORAGE_##K *)y)[at.y] = ((__global const STORAGE_##K *)u)[at.x];          \
      } else {                                                                                  \
        IX_MATH_##K a = (IX_MATH_##K)LOAD_##K(y, at.y), b = (IX_MATH_##K)LOAD_##K(u, at.x);     \
        STORE_##K(y, at.y, how == 1 ? a + b : a * b);                                           \
      }                                                                                         \
    }                                                                                           \
  }
FOR_EACH_KIND(SCATTER)

// How OneHot reads an index of each kind: 0 fractional (truncated toward zero), 1 signed (may
// count from the end), 2 unsigned (never does).
#define IX_CLASS_f32 0
#define IX_CLASS_f64 0
#define IX_CLASS_f16 0
#define IX_CLASS_bf16 0
#define IX_CLASS_i8 1
#define IX_CLASS_i16 1
#define IX_CLASS_i32 1
#define IX_CLASS_i64 1
#define IX_CLASS_u8 2
#define IX_CLASS_u16 2
#define IX_CLASS_u32 2
#define IX_CLASS_u64 2
#define IX_CLASS_bool 2

// OneHot, one kernel per index kind: [n, y, indices, values, value bytes, depth, inner]; the
// result is [outer, depth, inner]. An index is hot at its position in [0, depth) (negative ones
// count from depth); outside [-depth, depth), NaN and infinities included, it is hot nowhere.
#define ONE_HOT(K)                                                                              \
  __kernel void one_hot_##K(ARGS) {                                                             \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long depth = P[5], inner = P[6];                                                            \
    long r = i % inner, d = (i / inner) % depth, o = i / (inner * depth);                       \
    COMPUTE_##K x = LOAD_##K(PLACE(P[2]), o * inner + r);                                       \
    long v;                                                                                     \
    if (IX_CLASS_##K == 0) {                                                                    \
      double f = (double)x;                                                                     \
      v = f > -(double)(depth + 1) && f < (double)depth ? (long)f : depth;                      \
    } else if (IX_CLASS_##K == 1) {                                                             \
      v = (long)x;                                                                              \
    } else {                                                                                    \
      v = (ulong)x < (ulong)depth ? (long)x : depth;                                            \
    }                                                                                           \
    long hot = v < -depth || v >= depth ? -1 : v < 0 ? v + depth : v;                          \
    ix_move(PLACE(P[1]), i, PLACE(P[3]), hot == d ? 1 : 0, P[4]);                               \
  }
FOR_EACH_KIND(ONE_HOT)

// ReverseSequence: the input is [d0, d1, inner] with batch and time the first two axes:
// [n, y, x, lens, lens bytes, time axis (0 or 1), d0, d1, inner, element bytes]. Batch b's
// first lens[b] time steps are reversed, the rest copied; a length outside [0, time steps]
// fails the run.
__kernel void reverse_sequence(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long d1 = P[7], inner = P[8], r = i % inner, a1 = (i / inner) % d1, a0 = i / (inner * d1);
  long time = P[5], b = time == 1 ? a0 : a1, t = time == 1 ? a1 : a0;
  long steps = time == 1 ? d1 : P[6], len = ix_index(PLACE(P[3]), b, P[4]);
  if (len < 0 || len > steps) {
    FAIL();
    return;
  }
  long from = t < len ? len - 1 - t : t;
  long src = ((time == 1 ? a0 * d1 + from : from * d1 + a1) * inner) + r;
  ix_move(PLACE(P[1]), i, PLACE(P[2]), src, P[9]);
}

// Zeroes n bytes at y: [n, y].
__kernel void zero_bytes(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  PLACE(P[1])[i] = 0;
}

// MaxUnpool's scatter, after zero_bytes cleared the result: one work-item writes every input
// element in order, so when indices repeat the last one wins, as on the Interpreter. An index
// addresses the unpooled tensor [N, C, spatial...]; the result is that tensor with the pads
// added around the spatial axes. [1, y, x, indices (int64), inputs, unpooled elements,
// unpooled plane, result plane, element bytes, spatial rank, then per spatial axis: unpooled
// dim, result stride, pad begin].
__kernel void max_unpool(ARGS) {
  P += p0;
  if (get_global_id(0) != 0)
    return;
  __global const long *idx = (__global const long *)PLACE(P[3]);
  long total = P[5], plane = P[6], outPlane = P[7], bytes = P[8], rank = P[9];
  for (long i = 0; i < P[4]; ++i) {
    long flat = idx[i];
    if (flat < 0 || flat >= total) {
      FAIL();
      return;
    }
    long rest = flat % plane, off = (flat / plane) * outPlane;
    for (long a = rank - 1; a >= 0; --a) {
      __global const long *q = P + 10 + 3 * a;
      off += (rest % q[0] + q[2]) * q[1];
      rest /= q[0];
    }
    ix_move(PLACE(P[1]), off, PLACE(P[2]), i, bytes);
  }
}
