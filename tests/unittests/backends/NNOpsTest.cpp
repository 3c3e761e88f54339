// The NN family (convolution, matrix products, pooling) against the Interpreter, beyond the
// fast float32 2-D kernels that CPUBackendTest.cpp covers: N-D convolution and pooling, every
// element kind the reference runs (float64, float16, bfloat16; int8/uint8 MaxPool; integer
// MatMul with wrapping), ConvTranspose with every attribute, LpPool, MaxUnpool and MaxRoiPool,
// special values, and the run-time errors of MaxUnpool and MaxRoiPool.
#include "BackendTestUtils.h"

#include "ember/Graph/FusedActivations.h"

#include <cmath>
#include <limits>

using namespace ember;
using namespace ember::test;

namespace {

/// Sets FusedConv/FusedMatMul's activation (a row of Nodes/FusedActivations.def, or "" for
/// none) with as many arguments as it takes: 0.2 then 0.5 (a valid Clip, LeakyRelu, HardSigmoid).
void setActivation(AttrList &a, const std::string &act) {
  const FusedActivationInfo *info = findFusedActivation(act);
  std::vector<float> args = {0.2f, 0.5f};
  args.resize(info ? info->arity : 0);
  a.set<AttrKind::FusedActivation>(act).set<AttrKind::FusedActivationArgs>(args);
}

/// "" (no activation) and every row of Nodes/FusedActivations.def: a new row is tested here.
std::vector<std::string> allActivations() {
  std::vector<std::string> names = {""};
  for (const FusedActivationInfo &r : fusedActivations())
    names.push_back(r.name.str());
  return names;
}
const std::vector<std::string> kActivations = allActivations();

std::string str(const std::vector<int64_t> &v) { return intsToString(v); }
std::string str(const std::vector<dim_t> &v) {
  return intsToString(std::vector<int64_t>(v.begin(), v.end()));
}

// --- Convolution -------------------------------------------------------------------------------

struct ConvNdCase {
  ElemKind kind;
  std::vector<dim_t> input; // N, C, spatial...
  dim_t outChannels;
  std::vector<int64_t> kernels, strides, pads, dilations;
  int64_t group;
};

void PrintTo(const ConvNdCase &c, std::ostream *os) {
  *os << elemKindName(c.kind).str() << " input " << str(c.input) << " K " << c.outChannels
      << " kernels " << str(c.kernels) << " strides " << str(c.strides) << " pads "
      << str(c.pads) << " dilations " << str(c.dilations) << " group " << c.group;
}

class NNConvNd : public ::testing::TestWithParam<ConvNdCase> {};

TEST_P(NNConvNd, ConvAndFusedConvMatchInterpreter) {
  ConvNdCase p = GetParam();
  expectBackendsAgree([&](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, p.input, p.kind);
    std::vector<dim_t> fdims = {p.outChannels, p.input[1] / dim_t(p.group)};
    for (int64_t k : p.kernels)
      fdims.push_back(dim_t(k));
    Constant *w = constant(M, fdims, 7, p.kind);
    Constant *b = constant(M, {p.outChannels}, 8, p.kind);
    AttrList a = convAttrs(p.kernels, p.strides, p.pads, p.dilations, p.group);
    std::vector<NodeValue> outs = {node(F, NodeKind::Conv, {x, w, b}, a)};
    for (const std::string &act : kActivations) {
      AttrList fused = a;
      setActivation(fused, act);
      outs.push_back(node(F, NodeKind::FusedConv, {x, w, b}, fused));
    }
    return outs;
  });
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, NNConvNd,
    ::testing::Values(
        // 3-D float32 (the generic path): padding, stride, dilation, groups, odd sizes.
        ConvNdCase{ElemKind::Float32, {2, 4, 5, 7, 9}, 6, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1},
                   {1, 1, 1}, 1},
        ConvNdCase{ElemKind::Float32, {1, 4, 6, 8, 71}, 4, {2, 3, 3}, {2, 1, 2},
                   {0, 1, 2, 1, 0, 1}, {1, 2, 1}, 2},
        ConvNdCase{ElemKind::Float32, {1, 3, 4, 5, 6}, 6, {1, 2, 2}, {1, 2, 2}, {0, 0, 0, 0, 0, 0},
                   {1, 1, 1}, 3},
        // 5 output channels (register blocks of 4 and 1), stride 3 along a row of 37.
        ConvNdCase{ElemKind::Float32, {1, 3, 5, 6, 37}, 5, {2, 2, 4}, {1, 2, 3},
                   {1, 0, 1, 1, 1, 2}, {2, 1, 2}, 1},
        // 4 spatial dims.
        ConvNdCase{ElemKind::Float32, {1, 2, 3, 4, 5, 6}, 3, {2, 2, 3, 2}, {1, 1, 2, 1},
                   {1, 0, 1, 0, 0, 1, 1, 1}, {1, 2, 1, 1}, 1},
        // The other float kinds, 1-D, 2-D and 3-D.
        ConvNdCase{ElemKind::Float16, {2, 4, 9, 11}, 6, {3, 3}, {2, 1}, {1, 1, 1, 1}, {1, 2}, 2},
        ConvNdCase{ElemKind::BFloat16, {1, 3, 10, 7}, 5, {3, 2}, {1, 1}, {2, 0, 1, 1}, {1, 1}, 1},
        ConvNdCase{ElemKind::Float64, {2, 6, 13, 8}, 4, {2, 3}, {1, 2}, {1, 1, 0, 2}, {2, 1}, 2},
        ConvNdCase{ElemKind::Float16, {1, 3, 100}, 2, {5}, {1}, {2, 2}, {1}, 1},
        ConvNdCase{ElemKind::Float64, {1, 2, 4, 5, 6}, 2, {3, 1, 2}, {1, 1, 1}, {1, 0, 1, 1, 0, 0},
                   {1, 1, 2}, 2}));

