// The recognize-* passes (softmax, layernorm, gelu, hardswish) on the graphs torch 1.13 exports
// at opset 13 (written here as ONNX text, with variations): the rewritten structure, equal
// Interpreter results before and after, and near misses left alone.
#include "PassTestUtils.h"

#include <sstream>

using namespace ember;
using namespace ember::test;

namespace {

using Dims = std::vector<int64_t>;

std::string numberText(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

/// Builds an ONNX text model node by node; every value gets a fresh name.
class ModelText {
  std::string nodes_, inits_, inputs_, outputs_;
  int elemType_;
  unsigned next_ = 0;

  static std::string typeText(int elemType, const Dims &dims) {
    std::string s = "type { tensor_type { elem_type: " + std::to_string(elemType) + " shape {";
    for (int64_t d : dims)
      s += " dim { dim_value: " + std::to_string(d) + " }";
    return s + " } } }";
  }
  static std::string tensorBody(int elemType, const Dims &dims, const std::vector<double> &vals) {
    std::string s = "data_type: " + std::to_string(elemType);
    for (int64_t d : dims)
      s += " dims: " + std::to_string(d);
    const char *field = elemType == 7    ? " int64_data: "
                        : elemType == 11 ? " double_data: "
                                         : " float_data: ";
    for (double v : vals)
      s += field + numberText(v);
    return s;
  }

public:
  /// \p elemType is the ONNX element type of the float values (1 float32, 11 float64).
  explicit ModelText(int elemType = 1) : elemType_(elemType) {}

  std::string input(const std::string &name, const Dims &dims) {
    inputs_ += "  input { name: \"" + name + "\" " + typeText(elemType_, dims) + " }\n";
    return name;
  }
  void output(const std::string &name, const Dims &dims) {
    outputs_ += "  output { name: \"" + name + "\" " + typeText(elemType_, dims) + " }\n";
  }
  /// A node with one output; \p attrs is ONNX text for its attributes.
  std::string node(const std::string &op, const std::vector<std::string> &ins,
                   const std::string &attrs = "") {
    std::string out = "v" + std::to_string(next_++);
    nodes_ += "  node { op_type: \"" + op + "\"";
    for (const std::string &in : ins)
      nodes_ += " input: \"" + in + "\"";
    nodes_ += " output: \"" + out + "\" " + attrs + " }\n";
    return out;
  }
  /// A Constant node holding a scalar of the float type.
  std::string scalar(double v) {
    return node("Constant", {},
                "attribute { name: \"value\" type: TENSOR t { " + tensorBody(elemType_, {}, {v}) +
                    " } }");
  }
  /// A Constant node holding 1-D int64 values (ReduceSum's axes).
  std::string int64s(const Dims &vals) {
    std::vector<double> d(vals.begin(), vals.end());
    return node("Constant", {},
                "attribute { name: \"value\" type: TENSOR t { " +
                    tensorBody(7, {int64_t(vals.size())}, d) + " } }");
  }
  /// An initializer of the float type.
  std::string weight(const Dims &dims, const std::vector<double> &vals) {
    std::string name = "w" + std::to_string(next_++);
    inits_ +=
        "  initializer { name: \"" + name + "\" " + tensorBody(elemType_, dims, vals) + " }\n";
    return name;
  }
  std::string str() const {
    return "ir_version: 8\nopset_import { domain: \"\" version: 13 }\ngraph {\n  name: \"g\"\n" +
           nodes_ + inits_ + inputs_ + outputs_ + "}\n";
  }
};


/// Values that differ from each other (so a misplaced scale or bias changes the result).
std::vector<double> ramp(size_t n, double start, double step) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = start + step * double(i);
  return v;
}

int countUnary(const Function &F, const std::string &function) {
  int n = 0;
  for (const auto &node : F.getNodes())
    if (node->getKind() == NodeKind::Unary && node->attr<AttrKind::Function>() == function)
      ++n;
  return n;
}

const Node *findKind(const Function &F, NodeKind k) {
  for (const auto &node : F.getNodes())
    if (node->getKind() == k)
      return node.get();
  return nullptr;
}

const Dims kX = {2, 4, 8};

// ---------------------------------------------------------------------------------------------
// recognize-softmax

struct SoftmaxModel {
  bool stable = false;       ///< subtract ReduceMax first
  int64_t maxAxis = -1;      ///< ReduceMax's axis
  Dims sumAxes = {-1};       ///< ReduceSum's axes
  bool exportExp = false;    ///< the Exp is also a graph output (an extra user)
  bool separateExps = false; ///< numerator and sum read two different Exp nodes
  std::string str() const {
    ModelText m;
    std::string x = m.input("x", kX), z = x;
    if (stable) {
      std::string max =
          m.node("ReduceMax", {x}, intsAttr("axes", {maxAxis}) + intAttr("keepdims", 1));
      z = m.node("Sub", {x, max});
    }
    std::string e = m.node("Exp", {z});
    std::string e2 = separateExps ? m.node("Exp", {z}) : e;
    std::string sum = m.node("ReduceSum", {e2, m.int64s(sumAxes)}, intAttr("keepdims", 1));
    std::string y = m.node("Div", {e, sum});
    m.output(y, kX);
    if (exportExp)
      m.output(e, kX);
    return m.str();
  }
};

const std::string kSoftmax = "recognize-softmax";

TEST(RecognizeSoftmax, PlainForm) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(SoftmaxModel().str(), {kSoftmax, "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Softmax"], 1);
  EXPECT_EQ(counts["Unary"], 0);
  EXPECT_EQ(counts["Reduce"], 0);
  EXPECT_EQ(counts["Div"], 0);
  EXPECT_EQ(findKind(run.graph(), NodeKind::Softmax)->attr<AttrKind::Axis>(), 2);
}

