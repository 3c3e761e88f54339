// RNN, GRU and LSTM on float32 the fast way, for the activations a trained model uses (Sigmoid,
// Tanh, Relu), no cell clip, and LSTM without input_forget (RecurrentLayout.h: codegen takes
// the reference kernel, Recurrent.cpp, otherwise):
//   - the input part of every gate of every step, x_t W^T + Wb (+ Rb where it adds outside a
//     product), is one GEMM of all the steps' rows (NNGemm.h, W read as B's columns);
//   - each step's recurrent part, h R^T, is a matrix-vector product over R packed once a call
//     into chunks of 128 gate rows, each chunk [hidden][128] (one sequential stream, 8
//     accumulator vectors);
//   - the gates' arithmetic and activations are vectors of 16 hidden units.
// The reference kernel computed every gate row as a scalar dot product per step: a 2-layer
// LSTM of hidden 256 over 200 steps took 125 ms. Sums are taken in another order and with
// fused multiply-adds, so results differ from the Interpreter's in the last bits.
#include "NNGemm.h"
#include "RecurrentLayout.h"
#include "Variants.h"

using namespace gemm;
using namespace rnnlayout;

namespace {

constexpr i64 kChunkVectors = kChunkRows / EMBER_VW; // vectors of gate rows in a chunk of R

/// The packer for B = W^T with W row-major ([N][K], rows ldw apart): B's column n is W's row n.
struct TransposedPacker {
  const float *W;
  i64 ldw;
  void operator()(i64 k0, i64 kb, i64 n0, i64 nb, i64 NR, float *buf) const {
    for (i64 j = 0; j < nb; j += NR) {
      i64 cols = minI(NR, nb - j);
      float *dst = buf + (j / NR) * kb * NR;
      for (i64 c = 0; c < NR; ++c) {
        const float *src = W + (n0 + j + c) * ldw + k0;
        for (i64 k = 0; k < kb; ++k)
          dst[k * NR + c] = c < cols ? src[k] : 0.f;
      }
    }
  }
};

/// out[c0 .. c0 + V * 16) = the chunk's rows times vec[0, H).
template <int V>
EMBER_INLINE void chunkProduct(float *out, const float *chunk, const float *vec, i64 H) {
  Vec acc[V];
#pragma clang loop unroll(full)
  for (int v = 0; v < V; ++v)
    acc[v] = splat(0.f);
  for (i64 j = 0; j < H; ++j) {
    Vec a = splat(vec[j]);
    const float *row = chunk + j * V * EMBER_VW;
#pragma clang loop unroll(full)
    for (int v = 0; v < V; ++v)
      acc[v] = __builtin_elementwise_fma(a, loadv(row + v * EMBER_VW), acc[v]);
  }
#pragma clang loop unroll(full)
  for (int v = 0; v < V; ++v)
    storev(out + v * EMBER_VW, acc[v]);
}

/// Gate blocks [g0, g1) of a step's recurrent part: sums + g * P = packed block g times vec,
/// their chunks split over \p team. R is read from L2 every step (an LSTM of hidden 256: 1 MB),
/// so each thread's share of the chunks, staying in its own core's L2, is what a second thread
/// gains (the chunk order is fixed, so the same thread mostly takes the same chunks).
EMBER_INLINE void gateProducts(float *sums, const float *packedR, const float *vec, i64 g0,
                               i64 g1, i64 H, parallel::Team *team) {
  const i64 P = fastBlockRows(H), chunkRows = kChunkVectors * EMBER_VW;
  const i64 perBlock = (P + chunkRows - 1) / chunkRows, chunks = (g1 - g0) * perBlock;
  // Worth a hand-off (a few microseconds) from about 64K multiply-adds a step.
  i64 parts = team && (g1 - g0) * P * H >= 65536 ? minI(team->size, chunks) : 1;
  parallel::forEachPart(team, parts, [&](i64 part) {
    for (i64 q = part * chunks / parts, e = (part + 1) * chunks / parts; q < e; ++q) {
      i64 g = g0 + q / perBlock, c0 = q % perBlock * chunkRows;
      i64 vectors = minI(kChunkVectors, (P - c0) / EMBER_VW);
      float *out = sums + g * P + c0;
      const float *chunk = packedR + g * P * H + c0 * H;
      switch (vectors) {
#define EMBER_CHUNK(n)                                                                             \
  case n:                                                                                          \
    chunkProduct<n>(out, chunk, vec, H);                                                           \
    break;
        EMBER_CHUNK(1)
        EMBER_CHUNK(2)
        EMBER_CHUNK(3)
        EMBER_CHUNK(4)
        EMBER_CHUNK(5)
        EMBER_CHUNK(6)
        EMBER_CHUNK(7)
        EMBER_CHUNK(8)
#undef EMBER_CHUNK
      default: break;
      }
    }
  });
}

EMBER_INLINE Vec activateVec(i64 kind, Vec x) {
  switch (kind) {
  case kSigmoid: return vsigmoid(x);
  case kTanh: return vtanh(x);
  default: return vmax(x, splat(0.f)); // kRelu (fastActivation)
  }
}

/// Elements [i, i + 16) of p, or the ones below n of them.
EMBER_INLINE Vec loadUpTo(const float *p, i64 i, i64 n) {
  return i + EMBER_VW <= n ? loadv(p + i) : loadPartial(p + i, n - i);
}
EMBER_INLINE void storeUpTo(float *p, i64 i, i64 n, Vec x) {
  if (i + EMBER_VW <= n)
    storev(p + i, x);
  else
    storePartial(p + i, x, n - i);
}

template <int MR, int NV>
EMBER_INLINE i64 recurrentFast(float *y, float *yh, float *yc, const float *x, const float *w,
                               const float *r, const float *b, const i32 *lens, const float *h0,
                               const float *c0, const float *peep, const i64 *shape,
                               const i64 *acts, float *scratch, parallel::Team *team) {
  const i64 cell = shape[kCell], S = shape[kSeq], B = shape[kBatch], I = shape[kInputSize],
            H = shape[kHidden], dirs = shape[kDirs];
  const bool reverseOnly = shape[kReverseOnly] != 0, flag = shape[kFlag] != 0;
  const i64 G = cell == kRNN ? 1 : cell == kGRU ? 3 : 4;
  const i64 perDirection = cell == kRNN ? 1 : cell == kGRU ? 2 : 3;
  const i64 rows = G * H, P = fastBlockRows(H);
  const bool gruLinearBeforeReset = cell == kGRU && flag;

  for (i64 bi = 0; bi < B; ++bi) // every length checked before anything is written
    if (lens[bi] < 0 || lens[bi] > S)
      return 1;
  for (i64 i = 0, e = S * dirs * B * H; i < e; ++i)
    y[i] = 0.f;

  // W and R packed at compile time (kPacked): the projections of a block of steps of one batch
  // row at a time. Else W is packed by the GEMM of every step's, and R here, once a direction.
  const bool packed = shape[kPacked] != 0;
  const i64 blockSteps = minI(S, kProjectionSteps);
  float *projected = scratch;                              // [blockSteps or S * B][rows]
  float *packedR = projected + (packed ? blockSteps : S * B) * rows; // [G][P * H], unless packed
  float *bias = packedR + (packed ? 0 : packedRFloats(H, G)); // [rows]: adds to the input part
  float *stateBias = bias + rows;             // [rows]: GRU's Rb of the candidate
  float *sums = stateBias + rows;             // [G][P]
  float *h = sums + G * P, *c = h + P, *nextH = c + P, *nextC = nextH + P, *resetH = nextC + P;
  float *packBuffer = resetH + P + 64;

  for (i64 d = 0; d < dirs; ++d) {
    const float *wd = w + d * rows * I, *rd = r + d * rows * H, *bd = b + d * 2 * rows;
    const i64 *act = acts + d * perDirection;
    for (i64 row = 0; row < rows; ++row) {
      // The state bias of GRU's candidate under linear_before_reset is inside r * (...).
      bool inside = gruLinearBeforeReset && row >= 2 * H;
      bias[row] = bd[row] + (inside ? 0.f : bd[rows + row]);
      stateBias[row] = inside ? bd[rows + row] : 0.f;
    }
    const Epilogue withBias{bias, 1, {ActNone, 0, 0}};
    const float *rp = packed ? r + d * packedRFloats(H, G) : packedR;
    if (!packed) {
      runGemm<MR, NV, false>(S * B, rows, I, x, I, projected, rows,
                             packFn(TransposedPacker{wd, I}), withBias, packBuffer, team);
      for (i64 g = 0; g < G; ++g)
        packGateBlock(packedR + g * P * H, rd + g * H * H, H);
    }

    bool reverse = reverseOnly || d == 1;
    for (i64 bi = 0; bi < B; ++bi) {
      i64 state = (d * B + bi) * H;
      for (i64 j = 0; j < P; ++j) {
        h[j] = j < H ? h0[state + j] : 0.f;
        c[j] = j < H && cell == kLSTM ? c0[state + j] : 0.f;
      }
      // A block's steps are consecutive in time (descending when reversed): its input rows are
      // B rows of x apart from time `first` on.
      i64 first = 0;
      for (i64 k = 0, len = lens[bi]; k < len; ++k) {
        i64 t = reverse ? len - 1 - k : k;
        if (packed && k % blockSteps == 0) {
          i64 steps = minI(blockSteps, len - k);
          first = reverse ? t - steps + 1 : t;
          runGemmPackedB<MR, NV>(steps, rows, I, x + (first * B + bi) * I, B * I, wd, projected,
                                 rows, withBias, packBuffer, team);
        }
        const float *xw = packed ? projected + (t - first) * rows : projected + (t * B + bi) * rows;
        if (cell == kRNN) {
          gateProducts(sums, rp, h, 0, 1, H, team);
          for (i64 i = 0; i < H; i += EMBER_VW)
            storev(nextH + i, activateVec(act[0], loadUpTo(xw, i, H) + loadv(sums + i)));
        } else if (cell == kGRU) {
          // Gate blocks: z (update) 0, r (reset) 1, n (candidate) 2.
          gateProducts(sums, rp, h, 0, gruLinearBeforeReset ? 3 : 2, H, team);
          if (!gruLinearBeforeReset) {
            for (i64 i = 0; i < H; i += EMBER_VW) {
              Vec reset = activateVec(act[0], loadUpTo(xw + H, i, H) + loadv(sums + P + i));
              storev(resetH + i, reset * loadv(h + i));
            }
            gateProducts(sums, rp, resetH, 2, 3, H, team);
          }
          for (i64 i = 0; i < H; i += EMBER_VW) {
            Vec hv = loadv(h + i);
            Vec z = activateVec(act[0], loadUpTo(xw, i, H) + loadv(sums + i));
            Vec candidateIn = loadUpTo(xw + 2 * H, i, H);
            if (gruLinearBeforeReset) {
              Vec reset = activateVec(act[0], loadUpTo(xw + H, i, H) + loadv(sums + P + i));
              candidateIn += reset * (loadv(sums + 2 * P + i) + loadUpTo(stateBias + 2 * H, i, H));
            } else {
              candidateIn += loadv(sums + 2 * P + i);
            }
            Vec n = activateVec(act[1], candidateIn);
            storev(nextH + i, (1.f - z) * n + z * hv);
          }
        } else {
          // Gate blocks: i (input) 0, o (output) 1, f (forget) 2, c (cell) 3; peepholes i, o, f.
          const float *pi = peep + d * 3 * H, *po = pi + H, *pf = po + H;
          gateProducts(sums, rp, h, 0, 4, H, team);
          for (i64 i = 0; i < H; i += EMBER_VW) {
            Vec cv = loadv(c + i);
            Vec in = activateVec(act[0], loadUpTo(xw, i, H) + loadv(sums + i) +
                                             loadUpTo(pi, i, H) * cv);
            Vec forget = activateVec(act[0], loadUpTo(xw + 2 * H, i, H) +
                                                 loadv(sums + 2 * P + i) +
                                                 loadUpTo(pf, i, H) * cv);
            Vec cellIn = activateVec(act[1], loadUpTo(xw + 3 * H, i, H) + loadv(sums + 3 * P + i));
            Vec nc = forget * cv + in * cellIn;
            Vec out = activateVec(act[0], loadUpTo(xw + H, i, H) + loadv(sums + P + i) +
                                              loadUpTo(po, i, H) * nc);
            storev(nextC + i, nc);
            storev(nextH + i, out * activateVec(act[2], nc));
          }
          float *swap = c;
          c = nextC, nextC = swap;
        }
        float *swap = h;
        h = nextH, nextH = swap;
        // Lanes past H computed from padding are never read by a product (its k stops at H)
        // and never stored.
        float *yt = y + ((t * dirs + d) * B + bi) * H;
        for (i64 i = 0; i < H; i += EMBER_VW)
          storeUpTo(yt, i, H, loadv(h + i));
      }
      for (i64 i = 0; i < H; i += EMBER_VW) {
        storeUpTo(yh + state, i, H, loadv(h + i));
        if (cell == kLSTM)
          storeUpTo(yc + state, i, H, loadv(c + i));
      }
    }
  }
  return 0;
}

} // namespace