struct ConvTransposeCase {
  ElemKind kind;
  std::vector<dim_t> input;
  dim_t outChannelsPerGroup;
  std::vector<int64_t> kernels, strides, pads, dilations, outputPadding;
  int64_t group;
};

void PrintTo(const ConvTransposeCase &c, std::ostream *os) {
  *os << elemKindName(c.kind).str() << " input " << str(c.input) << " K/group "
      << c.outChannelsPerGroup << " kernels " << str(c.kernels) << " strides " << str(c.strides)
      << " pads " << str(c.pads) << " dilations " << str(c.dilations) << " output_padding "
      << str(c.outputPadding) << " group " << c.group;
}

class NNConvTranspose : public ::testing::TestWithParam<ConvTransposeCase> {};

TEST_P(NNConvTranspose, MatchesInterpreter) {
  ConvTransposeCase p = GetParam();
  expectBackendsAgree([&](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, p.input, p.kind);
    std::vector<dim_t> fdims = {p.input[1], p.outChannelsPerGroup};
    for (int64_t k : p.kernels)
      fdims.push_back(dim_t(k));
    Constant *w = constant(M, fdims, 7, p.kind);
    Constant *b = constant(M, {p.outChannelsPerGroup * dim_t(p.group)}, 8, p.kind);
    AttrList a = convAttrs(p.kernels, p.strides, p.pads, p.dilations, p.group);
    a.set<AttrKind::OutputPadding>(p.outputPadding);
    return {node(F, NodeKind::ConvTranspose, {x, w, b}, a)};
  });
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, NNConvTranspose,
    ::testing::Values(
        ConvTransposeCase{ElemKind::Float32, {1, 3, 9}, 2, {3}, {1}, {0, 0}, {1}, {0}, 1},
        ConvTransposeCase{ElemKind::Float32, {2, 4, 5, 7}, 3, {3, 3}, {2, 2}, {1, 1, 1, 1},
                          {1, 1}, {1, 1}, 2},
        // Dilation, unequal strides, pads and output_padding, a row longer than one block.
        ConvTransposeCase{ElemKind::Float32, {1, 2, 4, 40}, 3, {2, 3}, {3, 2}, {1, 0, 0, 2},
                          {2, 2}, {2, 1}, 1},
        // Negative pads (an output_shape larger than the scattered extent).
        ConvTransposeCase{ElemKind::Float32, {1, 2, 3, 3}, 2, {3, 3}, {2, 2}, {-1, 0, -2, -1},
                          {1, 1}, {0, 0}, 1},
        ConvTransposeCase{ElemKind::Float32, {1, 4, 3, 4, 5}, 2, {3, 2, 3}, {2, 1, 2},
                          {1, 0, 1, 0, 1, 1}, {1, 2, 1}, {1, 0, 1}, 2},
        // 5 output channels, stride 3 (three phases), output_padding 2.
        ConvTransposeCase{ElemKind::Float32, {1, 2, 5, 19}, 5, {3, 4}, {1, 3}, {1, 1, 0, 2},
                          {1, 2}, {0, 2}, 1},
        ConvTransposeCase{ElemKind::Float16, {1, 3, 5, 6}, 2, {3, 3}, {2, 1}, {0, 1, 1, 0},
                          {1, 1}, {1, 0}, 1},
        ConvTransposeCase{ElemKind::BFloat16, {2, 2, 7}, 3, {4}, {3}, {1, 2}, {2}, {2}, 1},
        ConvTransposeCase{ElemKind::Float64, {1, 6, 4, 4}, 1, {2, 2}, {2, 2}, {0, 0, 0, 0},
                          {1, 1}, {0, 0}, 3}));

