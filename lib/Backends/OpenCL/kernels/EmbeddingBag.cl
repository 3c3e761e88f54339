// EmbeddingBag (Nodes/Reduce.def). Common.cl says how kernels are called. What a segment sums
// and how comes from ember/Semantics/EmbeddingBag.h (in the program before this file), the
// Interpreter's own. Parameters: [count, y, data, indices, lengths, weights (-1: none), rows,
// segments, number of indices, columns, mean]; one work-item per result element, which walks
// its segment's rows in order, and one more that checks the lengths add up to the indices.
// Lengths that run past the indices, or an index out of [0, rows), fail the run.
#define EMBAG(NAME, LAYOUT, IT)                                                                 \
  __kernel void embag_##NAME(ARGS) {                                                            \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long rows = P[6], segments = P[7], numIndices = P[8], cols = P[9];                         \
    __global const int *lengths = (__global const int *)PLACE(P[4]);                            \
    __global const IT *indices = (__global const IT *)PLACE(P[3]);                              \
    long s = i / (cols ? cols : 1), j = i - s * cols, start = 0, end = 0;                       \
    if (numIndices != 0) {                                                                      \
      for (long k = 0; k < (i == segments * cols ? segments : s + 1); ++k) {                    \
        start = end;                                                                            \
        end = ember_embag_segment_end(start, lengths[k], numIndices);                           \
        if (end < 0) {                                                                          \
          FAIL();                                                                               \
          return;                                                                               \
        }                                                                                       \
      }                                                                                         \
    }                                                                                           \
    if (i == segments * cols) { /* the extra work-item: the lengths add up */                  \
      if (numIndices != 0 && end != numIndices)                                                 \
        FAIL();                                                                                 \
      return;                                                                                   \
    }                                                                                           \
    __global const float *w = P[5] < 0 ? 0 : (__global const float *)PLACE(P[5]);              \
    __global const uchar *data = PLACE(P[2]);                                                   \
    long stride = ember_embag_row_stride(LAYOUT, cols) * (LAYOUT ? 1 : 4);                      \
    float acc = 0.0f;                                                                           \
    for (long at = start; at < end; ++at) {                                                     \
      long idx = (long)indices[at];                                                             \
      if (ember_embag_check_index(idx, rows)) {                                                 \
        FAIL();                                                                                 \
        return;                                                                                 \
      }                                                                                         \
      __global const uchar *row = data + idx * stride;                                          \
      float scaleBias[2];                                                                       \
      ember_embag_row_scale(LAYOUT, row, cols, w ? w[at] : 1.0f, scaleBias);                    \
      float x = LAYOUT ? ember_embag_code(LAYOUT, row, j) : ((__global const float *)row)[j];  \
      acc = ember_embag_accumulate(acc, x, scaleBias);                                          \
    }                                                                                           \
    FP(P[1])[i] = ember_embag_finish(acc, (int)P[10], numIndices ? lengths[s] : 0);             \
  }
EMBAG(float_i32, EMBER_EMBAG_FLOAT, int)
EMBAG(float_i64, EMBER_EMBAG_FLOAT, long)
EMBAG(fused8_i32, EMBER_EMBAG_FUSED8, int)
EMBAG(fused8_i64, EMBER_EMBAG_FUSED8, long)
EMBAG(fused4_i32, EMBER_EMBAG_FUSED4, int)
EMBAG(fused4_i64, EMBER_EMBAG_FUSED4, long)
