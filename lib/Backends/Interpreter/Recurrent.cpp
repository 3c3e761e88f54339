// Interpreter kernels: recurrent networks (RNN, GRU, LSTM), the reference loops. Each batch row
// of each direction walks its own steps; the per-op cell equations are the ONNX spec's, written
// out one hidden unit at a time. Layouts are in Nodes/Recurrent.def.
#include "KernelUtils.h"

#include "ember/Semantics/Formulas.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <vector>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

enum class ActivationKind {
#define RNN_ACTIVATION(E, NAME, UA, A, UB, B, FORMULA, DOC) E,
#include "ember/Graph/Nodes/RecurrentActivations.def"
};

struct Activation {
  ActivationKind kind;
  double alpha, beta;

  /// The function of x, with the formula of its Nodes/RecurrentActivations.def row.
  template <typename C> C operator()(C x) const {
    using namespace formula;
    C a = C(alpha), b = C(beta);
    (void)a;
    (void)b;
    switch (kind) {
#define RNN_ACTIVATION(E, NAME, UA, A, UB, B, FORMULA, DOC)                                        \
  case ActivationKind::E:                                                                          \
    return FORMULA;
#include "ember/Graph/Nodes/RecurrentActivations.def"
    }
    return x;
  }
};

Expected<std::vector<Activation>> readActivations(const KernelContext &ctx) {
  SmallVector<StringRef, 6> names;
  StringRef(ctx.attr<AttrKind::Activations>()).split(names, ',');
  const auto &alphas = ctx.attr<AttrKind::ActivationAlpha>();
  const auto &betas = ctx.attr<AttrKind::ActivationBeta>();
  if (alphas.size() != names.size() || betas.size() != names.size())
    return ctx.unsupported("activation_alpha/activation_beta do not match the activations");
  std::vector<Activation> out;
  for (size_t i = 0; i < names.size(); ++i) {
    std::optional<ActivationKind> kind;
#define RNN_ACTIVATION(E, NAME, UA, A, UB, B, FORMULA, DOC)                                        \
  if (names[i] == NAME)                                                                            \
    kind = ActivationKind::E;
#include "ember/Graph/Nodes/RecurrentActivations.def"
    if (!kind)
      return ctx.unsupported("unknown activation function '" + names[i] + "'");
    out.push_back({*kind, alphas[i], betas[i]});
  }
  return out;
}

/// The operands and geometry every recurrent kind shares, and the gate arithmetic on them.
/// T is the storage type, C the type computed in (float for float16 and float32).
template <typename T> struct Recurrence {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;

  size_t seq, batch, inputSize, hidden, dirs, gates, perDirection;
  const T *x, *w, *r, *b;
  std::vector<Activation> activations;
  C clip;
  bool reverseOnly;

  Recurrence(const KernelContext &ctx, unsigned numGates, std::vector<Activation> acts)
      : gates(numGates), activations(std::move(acts)) {
    TensorArg X = ctx.in(ops::RNN::Input), R = ctx.in(ops::RNN::R);
    seq = X.dims()[0];
    batch = X.dims()[1];
    inputSize = X.dims()[2];
    dirs = R.dims()[0];
    hidden = R.dims()[2];
    perDirection = activations.size() / dirs;
    x = X.as<T>();
    w = ctx.in(ops::RNN::W).as<T>();
    r = R.as<T>();
    b = ctx.in(ops::RNN::B).as<T>();
    clip = C(ctx.attr<AttrKind::CellClip>());
    reverseOnly = ctx.attr<AttrKind::Direction>() == "reverse";
  }

  bool isReverse(size_t d) const { return reverseOnly || d == 1; }

  /// Activation \p which of direction \p d, its input clipped when CellClip is set.
  C activate(size_t d, unsigned which, C v) const {
    if (clip > 0)
      v = std::min(std::max(v, -clip), clip);
    return activations[d * perDirection + which](v);
  }

  /// Row \p row of the stacked gates, input part: x_t . W[d, row] + Wb[d, row].
  C inputPart(size_t d, size_t row, const T *xt) const {
    const T *wr = w + (d * gates * hidden + row) * inputSize;
    C sum = C(b[d * 2 * gates * hidden + row]);
    for (size_t i = 0; i < inputSize; ++i)
      sum += C(xt[i]) * C(wr[i]);
    return sum;
  }

  /// Row \p row of the stacked gates, state part: h . R[d, row] + Rb[d, row].
  C statePart(size_t d, size_t row, const std::vector<C> &h) const {
    const T *rr = r + (d * gates * hidden + row) * hidden;
    C sum = C(b[d * 2 * gates * hidden + gates * hidden + row]);
    for (size_t i = 0; i < hidden; ++i)
      sum += h[i] * C(rr[i]);
    return sum;
  }
};

