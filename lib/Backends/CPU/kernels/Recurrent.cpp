// Recurrent networks (RNN, GRU, LSTM) for float32, float64 and float16: the Interpreter's
// reference loops (lib/Backends/Interpreter/Recurrent.cpp) with the same arithmetic in
// the same order, so results match it closely: each gate row is bias + a dot product over a
// contiguous row of W or R, activations call the same libm functions, float16 computes in
// float32. Each batch row of each direction walks its own valid steps. float32 cells with the
// activations trained models use run RecurrentFast.cpp instead; this kernel takes the rest.
// Layouts: Nodes/Recurrent.def.
#include "RecurrentLayout.h"
#include "Formulas.h"
#include "Types.h"

using namespace rnnlayout;

// No fused multiply-adds: the Interpreter (built for baseline x86-64) rounds every product, and
// float16 results are rounded to half after many steps, where one float ulp can flip a half ulp.
#pragma clang fp contract(off)


namespace {

/// Activation \p kind (RecurrentLayout.h: Nodes/RecurrentActivations.def's order) of x, with
/// the row's formula, as the Interpreter.
template <typename C> EMBER_INLINE C activation(i64 kind, C a, C b, C x) {
  switch (kind) {
#define RNN_ACTIVATION(E, NAME, UA, A, UB, B, FORMULA, DOC)                                        \
  case k##E:                                                                                       \
    return FORMULA;
#include "ember/Graph/Nodes/RecurrentActivations.def"
  }
  return x;
}

/// The operands and geometry of one node, and the gate arithmetic on them.
template <typename T> struct Recurrence {
  typedef ComputeOf<T> C;
  i64 seq, batch, inputSize, hidden, dirs, gates, perDirection;
  bool reverseOnly;
  const T *x, *w, *r, *b;
  const i64 *acts;
  const float *alphas, *betas;
  C clip;

  bool isReverse(i64 d) const { return reverseOnly || d == 1; }

  /// Activation \p which of direction \p d, its input clipped when clip is set.
  C activate(i64 d, i64 which, C v) const {
    if (clip > 0) {
      C lo = -clip;
      v = v < lo ? lo : v;     // std::max(v, -clip)
      v = clip < v ? clip : v; // std::min(v, clip)
    }
    i64 k = d * perDirection + which;
    return activation<C>(acts[k], C(alphas[k]), C(betas[k]), v);
  }

  /// Row \p row of the stacked gates, input part: x_t . W[d, row] + Wb[d, row].
  C inputPart(i64 d, i64 row, const T *xt) const {
    const T *wr = w + (d * gates * hidden + row) * inputSize;
    C sum = ld(b, d * 2 * gates * hidden + row);
    for (i64 i = 0; i < inputSize; ++i)
      sum += ld(xt, i) * ld(wr, i);
    return sum;
  }

  /// Row \p row of the stacked gates, state part: h . R[d, row] + Rb[d, row].
  C statePart(i64 d, i64 row, const C *h) const {
    const T *rr = r + (d * gates * hidden + row) * hidden;
    C sum = ld(b, d * 2 * gates * hidden + gates * hidden + row);
    for (i64 i = 0; i < hidden; ++i)
      sum += h[i] * ld(rr, i);
    return sum;
  }
};

template <typename C> EMBER_INLINE void swapPtr(C *&a, C *&b) {
  C *t = a;
  a = b;
  b = t;
}

template <typename T>
EMBER_INLINE i64 recurrent(T *y, T *yh, T *yc, const T *x, const T *w, const T *r, const T *b,
                           const i32 *lens, const T *h0, const T *c0, const T *peep,
                           const i64 *shape, const i64 *acts, const float *alphas,
                           const float *betas, float clip, void *scratch) {
  typedef ComputeOf<T> C;
  i64 cell = shape[kCell];
  Recurrence<T> rec;
  rec.seq = shape[kSeq];
  rec.batch = shape[kBatch];
  rec.inputSize = shape[kInputSize];
  rec.hidden = shape[kHidden];
  rec.dirs = shape[kDirs];
  rec.reverseOnly = shape[kReverseOnly] != 0;
  rec.gates = cell == kRNN ? 1 : cell == kGRU ? 3 : 4;
  rec.perDirection = cell == kRNN ? 1 : cell == kGRU ? 2 : 3;
  rec.x = x, rec.w = w, rec.r = r, rec.b = b;
  rec.acts = acts, rec.alphas = alphas, rec.betas = betas;
  rec.clip = C(clip);
  bool flag = shape[kFlag] != 0;
  bool hasCell = cell == kLSTM;
  i64 H = rec.hidden, B = rec.batch, dirs = rec.dirs;

  // Every length is checked before anything is written, as the Interpreter does.
  for (i64 bi = 0; bi < B; ++bi)
    if (lens[bi] < 0 || lens[bi] > rec.seq)
      return 1;
  for (i64 i = 0, e = rec.seq * dirs * B * H; i < e; ++i)
    st(y, i, C(0));

  C *h = (C *)scratch, *c = h + H, *nextH = c + H, *nextC = nextH + H, *z = nextC + H,
    *reset = z + H, *resetH = reset + H;
  for (i64 d = 0; d < dirs; ++d)
    for (i64 bi = 0; bi < B; ++bi) {
      i64 state = (d * B + bi) * H;
      for (i64 j = 0; j < H; ++j) {
        h[j] = ld(h0, state + j);
        c[j] = hasCell ? ld(c0, state + j) : C(0);
      }
      i64 len = lens[bi];
      for (i64 k = 0; k < len; ++k) {
        i64 t = rec.isReverse(d) ? len - 1 - k : k;
        const T *xt = x + (t * B + bi) * rec.inputSize;
        if (cell == kRNN) {
          for (i64 j = 0; j < H; ++j)
            nextH[j] = rec.activate(d, 0, rec.inputPart(d, j, xt) + rec.statePart(d, j, h));
        } else if (cell == kGRU) {
          // Gate blocks: z (update) 0, r (reset) 1, h (candidate) 2.
          for (i64 j = 0; j < H; ++j) {
            z[j] = rec.activate(d, 0, rec.inputPart(d, j, xt) + rec.statePart(d, j, h));
            reset[j] =
                rec.activate(d, 0, rec.inputPart(d, H + j, xt) + rec.statePart(d, H + j, h));
            resetH[j] = reset[j] * h[j];
          }
          for (i64 j = 0; j < H; ++j) {
            C candidateIn = rec.inputPart(d, 2 * H + j, xt);
            candidateIn += flag ? reset[j] * rec.statePart(d, 2 * H + j, h)
                                : rec.statePart(d, 2 * H + j, resetH);
            C candidate = rec.activate(d, 1, candidateIn);
            nextH[j] = (1 - z[j]) * candidate + z[j] * h[j];
          }
        } else {
          // Gate blocks: i (input) 0, o (output) 1, f (forget) 2, c (cell) 3; peepholes i, o, f.
          const T *pi = peep + d * 3 * H, *po = pi + H, *pf = po + H;
          for (i64 j = 0; j < H; ++j) {
            auto gate = [&](i64 block) {
              return rec.inputPart(d, block * H + j, xt) + rec.statePart(d, block * H + j, h);
            };
            C in = rec.activate(d, 0, gate(0) + ld(pi, j) * c[j]);
            C forget = flag ? 1 - in : rec.activate(d, 0, gate(2) + ld(pf, j) * c[j]);
            C cellIn = rec.activate(d, 1, gate(3));
            nextC[j] = forget * c[j] + in * cellIn;
            C out = rec.activate(d, 0, gate(1) + ld(po, j) * nextC[j]);
            nextH[j] = out * rec.activate(d, 2, nextC[j]);
          }
          swapPtr(c, nextC);
        }
        swapPtr(h, nextH);
        T *yt = y + ((t * dirs + d) * B + bi) * H;
        for (i64 j = 0; j < H; ++j)
          st(yt, j, h[j]);
      }
      for (i64 j = 0; j < H; ++j) {
        st(yh, state + j, h[j]);
        if (hasCell)
          st(yc, state + j, c[j]);
      }
    }
  return 0;
}

} // namespace

/// Returns 0, or 1 when a sequence length is outside [0, seq]. yc, c0 and peep are null but for
/// LSTM. Parameters: RecurrentLayout.h; acts, alphas and betas have one entry per function of
/// each direction in turn.
#define RECURRENT_KERNEL(S, T)                                                                     \
  EMBER_KERNEL i64 ember_recurrent_##S(                                                            \
      T *y, T *yh, T *yc, const T *x, const T *w, const T *r, const T *b, const i32 *lens,         \
      const T *h0, const T *c0, const T *peep, const i64 *shape, const i64 *acts,                  \
      const float *alphas, const float *betas, float clip, void *scratch) {                        \
    return recurrent<T>(y, yh, yc, x, w, r, b, lens, h0, c0, peep, shape, acts, alphas, betas,     \
                        clip, scratch);                                                            \
  }
RECURRENT_KERNEL(f32, float)
RECURRENT_KERNEL(f64, double)
RECURRENT_KERNEL(f16, f16)
#undef RECURRENT_KERNEL
