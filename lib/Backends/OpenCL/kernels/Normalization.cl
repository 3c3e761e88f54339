// Normalizations (Nodes/Normalization.def), as the Interpreter's Normalization.cpp and
// NormalizationSoftmax.cpp: every float kind, computed in double and rounded once to the
// result's kind. Common.cl says how kernels are called.

// Parameters and statistics may be of another float kind than the data: their kind is a
// parameter, 0 float32, 1 float64, 2 float16, 3 bfloat16 (floatCode in
// LaunchesNormalization.cpp).
static inline double norm_load(__global const uchar *p, long i, long kind) {
  switch (kind) {
  case 1: return LOAD_f64(p, i);
  case 2: return LOAD_f16(p, i);
  case 3: return LOAD_bf16(p, i);
  default: return LOAD_f32(p, i);
  }
}

static inline void norm_store(__global uchar *p, long i, long kind, double v) {
  switch (kind) {
  case 1: STORE_f64(p, i, v); break;
  case 2: STORE_f16(p, i, v); break;
  case 3: STORE_bf16(p, i, v); break;
  default: STORE_f32(p, i, v); break;
  }
}

// Inference batch norm over channel axis 1: [count, y, x, scale, its kind, bias, its kind,
// mean, its kind, var, its kind, eps bits, C, inner]:
// scale * (x - mean) / sqrt(var + eps) + bias.
#define NORM_BATCHNORM(K)                                                                      \
  __kernel void batchnorm_##K(ARGS) {                                                          \
    P += p0;                                                                                   \
    long i = get_global_id(0);                                                                 \
    if (i >= P[0])                                                                             \
      return;                                                                                  \
    long c = (i / P[13]) % P[12];                                                              \
    double x = LOAD_##K(PLACE(P[2]), i);                                                       \
    double s = norm_load(PLACE(P[3]), c, P[4]), b = norm_load(PLACE(P[5]), c, P[6]);           \
    double m = norm_load(PLACE(P[7]), c, P[8]), v = norm_load(PLACE(P[9]), c, P[10]);          \
    STORE_##K(PLACE(P[1]), i, s * (x - m) / sqrt(v + (double)PF(11)) + b);                     \
  }
FOR_EACH_FLOAT_KIND(NORM_BATCHNORM)

// The float32 inference batch norm, NORM_BLOCK elements of one channel's plane per work-item
// (the plane cut into blocks, the last one short): the channel's parameters loaded and
// sqrt(var + eps) taken once, then batchnorm_f32's expression in double, rounded once, so its
// results to the bit. [count, y, x, scale, its kind, bias, its kind, mean, its kind, var, its
// kind, eps bits, C, inner, blocks per plane].
#define NORM_BLOCK 16
__kernel void batchnorm_planes_f32(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long inner = P[13], blocks = P[14];
  long plane = i / blocks, c = plane % P[12], at = (i % blocks) * NORM_BLOCK;
  double s = norm_load(PLACE(P[3]), c, P[4]), b = norm_load(PLACE(P[5]), c, P[6]);
  double m = norm_load(PLACE(P[7]), c, P[8]);
  double d = sqrt(norm_load(PLACE(P[9]), c, P[10]) + (double)PF(11));
  __global const float *x = FP(P[2]) + plane * inner + at;
  __global float *y = FP(P[1]) + plane * inner + at;
  if (at + NORM_BLOCK <= inner) {
    for (int h = 0; h < NORM_BLOCK; h += 8) {
      double8 v = convert_double8(vload8(0, x + h));
      vstore8(convert_float8(s * (v - m) / d + b), 0, y + h);
    }
    return;
  }
  for (long j = 0; j < inner - at; ++j)
    y[j] = (float)(s * ((double)x[j] - m) / d + b);
}