// --- Pooling -----------------------------------------------------------------------------------

struct PoolCase {
  ElemKind kind;
  std::vector<dim_t> input;
  std::vector<int64_t> kernels, strides, pads, dilations;
  int64_t ceil;
};

void PrintTo(const PoolCase &c, std::ostream *os) {
  *os << elemKindName(c.kind).str() << " input " << str(c.input) << " kernels "
      << str(c.kernels) << " strides " << str(c.strides) << " pads " << str(c.pads)
      << " dilations " << str(c.dilations) << " ceil " << c.ceil;
}

class NNPool : public ::testing::TestWithParam<PoolCase> {};

TEST_P(NNPool, MaxPoolAvgPoolLpPoolMatchInterpreter) {
  PoolCase p = GetParam();
  bool floatKind = p.kind != ElemKind::Int8 && p.kind != ElemKind::UInt8;
  expectBackendsAgree([&](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, p.input, p.kind);
    std::vector<NodeValue> outs;
    for (int64_t order : {0, 1}) {
      AttrList mp;
      mp.set<AttrKind::Kernels>(p.kernels)
          .set<AttrKind::Strides>(p.strides)
          .set<AttrKind::Pads>(p.pads)
          .set<AttrKind::Dilations>(p.dilations)
          .set<AttrKind::CeilMode>(p.ceil)
          .set<AttrKind::StorageOrder>(order);
      Node *maxPool = node(F, NodeKind::MaxPool, {x}, mp);
      outs.push_back(NodeValue(maxPool, 0));
      outs.push_back(NodeValue(maxPool, 1));
    }
    if (!floatKind)
      return outs;
    for (int64_t countPad : {0, 1}) {
      AttrList ap;
      ap.set<AttrKind::Kernels>(p.kernels)
          .set<AttrKind::Strides>(p.strides)
          .set<AttrKind::Pads>(p.pads)
          .set<AttrKind::Dilations>(p.dilations)
          .set<AttrKind::CeilMode>(p.ceil)
          .set<AttrKind::CountIncludePad>(countPad);
      outs.push_back(node(F, NodeKind::AvgPool, {x}, ap));
    }
    for (float norm : {1.f, 2.f, 3.f, 1.5f}) {
      AttrList lp;
      lp.set<AttrKind::Kernels>(p.kernels)
          .set<AttrKind::Strides>(p.strides)
          .set<AttrKind::Pads>(p.pads)
          .set<AttrKind::Dilations>(p.dilations)
          .set<AttrKind::CeilMode>(p.ceil)
          .set<AttrKind::P>(norm);
      outs.push_back(node(F, NodeKind::LpPool, {x}, lp));
    }
    return outs;
  });
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, NNPool,
    ::testing::Values(
        PoolCase{ElemKind::Float32, {2, 3, 5, 6, 7}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0},
                 {1, 1, 1}, 0},
        PoolCase{ElemKind::Float32, {1, 2, 7, 8, 9}, {3, 2, 3}, {2, 2, 2}, {1, 0, 1, 1, 1, 0},
                 {1, 1, 2}, 1},
        PoolCase{ElemKind::Float32, {1, 2, 3, 4, 5, 6}, {2, 2, 2, 3}, {1, 2, 1, 2},
                 {0, 1, 0, 1, 1, 0, 1, 1}, {1, 1, 2, 1}, 0},
        // float32 1-D and 2-D take the fast kernels for MaxPool/AvgPool (undilated), LpPool the
        // generic.
        PoolCase{ElemKind::Float32, {2, 3, 11, 13}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 2}, 0},
        PoolCase{ElemKind::Float32, {1, 2, 30}, {4}, {3}, {2, 1}, {1}, 1},
        PoolCase{ElemKind::Float16, {2, 3, 9, 10}, {3, 2}, {2, 1}, {1, 0, 1, 1}, {1, 1}, 1},
        PoolCase{ElemKind::BFloat16, {1, 2, 5, 6, 7}, {2, 3, 2}, {1, 2, 1}, {1, 1, 0, 0, 1, 1},
                 {2, 1, 1}, 0},
        PoolCase{ElemKind::Float64, {1, 3, 17}, {3}, {2}, {1, 1}, {2}, 1},
        PoolCase{ElemKind::Float64, {2, 2, 6, 7}, {3, 3}, {1, 2}, {1, 1, 1, 1}, {1, 1}, 0},
        PoolCase{ElemKind::UInt8, {1, 3, 8, 9}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1},
        PoolCase{ElemKind::Int8, {2, 2, 4, 5, 6}, {2, 2, 3}, {2, 1, 2}, {1, 0, 1, 0, 1, 2},
                 {1, 2, 1}, 0}));

