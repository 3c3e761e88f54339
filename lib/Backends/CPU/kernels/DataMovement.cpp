// Data movement kernels: Reshape, Transpose, Broadcast, Slice, Concat, Pad, Trilu, Range (the
// indexed kinds are in DataMovementIndexed.cpp, Resize in DataMovementResize.cpp). All but Range
// move elements as bytes, so one kernel per element size serves every element kind: Transpose,
// Broadcast and Slice are one strided gather (codegen computes the strides), Pad and nearest
// Resize one table-driven gather (codegen computes, per axis, where each result index reads).
#include "DataMovementUtils.h"

/// Copies \p bytes from \p src to \p dst (Copy, Reshape); nothing when they are the same buffer.
EMBER_KERNEL void ember_copy(u8 *dst, const u8 *src, i64 bytes) {
  if (dst != src)
    __builtin_memmove(dst, src, (unsigned long)bytes);
}

namespace {

/// dst (dims d[0..rank), row-major) element at multi-index i = src[base + sum(i[k] * s[k])],
/// strides in elements (possibly 0 or negative). rank >= 5: codegen pads with leading 1s and
/// merges axes that are contiguous in both, so the innermost loop is as long as possible. The
/// last 5 axes are a loop nest; any axes before them are one flat counter decomposed per
/// iteration (a division per 4-deep block is nothing next to the copy).
template <typename T>
EMBER_INLINE void stridedCopy(T *dst, const T *src, const i64 *d, const i64 *s, i64 rank,
                              i64 base) {
  i64 outerRank = rank - 5, outer = 1;
  for (i64 k = 0; k < outerRank; ++k)
    outer *= d[k];
  const i64 *id = d + outerRank, *is = s + outerRank;
  for (i64 o = 0; o < outer; ++o) {
    const T *p0 = src + base + rowOffset(o, d, s, outerRank);
    for (i64 i1 = 0; i1 < id[0]; ++i1)
      for (i64 i2 = 0; i2 < id[1]; ++i2)
        for (i64 i3 = 0; i3 < id[2]; ++i3)
          for (i64 i4 = 0; i4 < id[3]; ++i4) {
            const T *p = p0 + i1 * is[0] + i2 * is[1] + i3 * is[2] + i4 * is[3];
            i64 n = id[4], st = is[4];
            if (st == 1) {
              for (i64 i5 = 0; i5 < n; ++i5)
                dst[i5] = p[i5];
            } else if (st == 0) {
              T v = *p;
              for (i64 i5 = 0; i5 < n; ++i5)
                dst[i5] = v;
            } else {
              for (i64 i5 = 0; i5 < n; ++i5)
                dst[i5] = p[i5 * st];
            }
            dst += n;
          }
  }
}

/// dst (dims outDims[0..rank), rank >= 1) element at multi-index i = src[sum(table_k[i[k]])], or
/// *value when some table_k[i[k]] is -1. The tables of all axes follow each other in \p table
/// (outDims[k] entries each). On the last axis, indices [runBegin, runEnd) read consecutive
/// elements (Pad's interior), which is one contiguous copy.
template <typename T>
EMBER_INLINE void tableGather(T *dst, const T *src, const T *value, i64 rank, const i64 *outDims,
                              const i64 *table, i64 runBegin, i64 runEnd) {
  i64 rows = 1, lastStart = 0;
  for (i64 k = 0; k + 1 < rank; ++k) {
    rows *= outDims[k];
    lastStart += outDims[k];
  }
  const i64 n = outDims[rank - 1], *last = table + lastStart;
  const T v = *value;
  for (i64 r = 0; r < rows; ++r, dst += n) {
    // The row's source offset: the sum of its outer axes' table entries, -1 if one is -1.
    i64 off = 0, rem = r, start = lastStart;
    for (i64 k = rank - 2; k >= 0 && off >= 0; --k) {
      start -= outDims[k];
      i64 t = table[start + rem % outDims[k]];
      off = t < 0 ? -1 : off + t;
      rem /= outDims[k];
    }
    if (off < 0) {
      for (i64 j = 0; j < n; ++j)
        dst[j] = v;
      continue;
    }
    const T *row = src + off;
    for (i64 j = 0; j < runBegin; ++j)
      dst[j] = last[j] < 0 ? v : row[last[j]];
    if (runEnd > runBegin) {
      const T *run = row + last[runBegin] - runBegin;
      for (i64 j = runBegin; j < runEnd; ++j)
        dst[j] = run[j];
    }
    for (i64 j = runEnd; j < n; ++j)
      dst[j] = last[j] < 0 ? v : row[last[j]];
  }
}

/// Trilu on each of \p matrices rows x cols matrices: element (i, j) stays when j - i >= k
/// (upper) or j - i <= k (lower), else becomes zero (all-zero bytes for every kind it serves).
/// Per row that is one zero run and one copied run.
template <typename T>
EMBER_INLINE void trilu(T *dst, const T *src, i64 matrices, i64 rows, i64 cols, i64 k,
                        i64 upper) {
  // Beyond these bounds every row is all kept or all zero; clamping keeps i + k from overflowing.
  k = k < -rows - 1 ? -rows - 1 : (k > cols + 1 ? cols + 1 : k);
  // The outer loops stay rolled: fully unrolled at every call site (the sizes are constants),
  // a few dozen Trilus made compile time grow superlinearly.
#pragma clang loop unroll(disable)
  for (i64 m = 0; m < matrices; ++m)
#pragma clang loop unroll(disable)
    for (i64 i = 0; i < rows; ++i) {
      i64 at = (m * rows + i) * cols;
      // upper keeps [i + k, cols), lower keeps [0, i + k + 1).
      i64 split = upper ? i + k : i + k + 1;
      split = split < 0 ? 0 : (split > cols ? cols : split);
      i64 keepBegin = upper ? split : 0, keepEnd = upper ? cols : split;
      for (i64 j = 0; j < cols; ++j)
        dst[at + j] = j >= keepBegin && j < keepEnd ? src[at + j] : T(0);
    }
}

} // namespace

