// Quantization and integer products (Nodes/Quantized.def). Common.cl says how kernels are
// called.

// The offset of element i's scale or zero point: [rank, then per dim: dim, scale stride, zero
// point stride] at q (a parameter has the tensor's rank, each dim 1 or the tensor's).
static inline long2 paramAt(__global const long *q, long i) {
  long rest = i, s = 0, z = 0;
  for (long d = q[0] - 1; d >= 0; --d) {
    long c = rest % q[1 + 3 * d];
    rest /= q[1 + 3 * d];
    s += c * q[2 + 3 * d];
    z += c * q[3 + 3 * d];
  }
  return (long2)(s, z);
}

// QuantizeLinear (mode 0: round(x / scale)), Requantize (1: round(x * scale), both to the zero
// point's kind, saturated, ties to even, NaN giving the lowest value) and DequantizeLinear (2:
// (x - zero point) * scale): [n, y, x, scale, zero point, mode, x kind, y kind, then paramAt's
// layout]. Quantized kinds: uint8 or int8.
__kernel void quantize(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long2 at = paramAt(P + 8, i);
  float s = FP(P[3])[at.x];
  long mode = P[5], xk = P[6], yk = P[7];
  __global const uchar *zp = PLACE(P[4]);
  if (mode == 2) {
    double z = loadAs(zp, at.y, xk);
    FP(P[1])[i] = (float)(loadAs(PLACE(P[2]), i, xk) - z) * s;
    return;
  }
  float z = (float)loadAs(zp, at.y, yk);
  float v = (float)loadAs(PLACE(P[2]), i, xk);
  float q = rint(mode == 0 ? v / s : v * s) + z;
  __global uchar *y = PLACE(P[1]);
  if (yk == 3)
    y[i] = !(q >= 0.0f) ? 0 : q > 255.0f ? 255 : (uchar)q;
  else
    ((__global char *)y)[i] = !(q >= -128.0f) ? -128 : q > 127.0f ? 127 : (char)q;
}

// Integer 2-D convolution of (x - x zero point) and (w - w zero point), int32 accumulation
// wrapping around, plus the int32 bias: conv2d's parameters, then x kind, w kind, x zero point
// place, w zero point place, w zero point stride over output channels (0: per tensor).
__kernel void integer_conv2d(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long Cin = P[6], H = P[7], W = P[8], Mo = P[9], OH = P[10], OW = P[11], KH = P[12];
  long KW = P[13], SH = P[14], SW = P[15], PT = P[16], PL = P[17], DH = P[18], DW = P[19];
  long G = P[20], xk = P[21], wk = P[22];
  long ow = i % OW, oh = (i / OW) % OH, m = (i / (OW * OH)) % Mo, n = i / (OW * OH * Mo);
  long cg = Cin / G, g = m / (Mo / G);
  int xz = (int)loadAs(PLACE(P[23]), 0, xk), wz = (int)loadAs(PLACE(P[24]), m * P[25], wk);
  __global const uchar *x = PLACE(P[2]), *w = PLACE(P[3]);
  long xBase = (n * Cin + g * cg) * H * W, wBase = m * cg * KH * KW;
  uint acc = (uint)((__global const int *)PLACE(P[4]))[m];
  for (long c = 0; c < cg; ++c)
    for (long kh = 0; kh < KH; ++kh) {
      long ih = oh * SH - PT + kh * DH;
      if (ih < 0 || ih >= H)
        continue;
      for (long kw = 0; kw < KW; ++kw) {
        long iw = ow * SW - PL + kw * DW;
        if (iw < 0 || iw >= W)
          continue;
        int xv = (int)loadAs(x, xBase + (c * H + ih) * W + iw, xk) - xz;
        int wv = (int)loadAs(w, wBase + (c * KH + kh) * KW + kw, wk) - wz;
        acc += (uint)(xv * wv);
      }
    }
  ((__global int *)PLACE(P[1]))[i] = (int)acc;
}

// Integer matrix product with per-tensor zero points, int32 accumulation wrapping around:
// matmul's parameters then a kind, b kind, a zero point place, b zero point place.
__kernel void integer_matmul(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long Mm = P[4], N = P[5], K = P[6], rank = P[7];
  __global const long *z = P + 8 + 3 * rank;
  long ak = z[0], bk = z[1];
  int az = (int)loadAs(PLACE(z[2]), 0, ak), bz = (int)loadAs(PLACE(z[3]), 0, bk);
  long n = i % N, m = (i / N) % Mm, rest = i / (N * Mm), aOff = 0, bOff = 0;
  for (long d = rank - 1; d >= 0; --d) {
    __global const long *q = P + 8 + 3 * d;
    long c = rest % q[0];
    rest /= q[0];
    aOff += c * q[1];
    bOff += c * q[2];
  }
  __global const uchar *a = PLACE(P[2]), *b = PLACE(P[3]);
  uint acc = 0;
  for (long k = 0; k < K; ++k)
    acc += (uint)(((int)loadAs(a, aOff + m * K + k, ak) - az) *
                  ((int)loadAs(b, bOff + k * N + n, bk) - bz));
  ((__global int *)PLACE(P[1]))[i] = (int)acc;
}
