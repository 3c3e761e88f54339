// ember/Semantics/ScalarFormulas.inc and the operator headers beside it (GridSample.h,
// RoiAlign.h, Determinant.h, EmbeddingBag.h, NarrowKinds.h, PadSource.h, Pool.h, Remainder.h)
// compiled as OpenCL C 1.2, as the OpenCL backend includes them: the ctest
// Semantics.FormulasCompileAsOpenCLC checks that they stay in the subset host C++, the kernels'
// C++ and OpenCL C share, and this kernel that they evaluate.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

// The math shims: OpenCL C's builtins are overloaded on float and double already.
#define fm_exp exp
#define fm_expm1 expm1
#define fm_log1p log1p
#define fm_tanh tanh
#define fm_erf erf
#define fm_fabs fabs

#define EMBER_FORMULA static inline __attribute__((overloadable))
#define EMBER_NO_FMA
#include "ember/Semantics/ScalarFormulasFloatAndDouble.inc"

// The OpenCL program embeds Portable.h before the operator headers, which include it only
// outside OpenCL C.
#include "ember/Semantics/Portable.h"
#include "ember/Semantics/Determinant.h"
#include "ember/Semantics/EmbeddingBag.h"
#include "ember/Semantics/GridSample.h"
#include "ember/Semantics/NarrowKinds.h"
#include "ember/Semantics/PadSource.h"
#include "ember/Semantics/Pool.h"
#include "ember/Semantics/Remainder.h"
#include "ember/Semantics/RoiAlign.h"

__kernel void formulas(__global float *out, __global const float *in, __global double *out64) {
  size_t i = get_global_id(0);
  float x = in[i];
  out[i] = ember_sigmoid(x) + ember_hard_sigmoid(x, 0.2f, 0.5f) + ember_hard_swish(x) +
           ember_gelu(x) + ember_gelu_tanh(x) + ember_softplus(x) + ember_elu(x, 1.0f) +
           ember_clip(x, -1.0f, 1.0f) + ember_leaky_relu(x, 0.1f) + ember_sign(x) + ember_mish(x) +
           (ember_max_takes_second(x, 0.5f) ? 0.5f : x) +
           (ember_min_takes_second(x, 0.5f) ? 0.5f : x);
  out64[i] = ember_sigmoid((double)x) + ember_selu((double)x, 1.67, 1.05) +
             ember_narrow_to_float(EMBER_NARROW_F8E4M3FN,
                                   ember_narrow_from_double(EMBER_NARROW_F8E4M3FN, x, 1));
  long lo, hi, start = (long)i - 1;
  ember_pool_real_taps(start, 2, 3, 5, &lo, &hi);
  out64[i] += ember_shrink((double)x, 0.5, 1.0) +
             (double)ember_signed_remainder((long)i - 3, 2, 1);
  out64[i] += (double)ember_pad_source((long)i, 3, 2, EMBER_PAD_REFLECT);
  double geometry[4] = {0.0, 0.0, 1.0, 1.0}, bin;
  long grid[2] = {2, 2};
#define FORMULAS_LOAD(p, at) (p)[at]
  EMBER_ROI_ALIGN_BIN(bin, geometry, grid, 0, 0, 2, 2, 0, FORMULAS_LOAD, in, 0);
  out64[i] += bin;
  float scaleBias[2];
  ember_embag_row_scale(EMBER_EMBAG_FUSED8, (__global const unsigned char *)in, 1, x, scaleBias);
  ember_embag_row_scale(EMBER_EMBAG_FUSED4, (__global const unsigned char *)in, 2, x, scaleBias);
  out[i] += ember_embag_finish(ember_embag_accumulate(x, x, scaleBias), 1, 2) +
            (float)(ember_embag_segment_end(0, (long)i, 4) + ember_embag_check_index(i, 3)) +
            ember_embag_code(EMBER_EMBAG_FUSED4, (__global const unsigned char *)in, (long)i) +
            ember_embag_half_to_float((unsigned int)i);
  out64[i] += (double)(ember_pool_average_divisor(hi - lo,
                                                  ember_pool_padded_taps(start, 2, 3, 5, 1), 1));
}