// Softmax or LogSoftmax (log 1) along an axis, the input viewed as [outer, axis, inner]:
// [lines, y, x, axis length, inner, log]. One work-item per line. The max is the first largest
// element (a NaN first stays; a later one never wins), so exp never overflows.
#define NORM_SOFTMAX(K)                                                                        \
  __kernel void softmax_##K(ARGS) {                                                            \
    P += p0;                                                                                   \
    long r = get_global_id(0);                                                                 \
    if (r >= P[0])                                                                             \
      return;                                                                                  \
    long D = P[3], inner = P[4];                                                               \
    long base = (r / inner) * D * inner + r % inner;                                           \
    __global const uchar *x = PLACE(P[2]);                                                     \
    __global uchar *y = PLACE(P[1]);                                                           \
    double mx = LOAD_##K(x, base), sum = 0;                                                    \
    for (long d = 1; d < D; ++d) {                                                             \
      double v = LOAD_##K(x, base + d * inner);                                                \
      mx = v > mx ? v : mx;                                                                    \
    }                                                                                          \
    for (long d = 0; d < D; ++d)                                                               \
      sum += exp((double)LOAD_##K(x, base + d * inner) - mx);                                  \
    for (long d = 0; d < D; ++d) {                                                             \
      double v = LOAD_##K(x, base + d * inner);                                                \
      STORE_##K(y, base + d * inner, P[5] ? v - mx - log(sum) : exp(v - mx) / sum);           \
    }                                                                                          \
  }
FOR_EACH_FLOAT_KIND(NORM_SOFTMAX)

// Local response normalization across channels (axis 1): [count, y, x, C, inner, size, alpha
// bits, beta bits, bias bits]: x / (bias + alpha / size * sum of squares)^beta over the channels
// c - (size - 1) / 2 .. c + size / 2 that exist, summed in channel order.
#define NORM_LRN(K)                                                                            \
  __kernel void lrn_##K(ARGS) {                                                                \
    P += p0;                                                                                   \
    long i = get_global_id(0);                                                                 \
    if (i >= P[0])                                                                             \
      return;                                                                                  \
    long Cc = P[3], inner = P[4], size = P[5];                                                 \
    long c = (i / inner) % Cc, base = i - c * inner;                                           \
    __global const uchar *x = PLACE(P[2]);                                                     \
    double squares = 0;                                                                        \
    for (long k = max(c - (size - 1) / 2, 0L); k <= min(c + size / 2, Cc - 1); ++k) {          \
      double v = LOAD_##K(x, base + k * inner);                                                \
      squares += v * v;                                                                        \
    }                                                                                          \
    double alpha = PF(6), beta = PF(7), bias = PF(8);                                          \
    STORE_##K(PLACE(P[1]), i,                                                                  \
              (double)LOAD_##K(x, i) / pow(bias + alpha / (double)size * squares, beta));      \
  }
FOR_EACH_FLOAT_KIND(NORM_LRN)

// Offset of cell k (row-major) of a group over the reduced axes (dims rd, strides rs, nr of
// them) from the group's first element.
static inline long norm_cell(long k, int nr, const long *rd, const long *rs) {
  long off = 0;
  for (int d = nr - 1; d >= 0; --d) {
    off += (k % rd[d]) * rs[d];
    k /= rd[d];
  }
  return off;
}

