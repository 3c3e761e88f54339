// Data movement kernels (Nodes/DataMovement.def): the strided copies, Pad, Trilu and Range.
// Common.cl says how kernels are called. The indexed kinds (gathers, scatters, ...) are in
// Indexed.cl, Resize in Resize.cl. Moves are instantiated per element size in bytes, not per
// kind: they never look at values, so one kernel serves every kind of that size.

// A strided copy of elements of `size` bytes covering Transpose, Broadcast, Slice, Concat's
// parts and plain copies: [n, y, x, fill place or -1, rank, then per dim d: out dim, out
// stride, in dim, in stride, start, step]. Output element at coordinates c goes to y[sum c * out
// stride]; it reads x at in coordinate start + c * step, or the fill value when that falls
// outside [0, in dim).
#define COPY_ND(NAME, T)                                                                        \
  __kernel void NAME(ARGS) {                                                                    \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    __global T *y = (__global T *)PLACE(P[1]);                                                  \
    __global const T *x = (__global const T *)PLACE(P[2]);                                      \
    long rank = P[4], rest = i, out = 0, in = 0;                                                \
    bool inside = true;                                                                         \
    for (long d = rank - 1; d >= 0; --d) {                                                      \
      __global const long *q = P + 5 + 6 * d;                                                   \
      long c = rest % q[0];                                                                     \
      rest /= q[0];                                                                             \
      out += c * q[1];                                                                          \
      long ic = q[4] + c * q[5];                                                                \
      inside = inside && ic >= 0 && ic < q[2];                                                  \
      in += ic * q[3];                                                                          \
    }                                                                                           \
    y[out] = inside ? x[in] : ((__global const T *)PLACE(P[3]))[0];                             \
  }
COPY_ND(copy_nd_1, uchar)
COPY_ND(copy_nd_2, ushort)
COPY_ND(copy_nd_4, uint)
COPY_ND(copy_nd_8, ulong)

// A copy by runs, for the strided copies whose innermost dim is contiguous in the result (a
// concat's part, a transpose or slice that keeps the last axis, a broadcast, a plain copy): the
// per-element index arithmetic of copy_nd costs far more than the move, so a work-item here
// moves up to COPY_RUNS_CHUNK elements of one run with 16-element vector loads and stores, and
// does the div/mod walk over the outer dims once. [n (work-items), y, x, run length, inner in
// stride (1: the run is contiguous in x too; 0: it is x's one element repeated, a broadcast's
// innermost axis), work-items per run, outer rank, then per outer dim (outermost first): dim,
// out stride, in stride]; strides in elements.
#define COPY_RUNS_CHUNK 64
#define COPY_RUNS(NAME, T, T16)                                                                 \
  __kernel void NAME(ARGS) {                                                                    \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long chunks = P[5], run = i / chunks, start = (i - run * chunks) * COPY_RUNS_CHUNK;         \
    long out = start, in = start * P[4];                                                        \
    for (long d = P[6] - 1; d >= 0; --d) {                                                      \
      __global const long *q = P + 7 + 3 * d;                                                   \
      long c = run % q[0];                                                                      \
      run /= q[0];                                                                              \
      out += c * q[1];                                                                          \
      in += c * q[2];                                                                           \
    }                                                                                           \
    long len = min((long)COPY_RUNS_CHUNK, P[3] - start), j = 0;                                 \
    __global T *y = (__global T *)PLACE(P[1]) + out;                                            \
    __global const T *x = (__global const T *)PLACE(P[2]) + in;                                 \
    if (P[4]) {                                                                                 \
      for (; j + 16 <= len; j += 16)                                                            \
        vstore16(vload16(0, x + j), 0, y + j);                                                  \
      for (; j < len; ++j)                                                                      \
        y[j] = x[j];                                                                            \
    } else {                                                                                    \
      T v = x[0];                                                                               \
      for (; j + 16 <= len; j += 16)                                                            \
        vstore16((T16)v, 0, y + j);                                                             \
      for (; j < len; ++j)                                                                      \
        y[j] = v;                                                                               \
    }                                                                                           \
  }
COPY_RUNS(copy_runs_1, uchar, uchar16)
COPY_RUNS(copy_runs_2, ushort, ushort16)
COPY_RUNS(copy_runs_4, uint, uint16)
COPY_RUNS(copy_runs_8, ulong, ulong16)

// Pad in every mode (ember/Semantics/PadSource.h) into a row-major result: [n, y, x, fill
// place, mode, rank, then per dim: out dim, in dim, in stride, begin].
#define PAD_ND(NAME, T)                                                                         \
  __kernel void NAME(ARGS) {                                                                    \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long mode = P[4], rank = P[5], rest = i, in = 0;                                            \
    bool inside = true;                                                                         \
    for (long d = rank - 1; d >= 0 && inside; --d) {                                            \
      __global const long *q = P + 6 + 4 * d;                                                   \
      long s = ember_pad_source(rest % q[0], q[1], q[3], (int)mode);                            \
      rest /= q[0];                                                                             \
      inside = s >= 0;                                                                          \
      in += s * q[2];                                                                           \
    }                                                                                           \
    ((__global T *)PLACE(P[1]))[i] =                                                            \
        ((__global const T *)PLACE(inside ? P[2] : P[3]))[inside ? in : 0];                     \
  }
PAD_ND(pad_nd_1, uchar)
PAD_ND(pad_nd_2, ushort)
PAD_ND(pad_nd_4, uint)
PAD_ND(pad_nd_8, ulong)

// Trilu: [n, y, x, rows, cols, upper, k]. Element (r, j) of each matrix stays when j - r >= k
// (upper) or j - r <= k (lower); the rest becomes 0, all-zero bytes in every kind it takes.
#define TRILU(NAME, T)                                                                          \
  __kernel void NAME(ARGS) {                                                                    \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long cols = P[4], diag = i % cols - (i / cols) % P[3], k = P[6];                            \
    bool keep = P[5] ? diag >= k : diag <= k;                                                   \
    ((__global T *)PLACE(P[1]))[i] = keep ? ((__global const T *)PLACE(P[2]))[i] : (T)0;        \
  }
TRILU(trilu_1, uchar)
TRILU(trilu_2, ushort)
TRILU(trilu_4, uint)
TRILU(trilu_8, ulong)

// Range: [n, y, start place, delta place]; y[i] = start + i * delta. Integers wrap (computed in
// 64-bit unsigned), floats compute in double and round once, as the Interpreter's.
#define RANGE_INT(K)                                                                            \
  __kernel void range_##K(ARGS) {                                                               \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    ulong start = (ulong)LOAD_##K(PLACE(P[2]), 0), delta = (ulong)LOAD_##K(PLACE(P[3]), 0);     \
    STORE_##K(PLACE(P[1]), i, start + (ulong)i * delta);                                        \
  }
#define RANGE_FLOAT(K)                                                                          \
  __kernel void range_##K(ARGS) {                                                               \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    double start = LOAD_##K(PLACE(P[2]), 0), delta = LOAD_##K(PLACE(P[3]), 0);                  \
    STORE_##K(PLACE(P[1]), i, start + (double)i * delta);                                       \
  }
RANGE_FLOAT(f32)
RANGE_FLOAT(f64)
RANGE_INT(i16)
RANGE_INT(i32)
RANGE_INT(i64)
