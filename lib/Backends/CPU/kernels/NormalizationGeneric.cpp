// Normalizations for every float kind, computed in double with the Interpreter's formulas and
// summation order (lib/Backends/Interpreter/Normalization.cpp, NormalizationSoftmax.cpp):
// Softmax/LogSoftmax/Hardmax, BatchNorm (inference and training), InstanceNorm, LayerNorm,
// MeanVarNorm and LRN. float32 Softmax, LayerNorm and BatchNorm with float32 statistics have
// vectorized float kernels (Normalization.cpp); these serve the rest.
//
// Per-channel parameters and statistics may be of another float kind than the data: they are
// passed untyped with a FloatCode each (ReduceCommon.h) and read as doubles, as the
// Interpreter's readAsDoubles does.
#include "ReduceCommon.h"

namespace {

constexpr i64 kChunk = 64; ///< lines handled together so that inner loops are contiguous

enum AlongAxis { AxSoftmax = 0, AxLogSoftmax = 1, AxHardmax = 2 };

/// Along the middle axis of [outer, len, inner]: the max is the first largest element (a NaN
/// there makes it NaN; elsewhere the NaN reaches the sum); Hardmax puts 1 at its position.
template <typename T>
EMBER_INLINE void alongAxis(T *out, const T *in, i64 outer, i64 len, i64 inner, i64 how) {
  if (len == 0)
    return;
  for (i64 o = 0; o < outer; ++o)
    for (i64 i0 = 0; i0 < inner; i0 += kChunk) {
      i64 w = minI(kChunk, inner - i0), base = o * len * inner + i0;
      const T *x = in + base;
      T *y = out + base;
      double mx[kChunk], sum[kChunk];
      i64 at[kChunk];
      for (i64 q = 0; q < w; ++q) {
        mx[q] = loadD(x, q);
        at[q] = 0;
      }
      for (i64 k = 1; k < len; ++k)
        for (i64 q = 0; q < w; ++q) {
          double v = loadD(x, k * inner + q);
          if (v > mx[q]) {
            mx[q] = v;
            at[q] = k;
          }
        }
      if (how == AxHardmax) {
        for (i64 k = 0; k < len; ++k)
          for (i64 q = 0; q < w; ++q)
            y[k * inner + q] = fromDouble<T>(k == at[q] ? 1.0 : 0.0);
        continue;
      }
      for (i64 q = 0; q < w; ++q)
        sum[q] = 0.0;
      for (i64 k = 0; k < len; ++k)
        for (i64 q = 0; q < w; ++q)
          sum[q] += exp(loadD(x, k * inner + q) - mx[q]);
      if (how == AxSoftmax) {
        for (i64 k = 0; k < len; ++k)
          for (i64 q = 0; q < w; ++q)
            y[k * inner + q] = fromDouble<T>(exp(loadD(x, k * inner + q) - mx[q]) / sum[q]);
      } else {
        for (i64 q = 0; q < w; ++q)
          sum[q] = log(sum[q]);
        for (i64 k = 0; k < len; ++k)
          for (i64 q = 0; q < w; ++q)
            y[k * inner + q] = fromDouble<T>(loadD(x, k * inner + q) - mx[q] - sum[q]);
      }
    }
}

/// The population mean and variance of channel c of [N, C, inner] (two passes, row-major).
template <typename T>
EMBER_INLINE void channelMoments(const T *in, i64 N, i64 C, i64 inner, i64 c, double &mean,
                                 double &var) {
  double count = double(N * inner), s = 0;
  for (i64 n = 0; n < N; ++n) {
    const T *x = in + (n * C + c) * inner;
    for (i64 i = 0; i < inner; ++i)
      s += loadD(x, i);
  }
  mean = s / count;
  double d2 = 0;
  for (i64 n = 0; n < N; ++n) {
    const T *x = in + (n * C + c) * inner;
    for (i64 i = 0; i < inner; ++i) {
      double d = loadD(x, i) - mean;
      d2 += d * d;
    }
  }
  var = d2 / count;
}

/// y = scale * (x - mean) / sqrt(var + eps) + bias over \p n elements, the Interpreter's
/// expression term by term.
template <typename T>
EMBER_INLINE void normalizeBlock(T *y, const T *x, i64 n, double scale, double bias, double mean,
                                 double var, double eps) {
  double den = sqrt(var + eps);
  for (i64 i = 0; i < n; ++i)
    y[i] = fromDouble<T>(scale * (loadD(x, i) - mean) / den + bias);
}

struct ParamCodes {
  i64 scale, bias, mean, var;
};

template <typename T>
EMBER_INLINE void batchNorm(T *out, const T *in, const void *scale, const void *bias,
                            const void *mean, const void *var, ParamCodes pc, i64 N, i64 C,
                            i64 inner, double eps) {
  for (i64 c = 0; c < C; ++c) {
    double s = loadAny(scale, pc.scale, c), b = loadAny(bias, pc.bias, c);
    double m = loadAny(mean, pc.mean, c), v = loadAny(var, pc.var, c);
    for (i64 n = 0; n < N; ++n)
      normalizeBlock(out + (n * C + c) * inner, in + (n * C + c) * inner, inner, s, b, m, v, eps);
  }
}

/// Training batch norm: each channel by the batch's own statistics; running = old * momentum +
/// batch * (1 - momentum), written in the kinds of the Mean and Var operands.
template <typename T>
EMBER_INLINE void batchNormTraining(T *out, void *runMean, void *runVar, const T *in,
                                    const void *scale, const void *bias, const void *mean,
                                    const void *var, ParamCodes pc, i64 N, i64 C, i64 inner,
                                    double eps, double momentum) {
  for (i64 c = 0; c < C; ++c) {
    double m, v;
    channelMoments(in, N, C, inner, c, m, v);
    double s = loadAny(scale, pc.scale, c), b = loadAny(bias, pc.bias, c);
    for (i64 n = 0; n < N; ++n)
      normalizeBlock(out + (n * C + c) * inner, in + (n * C + c) * inner, inner, s, b, m, v, eps);
    storeAny(runMean, pc.mean, c, loadAny(mean, pc.mean, c) * momentum + m * (1 - momentum));
    storeAny(runVar, pc.var, c, loadAny(var, pc.var, c) * momentum + v * (1 - momentum));
  }
}

/// The mean and population variance of n contiguous elements (two passes).
template <typename T> EMBER_INLINE void blockMoments(const T *x, i64 n, double &mean, double &var) {
  double s = 0;
  for (i64 i = 0; i < n; ++i)
    s += loadD(x, i);
  mean = s / double(n);
  double d2 = 0;
  for (i64 i = 0; i < n; ++i) {
    double d = loadD(x, i) - mean;
    d2 += d * d;
  }
  var = d2 / double(n);
}

/// Instance norm: per sample and channel, over the contiguous spatial block.
template <typename T>
EMBER_INLINE void instanceNorm(T *out, const T *in, const void *scale, const void *bias,
                               i64 scaleCode, i64 biasCode, i64 N, i64 C, i64 inner, double eps) {
  for (i64 n = 0; n < N; ++n)
    for (i64 c = 0; c < C; ++c) {
      const T *x = in + (n * C + c) * inner;
      double m, v;
      blockMoments(x, inner, m, v);
      normalizeBlock(out + (n * C + c) * inner, x, inner, loadAny(scale, scaleCode, c),
                     loadAny(bias, biasCode, c), m, v, eps);
    }
}

/// Layer norm over rows of `block` elements; Mean and InvStdDev in the stash kind.
template <typename T>
EMBER_INLINE void layerNorm(T *out, void *meanOut, void *invStdOut, i64 statCode, const T *in,
                            const T *scale, const T *bias, i64 rows, i64 block, double eps) {
  for (i64 r = 0; r < rows; ++r) {
    const T *x = in + r * block;
    T *y = out + r * block;
    double m, v;
    blockMoments(x, block, m, v);
    double invStd = 1.0 / sqrt(v + eps);
    for (i64 i = 0; i < block; ++i)
      y[i] = fromDouble<T>((loadD(x, i) - m) * invStd * loadD(scale, i) + loadD(bias, i));
    storeAny(meanOut, statCode, r, m);
    storeAny(invStdOut, statCode, r, invStd);
  }
}

/// Mean-variance normalization over any axes: per group (forEachRun) the mean and variance in
/// scratch (2 * groups doubles), then (x - mean) / (sqrt(var) + eps).
template <typename T>
EMBER_INLINE void meanVarNorm(T *out, const T *in, double *scratch, i64 rank, const i64 *dims,
                              const i64 *gstr, i64 groups, i64 count, double eps) {
  double *mean = scratch, *var = scratch + groups;
  for (i64 g = 0; g < groups; ++g)
    mean[g] = var[g] = 0.0;
  forEachRun(rank, dims, gstr, [&](i64 off, i64 g, i64 len, i64 gs) {
    for (i64 k = 0; k < len; ++k)
      mean[g + k * gs] += loadD(in + off, k);
  });
  for (i64 g = 0; g < groups; ++g)
    mean[g] /= double(count);
  forEachRun(rank, dims, gstr, [&](i64 off, i64 g, i64 len, i64 gs) {
    for (i64 k = 0; k < len; ++k) {
      double d = loadD(in + off, k) - mean[g + k * gs];
      var[g + k * gs] += d * d;
    }
  });
  for (i64 g = 0; g < groups; ++g)
    var[g] = sqrt(var[g] / double(count)) + eps; // the denominator from here on
  forEachRun(rank, dims, gstr, [&](i64 off, i64 g, i64 len, i64 gs) {
    for (i64 k = 0; k < len; ++k)
      out[off + k] = fromDouble<T>((loadD(in + off, k) - mean[g + k * gs]) / var[g + k * gs]);
  });
}

/// LRN across the channels of [N, C, inner]: the window around c is [c - (size-1)/2,
/// c + size/2] clipped, x / (bias + alpha / size * sum of squares)^beta.
template <typename T>
EMBER_INLINE void lrn(T *out, const T *in, i64 N, i64 C, i64 inner, i64 size, double alpha,
                      double beta, double bias) {
  i64 before = (size - 1) / 2, after = size / 2;
  double k = alpha / double(size);
  for (i64 n = 0; n < N; ++n)
    for (i64 i0 = 0; i0 < inner; i0 += kChunk) {
      i64 w = minI(kChunk, inner - i0);
      const T *x = in + n * C * inner + i0;
      T *y = out + n * C * inner + i0;
      for (i64 c = 0; c < C; ++c) {
        i64 first = maxI(c - before, 0), last = minI(C - 1, c + after);
        double sq[kChunk];
        for (i64 q = 0; q < w; ++q)
          sq[q] = 0.0;
        for (i64 j = first; j <= last; ++j)
          for (i64 q = 0; q < w; ++q) {
            double v = loadD(x, j * inner + q);
            sq[q] += v * v;
          }
        for (i64 q = 0; q < w; ++q)
          y[c * inner + q] = fromDouble<T>(loadD(x, c * inner + q) / pow(bias + k * sq[q], beta));
      }
    }
}

} // namespace

