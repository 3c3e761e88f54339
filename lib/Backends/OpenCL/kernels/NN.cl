// Convolutions and matrix products (Nodes/NN.def); the pools are in NNPool.cl. Common.cl says
// how kernels are called. Float kinds accumulate as the Interpreter's FloatAccum does: in
// double, rounded once to the result's kind; integer products modulo 2^64, kept to the result's
// width. (The GEMM path, Gemm.cl, sums float32 in float with FMA.)

#define NN_ACC_f32 double
#define NN_ACC_f64 double
#define NN_ACC_f16 double
#define NN_ACC_bf16 double

// Element i of a product or convolution result after its accumulator was stored: the bias
// (FullyConnected: added in the compute type to the stored product, as Add would) and the
// activation (on the stored value, as the separate node would), each rounded to the kind.
#define NN_EPILOGUE(K, y, i, bias, biasAt, act, a, b)                                          \
  do {                                                                                         \
    if ((bias) >= 0)                                                                           \
      STORE_##K(y, i, LOAD_##K(y, i) + LOAD_##K(PLACE(bias), biasAt));                         \
    if (act)                                                                                   \
      STORE_##K(y, i, nn_activation(act, LOAD_##K(y, i), a, b));                               \
  } while (0)

// The offsets of matrix pair `rest` (a batch index of the result) in a and b: per batch dim,
// `width` entries at q starting [dim, a stride, b stride], strides 0 where an operand's dim is 1.
static inline long2 nn_batch_offsets(__global const long *q, long rank, long width, long rest) {
  long2 off = (long2)(0, 0);
  for (long d = rank - 1; d >= 0; --d) {
    __global const long *e = q + width * d;
    long c = rest % e[0];
    rest /= e[0];
    off += (long2)(c * e[1], c * e[2]);
  }
  return off;
}

// Batched matrix product y[b, m, n] = sum over k of a[b, m, k] * b[b, k, n] in ascending k,
// batch dims broadcast: [count, y, a, b, bias place or -1, activation, its a bits, its b bits,
// M, N, K, batch rank, then per batch dim: dim, a stride, b stride]. FullyConnected is the
// rank 0 product of the input's rows with a bias; FusedMatMul one with an activation.
#define NN_MATMUL_FLOAT(K)                                                                     \
  __kernel void matmul_##K(ARGS) {                                                             \
    P += p0;                                                                                   \
    long i = get_global_id(0);                                                                 \
    if (i >= P[0])                                                                             \
      return;                                                                                  \
    long Mm = P[8], N = P[9], Kk = P[10];                                                      \
    long n = i % N, m = (i / N) % Mm;                                                          \
    long2 off = nn_batch_offsets(P + 12, P[11], 3, i / (N * Mm));                              \
    __global const uchar *a = PLACE(P[2]), *b = PLACE(P[3]);                                   \
    long ai = off.x + m * Kk, bi = off.y + n;                                                  \
    NN_ACC_##K acc = 0;                                                                        \
    for (long k = 0; k < Kk; ++k)                                                              \
      acc += (NN_ACC_##K)LOAD_##K(a, ai + k) * (NN_ACC_##K)LOAD_##K(b, bi + k * N);            \
    __global uchar *y = PLACE(P[1]);                                                           \
    STORE_##K(y, i, acc);                                                                      \
    NN_EPILOGUE(K, y, i, P[4], n, P[5], PF(6), PF(7));                                         \
  }
FOR_EACH_FLOAT_KIND(NN_MATMUL_FLOAT)

