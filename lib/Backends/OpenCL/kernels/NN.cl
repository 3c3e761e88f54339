// Convolutions, matrix products and pools (Nodes/NN.def). Common.cl says how kernels are
// called.

// Batched matrix product y[b, m, n] = sum_k a[b, m, k] * b[b, k, n] with batch dims broadcast:
// [count, y, a, b, M, N, K, batch rank, then per batch dim: dim, a stride, b stride] (strides
// in elements, 0 where the operand's dim is 1). One work-item per output element.
__kernel void matmul(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long Mm = P[4], N = P[5], K = P[6], rank = P[7];
  long n = i % N, m = (i / N) % Mm, rest = i / (N * Mm), aOff = 0, bOff = 0;
  for (long d = rank - 1; d >= 0; --d) {
    __global const long *q = P + 8 + 3 * d;
    long c = rest % q[0];
    rest /= q[0];
    aOff += c * q[1];
    bOff += c * q[2];
  }
  __global const float *a = FP(P[2]) + aOff + m * K, *b = FP(P[3]) + bOff + n;
  float acc = 0.0f;
  for (long k = 0; k < K; ++k)
    acc += a[k] * b[k * N];
  FP(P[1])[i] = acc;
}

// 2-D convolution, NCHW, filter [M, C/G, KH, KW], bias [M]: [count, y, x, w, bias, N, C, H, W,
// M, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW, G]. One work-item per output element; padding
// reads as zero.
__kernel void conv2d(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long Cin = P[6], H = P[7], W = P[8], Mo = P[9], OH = P[10], OW = P[11], KH = P[12];
  long KW = P[13];
  long SH = P[14], SW = P[15], PT = P[16], PL = P[17], DH = P[18], DW = P[19], G = P[20];
  long ow = i % OW, oh = (i / OW) % OH, m = (i / (OW * OH)) % Mo, n = i / (OW * OH * Mo);
  long cg = Cin / G, g = m / (Mo / G);
  __global const float *x = FP(P[2]) + (n * Cin + g * cg) * H * W;
  __global const float *w = FP(P[3]) + m * cg * KH * KW;
  float acc = 0.0f;
  for (long c = 0; c < cg; ++c)
    for (long kh = 0; kh < KH; ++kh) {
      long ih = oh * SH - PT + kh * DH;
      if (ih < 0 || ih >= H)
        continue;
      for (long kw = 0; kw < KW; ++kw) {
        long iw = ow * SW - PL + kw * DW;
        if (iw >= 0 && iw < W)
          acc += x[(c * H + ih) * W + iw] * w[(c * KH + kh) * KW + kw];
      }
    }
  FP(P[1])[i] = acc + FP(P[4])[m];
}

// 2-D max or average pooling, NCHW: [count, y, x, indices place or -1, N*C, H, W, OH, OW, KH,
// KW, SH, SW, PT, PL, PB, PR, DH, DW, average, count_include_pad]. Max: padding never wins; the
// index is flat over the whole input. Average: the divisor counts the window's cells inside the
// image, or inside the padded image with count_include_pad.
__kernel void pool2d(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long H = P[5], W = P[6], OH = P[7], OW = P[8], KH = P[9], KW = P[10], SH = P[11], SW = P[12];
  long PT = P[13], PL = P[14], PB = P[15], PR = P[16], DH = P[17], DW = P[18];
  long ow = i % OW, oh = (i / OW) % OH, plane = i / (OW * OH);
  __global const float *x = FP(P[2]) + plane * H * W;
  if (P[19]) {
    float sum = 0.0f;
    long cells = 0;
    for (long kh = 0; kh < KH; ++kh) {
      long ih = oh * SH - PT + kh;
      for (long kw = 0; kw < KW; ++kw) {
        long iw = ow * SW - PL + kw;
        bool in = ih >= 0 && ih < H && iw >= 0 && iw < W;
        bool padded = ih >= -PT && ih < H + PB && iw >= -PL && iw < W + PR;
        if (in)
          sum += x[ih * W + iw];
        cells += P[20] ? padded : in;
      }
    }
    FP(P[1])[i] = sum / (float)cells;
    return;
  }
  float best = -INFINITY;
  long at = -1;
  for (long kh = 0; kh < KH; ++kh) {
    long ih = oh * SH - PT + kh * DH;
    if (ih < 0 || ih >= H)
      continue;
    for (long kw = 0; kw < KW; ++kw) {
      long iw = ow * SW - PL + kw * DW;
      if (iw < 0 || iw >= W)
        continue;
      float v = x[ih * W + iw];
      if (at < 0 || v > best || isnan(v) && !isnan(best)) {
        best = v;
        at = ih * W + iw;
      }
    }
  }
  FP(P[1])[i] = best;
  if (P[3] >= 0)
    ((__global long *)PLACE(P[3]))[i] = plane * H * W + at;
}

// 2-D transposed convolution, NCHW, filter [C, M/G, KH, KW]: [count, y, x, w, bias, N, C, H,
// W, M, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW, G]. Output cell (oh, ow) gathers every input
// cell (ih, iw) and kernel offset (kh, kw) with ih * SH - PT + kh * DH == oh (and the same for
// w): the scatter of the definition, read from the output's side.
__kernel void conv_transpose2d(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long Cin = P[6], H = P[7], W = P[8], Mo = P[9], OH = P[10], OW = P[11], KH = P[12];
  long KW = P[13], SH = P[14], SW = P[15], PT = P[16], PL = P[17], DH = P[18], DW = P[19];
  long G = P[20];
  long ow = i % OW, oh = (i / OW) % OH, m = (i / (OW * OH)) % Mo, n = i / (OW * OH * Mo);
  long cg = Cin / G, mg = Mo / G, g = m / mg, mm = m % mg;
  __global const float *x = FP(P[2]) + (n * Cin + g * cg) * H * W;
  __global const float *w = FP(P[3]) + (g * cg * mg + mm) * KH * KW;
  float acc = 0.0f;
  for (long c = 0; c < cg; ++c)
    for (long kh = 0; kh < KH; ++kh) {
      long th = oh + PT - kh * DH;
      if (th < 0 || th % SH)
        continue;
      long ih = th / SH;
      if (ih >= H)
        continue;
      for (long kw = 0; kw < KW; ++kw) {
        long tw = ow + PL - kw * DW;
        if (tw < 0 || tw % SW)
          continue;
        long iw = tw / SW;
        if (iw < W)
          acc += x[(c * H + ih) * W + iw] * w[(c * mg * KH + kh) * KW + kw];
      }
    }
  FP(P[1])[i] = acc + FP(P[4])[m];
}