#define NORM_KERNELS(S, T)                                                                         \
  EMBER_KERNEL EMBER_NOINLINE void ember_along_axis_##S(T *out, const T *in, i64 outer, i64 len,  \
                                                        i64 inner, i64 how) {                      \
    alongAxis(out, in, outer, len, inner, how);                                                    \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE void ember_batchnorm_any_##S(                                        \
      T *out, const T *in, const void *scale, const void *bias, const void *mean,                 \
      const void *var, i64 scaleCode, i64 biasCode, i64 meanCode, i64 varCode, i64 N, i64 C,      \
      i64 inner, float eps) {                                                                      \
    batchNorm(out, in, scale, bias, mean, var, ParamCodes{scaleCode, biasCode, meanCode, varCode}, \
              N, C, inner, double(eps));                                                           \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE void ember_batchnorm_training_##S(                                   \
      T *out, void *runMean, void *runVar, const T *in, const void *scale, const void *bias,      \
      const void *mean, const void *var, i64 scaleCode, i64 biasCode, i64 meanCode, i64 varCode,  \
      i64 N, i64 C, i64 inner, float eps, float momentum) {                                        \
    batchNormTraining(out, runMean, runVar, in, scale, bias, mean, var,                            \
                      ParamCodes{scaleCode, biasCode, meanCode, varCode}, N, C, inner,             \
                      double(eps), double(momentum));                                              \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE void ember_instancenorm_##S(                                         \
      T *out, const T *in, const void *scale, const void *bias, i64 scaleCode, i64 biasCode,      \
      i64 N, i64 C, i64 inner, float eps) {                                                        \
    instanceNorm(out, in, scale, bias, scaleCode, biasCode, N, C, inner, double(eps));             \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE void ember_layernorm_any_##S(                                        \
      T *out, void *meanOut, void *invStdOut, i64 statCode, const T *in, const T *scale,          \
      const T *bias, i64 rows, i64 block, float eps) {                                             \
    layerNorm(out, meanOut, invStdOut, statCode, in, scale, bias, rows, block, double(eps));       \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE void ember_meanvarnorm_##S(T *out, const T *in, double *scratch,    \
                                                         i64 rank, const i64 *dims,              \
                                                         const i64 *gstr, i64 groups, i64 count, \
                                                         float eps) {                             \
    meanVarNorm(out, in, scratch, rank, dims, gstr, groups, count, double(eps));                   \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE void ember_lrn_##S(T *out, const T *in, i64 N, i64 C, i64 inner,    \
                                                 i64 size, float alpha, float beta, float bias) {  \
    lrn(out, in, N, C, inner, size, double(alpha), double(beta), double(bias));                    \
  }
EMBER_FOR_FLOAT_KINDS(NORM_KERNELS)
#undef NORM_KERNELS