TEST(NNPool, WindowsOfPaddingAloneAndSpecialValues) {
  // Pads as wide as the kernel: the corner windows see padding only (lowest value, index -1,
  // average 0 without count_include_pad). NaN and infinities in the input: the first NaN of a
  // window stays, a later one never wins.
  float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float16, ElemKind::Float64}) {
    for (size_t rank : {4u, 5u}) {
      SCOPED_TRACE(elemKindName(k).str() + " rank " + std::to_string(rank));
      std::vector<dim_t> dims = rank == 4 ? std::vector<dim_t>{1, 2, 4, 5}
                                          : std::vector<dim_t>{1, 2, 2, 4, 5};
      size_t count = dimsProduct(dims);
      std::vector<double> values(count);
      for (size_t i = 0; i < count; ++i)
        values[i] = double(int(i * 7 % 11) - 5);
      values[0] = nan, values[3] = nan, values[6] = inf, values[9] = -inf, values[27] = nan;
      size_t n = rank - 2;
      RunOptions opts;
      opts.pipeline = {"dce"};
      opts.inputs["x"] = tensorOf(k, dims, values);
      expectBackendsAgree(
          [&](Module &M, Function *F) -> std::vector<NodeValue> {
            Placeholder *x = input(M, dims, k, "x");
            Node *maxPool = node(F, NodeKind::MaxPool, {x},
                                 maxPoolAttrs(std::vector<int64_t>(n, 2),
                                              std::vector<int64_t>(n, 1),
                                              std::vector<int64_t>(2 * n, 2),
                                              std::vector<int64_t>(n, 1), 0));
            AttrList ap;
            ap.set<AttrKind::Kernels>(std::vector<int64_t>(n, 2))
                .set<AttrKind::Strides>(std::vector<int64_t>(n, 1))
                .set<AttrKind::Pads>(std::vector<int64_t>(2 * n, 2))
                .set<AttrKind::Dilations>(std::vector<int64_t>(n, 1))
                .set<AttrKind::CeilMode>(0)
                .set<AttrKind::CountIncludePad>(0);
            return {NodeValue(maxPool, 0), NodeValue(maxPool, 1),
                    node(F, NodeKind::AvgPool, {x}, ap)};
          },
          opts);
    }
  }
}

