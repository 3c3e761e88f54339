// One contiguous line of softmax (or log-softmax), vectorized: the float32 Softmax kernel's
// (Normalization.cpp) and the fused attention's (NNAttention.cpp), so that both compute a line
// alike, bit for bit.
#ifndef EMBER_CPU_KERNELS_SOFTMAXLINE_H
#define EMBER_CPU_KERNELS_SOFTMAXLINE_H

#include "KernelCommon.h"
#include "Libm.h"

/// One line of `len` contiguous elements: softmax (or log-softmax) into out (may be in).
EMBER_INLINE void softmaxContiguous(float *out, const float *x, i64 len, bool logSoftmax) {
  Vec m = splat(-__builtin_inff());
  i64 i = 0;
  for (; i + EMBER_VW <= len; i += EMBER_VW)
    m = vmax(m, loadv(x + i));
  float maxVal = hmax(m);
  for (; i < len; ++i)
    maxVal = x[i] > maxVal ? x[i] : maxVal;
  Vec sum = splat(0.f);
  for (i = 0; i + EMBER_VW <= len; i += EMBER_VW) {
    Vec e = vexp(loadv(x + i) - maxVal);
    sum += e;
    if (!logSoftmax)
      storev(out + i, e);
  }
  if (i < len) {
    i64 n = len - i;
    Vec e = vexp(loadPartial(x + i, n) - maxVal);
    float t[EMBER_VW];
    storev(t, e);
    for (i64 q = n; q < EMBER_VW; ++q)
      t[q] = 0.f; // padding lanes hold exp(-max), not part of the line
    e = loadv(t);
    sum += e;
    if (!logSoftmax)
      storePartial(out + i, e, n);
  }
  float total = hsum(sum);
  if (logSoftmax) {
    float shift = maxVal + logf(total);
    for (i = 0; i < len; ++i)
      out[i] = x[i] - shift;
  } else {
    Vec t = splat(total);
    for (i = 0; i + EMBER_VW <= len; i += EMBER_VW)
      storev(out + i, loadv(out + i) / t);
    if (i < len)
      storePartial(out + i, loadPartial(out + i, len - i) / t, len - i);
  }
}

#endif
