// The recurrent family (RNN, GRU, LSTM) on every backend against the Interpreter: each
// direction, float32/float64/float16, sequence lengths from 0 to full, initial states, clip,
// linear_before_reset, input_forget, peepholes and every activation function with its
// alpha/beta. Also the run-time error for a sequence length out of range.
#include "BackendTestUtils.h"

#include "ember/Driver/CompiledModel.h"

using namespace ember;
using namespace ember::test;

namespace {

struct RecurrentCase {
  NodeKind kind;
  const char *direction;
  ElemKind elem;
  const char *activations; // every direction's functions, comma-separated
  std::vector<float> alphas, betas;
  float clip;
  int64_t flag; // GRU: linear_before_reset; LSTM: input_forget
  std::vector<int32_t> lens;
  dim_t seq, inputSize, hidden;
  bool runTimeWeights = false; // W and R placeholders: the CPU backend cannot pack them
};

unsigned gatesOf(NodeKind k) { return k == NodeKind::RNN ? 1 : k == NodeKind::GRU ? 3 : 4; }

AttrList recurrentAttrs(const RecurrentCase &p) {
  AttrList a;
  a.set<AttrKind::Direction>(p.direction)
      .set<AttrKind::Activations>(p.activations)
      .set<AttrKind::ActivationAlpha>(p.alphas)
      .set<AttrKind::ActivationBeta>(p.betas)
      .set<AttrKind::CellClip>(p.clip);
  if (p.kind == NodeKind::GRU)
    a.set<AttrKind::LinearBeforeReset>(p.flag);
  if (p.kind == NodeKind::LSTM)
    a.set<AttrKind::InputForget>(p.flag);
  return a;
}

/// The node of case \p p with every operand a placeholder ("lens" the sequence lengths) but the
/// weights, which are constants unless p.runTimeWeights (then W and R are inputs "w" and "r").
Node *buildRecurrent(Module &M, Function *F, const RecurrentCase &p) {
  dim_t dirs = std::string(p.direction) == "bidirectional" ? 2 : 1;
  dim_t batch = dim_t(p.lens.size()), G = gatesOf(p.kind), H = p.hidden;
  Placeholder *x = input(M, {p.seq, batch, p.inputSize}, p.elem, "x");
  // Weights in [-2, 2] over many hidden units make a chaotic recurrence, where the last bit of
  // a sum (another order of summation, a fused multiply-add) grows into the third digit within
  // a few steps; a trained layer's weights are of the order of 1 / sqrt(hidden).
  auto weights = [&](std::vector<dim_t> dims, unsigned seed, const char *name) -> NodeValue {
    if (p.runTimeWeights)
      return input(M, dims, p.elem, name);
    Tensor t = randomTensor(Type(p.elem, dims), seed);
    if (H > 64 && p.elem == ElemKind::Float32)
      for (size_t i = 0; i < t.numElements(); ++i)
        t.dataAs<float>()[i] *= 0.05f;
    return M.createConstant(std::move(t), "c");
  };
  NodeValue w = weights({dirs, G * H, p.inputSize}, 11, "w");
  NodeValue r = weights({dirs, G * H, H}, 12, "r");
  Constant *b = constant(M, {dirs, 2 * G * H}, 13, p.elem);
  Placeholder *lens = input(M, {batch}, ElemKind::Int32, "lens");
  Placeholder *h0 = input(M, {dirs, batch, H}, p.elem, "h0");
  std::vector<NodeValue> ops{x, w, r, b, lens, h0};
  if (p.kind == NodeKind::LSTM) {
    ops.push_back(input(M, {dirs, batch, H}, p.elem, "c0"));
    ops.push_back(constant(M, {dirs, 3 * H}, 14, p.elem));
  }
  return node(F, p.kind, ops, recurrentAttrs(p));
}

RunOptions withLens(const std::vector<int32_t> &lens) {
  RunOptions o;
  o.pipeline = {"dce"};
  o.inputs.emplace("lens", Tensor::fromValues<int32_t>({dim_t(lens.size())}, lens));
  return o;
}

class RecurrentCases : public ::testing::TestWithParam<RecurrentCase> {};

TEST_P(RecurrentCases, MatchesInterpreter) {
  RecurrentCase p = GetParam();
  expectBackendsAgree(
      [p](Module &M, Function *F) -> std::vector<NodeValue> {
        Node *n = buildRecurrent(M, F, p);
        if (!n)
          return {NodeValue()};
        std::vector<NodeValue> outs;
        for (unsigned i = 0; i < n->getNumResults(); ++i)
          outs.push_back(NodeValue(n, i));
        return outs;
      },
      withLens(p.lens));
}

const std::vector<float> z1 = {0}, z2 = {0, 0}, z3 = {0, 0, 0}, z4 = {0, 0, 0, 0},
                         z6 = {0, 0, 0, 0, 0, 0};

INSTANTIATE_TEST_SUITE_P(
    RNN, RecurrentCases,
    ::testing::Values(
        RecurrentCase{NodeKind::RNN, "forward", ElemKind::Float32, "Tanh", z1, z1, 0, 0,
                      {5, 3, 0}, 5, 7, 17},
        RecurrentCase{NodeKind::RNN, "reverse", ElemKind::Float64, "Relu", z1, z1, 0, 0,
                      {4, 2}, 4, 3, 5},
        RecurrentCase{NodeKind::RNN, "bidirectional", ElemKind::Float16, "Sigmoid,Affine",
                      {0, 0.5f}, {0, -0.25f}, 0, 0, {3, 3, 1}, 3, 4, 6},
        RecurrentCase{NodeKind::RNN, "bidirectional", ElemKind::Float32, "LeakyRelu,Elu",
                      {0.1f, 0.7f}, z2, 0.8f, 0, {6, 2}, 6, 5, 9},
        RecurrentCase{NodeKind::RNN, "forward", ElemKind::Float32, "ThresholdedRelu", {0.3f},
                      z1, 0, 0, {4}, 4, 3, 4},
        RecurrentCase{NodeKind::RNN, "reverse", ElemKind::Float32, "ScaledTanh", {1.5f},
                      {0.6f}, 0, 0, {3, 1}, 3, 2, 5},
        RecurrentCase{NodeKind::RNN, "forward", ElemKind::Float32, "HardSigmoid", {0.2f},
                      {0.5f}, 0, 0, {4, 4}, 4, 3, 3},
        RecurrentCase{NodeKind::RNN, "bidirectional", ElemKind::Float64, "Softsign,Softplus",
                      z2, z2, 0, 0, {2, 5, 4}, 5, 3, 4},
        // The CPU backend's fast float32 kernel: a chunk of 128 gate rows and a tail of 32.
        RecurrentCase{NodeKind::RNN, "bidirectional", ElemKind::Float32, "Relu,Sigmoid", z2, z2,
                      0, 0, {6, 0, 4}, 6, 9, 150}));

INSTANTIATE_TEST_SUITE_P(
    GRU, RecurrentCases,
    ::testing::Values(
        RecurrentCase{NodeKind::GRU, "forward", ElemKind::Float32, "Sigmoid,Tanh", z2, z2, 0, 0,
                      {5, 2, 0}, 5, 6, 17},
        RecurrentCase{NodeKind::GRU, "forward", ElemKind::Float32, "Sigmoid,Tanh", z2, z2, 0, 1,
                      {5, 5}, 5, 3, 5},
        RecurrentCase{NodeKind::GRU, "reverse", ElemKind::Float64, "HardSigmoid,Softsign",
                      {0.2f, 0}, {0.5f, 0}, 0, 1, {3, 1, 2}, 3, 4, 4},
        RecurrentCase{NodeKind::GRU, "bidirectional", ElemKind::Float16,
                      "Sigmoid,Tanh,Sigmoid,ScaledTanh", {0, 0, 0, 0.9f}, {0, 0, 0, 1.1f}, 0,
                      0, {4, 2}, 4, 3, 6},
        RecurrentCase{NodeKind::GRU, "bidirectional", ElemKind::Float32,
                      "Sigmoid,Relu,Sigmoid,Elu", {0, 0, 0, 0.5f}, z4, 1.5f, 1, {3, 3, 2}, 3,
                      5, 7},
        // The CPU backend's fast kernel, both candidate forms, hidden sizes past a chunk.
        RecurrentCase{NodeKind::GRU, "bidirectional", ElemKind::Float32,
                      "Sigmoid,Tanh,Sigmoid,Tanh", z4, z4, 0, 1, {6, 0, 3}, 6, 11, 130},
        RecurrentCase{NodeKind::GRU, "reverse", ElemKind::Float32, "Sigmoid,Tanh", z2, z2, 0, 0,
                      {5, 2}, 5, 7, 40},
        // With constant W and R (packed at compile time) the fast kernel projects the input in
        // blocks of 32 steps of a batch row: 70 steps end in a block of 6, 33 in a block of 1;
        // the rows of a block are 4 rows of x apart. Hidden 72: weights of a trained layer's
        // scale (buildRecurrent), not a chaotic GRU.
        RecurrentCase{NodeKind::GRU, "bidirectional", ElemKind::Float32,
                      "Sigmoid,Tanh,Sigmoid,Tanh", z4, z4, 0, 0, {70, 33, 0, 31}, 70, 5, 72},
        // W and R known only at run time: the kernel packs them, and projects every step.
        RecurrentCase{NodeKind::GRU, "bidirectional", ElemKind::Float32,
                      "Sigmoid,Tanh,Sigmoid,Tanh", z4, z4, 0, 1, {12, 7}, 12, 6, 24, true}));

INSTANTIATE_TEST_SUITE_P(
    LSTM, RecurrentCases,
    ::testing::Values(
        RecurrentCase{NodeKind::LSTM, "forward", ElemKind::Float32, "Sigmoid,Tanh,Tanh", z3, z3,
                      0, 0, {5, 3, 0}, 5, 6, 17},
        RecurrentCase{NodeKind::LSTM, "reverse", ElemKind::Float32, "Sigmoid,Tanh,Tanh", z3, z3,
                      0, 1, {4, 1}, 4, 3, 5},
        RecurrentCase{NodeKind::LSTM, "bidirectional", ElemKind::Float64,
                      "Sigmoid,Tanh,Tanh,HardSigmoid,Softsign,Affine", {0, 0, 0, 0.3f, 0, 2.f},
                      {0, 0, 0, 0.4f, 0, -1.f}, 0, 0, {3, 2}, 3, 4, 4},
        RecurrentCase{NodeKind::LSTM, "bidirectional", ElemKind::Float16,
                      "Sigmoid,Tanh,Tanh,Sigmoid,Tanh,Tanh",
                      z6, z6, 0, 0, {2, 4, 3}, 4, 3, 5},
        RecurrentCase{NodeKind::LSTM, "forward", ElemKind::Float32, "Sigmoid,Softplus,Relu",
                      z3, z3, 0.5f, 0, {4, 4}, 4, 2, 6},
        // The CPU backend's fast kernel: peepholes, hidden 140 (chunks of 128 and 16).
        RecurrentCase{NodeKind::LSTM, "bidirectional", ElemKind::Float32,
                      "Sigmoid,Tanh,Tanh,Sigmoid,Tanh,Relu", z6, z6, 0, 0, {5, 2}, 5, 70, 140},
        // Blocks of 32 steps of the input's projection (as the GRU case above), both ways;
        // hidden 20, whose packed R (rows padded to 32) is larger than R.
        RecurrentCase{NodeKind::LSTM, "bidirectional", ElemKind::Float32,
                      "Sigmoid,Tanh,Tanh,Sigmoid,Tanh,Tanh", z6, z6, 0, 0, {33, 65, 64}, 65, 9,
                      20},
        RecurrentCase{NodeKind::LSTM, "reverse", ElemKind::Float32, "Sigmoid,Tanh,Tanh", z3, z3,
                      0, 0, {9, 4}, 9, 5, 36, true}));

TEST(RecurrentOps, FastKernelSplitsItsStepsOverThreads) {
  // Hidden 128: each step's gate products (4 x 128 x 128 multiply-adds) split over the team.
  for (NodeKind kind : {NodeKind::LSTM, NodeKind::GRU}) {
    RecurrentCase p{kind, "forward", ElemKind::Float32,
                    kind == NodeKind::LSTM ? "Sigmoid,Tanh,Tanh" : "Sigmoid,Tanh",
                    kind == NodeKind::LSTM ? z3 : z2, kind == NodeKind::LSTM ? z3 : z2,
                    0, 0, {8, 5}, 8, 20, 128};
    RunOptions opts = withLens(p.lens);
    opts.backend.threads = 2;
    expectBackendsAgree(
        [p](Module &M, Function *F) -> std::vector<NodeValue> {
          Node *n = buildRecurrent(M, F, p);
          std::vector<NodeValue> outs;
          for (unsigned i = 0; i < n->getNumResults(); ++i)
            outs.push_back(NodeValue(n, i));
          return outs;
        },
        opts);
  }
}

TEST(RecurrentOps, SequenceLengthOutOfRangeIsARunTimeError) {
  RecurrentCase p{NodeKind::LSTM, "forward", ElemKind::Float32, "Sigmoid,Tanh,Tanh", z3, z3,
                  0, 0, {2, 3}, 3, 2, 4};
  for (const std::string &backend : backendsUnderTest()) {
    SCOPED_TRACE(backend);
    for (int32_t bad : {4, -1}) {
      RunOptions o = withLens({2, bad});
      Outputs got = runOn(
          backend,
          [p](Module &M, Function *F) -> std::vector<NodeValue> {
            Node *n = buildRecurrent(M, F, p);
            return {NodeValue(n, 0)};
          },
          o);
      EXPECT_NE(got.error.find("sequence_lens"), std::string::npos) << got.error;
      EXPECT_NE(got.error.find("(lstm)"), std::string::npos) << got.error;
    }
    // In range, the same compiled graph runs.
    Outputs ok = runOn(
        backend,
        [p](Module &M, Function *F) -> std::vector<NodeValue> {
          return {NodeValue(buildRecurrent(M, F, p), 0)};
        },
        withLens({3, 0}));
    EXPECT_EQ(ok.error, "");
  }
}

} // namespace
