// The OpenCL launches of recurrent layers: RNN, GRU, LSTM (kernels/Recurrent.cl).
#include "KernelTable.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/SmallVector.h"

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

/// Recurrent.cl's activation codes: the rows of Nodes/RecurrentActivations.def in order.
enum class Activation {
#define RNN_ACTIVATION(E, NAME, UA, A, UB, B, FORMULA, DOC) E,
#include "ember/Graph/Nodes/RecurrentActivations.def"
  NumActivations
};
static_assert(int(Activation::NumActivations) == 11,
              "a new row of RecurrentActivations.def needs its case in kernels/Recurrent.cl's "
              "rnnActivation");

/// The code of the activation named \p name, or -1.
int64_t activationCode(StringRef name) {
#define RNN_ACTIVATION(E, NAME, UA, A, UB, B, FORMULA, DOC)                                        \
  if (name == NAME)                                                                                \
    return int64_t(Activation::E);
#include "ember/Graph/Nodes/RecurrentActivations.def"
  return -1;
}

/// Recurrent.cl's largest hidden size (RNN_MAX_HIDDEN: the states live in local memory).
constexpr dim_t kMaxHidden = 1024;

/// Each entry of Activations as {code, alpha bits, beta bits}; empty if one is unknown or the
/// alphas and betas do not match them.
std::vector<int64_t> activationParams(const std::string &names, ArrayRef<float> alphas,
                                      ArrayRef<float> betas) {
  SmallVector<StringRef, 6> split;
  StringRef(names).split(split, ',');
  if (alphas.size() != split.size() || betas.size() != split.size())
    return {};
  std::vector<int64_t> p;
  for (size_t i = 0; i < split.size(); ++i) {
    int64_t code = activationCode(split[i]);
    if (code < 0)
      return {};
    p.insert(p.end(), {code, floatBits(alphas[i]), floatBits(betas[i])});
  }
  return p;
}

Expected<bool> planRecurrent(LaunchBuilder &b, const Instruction &I) {
  bool lstm = I.getKind() == InstrKind::LSTM;
  const Type &x = I.getInput(ops::RNN::Input)->getType();
  const Type &r = I.getInput(ops::RNN::R)->getType();
  int64_t seq = int64_t(x.dims[0]), batch = int64_t(x.dims[1]), inputSize = int64_t(x.dims[2]);
  int64_t dirs = int64_t(r.dims[0]), hidden = int64_t(r.dims[2]);
  std::vector<int64_t> acts =
      activationParams(I.attr<AttrKind::Activations>(), I.attr<AttrKind::ActivationAlpha>(),
                       I.attr<AttrKind::ActivationBeta>());
  if (acts.empty())
    return makeError("activations '" + I.attr<AttrKind::Activations>() + "' do not run on OpenCL");
  if (dim_t(hidden) > kMaxHidden)
    return makeError("hidden size " + Twine(hidden) + " is over OpenCL's " + Twine(kMaxHidden));
  int64_t op = I.getKind() == InstrKind::RNN ? 0 : I.getKind() == InstrKind::GRU ? 1 : 2;
  int64_t flag = I.getKind() == InstrKind::GRU ? I.attr<AttrKind::LinearBeforeReset>()
                 : lstm                        ? I.attr<AttrKind::InputForget>()
                                               : 0;
  std::vector<int64_t> p = {op,
                            dirs * batch,
                            placeOf(I.getOutput(ops::RNN::Y)),
                            placeOf(I.getOutput(ops::RNN::YH)),
                            lstm ? placeOf(I.getOutput(ops::LSTM::YC)) : -1,
                            placeOf(I.getInput(ops::RNN::Input)),
                            placeOf(I.getInput(ops::RNN::W)),
                            placeOf(I.getInput(ops::RNN::R)),
                            placeOf(I.getInput(ops::RNN::B)),
                            placeOf(I.getInput(ops::RNN::SequenceLens)),
                            placeOf(I.getInput(ops::RNN::InitialH)),
                            lstm ? placeOf(I.getInput(ops::LSTM::InitialC)) : -1,
                            lstm ? placeOf(I.getInput(ops::LSTM::P)) : -1,
                            seq,
                            batch,
                            inputSize,
                            hidden,
                            dirs,
                            int64_t(I.attr<AttrKind::Direction>() == "reverse"),
                            floatBits(I.attr<AttrKind::CellClip>()),
                            int64_t(flag != 0),
                            int64_t(acts.size() / 3) / dirs};
  p.insert(p.end(), acts.begin(), acts.end());
  // A work-group per (direction, batch row).
  return b.add(I, ("recurrent_" + kindSuffix(x.kind)).str(), uint64_t(dirs * batch) * kDefaultGroup,
               p, kDefaultGroup,
               ("a length of sequence_lens is outside [0, " + Twine(seq) + "]").str());
}

bool supportsRecurrent(const Node &n) {
  ElemKind k = n.getOperand(ops::RNN::Input).getType().kind;
  return (k == ElemKind::Float32 || k == ElemKind::Float64 || k == ElemKind::Float16) &&
         n.getOperand(ops::RNN::R).getType().dims[2] <= kMaxHidden &&
         !activationParams(n.attr<AttrKind::Activations>(), n.attr<AttrKind::ActivationAlpha>(),
                           n.attr<AttrKind::ActivationBeta>())
              .empty();
}

} // namespace

void addRecurrentKernels(KernelTable &t) {
  for (NodeKind k : {NodeKind::RNN, NodeKind::GRU, NodeKind::LSTM})
    t.add(k, supportsRecurrent, planRecurrent);
}

} // namespace opencl
} // namespace ember