// --- MaxUnpool and MaxRoiPool ------------------------------------------------------------------

TEST(NNPool, MaxUnpoolOfMaxPoolIndices) {
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float16, ElemKind::Float64}) {
    for (std::vector<dim_t> dims : {std::vector<dim_t>{2, 3, 6, 7}, {1, 2, 4, 5, 6}}) {
      SCOPED_TRACE(elemKindName(k).str());
      size_t n = dims.size() - 2;
      expectBackendsAgree([&](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, dims, k);
        Node *maxPool = node(F, NodeKind::MaxPool, {x},
                             maxPoolAttrs(std::vector<int64_t>(n, 2), std::vector<int64_t>(n, 2),
                                          std::vector<int64_t>(2 * n, 0),
                                          std::vector<int64_t>(n, 1), 1));
        std::vector<NodeValue> outs;
        for (int64_t pad : {0, 1}) {
          AttrList up;
          std::vector<int64_t> unpooled(dims.begin(), dims.end());
          std::vector<int64_t> pads(2 * n, pad);
          if (pad)
            pads[0] = 0, pads[2 * n - 1] = 2;
          up.set<AttrKind::Dims>(unpooled).set<AttrKind::Pads>(pads);
          outs.push_back(node(F, NodeKind::MaxUnpool,
                              {NodeValue(maxPool, 0), NodeValue(maxPool, 1)}, up));
        }
        return outs;
      });
    }
  }
}

/// Builds Input -> node(kind, {x, second}) -> Save, compiles it for CPU with feeds, runs it and
/// returns the error text ("" when it ran).
std::string runOnCPU(NodeKind kind, Type xType, Type secondType, AttrList attrs,
                     const Tensor &x, const Tensor &second) {
  auto M = std::make_unique<Module>();
  Function *F = M->createFunction(kMainFunctionName);
  Placeholder *xp = M->createPlaceholder(xType, "x");
  Placeholder *sp = M->createPlaceholder(secondType, "s");
  auto n = F->createNode(kind, "pool", {xp, sp}, attrs);
  if (!n)
    return "graph: " + errorToString(n.takeError());
  Placeholder *out = M->createPlaceholder((*n)->getType(0), "out");
  if (auto s = F->createNode(NodeKind::Save, "save", {NodeValue(*n, 0), out}); !s)
    return "graph: " + errorToString(s.takeError());
  CompileOptions opts;
  opts.backend = "CPU";
  opts.pipeline = {"dce"};
  auto cm = CompiledModel::compile(std::move(M), opts);
  if (!cm)
    return "compile: " + errorToString(cm.takeError());
  if (auto e = (*cm)->setInput("x", x))
    return "input: " + errorToString(std::move(e));
  if (auto e = (*cm)->setInput("s", second))
    return "input: " + errorToString(std::move(e));
  return errorToString((*cm)->run());
}