TEST(RecognizeSoftmax, MaxSubtractedForm) {
  SoftmaxModel sm;
  sm.stable = true;
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(sm.str(), {kSoftmax, "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Softmax"], 1);
  EXPECT_EQ(counts["Sub"], 0);
  EXPECT_EQ(counts["Reduce"], 0);
  EXPECT_EQ(run.graph().size(), 2u); // Softmax and Save
}

TEST(RecognizeSoftmax, MiddleAxis) {
  SoftmaxModel sm;
  sm.stable = true;
  sm.maxAxis = 1;
  sm.sumAxes = {1};
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(sm.str(), {kSoftmax, "dce"}));
  EXPECT_EQ(run.graph().size(), 2u);
  const Node *softmax = findKind(run.graph(), NodeKind::Softmax);
  ASSERT_TRUE(softmax);
  EXPECT_EQ(softmax->attr<AttrKind::Axis>(), 1);
}

TEST(RecognizeSoftmax, MaxAlongAnotherAxisStaysAsInput) {
  // exp(z) / sum(exp(z)) is softmax(z) whatever z is; the max over axis 1 is not softmax's own
  // max subtraction (axis 2), so it stays and feeds the Softmax.
  SoftmaxModel sm;
  sm.stable = true;
  sm.maxAxis = 1;
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(sm.str(), {kSoftmax, "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Softmax"], 1);
  EXPECT_EQ(counts["Sub"], 1);
  EXPECT_EQ(counts["Reduce"], 1);
}

TEST(RecognizeSoftmax, ExpWithAnotherUserIsLeftAlone) {
  SoftmaxModel sm;
  sm.exportExp = true;
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(sm.str(), {kSoftmax, "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Softmax"], 0);
  EXPECT_EQ(counts["Div"], 1);
}

