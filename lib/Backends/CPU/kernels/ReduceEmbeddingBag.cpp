// EmbeddingBag (Caffe2's SparseLengths* family) with the Interpreter's semantics, which
// ember/Semantics/EmbeddingBag.h states: the kernels check the lengths and every index first
// (returning non-zero, which codegen turns into an error naming the instruction), then stream
// each segment's rows once per block of up to 64 columns, the block's sums held in registers
// (4 Vecs), each row's weight, scale and bias applied as one vector fused multiply-add, which
// rounds as the header's scalar fmaf does. The ragged last columns take the header's scalar path.
#include "KernelCommon.h"

#include "ember/Semantics/EmbeddingBag.h"

namespace {

/// A row's elements [j, j + EMBER_VW) as floats: the values, or the fused8 codes converted.
template <long Layout> EMBER_INLINE Vec loadRow(const void *row, i64 j) {
  typedef u8 Bytes __attribute__((ext_vector_type(EMBER_VW)));
  if constexpr (Layout == EMBER_EMBAG_FUSED8) {
    Bytes b;
    __builtin_memcpy(&b, static_cast<const u8 *>(row) + j, sizeof b);
    return __builtin_convertvector(b, Vec);
  } else if constexpr (Layout == EMBER_EMBAG_FUSED4) { // j even: bytes j / 2 .. (j + 16) / 2
    typedef u8 Half __attribute__((ext_vector_type(EMBER_VW / 2)));
    Half h;
    __builtin_memcpy(&h, static_cast<const u8 *>(row) + j / 2, sizeof h);
    Bytes b = __builtin_shufflevector(h, h, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
    Bytes shift = {0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4};
    return __builtin_convertvector((b >> shift) & (u8)15, Vec);
  } else {
    return loadv(static_cast<const float *>(row) + j);
  }
}

template <long Layout> EMBER_INLINE float loadOne(const void *row, i64 j) {
  if constexpr (Layout != EMBER_EMBAG_FLOAT)
    return ember_embag_code(Layout, static_cast<const unsigned char *>(row), j);
  else
    return static_cast<const float *>(row)[j];
}

/// Bytes of a stored row of \p stride elements (ember_embag_row_stride).
template <long Layout> EMBER_INLINE i64 rowBytes(i64 stride) {
  return Layout == EMBER_EMBAG_FLOAT ? stride * 4 : stride;
}

/// Where element \p j of a row starts, in bytes.
template <long Layout> EMBER_INLINE i64 offsetOf(i64 j) {
  return Layout == EMBER_EMBAG_FLOAT ? j * 4 : Layout == EMBER_EMBAG_FUSED4 ? j / 2 : j;
}

struct Bag {
  const u8 *data;
  i64 stride; // bytes per stored row
  i64 cols;
  const float *weights;
};

template <long Layout, typename I>
EMBER_INLINE const void *rowOf(const Bag &b, const I *indices, i64 at) {
  return b.data + i64(indices[at]) * b.stride;
}

template <long Layout> EMBER_INLINE void rowScale(const Bag &b, const void *row, i64 at,
                                                  float *scaleBias) {
  ember_embag_row_scale(Layout, static_cast<const unsigned char *>(row), b.cols,
                        b.weights ? b.weights[at] : 1.0f, scaleBias);
}

/// Columns [j0, j0 + NV * EMBER_VW) of one segment (indices [begin, end)) summed in registers.
template <long Layout, int NV, typename I>
EMBER_INLINE void block(const Bag &b, const I *indices, i64 begin, i64 end, i64 j0, Vec *acc) {
  for (int v = 0; v < NV; ++v)
    acc[v] = splat(0.f);
  for (i64 at = begin; at < end; ++at) {
    if (at + 8 < end)
      __builtin_prefetch(b.data + i64(indices[at + 8]) * b.stride + offsetOf<Layout>(j0));
    const void *row = rowOf<Layout>(b, indices, at);
    float sb[2];
    rowScale<Layout>(b, row, at, sb);
    Vec scale = splat(sb[0]), bias = splat(sb[1]);
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v)
      acc[v] = __builtin_elementwise_fma(scale, loadRow<Layout>(row, j0 + v * EMBER_VW),
                                         bias + acc[v]);
  }
}

template <long Layout, typename I>
EMBER_INLINE i64 embeddingBag(float *out, const void *data, const I *indices, const i32 *lengths,
                              const float *weights, const i64 *p) {
  i64 rows = p[0], segments = p[1], numIndices = p[2], cols = p[3];
  int mean = int(p[4]);
  for (i64 i = 0; i < segments * cols; ++i)
    out[i] = 0.f;
  if (numIndices == 0)
    return 0;
  i64 at = 0;
  for (i64 s = 0; s < segments; ++s) {
    i64 end = ember_embag_segment_end(at, lengths[s], numIndices);
    if (end < 0)
      return EMBER_EMBAG_LENGTHS_OVERRUN;
    for (; at < end; ++at)
      if (int bad = ember_embag_check_index(long(indices[at]), rows))
        return bad;
  }
  if (at != numIndices)
    return EMBER_EMBAG_LENGTHS_OVERRUN;
  Bag b{static_cast<const u8 *>(data), rowBytes<Layout>(ember_embag_row_stride(Layout, cols)),
        cols, weights};
  i64 vecCols = cols / EMBER_VW * EMBER_VW;
  at = 0;
  for (i64 s = 0; s < segments; ++s) {
    i64 begin = at, end = ember_embag_segment_end(at, lengths[s], numIndices);
    at = end;
    float *o = out + s * cols;
    i64 j = 0;
    for (; j + 4 * EMBER_VW <= vecCols; j += 4 * EMBER_VW) {
      Vec acc[4];
      block<Layout, 4>(b, indices, begin, end, j, acc);
      for (int v = 0; v < 4; ++v)
        storev(o + j + v * EMBER_VW, acc[v]);
    }
    for (; j < vecCols; j += EMBER_VW) {
      Vec acc[1];
      block<Layout, 1>(b, indices, begin, end, j, acc);
      storev(o + j, acc[0]);
    }
    for (i64 i = begin; i < end && j < cols; ++i) { // the ragged last columns
      const void *row = rowOf<Layout>(b, indices, i);
      float sb[2];
      rowScale<Layout>(b, row, i, sb);
      for (i64 k = j; k < cols; ++k)
        o[k] = ember_embag_accumulate(o[k], loadOne<Layout>(row, k), sb);
    }
    for (i64 k = 0; k < cols; ++k)
      o[k] = ember_embag_finish(o[k], mean, lengths[s]);
  }
  return 0;
}

} // namespace

/// Parameters (CodeGenReduceEmbeddingBag.cpp): rows, segments, indices, columns, mean (1) or
/// sum; \p weights null when unweighted.
#define EMBER_EMBAG(sfx, Layout, I)                                                                \
  EMBER_KERNEL EMBER_NOINLINE i64 ember_embag_##sfx(float *out, const void *data,                  \
                                                    const I *indices, const i32 *lengths,          \
                                                    const float *weights, const i64 *params) {     \
    return embeddingBag<Layout, I>(out, data, indices, lengths, weights, params);                  \
  }
EMBER_EMBAG(float_i32, EMBER_EMBAG_FLOAT, i32)
EMBER_EMBAG(float_i64, EMBER_EMBAG_FLOAT, i64)
EMBER_EMBAG(fused8_i32, EMBER_EMBAG_FUSED8, i32)
EMBER_EMBAG(fused8_i64, EMBER_EMBAG_FUSED8, i64)
EMBER_EMBAG(fused4_i32, EMBER_EMBAG_FUSED4, i32)
EMBER_EMBAG(fused4_i64, EMBER_EMBAG_FUSED4, i64)
#undef EMBER_EMBAG
