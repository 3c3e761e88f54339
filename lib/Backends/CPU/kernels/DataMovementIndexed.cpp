// Indexed data movement kernels: Gather, GatherElements, GatherND, ScatterElements, ScatterND,
// OneHot, ReverseSequence. Elements move as bytes (one kernel per element size) except where a
// kind computes: the scatter reductions (add, mul, max, min) per element kind, OneHot's reading of its
// indices per index kind. Indices are read at run time, exactly as the Interpreter does: a
// negative one counts from the end of its axis, one out of range makes the kernel return
// 1 + the position of the offending index (or batch), which codegen turns into an error naming
// the instruction; no index ever causes an out-of-bounds access.
#include "DataMovementUtils.h"

/// Gather along an axis: data is [outer, axisLen, inner rows of rowBytes], the result
/// [outer, count, rowBytes]. Returns 0, or 1 + the position of the first index out of range.
#define GATHER_KERNEL(S, IDX)                                                                      \
  EMBER_KERNEL i64 ember_gather_##S(u8 *dst, const u8 *data, const IDX *indices, i64 outer,      \
                                    i64 axisLen, i64 count, i64 rowBytes) {                       \
    for (i64 k = 0; k < count; ++k) {                                                              \
      i64 at;                                                                                      \
      if (!resolveIndex(i64(indices[k]), axisLen, at))                                             \
        return k + 1;                                                                              \
      for (i64 o = 0; o < outer; ++o)                                                              \
        __builtin_memcpy(dst + (o * count + k) * rowBytes, data + (o * axisLen + at) * rowBytes,   \
                         (unsigned long)rowBytes);                                                 \
    }                                                                                              \
    return 0;                                                                                      \
  }
EMBER_FOR_INDEX_KINDS(GATHER_KERNEL)
#undef GATHER_KERNEL