// The integer kinds: matmul_<kind> with the float kernels' parameters (no bias, no
// activation); sums of sign- or zero-extended products wrap around in 64 bits and keep the
// result's low bits, as two's complement hardware (and numpy) do.
#define NN_MATMUL_INT(K)                                                                       \
  __kernel void matmul_##K(ARGS) {                                                             \
    P += p0;                                                                                   \
    long i = get_global_id(0);                                                                 \
    if (i >= P[0])                                                                             \
      return;                                                                                  \
    long Mm = P[8], N = P[9], Kk = P[10];                                                      \
    long n = i % N, m = (i / N) % Mm;                                                          \
    long2 off = nn_batch_offsets(P + 12, P[11], 3, i / (N * Mm));                              \
    __global const uchar *a = PLACE(P[2]), *b = PLACE(P[3]);                                   \
    long ai = off.x + m * Kk, bi = off.y + n;                                                  \
    ulong acc = 0;                                                                             \
    for (long k = 0; k < Kk; ++k)                                                              \
      acc += (ulong)(long)LOAD_##K(a, ai + k) * (ulong)(long)LOAD_##K(b, bi + k * N);          \
    STORE_##K(PLACE(P[1]), i, acc);                                                            \
  }
FOR_EACH_INT_KIND(NN_MATMUL_INT)

// Convolution and transposed convolution, N-D, channels first, grouped and dilated, as the
// Interpreter's gather (NNConv.cpp): output cell o of output channel oc starts from the bias
// and adds, per input channel of its group in turn, every kernel tap (row-major) that reads a
// real input cell. Conv reads i = o * stride - pad + k * dilation along each axis, filter
// [Cout, Cin/G, k..]; the transposed one reads i = (o + pad - k * dilation) / stride where that
// divides, filter [Cin, Cout/G, k..]. Parameters: [count, y, x, w, bias, transposed, activation,
// its a bits, its b bits, N, Cin, Cout, G, spatial rank, then per spatial axis: in, out, kernel,
// stride, begin pad, dilation].
#define NN_CONV(K)                                                                             \
  __kernel void conv_##K(ARGS) {                                                               \
    P += p0;                                                                                   \
    long i = get_global_id(0);                                                                 \
    if (i >= P[0])                                                                             \
      return;                                                                                  \
    long Cin = P[10], Cout = P[11], G = P[12], ns = P[13];                                     \
    bool transposed = P[5] != 0;                                                               \
    __global const long *ax = P + 14;                                                          \
    long inPlane = 1, outPlane = 1, kVolume = 1;                                               \
    for (long d = 0; d < ns; ++d) {                                                            \
      inPlane *= ax[6 * d];                                                                    \
      outPlane *= ax[6 * d + 1];                                                               \
      kVolume *= ax[6 * d + 2];                                                                \
    }                                                                                          \
    long o[MAX_RANK], rest = i % outPlane;                                                     \
    for (long d = ns - 1; d >= 0; --d) {                                                       \
      o[d] = rest % ax[6 * d + 1];                                                             \
      rest /= ax[6 * d + 1];                                                                   \
    }                                                                                          \
    long oc = (i / outPlane) % Cout, n = i / (outPlane * Cout);                                \
    long cinG = Cin / G, coutG = Cout / G, g = oc / coutG, ocG = oc % coutG;                   \
    __global const uchar *x = PLACE(P[2]), *w = PLACE(P[3]);                                   \
    NN_ACC_##K sum = (NN_ACC_##K)LOAD_##K(PLACE(P[4]), oc);                                    \
    for (long icG = 0; icG < cinG; ++icG) {                                                    \
      long ic = g * cinG + icG;                                                                \
      long plane = (n * Cin + ic) * inPlane;                                                   \
      long filter = (transposed ? ic * coutG + ocG : oc * cinG + icG) * kVolume;               \
      long k[MAX_RANK];                                                                        \
      for (long d = 0; d < ns; ++d)                                                            \
        k[d] = 0;                                                                              \
      for (long kp = 0; kp < kVolume; ++kp) {                                                  \
        long at = 0;                                                                           \
        bool inside = true;                                                                    \
        for (long d = 0; d < ns && inside; ++d) {                                              \
          __global const long *e = ax + 6 * d;                                                 \
          long c;                                                                              \
          if (!transposed) {                                                                   \
            c = o[d] * e[3] - e[4] + k[d] * e[5];                                              \
          } else {                                                                             \
            long t = o[d] + e[4] - k[d] * e[5];                                                \
            c = t >= 0 && t % e[3] == 0 ? t / e[3] : -1;                                       \
          }                                                                                    \
          inside = c >= 0 && c < e[0];                                                         \
          at = at * e[0] + c;                                                                  \
        }                                                                                      \
        if (inside)                                                                            \
          sum += (NN_ACC_##K)LOAD_##K(x, plane + at) * (NN_ACC_##K)LOAD_##K(w, filter + kp);   \
        for (long d = ns - 1; d >= 0; --d) {                                                   \
          if (++k[d] < ax[6 * d + 2])                                                          \
            break;                                                                             \
          k[d] = 0;                                                                            \
        }                                                                                      \
      }                                                                                        \
    }                                                                                          \
    __global uchar *y = PLACE(P[1]);                                                           \
    STORE_##K(y, i, sum);                                                                      \
    NN_EPILOGUE(K, y, i, -1, 0, P[6], PF(7), PF(8));                                           \
  }