// The normalizations that take their statistics from the data, one work-item per group of
// elements sharing them (the kept axes' row-major index g): the population mean and variance
// summed in row-major order (mean first, then squared deviations), then each element.
// [groups, mode, y, x, scale, its kind, bias, its kind, eps bits, momentum bits, statistic 1,
// its kind, statistic 2, its kind, old 1, its kind, old 2, its kind, parameter index (0: the
// channel, axis 1; 1: the element's index modulo block), C, inner, block, rank, then per axis:
// dim, stride, reduced]. Modes:
//   0 BatchNormTraining (per channel): scale * (x - mean) / sqrt(var + eps) + bias; statistic
//     1 and 2 are the running mean and variance, old * momentum + batch * (1 - momentum)
//   1 InstanceNorm (per sample and channel): as 0, without running statistics
//   2 LayerNorm: (x - mean) * invStd * scale + bias with invStd = 1 / sqrt(var + eps);
//     statistics 1 and 2 are mean and invStd
//   3 MeanVarNorm: (x - mean) / (sqrt(var) + eps); no scale, bias or statistics
#define NORM_MOMENTS(K)                                                                        \
  __kernel void moments_norm_##K(ARGS) {                                                       \
    P += p0;                                                                                   \
    long g = get_global_id(0);                                                                 \
    if (g >= P[0])                                                                             \
      return;                                                                                  \
    long mode = P[1], rank = P[22], rest = g, base = 0, cells = 1;                             \
    long rd[MAX_RANK], rs[MAX_RANK];                                                           \
    int nr = 0;                                                                                \
    for (long d = 0; d < rank; ++d) {                                                          \
      __global const long *q = P + 23 + 3 * d;                                                 \
      if (q[2]) {                                                                              \
        rd[nr] = q[0];                                                                         \
        rs[nr++] = q[1];                                                                       \
        cells *= q[0];                                                                         \
      }                                                                                        \
    }                                                                                          \
    for (long d = rank - 1; d >= 0; --d) {                                                     \
      __global const long *q = P + 23 + 3 * d;                                                 \
      if (!q[2]) {                                                                             \
        base += (rest % q[0]) * q[1];                                                          \
        rest /= q[0];                                                                          \
      }                                                                                        \
    }                                                                                          \
    __global const uchar *x = PLACE(P[3]);                                                     \
    double mean = 0, var = 0;                                                                  \
    for (long k = 0; k < cells; ++k)                                                           \
      mean += LOAD_##K(x, base + norm_cell(k, nr, rd, rs));                                    \
    mean /= (double)cells;                                                                     \
    for (long k = 0; k < cells; ++k) {                                                         \
      double dev = (double)LOAD_##K(x, base + norm_cell(k, nr, rd, rs)) - mean;                \
      var += dev * dev;                                                                        \
    }                                                                                          \
    var /= (double)cells;                                                                      \
    double eps = PF(8), invStd = 1.0 / sqrt(var + eps);                                        \
    __global uchar *y = PLACE(P[2]);                                                           \
    for (long k = 0; k < cells; ++k) {                                                         \
      long i = base + norm_cell(k, nr, rd, rs);                                                \
      double v = LOAD_##K(x, i), r;                                                            \
      if (mode == 3) {                                                                         \
        r = (v - mean) / (sqrt(var) + eps);                                                    \
      } else {                                                                                 \
        long c = P[18] ? i % P[21] : (i / P[20]) % P[19];                                      \
        double s = norm_load(PLACE(P[4]), c, P[5]), b = norm_load(PLACE(P[6]), c, P[7]);       \
        r = mode == 2 ? (v - mean) * invStd * s + b : s * (v - mean) / sqrt(var + eps) + b;    \
      }                                                                                        \
      STORE_##K(y, i, r);                                                                      \
    }                                                                                          \
    if (mode == 0) {                                                                           \
      double m = PF(9), oldMean = norm_load(PLACE(P[14]), g, P[15]);                           \
      double oldVar = norm_load(PLACE(P[16]), g, P[17]);                                       \
      norm_store(PLACE(P[10]), g, P[11], oldMean * m + mean * (1 - m));                        \
      norm_store(PLACE(P[12]), g, P[13], oldVar * m + var * (1 - m));                          \
    } else if (mode == 2) {                                                                    \
      norm_store(PLACE(P[10]), g, P[11], mean);                                                \
      norm_store(PLACE(P[12]), g, P[13], invStd);                                              \
    }                                                                                          \
  }
FOR_EACH_FLOAT_KIND(NORM_MOMENTS)