namespace {

/// How a scatter writes an update \p u over the element \p a it lands on: How is the code of
/// ember::ScatterReduction (include/ember/Graph/ScatterReduction.h: 0 replaces, 1 adds,
/// 2 multiplies, 3 max, 4 min). As the Interpreter: integers wrap, bool adds as 'or' and
/// multiplies as 'and' (numpy's rules), 16-bit floats compute in float and round once; max and
/// min keep the winning element itself (a NaN wins, a's first; bool: 'or' and 'and').
template <int How, typename T> EMBER_INLINE T combine(T a, T u) {
  if constexpr (How == 0) {
    return u;
  } else if constexpr (How == 3 || How == 4) {
    if constexpr (kIsBool<T>) {
      return b8{u8(How == 3 ? (a.v || u.v) : (a.v && u.v))};
    } else {
      ComputeOf<T> x = Elem<T>::load(a), y = Elem<T>::load(u);
      if (x != x)
        return a;
      if (y != y)
        return u;
      return (How == 3 ? x < y : y < x) ? u : a;
    }
  } else if constexpr (kIsBool<T>) {
    return b8{u8(How == 1 ? (a.v || u.v) : (a.v && u.v))};
  } else if constexpr (kIsInt<T>) {
    WrapOf<T> x = WrapOf<T>(a), y = WrapOf<T>(u);
    return T(How == 1 ? x + y : x * y);
  } else {
    ComputeOf<T> x = Elem<T>::load(a), y = Elem<T>::load(u);
    return Elem<T>::store(How == 1 ? x + y : x * y);
  }
}

/// The walk GatherElements and ScatterElements share: element e of indices (dims idxDims, rank
/// >= 1, row-major) addresses data at base(row) + j * innerStride + at * axisStride, where
/// rowStrides are data's strides with the indexed axis' set to 0, innerStride data's last stride
/// (0 when the last axis is the indexed one) and at the index resolved on the axis. Calls
/// visit(e, dataOffset); returns 1 + e for the first index out of range, else 0.
template <typename I, typename Visit>
EMBER_INLINE i64 forEachElementIndex(const I *indices, i64 rank, const i64 *idxDims,
                                     const i64 *rowStrides, i64 innerStride, i64 axisLen,
                                     i64 axisStride, Visit visit) {
  i64 rows = 1;
  for (i64 k = 0; k + 1 < rank; ++k)
    rows *= idxDims[k];
  const i64 n = idxDims[rank - 1];
  for (i64 r = 0, e = 0; r < rows; ++r) {
    i64 base = rowOffset(r, idxDims, rowStrides, rank - 1);
    for (i64 j = 0; j < n; ++j, ++e) {
      i64 at;
      if (!resolveIndex(i64(indices[e]), axisLen, at))
        return e + 1;
      visit(e, base + j * innerStride + at * axisStride);
    }
  }
  return 0;
}

template <typename T, typename I>
EMBER_INLINE i64 gatherElements(T *dst, const T *data, const I *indices, i64 rank,
                                const i64 *idxDims, const i64 *rowStrides, i64 innerStride,
                                i64 axisLen, i64 axisStride) {
  return forEachElementIndex(indices, rank, idxDims, rowStrides, innerStride, axisLen, axisStride,
                             [&](i64 e, i64 off) { dst[e] = data[off]; });
}

/// The result starts as a copy of data (total elements), then each update combines into the
/// element its index names, in index order.
template <int How, typename T, typename I>
EMBER_INLINE i64 scatterElements(T *dst, const T *data, const I *indices, const T *updates,
                                 i64 total, i64 rank, const i64 *idxDims, const i64 *rowStrides,
                                 i64 innerStride, i64 axisLen, i64 axisStride) {
  if (dst != data)
    __builtin_memmove(dst, data, (unsigned long)total * sizeof(T));
  return forEachElementIndex(
      indices, rank, idxDims, rowStrides, innerStride, axisLen, axisStride,
      [&](i64 e, i64 off) { dst[off] = combine<How>(dst[off], updates[e]); });
}

/// The data offset of index tuple \p t (m indices naming axes with lengths dims and strides
/// strides) in \p off; false when one is out of range.
template <typename I>
EMBER_INLINE bool tupleOffset(const I *indices, i64 t, i64 m, const i64 *dims,
                              const i64 *strides, i64 &off) {
  off = 0;
  for (i64 j = 0; j < m; ++j) {
    i64 at;
    if (!resolveIndex(i64(indices[t * m + j]), dims[j], at))
      return false;
    off += at * strides[j];
  }
  return true;
}

/// GatherND: tuple t (of `tuples`, perBatch per batch) picks the slice of `slice` elements at
/// its offset within batch t / perBatch (batchSize elements each).
template <typename T, typename I>
EMBER_INLINE i64 gatherND(T *dst, const T *data, const I *indices, i64 m, const i64 *dims,
                          const i64 *strides, i64 tuples, i64 perBatch, i64 batchSize,
                          i64 slice) {
  for (i64 t = 0; t < tuples; ++t) {
    i64 off;
    if (!tupleOffset(indices, t, m, dims, strides, off))
      return t + 1;
    const T *src = data + off + (t / perBatch) * batchSize;
    for (i64 s = 0; s < slice; ++s)
      dst[t * slice + s] = src[s];
  }
  return 0;
}

/// ScatterND: data copied, then each tuple's slice combined with its slice of updates.
template <int How, typename T, typename I>
EMBER_INLINE i64 scatterND(T *dst, const T *data, const I *indices, const T *updates, i64 total,
                           i64 m, const i64 *dims, const i64 *strides, i64 tuples, i64 slice) {
  if (dst != data)
    __builtin_memmove(dst, data, (unsigned long)total * sizeof(T));
  for (i64 t = 0; t < tuples; ++t) {
    i64 off;
    if (!tupleOffset(indices, t, m, dims, strides, off))
      return t + 1;
    T *to = dst + off;
    const T *from = updates + t * slice;
    for (i64 s = 0; s < slice; ++s)
      to[s] = combine<How>(to[s], from[s]);
  }
  return 0;
}

} // namespace