TEST(NNPool, MaxUnpoolIndexOutOfRangeIsARunTimeError) {
  AttrList up;
  up.set<AttrKind::Dims>({1, 1, 2, 3}).set<AttrKind::Pads>({0, 0, 0, 0});
  Type x(ElemKind::Float32, {1, 1, 1, 2}), idx(ElemKind::Int64, {1, 1, 1, 2});
  Tensor xv = tensorOf(ElemKind::Float32, {1, 1, 1, 2}, {1, 2});
  EXPECT_EQ(runOnCPU(NodeKind::MaxUnpool, x, idx, up, xv,
                     tensorOf(ElemKind::Int64, {1, 1, 1, 2}, {0, 5})),
            "");
  for (double bad : {6.0, -1.0}) {
    std::string err = runOnCPU(NodeKind::MaxUnpool, x, idx, up, xv,
                               tensorOf(ElemKind::Int64, {1, 1, 1, 2}, {0, bad}));
    EXPECT_NE(err.find("instruction 'pool' (maxunpool)"), std::string::npos) << err;
    EXPECT_NE(err.find("out of range for unpooled dims [1, 1, 2, 3]"), std::string::npos) << err;
  }
}

AttrList roiAttrs(std::vector<int64_t> dims, float scale) {
  AttrList a;
  a.set<AttrKind::Dims>(dims).set<AttrKind::SpatialScale>(scale);
  return a;
}

TEST(NNPool, MaxRoiPool) {
  // Regions inside, partly outside and wholly outside the input, a malformed one (x2 < x1),
  // fractional coordinates that round both ways, NaN in the input.
  std::vector<double> rois = {0, 0,   0,  9,  7,  //
                              1, 2.4, 1.5, 6.6, 5, //
                              0, -3,  -2, 4,  20, //
                              1, 30,  30, 40, 40, //
                              0, 5,   4,  2,  3,  //
                              1, 0.5, 0.5, 0.5, 0.5};
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float16, ElemKind::Float64, ElemKind::BFloat16}) {
    for (float scale : {1.f, 0.5f}) {
      SCOPED_TRACE(elemKindName(k).str() + " scale " + std::to_string(scale));
      RunOptions opts;
      opts.pipeline = {"dce"};
      opts.inputs["rois"] = tensorOf(k, {6, 5}, rois);
      std::vector<double> values(2 * 3 * 8 * 10);
      for (size_t i = 0; i < values.size(); ++i)
        values[i] = double(int(i * 13 % 17) - 8) / 4;
      values[5] = std::nan(""), values[100] = std::nan("");
      opts.inputs["x"] = tensorOf(k, {2, 3, 8, 10}, values);
      expectBackendsAgree(
          [&](Module &M, Function *F) -> std::vector<NodeValue> {
            Placeholder *x = input(M, {2, 3, 8, 10}, k, "x");
            Placeholder *r = input(M, {6, 5}, k, "rois");
            return {node(F, NodeKind::MaxRoiPool, {x, r}, roiAttrs({6, 3, 3, 2}, scale))};
          },
          opts);
    }
  }
}

TEST(NNPool, MaxRoiPoolBadRegionsAreRunTimeErrors) {
  Type x(ElemKind::Float32, {2, 1, 4, 4}), rois(ElemKind::Float32, {1, 5});
  Tensor xv(x);
  xv.fill(1.0);
  AttrList a = roiAttrs({1, 1, 2, 2}, 1.f);
  EXPECT_EQ(runOnCPU(NodeKind::MaxRoiPool, x, rois, a, xv,
                     tensorOf(ElemKind::Float32, {1, 5}, {1, 0, 0, 3, 3})),
            "");
  for (double batch : {2.0, -1.0, 0.5, double(std::nanf(""))}) {
    std::string err = runOnCPU(NodeKind::MaxRoiPool, x, rois, a, xv,
                               tensorOf(ElemKind::Float32, {1, 5}, {batch, 0, 0, 3, 3}));
    EXPECT_NE(err.find("instruction 'pool' (maxroipool)"), std::string::npos) << err;
    EXPECT_NE(err.find("batch index is not an integer in [0, 2)"), std::string::npos) << err;
  }
  for (double coord : {double(std::nanf("")), 1e30, -double(INFINITY)}) {
    std::string err = runOnCPU(NodeKind::MaxRoiPool, x, rois, a, xv,
                               tensorOf(ElemKind::Float32, {1, 5}, {0, 0, coord, 3, 3}));
    EXPECT_NE(err.find("region coordinate"), std::string::npos) << err;
  }
}

