// Data movement kernels (Nodes/DataMovement.def). Common.cl says how kernels are called.

// A strided copy of elements of `size` bytes covering Transpose, Broadcast, Slice, Pad
// (constant), Concat's parts and plain copies: [n, y, x, fill place or -1, rank, then per dim
// d: out dim, out stride, in dim, in stride, start, step]. Output element at coordinates c goes
// to y[sum c * out stride]; it reads x at in coordinate start + c * step, or the fill value when
// that falls outside [0, in dim).
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

// Gather of 4- or 8-byte elements: data viewed as [outer, axis, inner], indices (int32 or
// int64, negative ones count from the end) of count nIdx: [n, y, data, idx, idx bytes, outer,
// axis, inner, nIdx, element bytes]; output [outer, nIdx, inner].
__kernel void gather(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long inner = P[7], nIdx = P[8], axis = P[6];
  long k = i % inner, j = (i / inner) % nIdx, o = i / (inner * nIdx);
  long idx = P[4] == 8 ? ((__global const long *)PLACE(P[3]))[j]
                       : ((__global const int *)PLACE(P[3]))[j];
  if (idx < 0)
    idx += axis;
  long src = (o * axis + idx) * inner + k;
  if (P[9] == 8)
    ((__global ulong *)PLACE(P[1]))[i] = ((__global const ulong *)PLACE(P[2]))[src];
  else
    ((__global uint *)PLACE(P[1]))[i] = ((__global const uint *)PLACE(P[2]))[src];
}