#define SIZED_INDEX_KERNELS(BITS, T, S, I)                                                         \
  EMBER_KERNEL i64 ember_gather_elements_b##BITS##_##S(                                            \
      T *dst, const T *data, const I *indices, i64 rank, const i64 *idxDims,                      \
      const i64 *rowStrides, i64 innerStride, i64 axisLen, i64 axisStride) {                       \
    return gatherElements(dst, data, indices, rank, idxDims, rowStrides, innerStride, axisLen,    \
                          axisStride);                                                             \
  }                                                                                                \
  EMBER_KERNEL i64 ember_scatter_elements_none_b##BITS##_##S(                                      \
      T *dst, const T *data, const I *indices, const T *updates, i64 total, i64 rank,             \
      const i64 *idxDims, const i64 *rowStrides, i64 innerStride, i64 axisLen, i64 axisStride) {  \
    return scatterElements<0>(dst, data, indices, updates, total, rank, idxDims, rowStrides,      \
                              innerStride, axisLen, axisStride);                                   \
  }                                                                                                \
  EMBER_KERNEL i64 ember_gather_nd_b##BITS##_##S(T *dst, const T *data, const I *indices, i64 m, \
                                                 const i64 *dims, const i64 *strides, i64 tuples, \
                                                 i64 perBatch, i64 batchSize, i64 slice) {        \
    return gatherND(dst, data, indices, m, dims, strides, tuples, perBatch, batchSize, slice);    \
  }                                                                                                \
  EMBER_KERNEL i64 ember_scatter_nd_none_b##BITS##_##S(                                            \
      T *dst, const T *data, const I *indices, const T *updates, i64 total, i64 m,                \
      const i64 *dims, const i64 *strides, i64 tuples, i64 slice) {                                \
    return scatterND<0>(dst, data, indices, updates, total, m, dims, strides, tuples, slice);     \
  }
#define SIZED_INDEX_KERNELS_I32(BITS, T) SIZED_INDEX_KERNELS(BITS, T, i32, i32)
#define SIZED_INDEX_KERNELS_I64(BITS, T) SIZED_INDEX_KERNELS(BITS, T, i64, i64)
EMBER_FOR_ELEMENT_SIZES(SIZED_INDEX_KERNELS_I32)
EMBER_FOR_ELEMENT_SIZES(SIZED_INDEX_KERNELS_I64)
#undef SIZED_INDEX_KERNELS_I32
#undef SIZED_INDEX_KERNELS_I64
#undef SIZED_INDEX_KERNELS

// The reductions compute, so they exist per element kind.
#define SCATTER_REDUCE_KERNELS(HOW, NAME, K, T, S, I)                                              \
  EMBER_KERNEL i64 ember_scatter_elements_##NAME##_##K##_##S(                                      \
      T *dst, const T *data, const I *indices, const T *updates, i64 total, i64 rank,             \
      const i64 *idxDims, const i64 *rowStrides, i64 innerStride, i64 axisLen, i64 axisStride) {  \
    return scatterElements<HOW>(dst, data, indices, updates, total, rank, idxDims, rowStrides,    \
                                innerStride, axisLen, axisStride);                                 \
  }                                                                                                \
  EMBER_KERNEL i64 ember_scatter_nd_##NAME##_##K##_##S(                                            \
      T *dst, const T *data, const I *indices, const T *updates, i64 total, i64 m,                \
      const i64 *dims, const i64 *strides, i64 tuples, i64 slice) {                                \
    return scatterND<HOW>(dst, data, indices, updates, total, m, dims, strides, tuples, slice);   \
  }
#define SCATTER_REDUCE_FOR_KIND(K, T)                                                              \
  SCATTER_REDUCE_KERNELS(1, add, K, T, i32, i32)                                                   \
  SCATTER_REDUCE_KERNELS(1, add, K, T, i64, i64)                                                   \
  SCATTER_REDUCE_KERNELS(2, mul, K, T, i32, i32)                                                   \
  SCATTER_REDUCE_KERNELS(2, mul, K, T, i64, i64)                                                   \
  SCATTER_REDUCE_KERNELS(3, max, K, T, i32, i32)                                                   \
  SCATTER_REDUCE_KERNELS(3, max, K, T, i64, i64)                                                   \
  SCATTER_REDUCE_KERNELS(4, min, K, T, i32, i32)                                                   \
  SCATTER_REDUCE_KERNELS(4, min, K, T, i64, i64)
EMBER_FOR_ALL_KINDS(SCATTER_REDUCE_FOR_KIND)
#undef SCATTER_REDUCE_FOR_KIND
#undef SCATTER_REDUCE_KERNELS

