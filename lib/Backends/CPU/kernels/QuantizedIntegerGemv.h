// IntegerMatMul of few rows of A (quantlayout::kQGemvMaxRows: a classifier's batch) without
// the int8 GEMM (QuantizedIntegerGemm.h, whose integerMatMul calls it): B is streamed once
// instead of packed. Wrapped sums of (a - za)(b - zb), the Interpreter's bit for bit, as the
// GEMM's. Generic vector code: every variant of QuantizedIntegerVariants.def compiles it with
// its own target features.
#ifndef EMBER_CPU_KERNELS_QUANTIZEDINTEGERGEMV_H
#define EMBER_CPU_KERNELS_QUANTIZEDINTEGERGEMV_H

#include "QuantizedLayout.h"
#include "Types.h"

namespace qgemv {

using namespace quantlayout;

typedef u8 U8x16 __attribute__((ext_vector_type(16)));
typedef i16 I16x16 __attribute__((ext_vector_type(16)));
typedef i16 I16x32 __attribute__((ext_vector_type(32)));
typedef i32 I32x16 __attribute__((ext_vector_type(16)));
typedef i32 I32x32 __attribute__((ext_vector_type(32)));
typedef u32 U32x16 __attribute__((ext_vector_type(16)));

/// Sums of adjacent pairs of the int16 products of \p x and \p y (32 lanes each), exact in
/// int32: x86's pmaddwd pattern, which LLVM recognizes.
EMBER_INLINE U32x16 maddPairs32(I16x32 x, I16x32 y) {
  I32x32 p = __builtin_convertvector(x, I32x32) * __builtin_convertvector(y, I32x32);
  I32x16 even = __builtin_shufflevector(p, p, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                        28, 30),
         odd = __builtin_shufflevector(p, p, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27,
                                       29, 31);
  return __builtin_bit_cast(U32x16, I32x16(even + odd));
}

/// Row \p k of B, columns [n, n + 16), less its zero point, as int16 (\p zb already flipped).
EMBER_INLINE I16x16 shiftedRow(const u8 *b, i64 k, i64 K, i64 N, i64 n, u8 flip, i16 zb) {
  if (k >= K)
    return (I16x16)0;
  U8x16 v;
  __builtin_memcpy(&v, b + k * N + n, 16);
  return __builtin_convertvector(U8x16(v ^ flip), I16x16) - zb;
}

/// Rows k and k + 1 of B, columns [n, n + 16), interleaved: (k, n), (k + 1, n), (k, n + 1), ...
EMBER_INLINE I16x32 rowPair(I16x16 r0, I16x16 r1) {
  return __builtin_shufflevector(r0, r1, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23,
                                 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
}

/// IntegerMatMul of few rows of A (M <= kQGemvMaxRows: a classifier's batch), columns [n0, n1)
/// of C (M x N, wrapped sums) = sum_k (a - za)(b - zb): B (the weights, N wide) is read once,
/// row after row, four rows at a time widened to int16 less zb, and multiplied with each row's
/// four (a - za), pairs of products summed exactly in int32. The GEMM would first pack all of
/// B, reading and writing it once more, for the one row of A it multiplies. Panels of 64
/// columns down all of k, with the sums in registers instead of C read and written every four
/// k, ran a third faster with B in the cache but twice as slow in the model, where B comes
/// from memory: rows N bytes apart cross a page every few k, which the prefetchers do not
/// follow (resnet50's classifier 0.24 -> 0.50 ms).
EMBER_INLINE void gemvColumns(i64 M, i64 N, i64 K, const u8 *a, u8 aFlip, const u8 *za,
                              i64 zaStride, const u8 *b, u8 bFlip, u8 zb, u32 *C, i64 n0,
                              i64 n1) {
  for (i64 m = 0; m < M; ++m)
    for (i64 n = n0; n < n1; ++n)
      C[m * N + n] = 0;
  i16 zbi = i16(u8(zb ^ bFlip));
  i64 whole = n0 + (n1 - n0) / 16 * 16;
  for (i64 k = 0; k < K; k += 4) {
    // Each row's four (a - za), as pairs in alternate lanes (0 past K).
    I16x32 pair01[kQGemvMaxRows], pair23[kQGemvMaxRows];
    i16 shifted[kQGemvMaxRows][4];
    for (i64 m = 0; m < M; ++m) {
      i16 zam = i16(i8(za[m * zaStride] ^ aFlip));
      for (i64 t = 0; t < 4; ++t)
        shifted[m][t] = k + t < K ? i16(i16(i8(a[m * K + k + t] ^ aFlip)) - zam) : i16(0);
      for (int l = 0; l < 32; l += 2) {
        pair01[m][l] = shifted[m][0];
        pair01[m][l + 1] = shifted[m][1];
        pair23[m][l] = shifted[m][2];
        pair23[m][l + 1] = shifted[m][3];
      }
    }
    for (i64 n = n0; n < whole; n += 16) {
      // Four streams of B at once, two steps ahead: resnet50's classifier took 0.50 ms
      // without, 0.26 with (its 2 MB of weights come from memory).
      if ((n - n0) % 64 == 0)
        for (i64 t = 8; t < 12; ++t)
          __builtin_prefetch(b + (k + t) * N + n);
      I16x32 b01 = rowPair(shiftedRow(b, k, K, N, n, bFlip, zbi),
                           shiftedRow(b, k + 1, K, N, n, bFlip, zbi));
      I16x32 b23 = rowPair(shiftedRow(b, k + 2, K, N, n, bFlip, zbi),
                           shiftedRow(b, k + 3, K, N, n, bFlip, zbi));
      for (i64 m = 0; m < M; ++m) {
        U32x16 c;
        __builtin_memcpy(&c, C + m * N + n, 64);
        c += maddPairs32(b01, pair01[m]) + maddPairs32(b23, pair23[m]);
        __builtin_memcpy(C + m * N + n, &c, 64);
      }
    }
    for (i64 n = whole; n < n1; ++n)
      for (i64 m = 0; m < M; ++m)
        for (i64 t = 0; t < 4 && k + t < K; ++t)
          C[m * N + n] += u32(i32(shifted[m][t]) * (i32(u8(b[(k + t) * N + n] ^ bFlip)) - zbi));
  }
}

} // namespace qgemv

#endif