FOR_EACH_FLOAT_KIND(NN_CONV)

// Depthwise float32 2-D convolution: every group has one input channel (a channel multiplier
// of Cout / Cin outputs reading it), as MobileNet's and EfficientNet's. Each work-item computes
// one output row of one channel, DW_BLOCK outputs at a time in a float8, the taps' weights
// loaded once into registers. A block whose windows lie inside the input reads each tap's 8
// inputs as one vector (a load for stride 1, the even lanes of a 16-wide load for stride 2); so
// that every block does, the planner gives a convolution with padding (or a short last block) a
// zero-padded copy of its input (dwpad_f32), 1.5-1.7x faster than edge blocks. Padding zeros
// add nothing to a sum unless a weight is infinite or NaN: then the kernel reads the input
// itself, edge blocks lane by lane, skipping padding as the Interpreter's gather does. Sums
// start from the bias and add the taps row-major, with FMA. Parameters: [count, y, x, w, bias,
// activation, its a bits, its b bits, Cin, Cout, H, W, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW,
// padded copy or -1, its H, its W].
#define DW_BLOCK 8
// Taps held in registers; larger windows read their weights from memory.
#define DW_TAPS 25

static inline __attribute__((always_inline)) void dw_block(__global const float *x, __global const float *wg, const float *wr,
                            long KH, long KW, long H, long W, long oh, long ow0, long OW,
                            long SH, long SW, long PT, long PL, long DH, long DWd, float bias,
                            long act, float a, float b, __global float *y) {
  long left = ow0 * SW - PL;
  // The last input column the block's vector loads touch (stride 2 loads one past its last).
  long right = left + (DW_BLOCK - 1) * SW + (KW - 1) * DWd + (SW == 2 ? 1 : 0);
  bool inside = left >= 0 && right < W;
  int8 lane = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
  float8 acc = (float8)(bias);
  for (long kh = 0; kh < KH; ++kh) {
    long ih = oh * SH - PT + kh * DH;
    if (ih < 0 || ih >= H)
      continue;
    __global const float *row = x + ih * W;
    for (long kw = 0; kw < KW; ++kw) {
      long t = kh * KW + kw;
      float wv = wr ? wr[t] : wg[t];
      long at = left + kw * DWd;
      if (inside) {
        float8 v;
        if (SW == 1)
          v = vload8(0, row + at);
        else if (SW == 2)
          v = vload16(0, row + at).even;
        else
          v = (float8)(row[at], row[at + SW], row[at + 2 * SW], row[at + 3 * SW],
                       row[at + 4 * SW], row[at + 5 * SW], row[at + 6 * SW], row[at + 7 * SW]);
        acc = fma(v, (float8)(wv), acc);
      } else {
        // Lane by lane, in registers; the lanes whose cell is padding keep their sum.
        int8 iw = (int)at + lane * (int)SW;
        int8 real = (iw >= 0) & (iw < (int)W);
#define DW_LANE(j) (real.s##j ? row[iw.s##j] : 0.0f)
        float8 v = (float8)(DW_LANE(0), DW_LANE(1), DW_LANE(2), DW_LANE(3), DW_LANE(4),
                            DW_LANE(5), DW_LANE(6), DW_LANE(7));
#undef DW_LANE
        acc = select(acc, fma(v, (float8)(wv), acc), real);
      }
    }
  }
  if (act)
    acc = nn_activation8(act, acc, a, b);
  if (ow0 + DW_BLOCK <= OW) {
    vstore8(acc, 0, y + ow0);
  } else {
    float out[DW_BLOCK];
    vstore8(acc, 0, out);
    for (long j = 0; j < OW - ow0; ++j)
      y[ow0 + j] = out[j];
  }
}