#define SIZED_KERNELS(BITS, T)                                                                     \
  EMBER_KERNEL void ember_strided_copy_b##BITS(T *dst, const T *src, const i64 *d, const i64 *s, \
                                               i64 rank, i64 base) {                              \
    stridedCopy<T>(dst, src, d, s, rank, base);                                                    \
  }                                                                                                \
  EMBER_KERNEL void ember_table_gather_b##BITS(T *dst, const T *src, const T *value, i64 rank,   \
                                               const i64 *outDims, const i64 *table,              \
                                               i64 runBegin, i64 runEnd) {                        \
    tableGather<T>(dst, src, value, rank, outDims, table, runBegin, runEnd);                       \
  }                                                                                                \
  EMBER_KERNEL void ember_trilu_b##BITS(T *dst, const T *src, i64 matrices, i64 rows, i64 cols,  \
                                        i64 k, i64 upper) {                                       \
    trilu<T>(dst, src, matrices, rows, cols, k, upper);                                            \
  }
EMBER_FOR_ELEMENT_SIZES(SIZED_KERNELS)
#undef SIZED_KERNELS

/// \p rows blocks of \p rowBytes: block r from src + r * srcStride to dst + r * dstStride
/// (Concat: each input fills one column range of every outer row of the result).
EMBER_KERNEL void ember_copy_rows(u8 *dst, i64 dstStride, const u8 *src, i64 srcStride, i64 rows,
                                  i64 rowBytes) {
  if (dst == src) // an input the memory plan already placed inside the result
    return;
  // Rolled, or every Concat of small tensors unrolls into a long block of moves, and compile
  // time grows superlinearly with their number.
#pragma clang loop unroll(disable)
  for (i64 r = 0; r < rows; ++r)
    __builtin_memcpy(dst + r * dstStride, src + r * srcStride, (unsigned long)rowBytes);
}

namespace {

/// result[i] = start + i * delta. Integers wrap (computed in uint64) rather than overflow;
/// floats compute in double (product and sum each rounded: no FMA) and round once more to T, as
/// the Interpreter does. The loop stays rolled (see Trilu).
template <typename T> EMBER_INLINE void range(T *dst, const T *start, const T *delta, i64 n) {
#pragma clang fp contract(off)
#pragma clang loop unroll(disable)
  for (i64 i = 0; i < n; ++i) {
    if constexpr (kIsInt<T>)
      dst[i] = T(u64(*start) + u64(i) * u64(*delta));
    else
      dst[i] = T(double(*start) + double(i) * double(*delta));
  }
}

} // namespace

// ONNX Range's types (the Interpreter's supportsRange).
#define RANGE_KERNEL(S, T)                                                                         \
  EMBER_KERNEL void ember_range_##S(T *dst, const T *start, const T *delta, i64 n) {             \
    range<T>(dst, start, delta, n);                                                                \
  }
RANGE_KERNEL(f32, float)
RANGE_KERNEL(f64, double)
RANGE_KERNEL(i16, i16)
RANGE_KERNEL(i32, i32)
RANGE_KERNEL(i64, i64)
#undef RANGE_KERNEL