namespace {

/// The position in [0, depth) an index of OneHot selects, or -1 (all off) when it lies outside
/// [-depth, depth); negative ones count from depth. As the Interpreter: unsigned values (bool
/// included) at or above depth are off, fractional ones truncate toward zero.
template <typename I> EMBER_INLINE i64 hotPosition(I x, i64 depth) {
  i64 v;
  if constexpr (kIsBool<I>) {
    v = u64(x.v) < u64(depth) ? i64(x.v) : depth;
  } else if constexpr (kIsInt<I> && !kIsSigned<I>) {
    v = u64(x) < u64(depth) ? i64(x) : depth;
  } else if constexpr (kIsInt<I>) {
    v = i64(x);
  } else {
    double d = double(Elem<I>::load(x));
    v = d > -(double(depth) + 1) && d < double(depth) ? i64(d) : depth;
  }
  return v < -depth || v >= depth ? -1 : (v < 0 ? v + depth : v);
}

/// The result is [outer, depth, inner] with indices [outer, inner]: each (o, i) is values[1] at
/// its hot position on the depth axis, values[0] elsewhere.
template <typename I, typename T>
EMBER_INLINE void oneHot(T *dst, const I *indices, const T *values, i64 outer, i64 depth,
                         i64 inner) {
  const T off = values[0], on = values[1];
  // Kept rolled: fully unrolled at every call site, many small OneHots make compile time grow
  // superlinearly.
#pragma clang loop unroll(disable)
  for (i64 o = 0; o < outer; ++o) {
    T *block = dst + o * depth * inner;
    for (i64 k = 0; k < depth * inner; ++k)
      block[k] = off;
#pragma clang loop unroll(disable)
    for (i64 i = 0; i < inner; ++i) {
      i64 h = hotPosition(indices[o * inner + i], depth);
      if (h >= 0)
        block[h * inner + i] = on;
    }
  }
}

} // namespace

#define ONEHOT_KERNEL(K, I, BITS, T)                                                               \
  EMBER_KERNEL void ember_one_hot_##K##_b##BITS(T *dst, const I *indices, const T *values,       \
                                                i64 outer, i64 depth, i64 inner) {                \
    oneHot(dst, indices, values, outer, depth, inner);                                             \
  }
#define ONEHOT_FOR_INDEX_KIND(K, I)                                                                \
  ONEHOT_KERNEL(K, I, 8, u8)                                                                       \
  ONEHOT_KERNEL(K, I, 16, u16) ONEHOT_KERNEL(K, I, 32, u32) ONEHOT_KERNEL(K, I, 64, u64)
EMBER_FOR_ALL_KINDS(ONEHOT_FOR_INDEX_KIND)
#undef ONEHOT_FOR_INDEX_KIND
#undef ONEHOT_KERNEL

/// ReverseSequence: the input is [d0, d1, rows of rowBytes] with the batch and time axes the
/// first two in some order (time is axis \p timeAxis). The result is the input with, for batch
/// b, the first lens[b] rows along time reversed. Returns 1 + b for the first length outside
/// [0, time length].
#define REVERSE_SEQUENCE_KERNEL(S, I)                                                              \
  EMBER_KERNEL i64 ember_reverse_sequence_##S(u8 *dst, const u8 *src, const I *lens, i64 d0,     \
                                              i64 d1, i64 timeAxis, i64 rowBytes) {               \
    if (dst != src)                                                                                \
      __builtin_memmove(dst, src, (unsigned long)(d0 * d1 * rowBytes));                           \
    i64 batches = timeAxis == 1 ? d0 : d1, times = timeAxis == 1 ? d1 : d0;                        \
    for (i64 b = 0; b < batches; ++b) {                                                            \
      i64 len = i64(lens[b]);                                                                      \
      if (len < 0 || len > times)                                                                  \
        return b + 1;                                                                              \
      for (i64 t = 0; t < len; ++t) {                                                              \
        i64 to = timeAxis == 1 ? b * d1 + t : t * d1 + b;                                          \
        i64 from = timeAxis == 1 ? b * d1 + (len - 1 - t) : (len - 1 - t) * d1 + b;                \
        __builtin_memcpy(dst + to * rowBytes, src + from * rowBytes, (unsigned long)rowBytes);     \
      }                                                                                            \
    }                                                                                              \
    return 0;                                                                                      \
  }
EMBER_FOR_INDEX_KINDS(REVERSE_SEQUENCE_KERNEL)
#undef REVERSE_SEQUENCE_KERNEL