TEST(RecognizeSoftmax, SumOverTwoAxesIsLeftAlone) {
  SoftmaxModel sm;
  sm.sumAxes = {1, 2};
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(sm.str(), {kSoftmax, "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["Softmax"], 0);
}

TEST(RecognizeSoftmax, SumOfAnotherExpIsLeftAlone) {
  SoftmaxModel sm;
  sm.separateExps = true;
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(sm.str(), {kSoftmax, "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["Softmax"], 0);
}

// ---------------------------------------------------------------------------------------------
// recognize-layernorm

struct LayerNormModel {
  int elemType = 1;
  Dims axes = {-1};         ///< both ReduceMeans' axes
  Dims varAxes;             ///< the variance's axes when they differ from axes
  bool squareByMul = false; ///< d * d instead of Pow(d, 2)
  double exponent = 2;
  double eps = 1e-5;
  bool epsFolded = false; ///< eps as an initializer of the variance's dims
  bool exportVar = false; ///< the variance is also a graph output
  bool affine = true;
  Dims gammaDims = {8};
  std::vector<double> gamma = ramp(8, 0.5, 0.25);
  Dims betaDims = {8};
  std::vector<double> beta = ramp(8, -1, 0.3);

  Dims varDims() const {
    Dims d = kX;
    for (int64_t a : varAxes.empty() ? axes : varAxes)
      d[a < 0 ? a + 3 : a] = 1;
    return d;
  }
  std::string str() const {
    ModelText m(elemType);
    std::string x = m.input("x", kX);
    std::string mean = m.node("ReduceMean", {x}, intsAttr("axes", axes));
    std::string d = m.node("Sub", {x, mean});
    std::string sq = squareByMul ? m.node("Mul", {d, d}) : m.node("Pow", {d, m.scalar(exponent)});
    std::string var =
        m.node("ReduceMean", {sq}, intsAttr("axes", varAxes.empty() ? axes : varAxes));
    Dims vd = varDims();
    size_t vn = size_t(vd[0] * vd[1] * vd[2]);
    std::string epsV = epsFolded ? m.weight(vd, std::vector<double>(vn, eps)) : m.scalar(eps);
    std::string y = m.node("Div", {d, m.node("Sqrt", {m.node("Add", {var, epsV})})});
    if (affine) {
      y = m.node("Mul", {y, m.weight(gammaDims, gamma)});
      y = m.node("Add", {y, m.weight(betaDims, beta)});
    }
    m.output(y, kX);
    if (exportVar)
      m.output(var, vd);
    return m.str();
  }
};

const std::string kLayerNorm = "recognize-layernorm";

/// The only LayerNorm of \p F after checking that nothing of the decomposition is left.
const Node *onlyLayerNorm(const Function &F) {
  auto counts = kindCounts(F);
  EXPECT_EQ(counts["LayerNorm"], 1);
  EXPECT_EQ(counts["Reduce"], 0);
  EXPECT_EQ(counts["Pow"], 0);
  EXPECT_EQ(counts["Unary"], 0);
  EXPECT_EQ(counts["Div"], 0);
  return findKind(F, NodeKind::LayerNorm);
}

TEST(RecognizeLayerNorm, TorchLayerNormLastAxis) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectSameResults(LayerNormModel().str(), {kLayerNorm, "dce"}));
  const Node *ln = onlyLayerNorm(run.graph());
  ASSERT_TRUE(ln);
  EXPECT_EQ(run.graph().size(), 2u); // LayerNorm and Save: gamma and beta absorbed
  EXPECT_EQ(ln->attr<AttrKind::Axis>(), 2);
  EXPECT_FLOAT_EQ(ln->attr<AttrKind::Epsilon>(), 1e-5f);
  EXPECT_EQ(ln->getOperand(ops::LayerNorm::Scale).node->getKind(), NodeKind::Constant);
}

TEST(RecognizeLayerNorm, TwoTrailingAxes) {
  LayerNormModel ln;
  ln.axes = {-2, -1};
  ln.gammaDims = ln.betaDims = {4, 8};
  ln.gamma = ramp(32, 0.5, 0.05);
  ln.beta = ramp(32, -1, 0.07);
  ln.eps = 1e-3;
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(ln.str(), {kLayerNorm, "dce"}));
  const Node *n = onlyLayerNorm(run.graph());
  ASSERT_TRUE(n);
  EXPECT_EQ(run.graph().size(), 2u);
  EXPECT_EQ(n->attr<AttrKind::Axis>(), 1);
  EXPECT_FLOAT_EQ(n->attr<AttrKind::Epsilon>(), 1e-3f);
}

TEST(RecognizeLayerNorm, WithoutAffineGetsOnesAndZeros) {
  LayerNormModel ln;
  ln.affine = false;
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(ln.str(), {kLayerNorm, "dce"}));
  const Node *n = onlyLayerNorm(run.graph());
  ASSERT_TRUE(n);
  const Tensor &scale =
      static_cast<const Constant *>(n->getOperand(ops::LayerNorm::Scale).node)->getPayload();
  const Tensor &bias =
      static_cast<const Constant *>(n->getOperand(ops::LayerNorm::Bias).node)->getPayload();
  EXPECT_EQ(scale.getType().dims.size(), 1u);
  EXPECT_EQ(scale.elementAsDouble(3), 1.0);
  EXPECT_EQ(bias.elementAsDouble(3), 0.0);
}

