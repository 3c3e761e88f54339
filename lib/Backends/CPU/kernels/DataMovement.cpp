// Data movement kernels: they move elements as bytes, so one kernel per element size serves
// every element kind. Transpose, Broadcast and Slice are one strided gather (codegen computes the
// strides); Concat copies blocks of rows; Gather reads indices at run time and reports an index
// out of range through its return value.
#include "KernelCommon.h"

/// Copies \p bytes from \p src to \p dst (Copy, Reshape); nothing when they are the same buffer.
EMBER_KERNEL void ember_copy(u8 *dst, const u8 *src, i64 bytes) {
  if (dst != src)
    __builtin_memmove(dst, src, (unsigned long)bytes);
}

/// dst (dims d[0..5], row-major) element at multi-index i = src[base + sum(i[k] * s[k])] with
/// strides in elements (possibly 0 or negative). Codegen pads ranks below 6 with leading 1s and
/// merges axes that are contiguous in both, so the innermost loop is as long as possible.
#define STRIDED_KERNEL(BITS, T)                                                                    \
  EMBER_KERNEL void ember_strided_copy_b##BITS(T *dst, const T *src, const i64 *d,               \
                                               const i64 *s, i64 base) {                          \
    const T *p0 = src + base;                                                                      \
    for (i64 i0 = 0; i0 < d[0]; ++i0)                                                              \
      for (i64 i1 = 0; i1 < d[1]; ++i1)                                                            \
        for (i64 i2 = 0; i2 < d[2]; ++i2)                                                          \
          for (i64 i3 = 0; i3 < d[3]; ++i3)                                                        \
            for (i64 i4 = 0; i4 < d[4]; ++i4) {                                                    \
              const T *p = p0 + i0 * s[0] + i1 * s[1] + i2 * s[2] + i3 * s[3] + i4 * s[4];         \
              i64 n = d[5], st = s[5];                                                             \
              if (st == 1) {                                                                       \
                for (i64 i5 = 0; i5 < n; ++i5)                                                     \
                  dst[i5] = p[i5];                                                                 \
              } else if (st == 0) {                                                                \
                T v = *p;                                                                          \
                for (i64 i5 = 0; i5 < n; ++i5)                                                     \
                  dst[i5] = v;                                                                     \
              } else {                                                                             \
                for (i64 i5 = 0; i5 < n; ++i5)                                                     \
                  dst[i5] = p[i5 * st];                                                            \
              }                                                                                    \
              dst += n;                                                                            \
            }                                                                                      \
  }
STRIDED_KERNEL(8, u8)
STRIDED_KERNEL(16, u16)
STRIDED_KERNEL(32, u32)
STRIDED_KERNEL(64, u64)
#undef STRIDED_KERNEL

/// \p rows blocks of \p rowBytes: block r from src + r * srcStride to dst + r * dstStride
/// (Concat: each input fills one column range of every outer row of the result).
EMBER_KERNEL void ember_copy_rows(u8 *dst, i64 dstStride, const u8 *src, i64 srcStride, i64 rows,
                                  i64 rowBytes) {
  if (dst == src) // an input the memory plan already placed inside the result
    return;
  for (i64 r = 0; r < rows; ++r)
    __builtin_memcpy(dst + r * dstStride, src + r * srcStride, (unsigned long)rowBytes);
}

/// Gather along an axis: data is [outer, axisLen, inner rows of rowBytes], the result
/// [outer, count, rowBytes]. Returns 0, or 1 + the position of the first index out of range
/// (negative indices count from the end).
#define GATHER_KERNEL(NAME, IDX)                                                                   \
  EMBER_KERNEL i64 NAME(u8 *dst, const u8 *data, const IDX *indices, i64 outer, i64 axisLen,      \
                        i64 count, i64 rowBytes) {                                                 \
    for (i64 k = 0; k < count; ++k) {                                                              \
      i64 at = (i64)indices[k];                                                                    \
      if (at < 0)                                                                                  \
        at += axisLen;                                                                             \
      if (at < 0 || at >= axisLen)                                                                 \
        return k + 1;                                                                              \
      for (i64 o = 0; o < outer; ++o)                                                              \
        __builtin_memcpy(dst + (o * count + k) * rowBytes, data + (o * axisLen + at) * rowBytes,   \
                         (unsigned long)rowBytes);                                                 \
    }                                                                                              \
    return 0;                                                                                      \
  }
GATHER_KERNEL(ember_gather_i32, i32)
GATHER_KERNEL(ember_gather_i64, i64)
#undef GATHER_KERNEL
