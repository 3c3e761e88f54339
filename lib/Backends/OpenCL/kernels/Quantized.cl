// Quantization and integer products (Nodes/Quantized.def), as the Interpreter's Quantized.cpp.
// Common.cl says how kernels are called. The quantized values are plain int8 or uint8 tensors
// (the kernels take which as a parameter, "signed"), and the scales float32.

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

// Element i of an int8 (isSigned) or uint8 tensor.
static inline int q_byte(__global const uchar *p, long i, long isSigned) {
  return isSigned ? (int)((__global const char *)p)[i] : (int)p[i];
}

// Quantization's saturation (ember/Semantics/Conversions.h's roundAndSaturate, after the
// rounding and the zero point's addition in the caller's type, exact in double): NaN gives the
// lowest value.
static inline void q_store(__global uchar *y, long i, long isSigned, double q) {
  double lo = isSigned ? -128.0 : 0.0, hi = isSigned ? 127.0 : 255.0;
  int v = !(q >= lo) ? (int)lo : q > hi ? (int)hi : (int)q;
  if (isSigned)
    ((__global char *)y)[i] = (char)v;
  else
    y[i] = (uchar)v;
}

// The type QuantizeLinear divides in, as ONNX's reference (numpy) does: float32 for float32
// and narrower, float64 for float64 and int32. Requantize multiplies in float32.
#define Q_DIV_f32 float
#define Q_DIV_f64 double
#define Q_DIV_f16 float
#define Q_DIV_bf16 float
#define Q_DIV_i32 double