TEST(RecognizeLayerNorm, SquareAsMulAndFloat64) {
  LayerNormModel ln;
  ln.squareByMul = true;
  ln.elemType = 11;
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(ln.str(), {kLayerNorm, "dce"}));
  ASSERT_TRUE(onlyLayerNorm(run.graph()));
  EXPECT_EQ(kindCounts(run.graph())["Mul"], 0);
}

TEST(RecognizeLayerNorm, GammaOfLowerRankIsBroadcastToTheNormalizedDims) {
  // Over the last two axes, gamma [8] and beta [1, 8] broadcast along axis 1.
  LayerNormModel ln;
  ln.axes = {1, 2};
  ln.betaDims = {1, 8};
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(ln.str(), {kLayerNorm, "dce"}));
  const Node *n = onlyLayerNorm(run.graph());
  ASSERT_TRUE(n);
  EXPECT_EQ(n->getOperand(ops::LayerNorm::Scale).getType().dims, DimsVec({4, 8}));
  EXPECT_EQ(kindCounts(run.graph())["Mul"], 0);
  EXPECT_EQ(kindCounts(run.graph())["Add"], 0);
}

TEST(RecognizeLayerNorm, FoldedConstants) {
  // What constant folding makes of the importer's Broadcasts: eps of the variance's dims, and
  // gamma/beta of x's dims repeating one [8] block.
  LayerNormModel ln;
  ln.epsFolded = true;
  ln.gammaDims = ln.betaDims = kX;
  ln.gamma.clear();
  ln.beta.clear();
  for (int i = 0; i < 8; ++i)
    for (int k = 0; k < 8; ++k) {
      ln.gamma.push_back(0.5 + 0.25 * k);
      ln.beta.push_back(-1 + 0.3 * k);
    }
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(ln.str(), {kLayerNorm, "dce"}));
  const Node *n = onlyLayerNorm(run.graph());
  ASSERT_TRUE(n);
  EXPECT_EQ(run.graph().size(), 2u);
  EXPECT_EQ(n->getOperand(ops::LayerNorm::Bias).getType().dims, DimsVec({8}));
}

