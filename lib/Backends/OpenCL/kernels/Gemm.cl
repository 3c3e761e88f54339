// The fast path of float32 convolutions and matrix products: a GEMM whose work-items each
// compute an 8 x 32 block of the result in float16 vectors (16 accumulators: a CPU device's
// vector registers, which is what PoCL runs on), and the im2col that turns a convolution's
// input into the GEMM's right-hand matrix. About 25x the one-element-per-work-item kernels of
// NN.cl on PoCL. Common.cl says how kernels are called.

#define GEMM_ROWS 8
#define GEMM_COLS 32

// C[M, N] = A[M, K] x B[K, N] (+ bias) then the activation; row-major, leading dimensions K, N
// and N: [blocks, c, a, b, bias place or -1, M, N, K, bias axis (0: bias[m], a convolution's
// per output channel; 1: bias[n], FullyConnected's), activation (nn_activation's code), its a
// bits, its b bits]. Work-item i computes rows 8 * (i % ceil(M / 8)) .. and columns
// 32 * (i / ceil(M / 8)) .. of C: consecutive items (a work-group among them) share a panel of
// 32 columns of B, which stays in cache while they walk down A. Walking along N first streamed
// all of B through the caches once per 8 rows: 2-3x slower on convolutions of large maps, whose
// B is their im2col matrix. Blocks at the bottom edge read their last real row again for the
// missing ones (and do not store them); blocks at the right edge gather their columns with
// zeros past N: both keep the 16 accumulators in registers. The epilogue adds the bias to the
// accumulator and applies the activation to that sum, as the lowered product, Add and
// activation nodes would (in float32 each rounds the same), so that the fused nodes need no
// second pass over memory. The loops over the rows are unrolled: left as loops, PoCL kept the
// accumulators in memory, a load and a store around every FMA (half the speed).
#define GEMM_KERNEL(NAME, ROWS)                                                                \
  __kernel void NAME(ARGS) {                                                                   \
    P += p0;                                                                                   \
    long item = get_global_id(0);                                                              \
    if (item >= P[0])                                                                          \
      return;                                                                                  \
    long Mm = P[5], N = P[6], K = P[7], act = P[9];                                            \
    long blocksM = (Mm + ROWS - 1) / ROWS;                                                     \
    long m0 = item % blocksM * ROWS, n0 = item / blocksM * GEMM_COLS;                          \
    long rows = min((long)ROWS, Mm - m0), cols = min((long)GEMM_COLS, N - n0);                 \
    __global const float *b = FP(P[3]) + n0;                                                   \
    __global float *c = FP(P[1]);                                                              \
    __global const float *bias = P[4] >= 0 ? FP(P[4]) : 0;                                     \
    __global const float *ar[ROWS];                                                            \
    _Pragma("unroll")                                                                          \
    for (int r = 0; r < ROWS; ++r)                                                             \
      ar[r] = FP(P[2]) + (m0 + min((long)r, rows - 1)) * K;                                    \
    float16 lo[ROWS], hi[ROWS];                                                                \
    _Pragma("unroll")                                                                          \
    for (int r = 0; r < ROWS; ++r)                                                             \
      lo[r] = hi[r] = (float16)(0.0f);                                                         \
    /* A right edge block of a row of 16 or more reads its partial vector as the 16 columns */ \
    /* ending at the row's end, moved into place by a shuffle (a vector load and a permute */  \
    /* per k where a lane-by-lane gather took 32 loads): lane j reads window lane */           \
    /* j + 16 - tail, and lanes past N are zeros. */                                           \
    bool shifted = cols < GEMM_COLS && N >= 16;                                                \
    long tail = cols > 16 ? cols - 16 : cols;                                                  \
    uint16 lane = (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);              \
    uint16 from = (lane + (uint)(16 - tail)) & (uint16)(15);                                   \
    int16 keep = convert_int16(lane) < (int16)((int)tail);                                     \
    for (long k = 0; k < K; ++k) {                                                             \
      float16 b0, b1;                                                                          \
      if (cols == GEMM_COLS) {                                                                 \
        b0 = vload16(0, b + k * N);                                                            \
        b1 = vload16(0, b + k * N + 16);                                                       \
      } else if (shifted) {                                                                    \
        float16 part = select((float16)(0.0f),                                                 \
                              shuffle(vload16(0, b + k * N + cols - 16), from), keep);         \
        b0 = cols > 16 ? vload16(0, b + k * N) : part;                                         \
        b1 = cols > 16 ? part : (float16)(0.0f);                                               \
      } else {                                                                                 \
        float edge[GEMM_COLS];                                                                 \
        for (int j = 0; j < GEMM_COLS; ++j)                                                    \
          edge[j] = j < cols ? b[k * N + j] : 0.0f;                                            \
        b0 = vload16(0, edge);                                                                 \
        b1 = vload16(0, edge + 16);                                                            \
      }                                                                                        \
      _Pragma("unroll")                                                                        \
      for (int r = 0; r < ROWS; ++r) {                                                         \
        float16 av = (float16)(ar[r][k]);                                                      \
        lo[r] = fma(av, b0, lo[r]);                                                            \
        hi[r] = fma(av, b1, hi[r]);                                                            \
      }                                                                                        \
    }                                                                                          \
    /* A bias per column: the block's 32 entries, zeros past N. */                             \
    float16 colLo = (float16)(0.0f), colHi = (float16)(0.0f);                                  \
    if (bias && P[8]) {                                                                        \
      float edge[GEMM_COLS];                                                                   \
      for (int j = 0; j < GEMM_COLS; ++j)                                                      \
        edge[j] = j < cols ? bias[n0 + j] : 0.0f;                                              \
      colLo = vload16(0, edge);                                                                \
      colHi = vload16(0, edge + 16);                                                           \
    }                                                                                          \
    float actA = PF(10), actB = PF(11);                                                        \
    for (int r = 0; r < rows; ++r) {                                                           \
      float16 vLo = lo[r], vHi = hi[r];                                                        \
      if (bias && !P[8]) {                                                                     \
        vLo += bias[m0 + r];                                                                   \
        vHi += bias[m0 + r];                                                                   \
      } else if (bias) {                                                                       \
        vLo += colLo;                                                                          \
        vHi += colHi;                                                                          \
      }                                                                                        \
      if (act) {                                                                               \
        vLo = (float16)(nn_activation8(act, vLo.lo, actA, actB),                               \
                        nn_activation8(act, vLo.hi, actA, actB));                              \
        vHi = (float16)(nn_activation8(act, vHi.lo, actA, actB),                               \
                        nn_activation8(act, vHi.hi, actA, actB));                              \
      }                                                                                        \
      __global float *cr = c + (m0 + r) * N + n0;                                              \
      if (cols == GEMM_COLS) {                                                                 \
        vstore16(vLo, 0, cr);                                                                  \
        vstore16(vHi, 0, cr + 16);                                                             \
      } else {                                                                                 \
        float out[GEMM_COLS];                                                                  \
        vstore16(vLo, 0, out);                                                                 \
        vstore16(vHi, 0, out + 16);                                                            \
        for (int j = 0; j < cols; ++j)                                                         \
          cr[j] = out[j];                                                                      \
      }                                                                                        \
    }                                                                                          \
  }
