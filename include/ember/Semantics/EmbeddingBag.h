// The embedding bag (Nodes/Reduce.def EmbeddingBag): Caffe2's SparseLengthsSum family as its
// CPU code computes it (caffe2/operators/lengths_reducer_ops.h,
// lengths_reducer_fused_8bit_rowwise_ops.h and perfkernels/embedding_lookup*.cc), written once
// for the Interpreter, the CPU kernels and the OpenCL kernels (ember/Semantics/Portable.h says
// how). A kernel walks the segments in order; for each index of a segment it takes the row's
// weight and (fused tables) the row's scale and bias with ember_embag_row_scale, and adds the
// row element by element with ember_embag_accumulate; a segment ends with ember_embag_finish.
//
// Table layouts (the Mode attribute): float, a float32 row of `cols` values; fused8 (Caffe2's
// Fused8BitRowwise), `cols` uint8 codes followed by the row's float32 scale and float32 bias,
// little-endian and unaligned, value = scale * code + bias; fused4 (Fused4BitRowwise,
// lengths_reducer_fused_nbit_rowwise_ops.h), cols / 2 bytes of two 4-bit codes each (element j
// in byte j / 2, the low nibble first) followed by float16 scale and bias. Caffe2 adds a row as
//   out[j] = fma(w * scale, code[j], w * bias + out[j])
// (one fused multiply-add, the float table taking scale 1 and bias 0: fma(w, x[j], out[j])),
// and a mean multiplies the sum by 1.0f / length when the length is not 0.
//
// What Caffe2 enforces at run time (the kernels check before they write): the lengths' running
// sum never passes the number of indices and ends equal to it, and every index is in [0, rows).
// With no indices at all, Caffe2 writes zeros whatever the lengths say (lengths_reducer_ops.h).
#ifndef EMBER_SEMANTICS_EMBEDDINGBAG_H
#define EMBER_SEMANTICS_EMBEDDINGBAG_H

#ifndef __OPENCL_C_VERSION__
#include "ember/Semantics/Portable.h"
#endif

#ifdef __OPENCL_C_VERSION__
#define EMBER_EMBAG_FMAF(a, b, c) fma((float)(a), (float)(b), (float)(c))
#define EMBER_EMBAG_BITS_FLOAT(u) as_float((uint)(u))
#else
#define EMBER_EMBAG_FMAF(a, b, c) __builtin_fmaf(a, b, c)
#define EMBER_EMBAG_BITS_FLOAT(u) __builtin_bit_cast(float, (unsigned int)(u))
#endif

/// Table layouts, the codes kernels take for the Mode attribute's names.
#define EMBER_EMBAG_FLOAT 0
#define EMBER_EMBAG_FUSED8 1
#define EMBER_EMBAG_FUSED4 2

/// Run-time failures, returned by the checks below (0: none).
#define EMBER_EMBAG_LENGTHS_OVERRUN 1
#define EMBER_EMBAG_INDEX_OUT_OF_RANGE 2

/// The float32 stored little-endian at \p row [\p at, \p at + 4), at any alignment.
EMBER_PORTABLE float ember_embag_read_float(const EMBER_GLOBAL unsigned char *row, long at) {
  unsigned int bits = (unsigned int)row[at] | (unsigned int)row[at + 1] << 8 |
                      (unsigned int)row[at + 2] << 16 | (unsigned int)row[at + 3] << 24;
  return EMBER_EMBAG_BITS_FLOAT(bits);
}

/// The float16 \p bits as a float, exactly (subnormals, infinities and NaN included).
EMBER_PORTABLE float ember_embag_half_to_float(unsigned int bits) {
  unsigned int sign = (bits & 0x8000u) << 16, exp = (bits >> 10) & 0x1Fu, mant = bits & 0x3FFu;
  if (exp == 0) { // zero or subnormal: mant * 2^-24
    float v = (float)mant * EMBER_EMBAG_BITS_FLOAT(0x33800000u);
    return sign ? -v : v;
  }
  if (exp == 31)
    return EMBER_EMBAG_BITS_FLOAT(sign | 0x7F800000u | mant << 13);
  return EMBER_EMBAG_BITS_FLOAT(sign | (exp + 112u) << 23 | mant << 13);
}

/// Elements a stored row holds: floats for the float layout, bytes for the fused ones.
EMBER_PORTABLE long ember_embag_row_stride(long layout, long cols) {
  return layout == EMBER_EMBAG_FUSED8 ? cols + 8 : layout == EMBER_EMBAG_FUSED4 ? cols / 2 + 4
                                                                                 : cols;
}

/// Code \p j of a fused row, as a float.
EMBER_PORTABLE float ember_embag_code(long layout, const EMBER_GLOBAL unsigned char *row, long j) {
  if (layout == EMBER_EMBAG_FUSED4)
    return (float)((row[j >> 1] >> ((j & 1) * 4)) & 15);
  return (float)row[j];
}

/// The row's multiplier and addend for weight \p w: {w * scale, w * bias} of the fused row
/// \p row (\p cols codes), or {w, 0} for a float row (\p row unused, may be null).
EMBER_PORTABLE void ember_embag_row_scale(long layout, const EMBER_GLOBAL unsigned char *row,
                                          long cols, float w, float *scaleBias) {
  EMBER_PORTABLE_NO_FMA
  if (layout == EMBER_EMBAG_FUSED8) {
    scaleBias[1] = w * ember_embag_read_float(row, cols + 4);
    scaleBias[0] = w * ember_embag_read_float(row, cols);
  } else if (layout == EMBER_EMBAG_FUSED4) {
    long at = cols / 2;
    scaleBias[0] = w * ember_embag_half_to_float((unsigned int)row[at] | row[at + 1] << 8);
    scaleBias[1] = w * ember_embag_half_to_float((unsigned int)row[at + 2] | row[at + 3] << 8);
  } else {
    scaleBias[0] = w;
    scaleBias[1] = 0.0f;
  }
}

/// One element of a row added to the running sum \p acc: \p x is the float value or the code.
EMBER_PORTABLE float ember_embag_accumulate(float acc, float x, const float *scaleBias) {
  return EMBER_EMBAG_FMAF(scaleBias[0], x, scaleBias[1] + acc);
}

/// The segment's result from its sum: times 1.0f / \p length for a mean of a non-empty segment.
EMBER_PORTABLE float ember_embag_finish(float acc, int mean, long length) {
  EMBER_PORTABLE_NO_FMA
  return mean && length != 0 ? acc * (1.0f / (float)length) : acc;
}

/// Where the segment of \p length starting at index \p start ends, or -1 when it runs past the
/// \p numIndices indices (a negative length reads none, as Caffe2's loop does).
EMBER_PORTABLE long ember_embag_segment_end(long start, long length, long numIndices) {
  long end = start + (length > 0 ? length : 0);
  return end > numIndices ? -1 : end;
}

/// 0 when index \p idx names one of the \p rows rows, else EMBER_EMBAG_INDEX_OUT_OF_RANGE.
EMBER_PORTABLE int ember_embag_check_index(long idx, long rows) {
  return idx >= 0 && idx < rows ? 0 : EMBER_EMBAG_INDEX_OUT_OF_RANGE;
}

#endif
