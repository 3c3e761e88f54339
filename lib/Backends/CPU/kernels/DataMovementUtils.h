// Helpers shared by the data movement kernels (DataMovement*.cpp): run-time index checks with
// the Interpreter's conventions, the row walk every kernel of unbounded rank uses, and fixed-size
// element copies.
#ifndef EMBER_CPU_KERNELS_DATAMOVEMENTUTILS_H
#define EMBER_CPU_KERNELS_DATAMOVEMENTUTILS_H

#include "Types.h"

/// \p index (negative counts from the end) as a position on an axis of length \p n in \p at;
/// false when it is out of range. No index (INT64_MIN included) overflows: n < 2^63.
EMBER_INLINE bool resolveIndex(i64 index, i64 n, i64 &at) {
  if (index < 0)
    index += n;
  if (index < 0 || index >= n)
    return false;
  at = index;
  return true;
}

/// Offset of row \p r (a flat index over dims[0..rank)) given per-axis strides: the multi-index
/// is decomposed from the last axis up. Kernels of unbounded rank walk their result row by row
/// (a row is the innermost axis) and pay these divisions once per row, so they need no
/// per-axis state.
EMBER_INLINE i64 rowOffset(i64 r, const i64 *dims, const i64 *strides, i64 rank) {
  i64 off = 0;
  for (i64 d = rank - 1; d >= 0; --d) {
    off += (r % dims[d]) * strides[d];
    r /= dims[d];
  }
  return off;
}

/// Instantiation lists: X(suffix, type). Kernels that move elements without looking at them
/// exist once per element size (b8 .. b64 bits); index operands are int32 or int64.
#define EMBER_FOR_ELEMENT_SIZES(X) X(8, u8) X(16, u16) X(32, u32) X(64, u64)
#define EMBER_FOR_INDEX_KINDS(X) X(i32, i32) X(i64, i64)

#endif
