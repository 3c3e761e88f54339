// Codegen for the recurrent family (kernels/Recurrent.cpp): RNN, GRU and LSTM on float32,
// float64 and float16, as the Interpreter (lib/Backends/Interpreter/Recurrent.cpp). One
// kernel per element kind serves the three cells; the shape, the direction, the activations
// (numbered as kernels/RecurrentLayout.h) and their alpha/beta go as constant arrays. A sequence
// length outside [0, seq] is a run-time error, as in the Interpreter. float32 cells with the
// activations trained models use take the fast kernel (kernels/RecurrentFast.cpp).
#include "CPUConstants.h"
#include "CodeGenUtils.h"

#include "kernels/RecurrentLayout.h"
#include "kernels/Scratch.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// The kernel's number of activation \p name (kernels/RecurrentLayout.h numbers the rows of
/// Nodes/RecurrentActivations.def), or -1.
int64_t activationNumber(StringRef name) {
#define RNN_ACTIVATION(E, NAME, UA, A, UB, B, FORMULA, DOC)                                        \
  if (name == NAME)                                                                                \
    return int64_t(rnnlayout::k##E);
#include "ember/Graph/Nodes/RecurrentActivations.def"
  return -1;
}

/// The kinds the Interpreter's recurrent kernels cover (its isRecurrentKind).
bool supportsRecurrent(const Node &n) {
  ElemKind k = n.getType(0).kind;
  return k == ElemKind::Float32 || k == ElemKind::Float64 || k == ElemKind::Float16;
}

/// The cell of a recurrent instruction.
rnnlayout::Cell cellOf(const Instruction &I) {
  return I.getKind() == InstrKind::RNN   ? rnnlayout::kRNN
         : I.getKind() == InstrKind::GRU ? rnnlayout::kGRU
                                         : rnnlayout::kLSTM;
}


/// Whether \p I's W and R were reserved their packed layouts (reserveConstants, before scratch
/// is sized): then codegen passes them packed, and the kernel projects the input a block of
/// steps at a time.
bool packedRecurrent(const Instruction &I) {
  return reservedForRecurrent(I.getInput(ops::RNN::W), I.getInput(ops::RNN::R));
}

uint64_t recurrentScratch(const Instruction &I, int64_t threads) {
  const DimsVec &x = I.getInput(ops::RNN::Input)->getType().dims;
  const DimsVec &r = I.getInput(ops::RNN::R)->getType().dims;
  if (!fastRecurrent(I))
    return uint64_t(rnnlayout::scratchBytes(int64_t(r[2])));
  int64_t H = int64_t(r[2]), gates = int64_t(r[1]) / H, rows = gates * H;
  bool packed = packedRecurrent(I);
  // A packed W needs a buffer only for a narrow last panel of columns (NNGemm.h, gemmPackedB).
  int64_t buffers = packed && rows % scratch::kMaxNR == 0
                        ? 0
                        : scratch::gemmScratchFloats(int64_t(x[2]), rows, threads);
  return uint64_t(rnnlayout::fastScratchFloats(int64_t(x[0]), int64_t(x[1]), H, gates, packed) +
                  buffers) *
         sizeof(float);
}

Error emitRecurrent(Emitter &E, const Instruction &I) {
  static_assert(unsigned(ops::RNN::InitialH) == unsigned(ops::GRU::InitialH) &&
                    unsigned(ops::RNN::InitialH) == unsigned(ops::LSTM::InitialH) &&
                    unsigned(ops::RNN::YH) == unsigned(ops::LSTM::YH),
                "the recurrent kinds share their leading operands and results");
  rnnlayout::Cell cell = cellOf(I);
  bool lstm = cell == rnnlayout::kLSTM;

  SmallVector<StringRef, 6> names;
  StringRef(I.attr<AttrKind::Activations>()).split(names, ',');
  const std::vector<float> &alphas = I.attr<AttrKind::ActivationAlpha>();
  const std::vector<float> &betas = I.attr<AttrKind::ActivationBeta>();
  if (alphas.size() != names.size() || betas.size() != names.size())
    return instrError(I, "activation_alpha/activation_beta do not match the activations");
  std::vector<int64_t> acts;
  for (StringRef n : names) {
    int64_t a = activationNumber(n);
    if (a < 0)
      return instrError(I, "unknown activation function '" + n + "'");
    acts.push_back(a);
  }

  const DimsVec &x = I.getInput(ops::RNN::Input)->getType().dims;
  const DimsVec &r = I.getInput(ops::RNN::R)->getType().dims;
  int64_t flag = cell == rnnlayout::kGRU ? I.attr<AttrKind::LinearBeforeReset>()
                 : lstm                  ? I.attr<AttrKind::InputForget>()
                                         : 0;
  std::vector<int64_t> shape(rnnlayout::kShapeCount);
  shape[rnnlayout::kCell] = cell;
  shape[rnnlayout::kSeq] = int64_t(x[0]);
  shape[rnnlayout::kBatch] = int64_t(x[1]);
  shape[rnnlayout::kInputSize] = int64_t(x[2]);
  shape[rnnlayout::kHidden] = int64_t(r[2]);
  shape[rnnlayout::kDirs] = int64_t(r[0]);
  shape[rnnlayout::kReverseOnly] = I.attr<AttrKind::Direction>() == "reverse";
  shape[rnnlayout::kFlag] = flag != 0;
  shape[rnnlayout::kPacked] = fastRecurrent(I) && packedRecurrent(I);

  ElemKind k = I.getOutput(ops::RNN::Y)->getType().kind;
  std::string what = "a sequence_lens value is outside [0, " + std::to_string(x[0]) + "]";
  // Both kernels take these first; the fast one then its scratch and the team, the reference one
  // the activations' alpha/beta, the clip and its scratch.
  SmallVector<Value *, 17> args = {
      E.out(I, ops::RNN::Y), E.out(I, ops::RNN::YH), lstm ? E.out(I, ops::LSTM::YC) : E.nullPtr(),
      E.in(I, ops::RNN::Input), E.in(I, ops::RNN::W), E.in(I, ops::RNN::R), E.in(I, ops::RNN::B),
      E.in(I, ops::RNN::SequenceLens), E.in(I, ops::RNN::InitialH),
      lstm ? E.in(I, ops::LSTM::InitialC) : E.nullPtr(), lstm ? E.in(I, ops::LSTM::P) : E.nullPtr(),
      E.constArray(shape, "rnn_shape"), E.constArray(acts, "rnn_activations")};
  if (fastRecurrent(I)) {
    args.append({E.scratch(I), E.team()});
    return E.callChecked(E.variant("ember_recurrent_fast_f32"), args, I, what);
  }
  args.append({E.floatArray(alphas, "rnn_alpha"), E.floatArray(betas, "rnn_beta"),
               E.f32(I.attr<AttrKind::CellClip>()), E.scratch(I)});
  return E.callChecked(kernelFor("ember_recurrent", k), args, I, what);
}

} // namespace