__kernel void dwconv_f32(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long Cin = P[8], Cout = P[9], H = P[10], W = P[11], OH = P[12], OW = P[13];
  long KH = P[14], KW = P[15], PT = P[18], PL = P[19];
  long oh = i % OH, oc = (i / OH) % Cout, n = i / (OH * Cout);
  long plane = n * Cin + oc / (Cout / Cin);
  __global const float *x = FP(P[2]) + plane * H * W;
  __global const float *w = FP(P[3]) + oc * KH * KW;
  float wr[DW_TAPS];
  bool inRegisters = KH * KW <= DW_TAPS, finite = true;
  for (long t = 0; t < KH * KW; ++t) {
    if (inRegisters)
      wr[t] = w[t];
    finite = finite && isfinite(w[t]);
  }
  // The zero-padded copy of the input (dwpad_f32), if planned: every block then reads inside.
  // Not with a weight that is infinite or NaN, which times a padding zero would give NaN.
  if (P[22] >= 0 && finite) {
    H = P[23];
    W = P[24];
    PT = PL = 0;
    x = FP(P[22]) + plane * H * W;
  }
  float bias = FP(P[4])[oc], a = PF(6), b = PF(7);
  __global float *y = FP(P[1]) + i * OW;
  // 3x3 windows of stride 1 or 2 (nearly every depthwise convolution) with their sizes as
  // constants, so that the inlined dw_block unrolls its tap loops and keeps the 9 weights in
  // registers (1.5-2x faster on PoCL).
  long SH = P[16], SW = P[17];
  if (KH == 3 && KW == 3 && SH == SW && (SW == 1 || SW == 2) && P[20] == 1 && P[21] == 1) {
    for (long ow0 = 0; ow0 < OW; ow0 += DW_BLOCK) {
      if (SW == 1)
        dw_block(x, w, wr, 3, 3, H, W, oh, ow0, OW, 1, 1, PT, PL, 1, 1, bias, P[5], a, b, y);
      else
        dw_block(x, w, wr, 3, 3, H, W, oh, ow0, OW, 2, 2, PT, PL, 1, 1, bias, P[5], a, b, y);
    }
    return;
  }
  for (long ow0 = 0; ow0 < OW; ow0 += DW_BLOCK)
    dw_block(x, w, inRegisters ? wr : 0, KH, KW, H, W, oh, ow0, OW, SH, SW, PT, PL, P[20],
             P[21], bias, P[5], a, b, y);
}

// The zero-padded copy of a depthwise convolution's input, for dwconv_f32: [count, padded, x,
// H, W, padded H, padded W, PT, PL], one work-item per padded row.
__kernel void dwpad_f32(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long H = P[3], W = P[4], Hp = P[5], Wp = P[6], PL = P[8];
  long ih = i % Hp - P[7], plane = i / Hp;
  __global float *out = FP(P[1]) + i * Wp;
  if (ih < 0 || ih >= H) {
    for (long k = 0; k < Wp; ++k)
      out[k] = 0.0f;
    return;
  }
  __global const float *row = FP(P[2]) + (plane * H + ih) * W;
  for (long k = 0; k < Wp; ++k)
    out[k] = k >= PL && k - PL < W ? row[k - PL] : 0.0f;
}