GEMM_KERNEL(gemm_f32, GEMM_ROWS)
// A block of one row: a matrix-vector product (a batch-1 classifier's FullyConnected or MatMul,
// M = 1), where 8 rows would compute the one row 8 times over. The same arithmetic per element.
GEMM_KERNEL(gemv_f32, 1)

// The columns of one image of a 2-D convolution: cols[(c * KH + kh) * KW + kw, oh * OW + ow] =
// x[c, oh * SH - PT + kh * DH, ow * SW - PL + kw * DW], 0 in the padding: [rows, cols, x, C, H,
// W, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW]. One work-item per (k, oh): a row of OW values.
__kernel void im2col_f32(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long H = P[4], W = P[5], OH = P[6], OW = P[7], KH = P[8], KW = P[9];
  long SW = P[11], PL = P[13], DW = P[15];
  long oh = i % OH, k = i / OH;
  long kw = k % KW, kh = (k / KW) % KH, ch = k / (KW * KH);
  long ih = oh * P[10] - P[12] + kh * P[14];
  __global float *out = FP(P[1]) + k * OH * OW + oh * OW;
  if (ih < 0 || ih >= H) {
    for (long ow = 0; ow < OW; ++ow)
      out[ow] = 0.0f;
    return;
  }
  __global const float *row = FP(P[2]) + (ch * H + ih) * W;
  for (long ow = 0; ow < OW; ++ow) {
    long iw = ow * SW - PL + kw * DW;
    out[ow] = iw >= 0 && iw < W ? row[iw] : 0.0f;
  }
}