TEST(RecognizeLayerNorm, GammaVaryingAlongANormalizedOutAxisStaysOutside) {
  // gamma [4, 1] varies along axis 1, which the norm over axis 2 does not cover: the norm is
  // recognized, the Mul (and the Add after it) stay.
  LayerNormModel ln;
  ln.gammaDims = {4, 1};
  ln.gamma = {0.5, 1.5, -2, 3};
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(ln.str(), {kLayerNorm, "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["LayerNorm"], 1);
  EXPECT_EQ(counts["Mul"], 1);
  EXPECT_EQ(counts["Add"], 1);
}

TEST(RecognizeLayerNorm, NonRepeatingFullGammaStaysOutside) {
  LayerNormModel ln;
  ln.gammaDims = kX;
  ln.gamma = ramp(64, -2, 0.07);
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(ln.str(), {kLayerNorm, "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["LayerNorm"], 1);
  EXPECT_EQ(counts["Mul"], 1);
}

TEST(RecognizeLayerNorm, NonTrailingAxisIsLeftAlone) {
  LayerNormModel ln;
  ln.axes = {1};
  ln.affine = false;
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(ln.str(), {kLayerNorm, "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["LayerNorm"], 0);
}

TEST(RecognizeLayerNorm, VarianceOverOtherAxesIsLeftAlone) {
  LayerNormModel ln;
  ln.axes = {-1};
  ln.varAxes = {1, 2};
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(ln.str(), {kLayerNorm, "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["LayerNorm"], 0);
}

TEST(RecognizeLayerNorm, WrongExponentIsLeftAlone) {
  LayerNormModel ln;
  ln.exponent = 3;
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(ln.str(), {kLayerNorm, "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["LayerNorm"], 0);
}

TEST(RecognizeLayerNorm, VarianceWithAnotherUserIsLeftAlone) {
  LayerNormModel ln;
  ln.exportVar = true;
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(ln.str(), {kLayerNorm, "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["LayerNorm"], 0);
}

// ---------------------------------------------------------------------------------------------
// recognize-gelu

enum class GeluForm {
  TorchErf,  ///< ((x * (erf(x / sqrt2) + 1)) * 0.5), torch's nn.GELU()
  HalfFirst, ///< (x * 0.5) * (1 + erf(x * (1/sqrt2))), as Hugging Face writes it
  DivByTwo,  ///< (x * (1 + erf(x / sqrt2))) / 2
  TorchTanh, ///< 0.5 * (x * (1 + tanh(c * (x + 0.044715 * (x * (x * x)))))), nn.GELU('tanh')
  PowTanh,   ///< x * 0.5 * (1 + tanh(c * (x + 0.044715 * x^3))) with Pow(x, 3)
};

struct GeluModel {
  GeluForm form = GeluForm::TorchErf;
  double sqrt2 = 1.4142135623730951;
  double half = 0.5;
  double one = 1;
  double coeff = 0.044715;
  double sqrt2OverPi = 0.7978845608028654;
  bool exportInner = false; ///< the erf/tanh is also a graph output
  bool otherInput = false;  ///< erf/tanh of another input than the one multiplied

  std::string str() const {
    ModelText m;
    std::string x = m.input("x", kX);
    std::string xi = otherInput ? m.input("x2", kX) : x;
    std::string inner, y;
    switch (form) {
    case GeluForm::TorchErf:
    case GeluForm::DivByTwo:
      inner = m.node("Erf", {m.node("Div", {xi, m.scalar(sqrt2)})});
      break;
    case GeluForm::HalfFirst:
      inner = m.node("Erf", {m.node("Mul", {xi, m.scalar(1 / sqrt2)})});
      break;
    case GeluForm::TorchTanh:
    case GeluForm::PowTanh: {
      std::string cube = form == GeluForm::TorchTanh ? m.node("Mul", {xi, m.node("Mul", {xi, xi})})
                                                     : m.node("Pow", {xi, m.scalar(3)});
      std::string w = m.node("Add", {xi, m.node("Mul", {m.scalar(coeff), cube})});
      inner = m.node("Tanh", {m.node("Mul", {m.scalar(sqrt2OverPi), w})});
      break;
    }
    }
    switch (form) {
    case GeluForm::TorchErf:
      y = m.node("Mul",
                 {m.node("Mul", {x, m.node("Add", {inner, m.scalar(one)})}), m.scalar(half)});
      break;
    case GeluForm::HalfFirst:
    case GeluForm::PowTanh:
      y = m.node("Mul",
                 {m.node("Mul", {x, m.scalar(half)}), m.node("Add", {m.scalar(one), inner})});
      break;
    case GeluForm::DivByTwo:
      y = m.node("Div",
                 {m.node("Mul", {x, m.node("Add", {m.scalar(one), inner})}), m.scalar(1 / half)});
      break;
    case GeluForm::TorchTanh:
      y = m.node("Mul",
                 {m.scalar(half), m.node("Mul", {x, m.node("Add", {m.scalar(one), inner})})});
      break;
    }
    m.output(y, kX);
    if (exportInner)
      m.output(inner, kX);
    return m.str();
  }
};

const std::string kGelu = "recognize-gelu";

/// Runs \p model through recognize-gelu and expects only \p function (and the Save) left.
void expectGelu(const GeluModel &model, const std::string &function) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(model.str(), {kGelu, "dce"}));
  EXPECT_EQ(countUnary(run.graph(), function), 1);
  EXPECT_EQ(run.graph().size(), 2u);
}

/// Runs \p model through recognize-gelu and expects no gelu of either kind.
void expectNoGelu(const GeluModel &model) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(model.str(), {kGelu, "dce"}));
  EXPECT_EQ(countUnary(run.graph(), "gelu") + countUnary(run.graph(), "gelu_tanh"), 0);
}

TEST(RecognizeGelu, TorchErfForm) { expectGelu(GeluModel(), "gelu"); }

TEST(RecognizeGelu, ErfFormHalfFirst) {
  GeluModel g;
  g.form = GeluForm::HalfFirst;
  expectGelu(g, "gelu");
}

TEST(RecognizeGelu, ErfFormDividedByTwo) {
  GeluModel g;
  g.form = GeluForm::DivByTwo;
  expectGelu(g, "gelu");
}

TEST(RecognizeGelu, ErfFormWithFloat32Constants) {
  // The constants as torch writes them: float32 roundings, within the tolerance.
  GeluModel g;
  g.sqrt2 = double(1.41421356f);
  expectGelu(g, "gelu");
}

TEST(RecognizeGelu, TorchTanhForm) {
  GeluModel g;
  g.form = GeluForm::TorchTanh;
  g.sqrt2OverPi = double(0.7978846f);
  expectGelu(g, "gelu_tanh");
}

TEST(RecognizeGelu, TanhFormWithPow) {
  GeluModel g;
  g.form = GeluForm::PowTanh;
  expectGelu(g, "gelu_tanh");
}

TEST(RecognizeGelu, WrongConstantsAreLeftAlone) {
  GeluModel g;
  g.sqrt2 = 1.5;
  expectNoGelu(g);
  g = GeluModel();
  g.half = 0.4;
  expectNoGelu(g);
  g = GeluModel();
  g.one = 1.001;
  expectNoGelu(g);
  g = GeluModel();
  g.form = GeluForm::TorchTanh;
  g.coeff = 0.0447;
  expectNoGelu(g);
  g.coeff = 0.044715;
  g.sqrt2OverPi = 0.79;
  expectNoGelu(g);
}

TEST(RecognizeGelu, InnerWithAnotherUserIsLeftAlone) {
  GeluModel g;
  g.exportInner = true;
  expectNoGelu(g);
  g.form = GeluForm::TorchTanh;
  expectNoGelu(g);
}

TEST(RecognizeGelu, DifferentInputsAreLeftAlone) {
  GeluModel g;
  g.otherInput = true;
  expectNoGelu(g);
  g.form = GeluForm::PowTanh;
  expectNoGelu(g);
}

// ---------------------------------------------------------------------------------------------
// recognize-hardswish

struct HardSwishModel {
  bool hardSigmoid = false; ///< x * HardSigmoid(x), else x * Clip([Relu](x + 3), 0, 6) / 6
  double alpha = 1.0 / 6;
  bool relu = true; ///< torch's relu6: Relu, then Clip(0, 6)
  double three = 3, low = 0, high = 6;
  bool multiplyBySixth = false;
  bool exportClip = false; ///< the Clip (or HardSigmoid) is also a graph output

  std::string str() const {
    ModelText m;
    std::string x = m.input("x", kX), gate, y;
    if (hardSigmoid) {
      gate = m.node("HardSigmoid", {x}, floatAttr("alpha", alpha));
      y = m.node("Mul", {x, gate});
    } else {
      std::string a = m.node("Add", {x, m.scalar(three)});
      if (relu)
        a = m.node("Relu", {a});
      gate = m.node("Clip", {a, m.scalar(low), m.scalar(high)});
      std::string p = m.node("Mul", {x, gate});
      y = multiplyBySixth ? m.node("Mul", {p, m.scalar(1.0 / 6)}) : m.node("Div", {p, m.scalar(6)});
    }
    m.output(y, kX);
    if (exportClip)
      m.output(gate, kX);
    return m.str();
  }
};

const std::string kHardSwish = "recognize-hardswish";

void expectHardSwish(const HardSwishModel &model, int count) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(model.str(), {kHardSwish, "dce"}));
  EXPECT_EQ(countUnary(run.graph(), "hard_swish"), count);
  if (count) {
    EXPECT_EQ(run.graph().size(), 2u);
  }
}

TEST(RecognizeHardSwish, TorchHardswishAsHardSigmoid) {
  HardSwishModel h;
  h.hardSigmoid = true;
  h.alpha = double(1.0f / 6.0f);
  expectHardSwish(h, 1);
}

TEST(RecognizeHardSwish, TorchRelu6Form) { expectHardSwish(HardSwishModel(), 1); }

TEST(RecognizeHardSwish, ClipTimesSixthForm) {
  HardSwishModel h;
  h.relu = false;
  h.multiplyBySixth = true;
  expectHardSwish(h, 1);
}

TEST(RecognizeHardSwish, WrongConstantsAreLeftAlone) {
  HardSwishModel h;
  h.hardSigmoid = true;
  h.alpha = 0.2; // ONNX's default HardSigmoid
  expectHardSwish(h, 0);
  h = HardSwishModel();
  h.three = 2;
  expectHardSwish(h, 0);
  h = HardSwishModel();
  h.high = 5;
  expectHardSwish(h, 0);
  h = HardSwishModel();
  h.relu = false;
  h.low = -1;
  expectHardSwish(h, 0);
}

TEST(RecognizeHardSwish, GateWithAnotherUserIsLeftAlone) {
  HardSwishModel h;
  h.exportClip = true;
  expectHardSwish(h, 0);
  h.hardSigmoid = true;
  expectHardSwish(h, 0);
}

// ---------------------------------------------------------------------------------------------
// recognize-silu

struct SiluModel {
  bool gateFirst = false;   ///< Sigmoid(x) * x rather than x * Sigmoid(x)
  bool otherInput = false;  ///< x * Sigmoid(z): not a SiLU
  bool exportGate = false;  ///< the Sigmoid is also a graph output
  int elemType = 1;

  std::string str() const {
    ModelText m(elemType);
    std::string x = m.input("x", kX), z = otherInput ? m.input("z", kX) : x;
    std::string gate = m.node("Sigmoid", {z});
    std::string y = gateFirst ? m.node("Mul", {gate, x}) : m.node("Mul", {x, gate});
    m.output(y, kX);
    if (exportGate)
      m.output(gate, kX);
    return m.str();
  }
};

void expectSilu(const SiluModel &model, int count) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectSameResults(model.str(), {"recognize-silu", "dce"}));
  EXPECT_EQ(countUnary(run.graph(), "silu"), count);
  if (!count)
    return;
  EXPECT_EQ(run.graph().size(), 2u) << "the Unary and the Save";
  // ember_silu is x * ember_sigmoid(x) in the same compute type: the separate nodes' bits.
  ASSERT_OK_AND_ASSIGN(PipelineRun ref, runPipeline(model.str(), {"dce"}));
  EXPECT_TRUE(run.outputs[0].bitwiseEqual(ref.outputs[0]));
}

TEST(RecognizeSilu, EitherOperandOrder) {
  SiluModel s;
  expectSilu(s, 1);
  s.gateFirst = true;
  expectSilu(s, 1);
  s.elemType = 11; // float64
  expectSilu(s, 1);
}

TEST(RecognizeSilu, NearMissesAreLeftAlone) {
  SiluModel s;
  s.otherInput = true;
  expectSilu(s, 0);
  s = SiluModel();
  s.exportGate = true;
  expectSilu(s, 0);
  s = SiluModel();
  s.elemType = 10; // float16 rounds the Sigmoid before the Mul
  expectSilu(s, 0);
}

} // namespace
