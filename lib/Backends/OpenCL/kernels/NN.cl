// Convolutions and matrix products (Nodes/NN.def); the pools are in NNPool.cl. Common.cl says
// how kernels are called. Float kinds accumulate as the Interpreter's FloatAccum does: in float
// for float32 and the 16-bit floats, in double for float64; integer products modulo 2^64, kept
// to the result's width.

#define NN_ACC_f32 float
#define NN_ACC_f64 double
#define NN_ACC_f16 float
#define NN_ACC_bf16 float

// The activation of a FusedConv, FusedMatMul or FullyConnected: the rows of
// Nodes/FusedActivations.def, numbered as the planner numbers them (kKernelActivations in
// LaunchesNN.cpp, which refuses any row not listed here), through the row's scalar formula.
// 0 is none. The formulas are the float ones: the planner keeps float64 activations away.
static inline float nn_activation(long code, float x, float a, float b) {
  switch (code) {
  case 1: return ember_relu(x);
  case 2: return ember_clip(x, a, b);
  case 3: return ember_leaky_relu(x, a);
  case 4: return ember_sigmoid(x);
  case 5: return ember_tanh(x);
  case 6: return ember_hard_sigmoid(x, a, b);
  case 7: return ember_hard_swish(x);
  case 8: return ember_gelu(x);
  case 9: return ember_gelu_tanh(x);
  default: return x;
  }
}

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