// --- RoiAlign ----------------------------------------------------------------------------------

AttrList roiAlignAttrs(std::vector<int64_t> dims, const char *mode, int64_t samplingRatio,
                       float scale, const char *coordinates) {
  AttrList a;
  a.set<AttrKind::Dims>(dims)
      .set<AttrKind::Mode>(mode)
      .set<AttrKind::SamplingRatio>(samplingRatio)
      .set<AttrKind::SpatialScale>(scale)
      .set<AttrKind::CoordinateMode>(coordinates);
  return a;
}

/// Both modes and coordinate transformations, fixed and adaptive sampling, on every float kind:
/// regions inside, partly and wholly outside the input, inverted (forced to 1 x 1, or sampling
/// nothing with half_pixel), tiny and large (adaptive grids of several samples), NaN and an
/// infinity in the input.
TEST(NNPool, RoiAlign) {
  std::vector<double> rois = {0,   0,   9,   7,   //
                              2.4, 1.5, 6.6, 5,   //
                              -3,  -2,  4,   20,  //
                              30,  30,  40,  40,  //
                              5,   4,   2,   3,   //
                              0.5, 0.5, 0.7, 0.6, //
                              -9,  -9,  19,  17};
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float16, ElemKind::Float64, ElemKind::BFloat16}) {
    for (float scale : {1.f, 0.5f}) {
      SCOPED_TRACE(elemKindName(k).str() + " scale " + std::to_string(scale));
      RunOptions opts;
      opts.pipeline = {"dce"};
      opts.inputs["rois"] = tensorOf(k, {7, 4}, rois);
      opts.inputs["batches"] = tensorOf(ElemKind::Int64, {7}, {0, 1, 0, 1, 0, 1, 1});
      std::vector<double> values(2 * 3 * 8 * 10);
      for (size_t i = 0; i < values.size(); ++i)
        values[i] = double(int(i * 13 % 17) - 8) / 4;
      values[5] = std::nan(""), values[100] = std::numeric_limits<double>::infinity();
      opts.inputs["x"] = tensorOf(k, {2, 3, 8, 10}, values);
      expectBackendsAgree(
          [&](Module &M, Function *F) -> std::vector<NodeValue> {
            Placeholder *x = input(M, {2, 3, 8, 10}, k, "x");
            Placeholder *r = input(M, {7, 4}, k, "rois");
            Placeholder *b = input(M, {7}, ElemKind::Int64, "batches");
            std::vector<NodeValue> outs;
            for (const char *mode : {"avg", "max"})
              for (const char *coordinates : {"half_pixel", "output_half_pixel"})
                for (int64_t sampling : {0, 2})
                  outs.push_back(node(
                      F, NodeKind::RoiAlign, {x, r, b},
                      roiAlignAttrs({7, 3, 3, 2}, mode, sampling, scale, coordinates)));
            return outs;
          },
          opts);
    }
  }
}