/// Returns 0, or 1 when a sequence length is outside [0, seq] (as the reference kernel). The
/// operands are the reference kernel's (Recurrent.cpp), but with shape[kPacked] W comes as each
/// direction's B = W^T in panels of NR columns (PackedPanels.h) and R as each direction's
/// packGateBlock of each gate; scratch holds rnnlayout::fastScratchFloats floats, then the
/// GEMM's packing buffer for the input part.
#define RECURRENT_FAST_ENTRY(SUFFIX, FEATURES, MR, NV)                                             \
  EMBER_KERNEL EMBER_NOINLINE EMBER_VARIANT_TARGET(FEATURES) i64                                   \
      ember_recurrent_fast_f32_##SUFFIX(                                                           \
          float *y, float *yh, float *yc, const float *x, const float *w, const float *r,          \
          const float *b, const i32 *lens, const float *h0, const float *c0, const float *peep,    \
          const i64 *shape, const i64 *acts, float *scratch, parallel::Team *team) {               \
    return recurrentFast<MR, NV>(y, yh, yc, x, w, r, b, lens, h0, c0, peep, shape, acts, scratch,  \
                                 team);                                                            \
  }

#define KERNEL_VARIANT(NAME, ARCH, FEATURES, MR, NV, DOC)                                         \
  EMBER_ON_ARCH_##ARCH(RECURRENT_FAST_ENTRY(NAME, FEATURES, MR, NV))
#include "Variants.def"
#undef RECURRENT_FAST_ENTRY