/// Runs \p step(d, x_t, h, c) over each direction's valid steps of each batch row, in the
/// direction's order, and writes Y (zero past a row's length), YH and, with \p hasCellState,
/// YC. \p step updates the hidden state h (and cell state c) in place.
template <typename T, typename Step>
Error walkSequences(const KernelContext &ctx, const Recurrence<T> &rec, bool hasCellState,
                    Step step) {
  using C = typename Recurrence<T>::C;
  const int32_t *lens = ctx.in(ops::RNN::SequenceLens).as<int32_t>();
  for (size_t bi = 0; bi < rec.batch; ++bi)
    if (lens[bi] < 0 || size_t(lens[bi]) > rec.seq)
      return ctx.unsupported("sequence_lens[" + Twine(bi) + "] = " + Twine(lens[bi]) +
                             " is outside [0, " + Twine(rec.seq) + "]");
  const T *h0 = ctx.in(ops::RNN::InitialH).as<T>();
  const T *c0 = hasCellState ? ctx.in(ops::LSTM::InitialC).as<T>() : nullptr;
  T *y = ctx.out(ops::RNN::Y).as<T>(), *yh = ctx.out(ops::RNN::YH).as<T>();
  T *yc = hasCellState ? ctx.out(ops::LSTM::YC).as<T>() : nullptr;
  std::fill(y, y + ctx.out(ops::RNN::Y).numElements(), T(C(0)));

  size_t H = rec.hidden;
  std::vector<C> h(H), c(H);
  for (size_t d = 0; d < rec.dirs; ++d)
    for (size_t bi = 0; bi < rec.batch; ++bi) {
      size_t state = (d * rec.batch + bi) * H;
      for (size_t j = 0; j < H; ++j) {
        h[j] = C(h0[state + j]);
        c[j] = hasCellState ? C(c0[state + j]) : C(0);
      }
      size_t len = size_t(lens[bi]);
      for (size_t k = 0; k < len; ++k) {
        size_t t = rec.isReverse(d) ? len - 1 - k : k;
        step(d, rec.x + (t * rec.batch + bi) * rec.inputSize, h, c);
        T *yt = y + ((t * rec.dirs + d) * rec.batch + bi) * H;
        for (size_t j = 0; j < H; ++j)
          yt[j] = T(h[j]);
      }
      for (size_t j = 0; j < H; ++j) {
        yh[state + j] = T(h[j]);
        if (hasCellState)
          yc[state + j] = T(c[j]);
      }
    }
  return Error::success();
}

/// Calls fn(T()) for the kinds the recurrent kernels cover.
template <typename Fn> Error dispatchRecurrentKinds(const KernelContext &ctx, Fn &&fn) {
  switch (ctx.in(ops::RNN::Input).type.kind) {
  case ElemKind::Float32: return fn(float());
  case ElemKind::Float64: return fn(double());
  case ElemKind::Float16: return fn(float16_t());
  default:
    return ctx.unsupported("no kernel for element kind " +
                           elemKindName(ctx.in(ops::RNN::Input).type.kind));
  }
}

bool isRecurrentKind(const Node &n) {
  return resultKindIn(n, {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16});
}

} // namespace