/// A batch index out of range, a region that is not finite and one needing too many samples
/// stop the run with an error naming the instruction, on every backend.
TEST(NNPool, RoiAlignBadRegionsAreRunTimeErrors) {
  auto run = [](const std::string &backend, std::vector<double> box, int64_t batch,
                int64_t sampling) {
    return runOn(
        backend,
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Constant *x = M.createConstant(tensorOf(ElemKind::Float32, {2, 1, 4, 4}, {1}), "x");
          Constant *r = M.createConstant(tensorOf(ElemKind::Float32, {1, 4}, box), "r");
          Constant *b = M.createConstant(tensorOf(ElemKind::Int64, {1}, {double(batch)}), "b");
          return {node(F, NodeKind::RoiAlign, {x, r, b},
                       roiAlignAttrs({1, 1, 2, 2}, "avg", sampling, 1.f, "half_pixel"))};
        },
        dceOnly());
  };
  std::vector<std::string> backends = backendsUnderTest();
  backends.insert(backends.begin(), "Interpreter");
  for (const std::string &backend : backends) {
    SCOPED_TRACE(backend);
    Outputs ok = run(backend, {0, 0, 3, 3}, 1, 0);
    ASSERT_EQ(ok.error, "");
    EXPECT_EQ(ok.tensors[0].elementAsDouble(0), 1);
    for (int64_t batch : {2, -1}) {
      std::string err = run(backend, {0, 0, 3, 3}, batch, 0).error;
      EXPECT_NE(err.find("instruction 'n' (roialign)"), std::string::npos) << err;
      EXPECT_NE(err.find("batch"), std::string::npos) << err;
    }
    for (double coord : {double(std::nanf("")), double(INFINITY), 1e30}) {
      std::string err = run(backend, {0, 0, 3, coord}, 0, 0).error; // 1e30: 5e29^2 samples
      EXPECT_NE(err.find("instruction 'n' (roialign)"), std::string::npos) << coord << err;
      EXPECT_NE(err.find("samples per bin"), std::string::npos) << err;
    }
    std::string err = run(backend, {0, 0, 3, 3}, 0, 5000).error;
    EXPECT_NE(err.find("samples per bin"), std::string::npos) << err;
  }
}

// --- Matrix products ---------------------------------------------------------------------------

TEST(NNMatMul, EveryNumericKindWithBroadcastBatches) {
  // K = 300 so the integer sums overflow the narrow kinds and must wrap as the reference's do;
  // N = 70 spans two accumulator blocks.
  for (ElemKind k : {ElemKind::Float64, ElemKind::Float16, ElemKind::BFloat16, ElemKind::Int8,
                     ElemKind::UInt8, ElemKind::Int16, ElemKind::UInt16, ElemKind::Int32,
                     ElemKind::UInt32, ElemKind::Int64, ElemKind::UInt64}) {
    SCOPED_TRACE(elemKindName(k).str());
    expectBackendsAgree([&](Module &M, Function *F) -> std::vector<NodeValue> {
      Placeholder *a = input(M, {3, 1, 5, 300}, k, "a"), *b = input(M, {1, 2, 300, 70}, k, "b");
      Placeholder *c = input(M, {7, 9}, k, "c"), *d = input(M, {9, 3}, k, "d");
      return {node(F, NodeKind::MatMul, {a, b}), node(F, NodeKind::MatMul, {c, d})};
    });
  }
}

TEST(NNMatMul, FusedMatMulAndFullyConnectedOnFloatKinds) {
  for (ElemKind k : {ElemKind::Float64, ElemKind::Float16, ElemKind::BFloat16}) {
    SCOPED_TRACE(elemKindName(k).str());
    expectBackendsAgree([&](Module &M, Function *F) -> std::vector<NodeValue> {
      Placeholder *a = input(M, {2, 7, 33}, k, "a"), *b = input(M, {2, 33, 67}, k, "b");
      Placeholder *x = input(M, {3, 4, 21}, k, "x");
      Constant *w = constant(M, {21, 17}, 3, k), *bias = constant(M, {17}, 4, k);
      std::vector<NodeValue> outs;
      for (const std::string &act : kActivations) {
        AttrList fm;
        setActivation(fm, act);
        outs.push_back(node(F, NodeKind::FusedMatMul, {a, b}, fm));
        outs.push_back(node(F, NodeKind::FullyConnected, {x, w, bias}, fm));
      }
      return outs;
    });
  }
}

} // namespace

