// Normalizations (Nodes/Normalization.def). Common.cl says how kernels are called.

// Inference batch norm over channel axis 1: [count, y, x, scale, bias, mean, var, eps bits, C,
// inner].
__kernel void batchnorm(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long c = (i / P[9]) % P[8];
  float x = FP(P[2])[i];
  FP(P[1])[i] = FP(P[3])[c] * (x - FP(P[5])[c]) / sqrt(FP(P[6])[c] + PF(7)) + FP(P[4])[c];
}

// Softmax or LogSoftmax along an axis, the input viewed as [outer, axis, inner]: [rows, y, x,
// axis, inner, log]. One work-item per (outer, inner) row.
__kernel void softmax(ARGS) {
  P += p0;
  long r = get_global_id(0);
  if (r >= P[0])
    return;
  long D = P[3], inner = P[4], base = (r / inner) * D * inner + r % inner;
  __global const float *x = FP(P[2]) + base;
  __global float *y = FP(P[1]) + base;
  float mx = -INFINITY;
  for (long d = 0; d < D; ++d)
    mx = fmax(mx, x[d * inner]);
  float sum = 0.0f;
  for (long d = 0; d < D; ++d)
    sum += exp(x[d * inner] - mx);
  for (long d = 0; d < D; ++d)
    y[d * inner] = P[5] ? x[d * inner] - mx - log(sum) : exp(x[d * inner] - mx) / sum;
}

// Local response normalization across channels (axis 1): [count, y, x, C, inner, size, alpha
// bits, beta bits, bias bits]: x / (bias + alpha / size * sum of squares)^beta over the channels
// c - (size - 1) / 2 .. c + size / 2.
__kernel void lrn(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long Cc = P[3], inner = P[4], size = P[5];
  long c = (i / inner) % Cc, base = i - c * inner;
  __global const float *x = FP(P[2]);
  float sum = 0.0f;
  for (long k = c - (size - 1) / 2; k <= c + size / 2; ++k)
    if (k >= 0 && k < Cc) {
      float v = x[base + k * inner];
      sum += v * v;
    }
  FP(P[1])[i] = x[i] / pow(PF(8) + PF(6) / (float)size * sum, PF(7));
}