Error runRNN(const KernelContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(std::vector<Activation> acts, readActivations(ctx));
  return dispatchRecurrentKinds(ctx, [&](auto tag) -> Error {
    using T = decltype(tag);
    using C = typename Recurrence<T>::C;
    Recurrence<T> rec(ctx, 1, acts);
    std::vector<C> next(rec.hidden);
    return walkSequences(ctx, rec, false,
                         [&](size_t d, const T *xt, std::vector<C> &h, std::vector<C> &) {
                           for (size_t j = 0; j < rec.hidden; ++j)
                             next[j] = rec.activate(d, 0, rec.inputPart(d, j, xt) +
                                                             rec.statePart(d, j, h));
                           h.swap(next);
                         });
  });
}

Error runGRU(const KernelContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(std::vector<Activation> acts, readActivations(ctx));
  bool linearBeforeReset = ctx.attr<AttrKind::LinearBeforeReset>() != 0;
  return dispatchRecurrentKinds(ctx, [&](auto tag) -> Error {
    using T = decltype(tag);
    using C = typename Recurrence<T>::C;
    Recurrence<T> rec(ctx, 3, acts);
    size_t H = rec.hidden;
    std::vector<C> z(H), reset(H), resetH(H), next(H);
    // Gate blocks: z (update) 0, r (reset) 1, h (candidate) 2.
    return walkSequences(ctx, rec, false,
                         [&](size_t d, const T *xt, std::vector<C> &h, std::vector<C> &) {
                           for (size_t j = 0; j < H; ++j) {
                             z[j] = rec.activate(d, 0, rec.inputPart(d, j, xt) +
                                                           rec.statePart(d, j, h));
                             reset[j] = rec.activate(d, 0, rec.inputPart(d, H + j, xt) +
                                                               rec.statePart(d, H + j, h));
                             resetH[j] = reset[j] * h[j];
                           }
                           for (size_t j = 0; j < H; ++j) {
                             C candidateIn = rec.inputPart(d, 2 * H + j, xt);
                             candidateIn += linearBeforeReset
                                                ? reset[j] * rec.statePart(d, 2 * H + j, h)
                                                : rec.statePart(d, 2 * H + j, resetH);
                             C candidate = rec.activate(d, 1, candidateIn);
                             next[j] = (1 - z[j]) * candidate + z[j] * h[j];
                           }
                           h.swap(next);
                         });
  });
}

Error runLSTM(const KernelContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(std::vector<Activation> acts, readActivations(ctx));
  bool inputForget = ctx.attr<AttrKind::InputForget>() != 0;
  return dispatchRecurrentKinds(ctx, [&](auto tag) -> Error {
    using T = decltype(tag);
    using C = typename Recurrence<T>::C;
    Recurrence<T> rec(ctx, 4, acts);
    size_t H = rec.hidden;
    const T *peep = ctx.in(ops::LSTM::P).as<T>();
    std::vector<C> nextH(H), nextC(H);
    // Gate blocks: i (input) 0, o (output) 1, f (forget) 2, c (cell) 3; peepholes i, o, f.
    return walkSequences(
        ctx, rec, true, [&](size_t d, const T *xt, std::vector<C> &h, std::vector<C> &c) {
          const T *pi = peep + d * 3 * H, *po = pi + H, *pf = po + H;
          for (size_t j = 0; j < H; ++j) {
            auto gate = [&](size_t block) {
              return rec.inputPart(d, block * H + j, xt) + rec.statePart(d, block * H + j, h);
            };
            C in = rec.activate(d, 0, gate(0) + C(pi[j]) * c[j]);
            C forget = inputForget ? 1 - in : rec.activate(d, 0, gate(2) + C(pf[j]) * c[j]);
            C cell = rec.activate(d, 1, gate(3));
            nextC[j] = forget * c[j] + in * cell;
            C out = rec.activate(d, 0, gate(1) + C(po[j]) * nextC[j]);
            nextH[j] = out * rec.activate(d, 2, nextC[j]);
          }
          h.swap(nextH);
          c.swap(nextC);
        });
  });
}

bool supportsRNN(const Node &n) { return isRecurrentKind(n); }
bool supportsGRU(const Node &n) { return isRecurrentKind(n); }
bool supportsLSTM(const Node &n) { return isRecurrentKind(n); }

} // namespace interp
} // namespace ember
