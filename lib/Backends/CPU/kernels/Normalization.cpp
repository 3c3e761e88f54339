// The float32 fast paths of Softmax/LogSoftmax, LayerNorm and BatchNorm (transformers and CNNs):
// codegen views each tensor as [outer, len, inner] around the axes the operation works along.
// They run in float with vector partial sums; the other float kinds and the other
// normalizations are in NormalizationGeneric.cpp, computed in double as the Interpreter does.
#include "Activation.h"
#include "Libm.h"
#include "KernelCommon.h"
#include "Parallel.h"
#include "SoftmaxLine.h"


namespace {

/// The general case: lines with elements `inner` apart, handled a vector of lines at a time.
EMBER_INLINE void softmaxStrided(float *out, const float *x, i64 len, i64 inner,
                                 bool logSoftmax) {
  for (i64 i0 = 0; i0 < inner; i0 += EMBER_VW) {
    i64 w = minI(EMBER_VW, inner - i0);
    auto ld = [&](const float *p) { return w == EMBER_VW ? loadv(p) : loadPartial(p, w); };
    auto st = [&](float *p, Vec v) {
      if (w == EMBER_VW)
        storev(p, v);
      else
        storePartial(p, v, w);
    };
    Vec m = splat(-__builtin_inff());
    for (i64 k = 0; k < len; ++k)
      m = vmax(m, ld(x + k * inner + i0));
    Vec sum = splat(0.f);
    for (i64 k = 0; k < len; ++k) {
      Vec e = vexp(ld(x + k * inner + i0) - m);
      sum += e;
      if (!logSoftmax)
        st(out + k * inner + i0, e);
    }
    if (logSoftmax) {
      float s[EMBER_VW], mm[EMBER_VW];
      storev(s, sum);
      storev(mm, m);
      for (int q = 0; q < EMBER_VW; ++q)
        s[q] = mm[q] + logf(s[q]);
      Vec shift = loadv(s);
      for (i64 k = 0; k < len; ++k)
        st(out + k * inner + i0, ld(x + k * inner + i0) - shift);
    } else {
      for (i64 k = 0; k < len; ++k)
        st(out + k * inner + i0, ld(out + k * inner + i0) / sum);
    }
  }
}

} // namespace

/// body(begin, end) over ranges of [0, rows) split over \p team, each of whole rows.
template <typename Body>
EMBER_INLINE void splitRows(parallel::Team *team, i64 rows, i64 rowElements, const Body &body) {
  i64 parts = maxI(1, minI(parallel::partsForMoving(team, 0, rows * rowElements), rows));
  parallel::forEachRange(team, parts, rows, 1,
                         [&](i64, i64 begin, i64 end) { body(begin, end); });
}

/// Lines split over \p team by whole lines (an attention's [heads, seq, seq] scores: a line a
/// query), which changes no line's arithmetic.
EMBER_KERNEL EMBER_NOINLINE void ember_softmax_f32(float *out, const float *in, i64 outer,
                                                   i64 len, i64 inner, i64 logSoftmax,
                                                   parallel::Team *team) {
  if (inner == 1)
    return splitRows(team, outer, len, [&](i64 begin, i64 end) {
      for (i64 o = begin; o < end; ++o)
        softmaxContiguous(out + o * len, in + o * len, len, logSoftmax != 0);
    });
  splitRows(team, outer, len * inner, [&](i64 begin, i64 end) {
    for (i64 o = begin; o < end; ++o)
      softmaxStrided(out + o * len * inner, in + o * len * inner, len, inner, logSoftmax != 0);
  });
}

/// Rows [rBegin, rEnd) of `block` elements: (x - mean) * invStd * scale + bias, with the mean
/// and 1/sqrt(var + eps) also written out (LayerNorm's second and third results).
EMBER_INLINE void layerNormRows(float *out, float *meanOut, float *invStdOut, const float *in,
                                const float *scale, const float *bias, i64 rBegin, i64 rEnd,
                                i64 block, float eps) {
  for (i64 r = rBegin; r < rEnd; ++r) {
    const float *x = in + r * block;
    float *y = out + r * block;
    Vec acc = splat(0.f);
    i64 i = 0;
    for (; i + EMBER_VW <= block; i += EMBER_VW)
      acc += loadv(x + i);
    if (i < block)
      acc += loadPartial(x + i, block - i);
    float mean = hsum(acc) / float(block);
    Vec dev = splat(0.f);
    for (i = 0; i + EMBER_VW <= block; i += EMBER_VW) {
      Vec d = loadv(x + i) - mean;
      dev += d * d;
    }
    if (i < block) {
      float t[EMBER_VW] = {};
      for (i64 q = 0; i + q < block; ++q)
        t[q] = x[i + q] - mean;
      Vec d = loadv(t);
      dev += d * d;
    }
    float var = hsum(dev) / float(block);
    float invStd = float(1.0 / sqrt(double(var) + double(eps)));
    meanOut[r] = mean;
    invStdOut[r] = invStd;
    for (i = 0; i + EMBER_VW <= block; i += EMBER_VW)
      storev(y + i, (loadv(x + i) - mean) * invStd * loadv(scale + i) + loadv(bias + i));
    for (; i < block; ++i)
      y[i] = (x[i] - mean) * invStd * scale[i] + bias[i];
  }
}

/// LayerNorm (layerNormRows) of `rows` rows, split over \p team by whole rows.
EMBER_KERNEL EMBER_NOINLINE void ember_layernorm_f32(float *out, float *meanOut,
                                                     float *invStdOut, const float *in,
                                                     const float *scale, const float *bias,
                                                     i64 rows, i64 block, float eps,
                                                     parallel::Team *team) {
  splitRows(team, rows, block, [&](i64 begin, i64 end) {
    layerNormRows(out, meanOut, invStdOut, in, scale, bias, begin, end, block, eps);
  });
}

constexpr Activation kRelu{ActRelu, 0.f, 0.f};

/// Inference batch norm over axis 1 of [N, C, inner], then (\p Relu) the relu that
/// overwrote its result in place (CodeGenNormalization.cpp), as FusedActivations.def's relu row
/// (Activation.h) gives it.
template <bool Relu>
EMBER_INLINE void batchNorm(float *out, const float *in, const float *scale, const float *bias,
                            const float *mean, const float *var, i64 N, i64 C, i64 inner,
                            float eps) {
  for (i64 c = 0; c < C; ++c) {
    float k = float(double(scale[c]) / sqrt(double(var[c]) + double(eps)));
    float m = mean[c], b = bias[c];
    for (i64 n = 0; n < N; ++n) {
      const float *x = in + (n * C + c) * inner;
      float *y = out + (n * C + c) * inner;
      i64 i = 0;
      for (; i + EMBER_VW <= inner; i += EMBER_VW) {
        Vec v = (loadv(x + i) - m) * k + b;
        storev(y + i, Relu ? applyInlineActivation(v, kRelu) : v);
      }
      for (; i < inner; ++i) {
        float v = (x[i] - m) * k + b;
        y[i] = Relu ? activate(v, ActRelu, 0.f, 0.f) : v;
      }
    }
  }
}

EMBER_KERNEL EMBER_NOINLINE void ember_batchnorm_f32(float *out, const float *in,
                                                     const float *scale, const float *bias,
                                                     const float *mean, const float *var, i64 N,
                                                     i64 C, i64 inner, float eps, i64 relu) {
  if (relu)
    batchNorm<true>(out, in, scale, bias, mean, var, N, C, inner, eps);
  else
    batchNorm<false>(out, in, scale, bias, mean, var, N, C, inner, eps);
}