bool fastRecurrent(const Instruction &I) {
  if (I.getOutput(ops::RNN::Y)->getType().kind != ElemKind::Float32 ||
      I.attr<AttrKind::CellClip>() != 0.f)
    return false;
  if (cellOf(I) == rnnlayout::kLSTM && I.attr<AttrKind::InputForget>() != 0)
    return false;
  SmallVector<StringRef, 6> names;
  StringRef(I.attr<AttrKind::Activations>()).split(names, ',');
  for (StringRef n : names)
    if (!rnnlayout::fastActivation(activationNumber(n)))
      return false;
  return true;
}

int64_t recurrentSplittableFlops(const Instruction &I) {
  if (!fastRecurrent(I))
    return 0;
  const DimsVec &x = I.getInput(ops::RNN::Input)->getType().dims;
  const DimsVec &r = I.getInput(ops::RNN::R)->getType().dims;
  int64_t steps = int64_t(x[0]) * int64_t(x[1]) * int64_t(r[0]);
  return 2 * steps * int64_t(r[1]) * (int64_t(x[2]) + int64_t(r[2]));
}

void addRecurrentKernels(KernelTable &t) {
  t.add(NodeKind::RNN, supportsRecurrent, emitRecurrent, recurrentScratch);
  t.add(NodeKind::GRU, supportsRecurrent, emitRecurrent, recurrentScratch);
  t.add(NodeKind::LSTM, supportsRecurrent, emitRecurrent, recurrentScratch);
}

} // namespace cpu
} // namespace ember