// QuantizeLinear (multiply 0: round(x / scale)) and Requantize (multiply 1: round(x * scale)),
// both + zero point, saturated, ties to even: [count, y, x, scale, zero point, multiply, y
// signed, then paramAt's layout].
#define Q_QUANTIZE(K)                                                                          \
  __kernel void quantize_##K(ARGS) {                                                           \
    P += p0;                                                                                   \
    long i = get_global_id(0);                                                                 \
    if (i >= P[0])                                                                             \
      return;                                                                                  \
    long2 at = paramAt(P + 7, i);                                                              \
    float s = FP(P[3])[at.x];                                                                  \
    int z = q_byte(PLACE(P[4]), at.y, P[6]);                                                   \
    double q;                                                                                  \
    if (P[5]) {                                                                                \
      q = rint((float)LOAD_##K(PLACE(P[2]), i) * s) + (float)z;                                \
    } else {                                                                                   \
      Q_DIV_##K v = (Q_DIV_##K)LOAD_##K(PLACE(P[2]), i);                                       \
      q = rint((Q_DIV_##K)(v / (Q_DIV_##K)s)) + (Q_DIV_##K)z;                                  \
    }                                                                                          \
    q_store(PLACE(P[1]), i, P[6], q);                                                          \
  }
FOR_EACH_FLOAT_KIND(Q_QUANTIZE)
Q_QUANTIZE(i32)

// DequantizeLinear: float32 (x - zero point) * scale, the difference exact, then rounded to
// float: [count, y, x, scale, zero point, then paramAt's layout]. x int8, uint8 or int32.
#define Q_DEQUANTIZE(K)                                                                        \
  __kernel void dequantize_##K(ARGS) {                                                         \
    P += p0;                                                                                   \
    long i = get_global_id(0);                                                                 \
    if (i >= P[0])                                                                             \
      return;                                                                                  \
    long2 at = paramAt(P + 5, i);                                                              \
    long d = (long)LOAD_##K(PLACE(P[2]), i) - (long)LOAD_##K(PLACE(P[4]), at.y);               \
    FP(P[1])[i] = (float)d * FP(P[3])[at.x];                                                   \
  }
Q_DEQUANTIZE(i8)
Q_DEQUANTIZE(u8)
Q_DEQUANTIZE(i32)

// DynamicQuantizeLinear, first launch (one work-item): the range [min(0, min x), max(0, max
// x)] (NaN skipped), Scale = range / 255 and ZeroPoint = saturate(round(-min / Scale)), or 0
// when Scale is 0: [1, x, count, scale, zero point].
__kernel void dynamic_quantize_range(ARGS) {
  P += p0;
  if (get_global_id(0) != 0)
    return;
  __global const float *x = FP(P[1]);
  float lo = 0, hi = 0;
  for (long i = 0; i < P[2]; ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = hi < x[i] ? x[i] : hi;
  }
  float scale = (hi - lo) / 255.0f;
  FP(P[3])[0] = scale;
  __global uchar *z = PLACE(P[4]);
  if (scale == 0)
    z[0] = 0;
  else
    q_store(z, 0, 0, rint(-lo / scale));
}

// DynamicQuantizeLinear, second launch: QuantizeLinear with the first's results, or 0 when the
// scale is 0: [count, y, x, scale, zero point].
__kernel void dynamic_quantize(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  float s = FP(P[3])[0];
  __global uchar *y = PLACE(P[1]);
  if (s == 0)
    y[i] = 0;
  else
    q_store(y, i, 0, rint(FP(P[2])[i] / s) + (float)PLACE(P[4])[0]);
}

// Integer matrix product of (a - a zero point) and (b - b zero point), int32 accumulation
// wrapping around: [count, y, a, b, a zero point, b zero point, a signed, b signed, M, N, K,
// batch rank, a zero point's stride along M, along K, b zero point's along K, along N, then
// per batch dim: dim, a stride, b stride, a zero point stride, b zero point stride] (strides
// 0 where the operand's dim is 1).
__kernel void integer_matmul(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long Mm = P[8], N = P[9], K = P[10], rank = P[11];
  long n = i % N, m = (i / N) % Mm, rest = i / (N * Mm);
  long aOff = m * K, bOff = n, azOff = m * P[12], bzOff = n * P[15];
  for (long d = rank - 1; d >= 0; --d) {
    __global const long *q = P + 16 + 5 * d;
    long c = rest % q[0];
    rest /= q[0];
    aOff += c * q[1];
    bOff += c * q[2];
    azOff += c * q[3];
    bzOff += c * q[4];
  }
  __global const uchar *a = PLACE(P[2]), *b = PLACE(P[3]), *az = PLACE(P[4]), *bz = PLACE(P[5]);
  uint acc = 0;
  for (long k = 0; k < K; ++k) {
    int av = q_byte(a, aOff + k, P[6]) - q_byte(az, azOff + k * P[13], P[6]);
    int bv = q_byte(b, bOff + k * N, P[7]) - q_byte(bz, bzOff + k * P[14], P[7]);
    acc += (uint)(av * bv);
  }
  ((__global int *)PLACE(P[1]))[i] = (int)acc;
}

// Integer N-D convolution of (x - x zero point), zero-padded, with (w - w zero point), plus the
// int32 bias, int32 accumulation wrapping around; layouts as Conv: [count, y, x, w, bias, x
// zero point, w zero point, x signed, w signed, N, Cin, Cout, G, spatial rank, then the x zero
// point's strides along x's dims, the w zero point's along w's dims, then per spatial axis: in,
// out, kernel, stride, begin pad, dilation].
__kernel void integer_conv(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long Cin = P[10], Cout = P[11], G = P[12], ns = P[13];
  __global const long *xzs = P + 14, *wzs = xzs + ns + 2, *ax = wzs + ns + 2;
  long inPlane = 1, outPlane = 1, kVolume = 1;
  for (long d = 0; d < ns; ++d) {
    inPlane *= ax[6 * d];
    outPlane *= ax[6 * d + 1];
    kVolume *= ax[6 * d + 2];
  }
  long o[MAX_RANK], rest = i % outPlane;
  for (long d = ns - 1; d >= 0; --d) {
    o[d] = rest % ax[6 * d + 1];
    rest /= ax[6 * d + 1];
  }
  long oc = (i / outPlane) % Cout, n = i / (outPlane * Cout);
  long cinG = Cin / G, g = oc / (Cout / G);
  __global const uchar *x = PLACE(P[2]), *w = PLACE(P[3]), *xz = PLACE(P[5]), *wz = PLACE(P[6]);
  uint acc = (uint)((__global const int *)PLACE(P[4]))[oc];
  for (long icG = 0; icG < cinG; ++icG) {
    long ic = g * cinG + icG;
    long plane = (n * Cin + ic) * inPlane, filter = (oc * cinG + icG) * kVolume;
    long k[MAX_RANK];
    for (long d = 0; d < ns; ++d)
      k[d] = 0;
    for (long kp = 0; kp < kVolume; ++kp) {
      long at = 0, xzAt = n * xzs[0] + ic * xzs[1], wzAt = oc * wzs[0] + icG * wzs[1];
      bool inside = true;
      for (long d = 0; d < ns && inside; ++d) {
        __global const long *e = ax + 6 * d;
        long c = o[d] * e[3] - e[4] + k[d] * e[5];
        inside = c >= 0 && c < e[0];
        at = at * e[0] + c;
        xzAt += c * xzs[2 + d];
        wzAt += k[d] * wzs[2 + d];
      }
      // A tap in the padding reads the zero point: 0 after the shift.
      if (inside) {
        int xv = q_byte(x, plane + at, P[7]) - q_byte(xz, xzAt, P[7]);
        int wv = q_byte(w, filter + kp, P[8]) - q_byte(wz, wzAt, P[8]);
        acc += (uint)(xv * wv);
      }
      for (long d = ns - 1; d >= 0; --d) {
        if (++k[d] < ax[6 * d + 2])
          break;
        k[d] = 0;
      }
    }
  }
  ((__global int *)PLACE(P[1]))[i] = (int)acc;
}
