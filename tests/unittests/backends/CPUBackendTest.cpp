// The first kernels of every backend, against the Interpreter (BackendTestUtils.h): element-wise
// chains, convolution and GEMM shapes that reach every tile and padding path, pooling,
// normalization, data movement. Also what is CPU-specific: its registration, what it refuses,
// and run-time errors reported by generated code.
#include "BackendTestUtils.h"

#include "ModelTestCase.h"

#include "ember/Backends/Backend.h"
#include "ember/IR/IRGen.h"
#include "ember/IROptimizer/MemoryPlan.h"

#include "../../../lib/Backends/CPU/kernels/PackedPanels.h"

#include <cmath>
#include <limits>

using namespace ember;
using namespace ember::test;

namespace {

TEST(CPUBackend, IsRegistered) {
  auto b = createBackend("cpu");
  ASSERT_TRUE(bool(b)) << errorToString(b.takeError());
  EXPECT_EQ((*b)->getName(), "CPU");
}

TEST(CPUBackend, ElementwiseChainWithVectorTail) {
  // 37 elements: two full vectors and a ragged tail.
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *a = input(M, {37}), *b = input(M, {37});
    Node *add = node(F, NodeKind::Add, {a, b});
    Node *mul = node(F, NodeKind::Mul, {add, a});
    Node *relu = node(F, NodeKind::Relu, {mul});
    Node *sub = node(F, NodeKind::Sub, {relu, b});
    Node *div = node(F, NodeKind::Div, {sub, add});
    Node *mx = node(F, NodeKind::Max, {div, a});
    Node *sg = node(F, NodeKind::Sigmoid, {mx});
    Node *th = node(F, NodeKind::Tanh, {a});
    return {sg, th, relu};
  });
}

TEST(CPUBackend, ElementwiseLoopsSplitOverThreads) {
  // With threads, the chunk loop of a large element-wise run splits over the team in parts of
  // whole chunks (CodeGenFusion.cpp: 32768 elements a part at least), a large element-wise
  // instruction alone too, and the ragged tail runs after the parts: 3 x 32768 + 37 elements
  // make 3 parts on 3 threads, 2 on 2. A run whose member is read after it (add) and one of a
  // single instruction (tanh), each against the Interpreter.
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    RunOptions opts;
    opts.backend.threads = threads;
    expectBackendsAgree(
        [](Module &M, Function *F) -> std::vector<NodeValue> {
          const dim_t n = 3 * 32768 + 37;
          Placeholder *a = input(M, {n}, ElemKind::Float32, "a");
          Placeholder *b = input(M, {n}, ElemKind::Float32, "b");
          Node *add = node(F, NodeKind::Add, {a, b});
          Node *mul = node(F, NodeKind::Mul, {add, a});
          Node *sg = node(F, NodeKind::Sigmoid, {mul});
          Node *th = node(F, NodeKind::Tanh, {b});
          return {sg, add, th};
        },
        opts);
  }
}

TEST(CPUBackend, UnaryFunctionsAndActivations) {
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {3, 41});
    std::vector<NodeValue> outs;
    for (const char *fn : {"exp", "abs", "neg", "sqrt", "erf", "gelu", "gelu_tanh", "hard_swish",
                           "floor", "round", "softplus", "log", "sin"}) {
      AttrList a;
      a.set<AttrKind::Function>(fn);
      outs.push_back(node(F, NodeKind::Unary, {x}, a));
    }
    AttrList alpha;
    alpha.set<AttrKind::Alpha>(0.1f);
    outs.push_back(node(F, NodeKind::LeakyRelu, {x}, alpha));
    outs.push_back(node(F, NodeKind::Elu, {x}, alpha));
    AttrList hs;
    hs.set<AttrKind::Alpha>(0.2f).set<AttrKind::Beta>(0.5f);
    outs.push_back(node(F, NodeKind::HardSigmoid, {x}, hs));
    return outs;
  });
}

TEST(Backends, SpecialValuesFollowTheInterpreter) {
  // NaN and infinities through Relu, Max, Sigmoid, Tanh, Exp and Clip.
  auto build = [](Module &M, Function *F) -> std::vector<NodeValue> {
    float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
    std::vector<float> v = {nan, inf, -inf, 0.f, -0.f, 100.f, -100.f, 1e-8f, 89.f, -90.f};
    Constant *c = M.createConstant(Tensor::fromValues<float>({10}, v), "special");
    Placeholder *x = input(M, {10});
    Node *sum = node(F, NodeKind::Mul, {c, node(F, NodeKind::Max, {x, x})}); // keep x used
    (void)sum;
    Constant *lo = M.createConstant(Tensor::fromValues<float>({}, {-1.f}), "lo");
    Constant *hi = M.createConstant(Tensor::fromValues<float>({}, {1.f}), "hi");
    AttrList e;
    e.set<AttrKind::Function>("exp");
    return {node(F, NodeKind::Relu, {c}), node(F, NodeKind::Sigmoid, {c}),
            node(F, NodeKind::Tanh, {c}), node(F, NodeKind::Unary, {c}, e),
            node(F, NodeKind::Clip, {c, lo, hi}), node(F, NodeKind::Max, {c, x})};
  };
  // Constant folding would run these on the Interpreter: keep the pipeline to dce only.
  RunOptions opts;
  opts.pipeline = {"dce"};
  expectBackendsAgree(build, opts, 1e-6, 1e-5);
}

struct ConvCase {
  dim_t n, c, h, w, k, kh, kw;
  int64_t stride, pad, dilation, group;
  const char *activation; // for FusedConv; nullptr: plain Conv
};

class CPUConv : public ::testing::TestWithParam<ConvCase> {};

TEST_P(CPUConv, MatchesInterpreter) {
  ConvCase p = GetParam();
  expectBackendsAgree([p](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {p.n, p.c, p.h, p.w});
    Constant *w = constant(M, {p.k, p.c / dim_t(p.group), p.kh, p.kw}, 7);
    Constant *b = constant(M, {p.k}, 8);
    AttrList a = convAttrs({int64_t(p.kh), int64_t(p.kw)}, {p.stride, p.stride},
                           {p.pad, p.pad, p.pad, p.pad}, {p.dilation, p.dilation}, p.group);
    if (!p.activation)
      return {node(F, NodeKind::Conv, {x, w, b}, a)};
    std::string act = p.activation;
    std::vector<float> args = act == "clip"           ? std::vector<float>{0.f, 6.f}
                              : act == "leaky_relu"   ? std::vector<float>{0.1f}
                              : act == "hard_sigmoid" ? std::vector<float>{0.2f, 0.5f}
                                                      : std::vector<float>{};
    a.set<AttrKind::FusedActivation>(act).set<AttrKind::FusedActivationArgs>(args);
    return {node(F, NodeKind::FusedConv, {x, w, b}, a)};
  });
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CPUConv,
    ::testing::Values(
        ConvCase{1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, nullptr},      // edge tiles in M and N
        ConvCase{2, 16, 10, 10, 29, 3, 3, 2, 1, 1, 1, "relu"},     // batch, stride 2
        ConvCase{1, 8, 12, 12, 8, 3, 3, 1, 2, 2, 1, "clip"},       // dilation
        ConvCase{1, 8, 9, 9, 12, 3, 3, 1, 1, 1, 4, "leaky_relu"},  // groups
        ConvCase{1, 12, 13, 13, 12, 3, 3, 2, 1, 1, 12, "sigmoid"}, // depthwise, stride 2
        ConvCase{1, 6, 8, 8, 12, 5, 5, 1, 2, 1, 6, "hard_swish"},  // depthwise x2 multiplier
        ConvCase{2, 8, 40, 37, 8, 3, 3, 2, 1, 2, 8, "relu"},      // depthwise: wide, dilated
        ConvCase{1, 4, 35, 35, 4, 3, 3, 1, 1, 1, 4, nullptr},     // depthwise: 3 vectors a row
        ConvCase{1, 4, 20, 20, 4, 3, 3, 3, 1, 1, 4, nullptr},     // depthwise, stride 3
        ConvCase{1, 300, 6, 6, 40, 1, 1, 1, 0, 1, 1, "tanh"},      // 1x1, several k blocks
        ConvCase{1, 40, 20, 30, 70, 1, 1, 1, 0, 1, 1, "hard_sigmoid"}, // 1x1, N > one block
        ConvCase{1, 3, 17, 17, 16, 7, 7, 2, 3, 1, 1, nullptr},    // stem-like
        ConvCase{1, 5, 11, 13, 7, 3, 3, 2, 2, 2, 1, "relu"},      // stride 2, dilated
        ConvCase{1, 16, 14, 14, 24, 1, 1, 2, 0, 1, 1, nullptr},   // 1x1 stride 2 (downsample)
        ConvCase{1, 6, 10, 9, 10, 3, 3, 3, 1, 1, 1, nullptr},     // stride 3: gathered in place
        ConvCase{1, 4, 1, 1, 8, 3, 3, 1, 4, 1, 1, nullptr},       // 1x1 map, pads > kernel
        ConvCase{1, 7, 9, 9, 13, 5, 5, 2, 6, 1, 1, "relu"},       // stride 2, pads > kernel
        ConvCase{1, 6, 12, 12, 9, 3, 3, 2, 1, 1, 3, "relu"},     // groups, stride 2
        // Stride 1, up to 128 channels a group: B read in place on the padded grid (convFlat).
        ConvCase{2, 40, 9, 10, 20, 3, 3, 1, 1, 1, 2, "gelu"},     // batch, groups, out of line
        ConvCase{1, 32, 8, 9, 13, 3, 3, 1, 1, 1, 1, "relu"},      // two blocks of k
        ConvCase{1, 5, 16, 16, 7, 5, 5, 1, 2, 1, 1, "relu"},      // 5x5
        ConvCase{1, 8, 6, 6, 130, 3, 3, 1, 1, 1, 1, nullptr},     // 130 channels: packed B
        ConvCase{1, 3, 120, 120, 32, 3, 3, 2, 1, 1, 1, "relu"},   // a product in 3 chunks
        // 1x1 over planes of whole panels: the input read in place (convPointwiseInPlace).
        ConvCase{1, 20, 8, 16, 30, 1, 1, 1, 0, 1, 1, "relu"},     // 128 columns
        ConvCase{2, 24, 8, 8, 36, 1, 1, 1, 0, 1, 3, nullptr},     // batch, groups
        ConvCase{1, 300, 4, 8, 20, 1, 1, 1, 0, 1, 1, "tanh"},     // two blocks of k
        // 1x1 on maps under 64 positions: by pixels, over the filter in column panels.
        ConvCase{2, 40, 7, 7, 70, 1, 1, 1, 0, 1, 1, "relu"},      // batch, a narrow panel of K
        ConvCase{1, 300, 5, 9, 64, 1, 1, 1, 0, 1, 1, "gelu"}));   // two blocks of k, out of line

TEST(CPUBackend, ConvWithUnequalStrides) {
  // The padded im2col packer takes a horizontal stride of 1 or 2 and any vertical one.
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {1, 5, 13, 14});
    Constant *w = constant(M, {11, 5, 3, 3}, 2), *b = constant(M, {11}, 3);
    std::vector<NodeValue> outs;
    for (std::vector<int64_t> strides : {std::vector<int64_t>{1, 2}, std::vector<int64_t>{2, 1},
                                         std::vector<int64_t>{3, 2}})
      outs.push_back(
          node(F, NodeKind::Conv, {x, w, b}, convAttrs({3, 3}, strides, {1, 2, 0, 1}, {1, 1}, 1)));
    return outs;
  });
}

TEST(CPUBackend, DepthwiseShapesOfThePhasedPath) {
  // NNDepthwise.cpp splits each input plane into its SH x SW phase planes and computes the
  // outputs flat over them: the unrolled 3x3 and 5x5 windows with equal strides, any other
  // window from the taps' offsets. Edge shapes of that split: planes of one vector or less,
  // odd sizes with stride 2, unequal strides, asymmetric pads, pads larger than the window,
  // dilation, one-row planes, the largest window it takes (7x7) and a multiplier with stride 2.
  // With one output channel per input channel the same shapes run in channel lanes
  // (NNDepthwiseLanes.h): each case runs with its multiplier (1: the lanes) and one more.
  struct Case {
    dim_t c, h, w, mult, kh, kw;
    std::vector<int64_t> strides, pads, dilations;
  };
  std::vector<Case> cases = {
      {5, 7, 7, 1, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}},   // 7x7 plane, 9-float phase rows
      {3, 14, 14, 1, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}}, // stride 2 to 7x7
      {3, 15, 13, 1, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}}, // odd sizes, stride 2
      {2, 15, 15, 1, 5, 5, {2, 2}, {2, 2, 2, 2}, {1, 1}}, // 5x5 stride 2
      {2, 9, 11, 1, 5, 5, {1, 1}, {2, 2, 2, 2}, {1, 1}},  // 5x5 stride 1
      {3, 13, 14, 1, 3, 3, {1, 2}, {1, 2, 0, 1}, {1, 1}}, // unequal strides, asymmetric pads
      {3, 12, 11, 1, 3, 3, {2, 1}, {0, 1, 2, 0}, {1, 1}}, // the other way round
      {2, 3, 2, 1, 3, 3, {1, 1}, {4, 3, 4, 3}, {1, 1}},   // pads larger than the window
      {2, 17, 16, 1, 3, 3, {1, 1}, {2, 2, 2, 2}, {2, 2}}, // dilated
      {4, 1, 40, 1, 1, 5, {1, 2}, {0, 2, 0, 2}, {1, 1}},  // one-row planes (1-D)
      {2, 11, 12, 1, 7, 7, {1, 1}, {3, 3, 3, 3}, {1, 1}}, // 49 taps
      {3, 10, 10, 2, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}}, // multiplier 2, stride 2
      {2, 60, 70, 1, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}}, // several strips a plane
  };
  expectBackendsAgree([&](Module &M, Function *F) -> std::vector<NodeValue> {
    std::vector<NodeValue> outs;
    int seed = 11;
    for (const Case &k : cases)
      for (dim_t mult : {k.mult, k.mult + 1}) {
        Placeholder *x = input(M, {2, k.c, k.h, k.w}, ElemKind::Float32,
                               "x" + std::to_string(outs.size()));
        Constant *w = constant(M, {k.c * mult, 1, k.kh, k.kw}, seed++);
        Constant *b = constant(M, {k.c * mult}, seed++);
        AttrList a = convAttrs({int64_t(k.kh), int64_t(k.kw)}, k.strides, k.pads, k.dilations,
                               int64_t(k.c));
        a.set<AttrKind::FusedActivation>(std::string("relu"))
            .set<AttrKind::FusedActivationArgs>(std::vector<float>{});
        outs.push_back(node(F, NodeKind::FusedConv, {x, w, b}, a));
      }
    return outs;
  });
}

namespace {

/// A float32 MaxPool whose indices nobody reads (the phase-plane kernel) and the AvgPools
/// without and with count_include_pad, of one window.
std::vector<NodeValue> maxAndAvgPools(Function *F, NodeValue x, std::vector<int64_t> kernels,
                                      std::vector<int64_t> strides, std::vector<int64_t> pads,
                                      std::vector<int64_t> dilations, int64_t ceil) {
  std::vector<NodeValue> outs = {NodeValue(
      node(F, NodeKind::MaxPool, {x}, maxPoolAttrs(kernels, strides, pads, dilations, ceil)), 0)};
  for (int64_t countPad : {0, 1}) {
    AttrList ap;
    ap.set<AttrKind::Kernels>(kernels)
        .set<AttrKind::Strides>(strides)
        .set<AttrKind::Pads>(pads)
        .set<AttrKind::Dilations>(dilations)
        .set<AttrKind::CeilMode>(ceil)
        .set<AttrKind::CountIncludePad>(countPad);
    outs.push_back(node(F, NodeKind::AvgPool, {x}, ap));
  }
  return outs;
}

} // namespace

TEST(CPUBackend, PoolsOfThePhasedPath) {
  // MaxPool without indices and AvgPool with strides of 1 or 2 read phase planes (PhasePlanes.h)
  // padded with -inf or 0; each window's cell count comes from a plane computed once. Shapes:
  // stride 2 to planes narrower than a vector, odd sizes, ceil mode (windows past the input),
  // pads, unequal strides, a 1-D pool, several strips a plane, pads as wide as the window
  // (windows of padding alone) and, for the max, dilation.
  struct Case {
    std::vector<dim_t> dims;
    std::vector<int64_t> kernels, strides, pads, dilations;
    int64_t ceil;
  };
  std::vector<Case> cases = {
      {{1, 3, 14, 14}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 0},
      {{2, 2, 15, 13}, {3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1},
      {{1, 4, 9, 9}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 0},
      {{1, 2, 12, 11}, {2, 3}, {1, 2}, {0, 1, 1, 0}, {1, 1}, 1},
      {{1, 3, 40}, {3}, {2}, {1, 1}, {1}, 0},
      {{1, 2, 70, 64}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 0},
      {{1, 2, 4, 5}, {2, 2}, {1, 1}, {2, 2, 2, 2}, {1, 1}, 0},
      {{1, 2, 7, 7}, {7, 7}, {1, 1}, {3, 3, 3, 3}, {1, 1}, 0},
  };
  expectBackendsAgree([&](Module &M, Function *F) -> std::vector<NodeValue> {
    std::vector<NodeValue> outs;
    for (const Case &c : cases) {
      Placeholder *x =
          input(M, c.dims, ElemKind::Float32, "x" + std::to_string(outs.size()));
      for (NodeValue v : maxAndAvgPools(F, x, c.kernels, c.strides, c.pads, c.dilations, c.ceil))
        outs.push_back(v);
    }
    // Dilation (MaxPool only).
    Placeholder *x = input(M, {1, 3, 13, 17}, ElemKind::Float32, "dilated");
    outs.push_back(NodeValue(
        node(F, NodeKind::MaxPool, {x}, maxPoolAttrs({3, 3}, {2, 1}, {2, 2, 2, 2}, {2, 2}, 0)),
        0));
    return outs;
  });
}

TEST(CPUBackend, PhasedMaxPoolKeepsTheFirstRealCell) {
  // The Interpreter's max: the first real cell of a window, then only a strictly greater one.
  // A window starting in the padding reads -inf first, so a plane holding NaN takes the cell-by-
  // cell path; -inf and equal values keep their order on the phase planes too.
  float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  std::vector<dim_t> dims = {1, 3, 6, 7};
  std::vector<double> values(3 * 6 * 7);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = double(int(i * 5 % 9) - 4) * 0.5;
  values[0] = nan;        // plane 0: the first real cell of the corner window
  values[42 + 9] = -inf;  // plane 1: -inf and no NaN
  values[42 + 10] = -inf;
  values[84 + 20] = nan;  // plane 2: a NaN inside
  values[84 + 1] = -0.0;
  RunOptions opts;
  opts.pipeline = {"dce"};
  opts.inputs["x"] = tensorOf(ElemKind::Float32, dims, values);
  expectBackendsAgree(
      [&](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, dims, ElemKind::Float32, "x");
        std::vector<NodeValue> outs;
        for (int64_t stride : {1, 2})
          for (NodeValue v : maxAndAvgPools(F, x, {3, 3}, {stride, stride}, {1, 1, 1, 1},
                                            {1, 1}, 0))
            outs.push_back(v);
        return outs;
      },
      opts);
}

TEST(CPUBackend, PackedFiltersOnlyWhereEveryReaderIsAConvolution) {
  // The CPU backend stores a constant filter packed for its GEMM (CPUConstants.h) only when
  // every instruction reads it as a convolution's filter with one group count. Here: a filter
  // two convolutions share (packed), one another node also reads (kept as it is), one read with
  // two group counts (kept), and a filter given as an input (never packed). Each output must be
  // the Interpreter's.
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {1, 8, 10, 11});
    Placeholder *x4 = input(M, {1, 4, 9, 9}, ElemKind::Float32, "x4");
    Placeholder *wIn = input(M, {13, 8, 3, 3}, ElemKind::Float32, "w");
    Constant *shared = constant(M, {13, 8, 3, 3}, 2), *alsoAdded = constant(M, {14, 8, 1, 1}, 3);
    Constant *twoGroupCounts = constant(M, {16, 4, 3, 3}, 4);
    Constant *b13 = constant(M, {13}, 5), *b14 = constant(M, {14}, 6), *b16 = constant(M, {16}, 7);
    AttrList c3 = convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1);
    AttrList c3s2 = convAttrs({3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1);
    AttrList c1 = convAttrs({1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1);
    AttrList c3g2 = convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2);
    return {node(F, NodeKind::Conv, {x, shared, b13}, c3),
            node(F, NodeKind::Conv, {x, shared, b13}, c3s2),
            node(F, NodeKind::Conv, {x, alsoAdded, b14}, c1),
            node(F, NodeKind::Add, {alsoAdded, alsoAdded}),
            node(F, NodeKind::Conv, {x, twoGroupCounts, b16}, c3g2),
            node(F, NodeKind::Conv, {x4, twoGroupCounts, b16}, c3),
            node(F, NodeKind::Conv, {x, wIn, b13}, c3)};
  }, dceOnly());
}

TEST(CPUBackend, WritesConvolutionFiltersInPanelsOfItsTile) {
  // What the test above checks by results, here by bytes: the CPU backend's constant region
  // holds a GEMM convolution's filter in panels of its variant's MR rows (12 on AVX-512, 6 on
  // the other rows: kernels/Variants.def), group by group, and any other constant as it is; the
  // Interpreter's holds every payload as it is.
  Module M;
  Function *F = M.createFunction("main");
  Placeholder *x = input(M, {1, 8, 6, 6});
  Constant *filter = constant(M, {14, 4, 3, 3}, 2), *bias = constant(M, {14}, 3);
  Node *conv = node(F, NodeKind::Conv, {x, filter, bias},
                    convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2));
  ASSERT_TRUE(conv);
  Placeholder *out = M.createPlaceholder(conv->getType(), "out");
  ASSERT_TRUE(bool(F->createNode(NodeKind::Save, "save", {conv, out})));
  auto IR = generateIR(*F);
  ASSERT_TRUE(bool(IR)) << errorToString(IR.takeError());
  ASSERT_FALSE(bool(planMemory(**IR)));
  const WeightVar *fw = nullptr, *bw = nullptr;
  for (const auto &w : (*IR)->getWeights()) {
    if (w->getOrigin() == filter)
      fw = w.get();
    if (w->getOrigin() == bias)
      bw = w.get();
  }
  ASSERT_TRUE(fw && bw);
  const float *payload = reinterpret_cast<const float *>(filter->getPayload().data());
  const float *biasPayload = reinterpret_cast<const float *>(bias->getPayload().data());
  for (const char *name : {"Interpreter", "CPU"}) {
    SCOPED_TRACE(name);
    auto backend = createBackend(name);
    ASSERT_TRUE(bool(backend)) << errorToString(backend.takeError());
    std::vector<uint8_t> region((*IR)->constantSize);
    ASSERT_FALSE(bool((*backend)->writeConstants(**IR, region.data())));
    const float *got = reinterpret_cast<const float *>(region.data() + fw->offset);
    bool cpu = std::string(name) == "CPU";
#if defined(__x86_64__)
    int64_t MR = __builtin_cpu_supports("avx512f") ? 12 : 6;
#else
    int64_t MR = 6;
#endif
    int64_t rows = 7, cols = 4 * 3 * 3; // per group
    for (int64_t g = 0; g < 2; ++g)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < cols; ++k) {
          int64_t at = g * rows * cols + (cpu ? panels::packedIndex(r, k, rows, cols, MR)
                                              : r * cols + k);
          ASSERT_EQ(got[at], payload[(g * rows + r) * cols + k]) << g << " " << r << " " << k;
        }
    const float *gotBias = reinterpret_cast<const float *>(region.data() + bw->offset);
    for (int i = 0; i < 14; ++i)
      EXPECT_EQ(gotBias[i], biasPayload[i]);
  }
}

TEST(CPUBackend, Conv1D) {
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {2, 4, 19});
    Constant *w = constant(M, {6, 4, 3}, 7);
    Constant *b = constant(M, {6}, 8);
    AttrList a;
    a.set<AttrKind::Kernels>({3})
        .set<AttrKind::Strides>({2})
        .set<AttrKind::Pads>({1, 2})
        .set<AttrKind::Dilations>({1})
        .set<AttrKind::Group>(1);
    return {node(F, NodeKind::Conv, {x, w, b}, a)};
  });
}

TEST(CPUBackend, MatMulBatchedBroadcastAndFullyConnected) {
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *a = input(M, {3, 1, 13, 300}), *b = input(M, {1, 2, 300, 37});
    Node *mm = node(F, NodeKind::MatMul, {a, b});
    Placeholder *x = input(M, {5, 70});
    Constant *w = constant(M, {70, 1001}, 3);
    Constant *bias = constant(M, {1001}, 4);
    AttrList fc;
    fc.set<AttrKind::FusedActivation>("relu").set<AttrKind::FusedActivationArgs>({});
    Node *full = node(F, NodeKind::FullyConnected, {x, w, bias}, fc);
    Placeholder *y = input(M, {1, 64}), *z = input(M, {64, 33});
    AttrList fm;
    fm.set<AttrKind::FusedActivation>("clip").set<AttrKind::FusedActivationArgs>({-0.5f, 0.5f});
    Node *fused = node(F, NodeKind::FusedMatMul, {y, z}, fm);
    return {mm, full, fused};
  });
}

TEST(CPUBackend, ProductsWithFewRows) {
  // Up to four rows of A read B in place (no packing), in passes of 16 rows of B: every row
  // count, column tails, a last pass of fewer rows.
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    std::vector<NodeValue> outs;
    Constant *w = constant(M, {70, 1001}, 3);
    Constant *bias = constant(M, {1001}, 4);
    AttrList fc;
    fc.set<AttrKind::FusedActivation>("relu").set<AttrKind::FusedActivationArgs>({});
    for (dim_t rows : {1, 2, 3, 4}) {
      Placeholder *x = input(M, {rows, 70});
      outs.push_back(node(F, NodeKind::FullyConnected, {x, w, bias}, fc));
    }
    Placeholder *a = input(M, {3, 2, 33}), *b = input(M, {3, 33, 70});
    outs.push_back(node(F, NodeKind::MatMul, {a, b}));
    // An out-of-line activation after the last of B's passes of 16 rows.
    AttrList gelu;
    gelu.set<AttrKind::FusedActivation>("gelu").set<AttrKind::FusedActivationArgs>({});
    outs.push_back(node(F, NodeKind::FullyConnected, {input(M, {2, 70}), w, bias}, gelu));
    return outs;
  });
}

TEST(CPUBackend, KernelsSplitOverThreadsAgree) {
  // Big enough that -threads=2 splits them (kernels/Parallel.h): a 3x3 (dilated, so not
  // Winograd) and two 1x1 convolutions (their columns; the 3x3 also its copies in and out), a
  // Winograd one (its channels, points and filters), a depthwise one (its channels), a
  // product with few rows (its columns), a GEMM with ragged column parts, and a max and an
  // average pool (their planes). A split changes no element's order of summation, so
  // the outputs equal the single-threaded ones bit for bit; against the Interpreter, sums of
  // hundreds of products of random values in [-2, 2] differ in their last bits.
  GraphBuilder build = [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {1, 64, 50, 50});
        AttrList c3 = convAttrs({3, 3}, {1, 1}, {2, 2, 2, 2}, {2, 2}, 1);
        Node *conv = node(F, NodeKind::Conv, {x, constant(M, {64, 64, 3, 3}, 2),
                                              constant(M, {64}, 3)},
                          c3);
        Node *winograd = node(F, NodeKind::Conv, {x, constant(M, {64, 64, 3, 3}, 10),
                                                  constant(M, {64}, 11)},
                              convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1));
        AttrList c1 = convAttrs({1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1);
        Node *pointwise = node(F, NodeKind::Conv, {conv, constant(M, {192, 64, 1, 1}, 4),
                                                   constant(M, {192}, 5)},
                               c1);
        // At most 128 filters: the input read in place, but its last 4 columns packed.
        Node *onInput = node(F, NodeKind::Conv, {conv, constant(M, {96, 64, 1, 1}, 12),
                                                 constant(M, {96}, 13)},
                             c1);
        // A 1x1 on a 7x7 map, by pixels (its columns, the filters).
        Node *byPixels = node(F, NodeKind::Conv, {input(M, {1, 256, 7, 7}, ElemKind::Float32,
                                                        "s"),
                                                  constant(M, {520, 256, 1, 1}, 14),
                                                  constant(M, {520}, 15)},
                              c1);
        // A 5x5 on 35x35 whose product goes in chunks, with fewer than two chunks' rows (its
        // rows), and 1x1s of strides 2 and 3 (their positions' copy by channels, then as a
        // plain 1x1: 200 filters packed, 96 in place).
        Node *wide = node(F, NodeKind::Conv, {input(M, {1, 48, 35, 35}, ElemKind::Float32, "w"),
                                              constant(M, {64, 48, 5, 5}, 16),
                                              constant(M, {64}, 17)},
                          convAttrs({5, 5}, {1, 1}, {2, 2, 2, 2}, {1, 1}, 1));
        Node *stride2 = node(F, NodeKind::Conv, {x, constant(M, {200, 64, 1, 1}, 18),
                                                 constant(M, {200}, 19)},
                             convAttrs({1, 1}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1));
        Node *stride3 = node(F, NodeKind::Conv, {x, constant(M, {96, 64, 1, 1}, 20),
                                                 constant(M, {96}, 21)},
                             convAttrs({1, 1}, {3, 3}, {0, 0, 0, 0}, {1, 1}, 1));
        Placeholder *d = input(M, {1, 160, 112, 112});
        AttrList dw = convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 160);
        Node *depthwise = node(F, NodeKind::Conv, {d, constant(M, {160, 1, 3, 3}, 6),
                                                   constant(M, {160}, 7)},
                               dw);
        AttrList fc;
        fc.set<AttrKind::FusedActivation>("").set<AttrKind::FusedActivationArgs>({});
        Node *few = node(F, NodeKind::FullyConnected,
                         {input(M, {4, 2048}), constant(M, {2048, 2100}, 8),
                          constant(M, {2100}, 9)},
                         fc);
        Node *gemm = node(F, NodeKind::MatMul, {input(M, {300, 400}), input(M, {400, 421})});
        // The phase-plane pools (their planes), of the 3x3 convolution's 64 planes.
        std::vector<NodeValue> pools =
            maxAndAvgPools(F, conv, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 0);
        return {pointwise, depthwise, few,  gemm,    pools[0], pools[1], winograd,
                onInput,   byPixels,  wide, stride2, stride3};
  };
  expectSplitMatchesOneThread(build, RunOptions(), 1e-3, 1e-4);
}

TEST(CPUBackend, StepsSplitOverThreadsAgree) {
  // Steps that codegen splits over the team (CodeGenTeam.cpp) once they move 128K floats: a
  // batch normalization by channels (one image) and by images, a concatenation by the bytes of
  // each input (one outer row) and by outer rows, a transpose, a broadcast and a slice along
  // their outermost axis (a slice that is no view), and a global average pool by planes; and
  // a batch norm with the relu after it. Each part computes its elements
  // as one thread does, so the outputs equal the single-threaded ones bit for bit.
  GraphBuilder build = [](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {1, 80, 40, 40});
    Placeholder *y = input(M, {3, 40, 40, 41}, ElemKind::Float32, "y");
    auto positive = [&](dim_t n, const char *name) {
      std::vector<float> v;
      for (dim_t i = 0; i < n; ++i)
        v.push_back(0.25f + 0.125f * float(i % 7));
      return M.createConstant(Tensor::fromValues<float>({n}, v), name);
    };
    AttrList bn;
    bn.set<AttrKind::Epsilon>(1e-3f);
    Node *byChannels = node(F, NodeKind::BatchNorm,
                            {x, constant(M, {80}, 1), constant(M, {80}, 2), constant(M, {80}, 3),
                             positive(80, "var80")},
                            bn);
    Node *byImages = node(F, NodeKind::BatchNorm,
                          {y, constant(M, {40}, 4), constant(M, {40}, 5), constant(M, {40}, 6),
                           positive(40, "var40")},
                          bn);
    AttrList axis1, axis3;
    axis1.set<AttrKind::Axis>(1);
    axis3.set<AttrKind::Axis>(3);
    Node *byBytes = node(F, NodeKind::Concat,
                         {x, input(M, {1, 48, 40, 40}, ElemKind::Float32, "z")}, axis1);
    Node *byRows = node(F, NodeKind::Concat, {y, y}, axis3);
    AttrList t;
    t.set<AttrKind::Shuffle>({0, 3, 1, 2});
    AttrList b;
    b.set<AttrKind::Dims>({1, 80, 40, 40});
    AttrList s;
    s.set<AttrKind::Starts>({0, 0, 0, 1}).set<AttrKind::Steps>({1, 1, 1, 1}).set<AttrKind::Dims>(
        {3, 40, 40, 40});
    AttrList global = avgPoolAttrs({40, 41}, {1, 1}, {0, 0, 0, 0}, 0, 0);
    // A batch norm whose result a relu overwrites in place, as densenet121's: one pass
    // (CodeGen.cpp, batchNormTakesRelu), by channels and by images. The relu's result goes on
    // through a transpose, so that it is no model output and may overwrite the norm's.
    std::vector<NodeValue> normRelus;
    for (Placeholder *v : {x, y}) {
      dim_t c = v->getType().dims[1];
      Node *norm = node(F, NodeKind::BatchNorm,
                        {v, constant(M, {c}, 7), constant(M, {c}, 8), constant(M, {c}, 9),
                         positive(c, c == 80 ? "varR80" : "varR40")},
                        bn);
      normRelus.push_back(node(F, NodeKind::Transpose,
                               {node(F, NodeKind::Relu, {norm}, AttrList())}, t));
    }
    return {normRelus[0],
            normRelus[1],
            byChannels,
            byImages,
            byBytes,
            byRows,
            node(F, NodeKind::Transpose, {y}, t),
            node(F, NodeKind::Broadcast, {input(M, {1, 80, 1, 1}, ElemKind::Float32, "v")}, b),
            node(F, NodeKind::Slice, {y}, s),
            node(F, NodeKind::AvgPool, {y}, global)};
  };
  expectSplitMatchesOneThread(build, RunOptions(), 1e-4, 1e-4);
}

/// A fused 3x3 convolution with a relu of 29 filters and a 37 x 70 x 45 product: a tile edge
/// in every dimension of both.
std::vector<NodeValue> convAndProductAtTileEdges(Module &M, Function *F) {
  Placeholder *x = input(M, {1, 7, 13, 17});
  AttrList c = convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1);
  c.set<AttrKind::FusedActivation>("relu").set<AttrKind::FusedActivationArgs>({});
  Node *conv = node(F, NodeKind::FusedConv,
                    {x, constant(M, {29, 7, 3, 3}, 2), constant(M, {29}, 3)}, c);
  Node *mm = node(F, NodeKind::MatMul, {input(M, {37, 70}, ElemKind::Float32, "a"),
                                        input(M, {70, 45}, ElemKind::Float32, "b")});
  return {conv, mm};
}

TEST(CPUBackend, EveryKernelVariantThisMachineRunsAgrees) {
  // The GEMM and convolution entries exist per row of kernels/Variants.def; the target's
  // features choose the row. The host's CPU takes its best row; -mattr=-avx512f and the x86-64
  // baseline CPU take the AVX2 and SSE2 rows on any machine that runs the first (on another
  // one they take what it has). Each must give the Interpreter's results, at every tile edge.
  GraphBuilder build = convAndProductAtTileEdges;
  struct Target {
    const char *cpu, *features;
  };
  for (Target t : {Target{"", ""}, Target{"", "-avx512f"}, Target{"x86-64", ""}}) {
    SCOPED_TRACE(std::string("cpu '") + t.cpu + "' features '" + t.features + "'");
#if !defined(__x86_64__)
    if (*t.cpu || *t.features)
      continue; // x86 CPU names and features
#endif
    RunOptions opts = dceOnly();
    opts.backend.cpu = t.cpu;
    opts.backend.features = t.features;
    expectBackendsAgree(build, opts, 1e-4, 1e-4);
  }
}

TEST(CPUBackend, EveryLLVMOptLevelAgrees) {
  // -llvm-opt-level changes only how LLVM optimizes the generated code: below O3 the fused
  // loops stay as codegen wrote them and the kernels are called, not inlined. Every level must
  // give the Interpreter's results: a fused convolution (a kernel call), a fused elementwise
  // chain with a vector tail (codegen's own loop), a reduction, a product and an int8
  // convolution (the integer kernels' intrinsics at FastISel's O0).
  GraphBuilder build = [](Module &M, Function *F) -> std::vector<NodeValue> {
    std::vector<NodeValue> convAndMM = convAndProductAtTileEdges(M, F);
    NodeValue conv = convAndMM[0];
    Node *tanh = node(F, NodeKind::Tanh, {conv});
    Node *chain = node(F, NodeKind::Mul, {node(F, NodeKind::Add, {tanh, conv}), tanh});
    AttrList r;
    r.set<AttrKind::Reduction>("sum").set<AttrKind::Axes>({1});
    Node *sum = node(F, NodeKind::Reduce, {chain}, r);
    Node *int8 = node(F, NodeKind::IntegerConv,
                      {input(M, {1, 16, 9, 9}, ElemKind::UInt8, "q"),
                       constant(M, {32, 16, 3, 3}, 4, ElemKind::Int8),
                       constant(M, {32}, 5, ElemKind::Int32),
                       M.createConstant(tensorOf(ElemKind::UInt8, {1, 1, 1, 1}, {3}), "zx"),
                       M.createConstant(tensorOf(ElemKind::Int8, {1, 1, 1, 1}, {-1}), "zw")},
                      convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1));
    return {chain, sum, convAndMM[1], int8};
  };
  for (int level : {0, 1, 2}) {
    SCOPED_TRACE("-llvm-opt-level=" + std::to_string(level));
    RunOptions opts = dceOnly();
    opts.backend.llvmOptLevel = level;
    expectBackendsAgree(build, opts, 1e-4, 1e-4);
  }
}

TEST(CPUBackend, Pooling) {
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {2, 3, 11, 13});
    AttrList mp = maxPoolAttrs({3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 2}, 1);
    Node *maxPool = node(F, NodeKind::MaxPool, {x}, mp);
    std::vector<NodeValue> outs = {NodeValue(maxPool, 0), NodeValue(maxPool, 1)};
    // Indices nobody reads: the kernel takes maxima alone, across a full and a partial vector.
    Placeholder *wide = input(M, {1, 2, 9, 61});
    AttrList mp2 = mp;
    mp2.set<AttrKind::Dilations>({1, 1}).set<AttrKind::Pads>({0, 0, 1, 1});
    outs.push_back(NodeValue(node(F, NodeKind::MaxPool, {wide}, mp2), 0));
    for (int64_t countPad : {0, 1})
      outs.push_back(node(F, NodeKind::AvgPool, {x},
                          avgPoolAttrs({3, 2}, {2, 1}, {1, 0, 1, 1}, 1, countPad)));
    outs.push_back(
        node(F, NodeKind::AvgPool, {x}, avgPoolAttrs({11, 13}, {1, 1}, {0, 0, 0, 0}, 0, 0)));
    return outs;
  });
}

TEST(CPUBackend, NormalizationAndReduce) {
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {2, 5, 7, 19});
    std::vector<NodeValue> outs;
    for (int64_t axis : {1, 3}) {
      AttrList a;
      a.set<AttrKind::Axis>(axis);
      outs.push_back(node(F, NodeKind::Softmax, {x}, a));
      outs.push_back(node(F, NodeKind::LogSoftmax, {x}, a));
    }
    AttrList ln;
    ln.set<AttrKind::Axis>(2).set<AttrKind::Epsilon>(1e-5f).set<AttrKind::StashKind>("float32");
    Node *norm = node(F, NodeKind::LayerNorm, {x, constant(M, {7, 19}, 5), constant(M, {7, 19}, 6)},
                      ln);
    outs.push_back(NodeValue(norm, 0));
    outs.push_back(NodeValue(norm, 1));
    outs.push_back(NodeValue(norm, 2));
    for (const char *r : {"mean", "sum", "max", "min", "l2", "log_sum_exp"}) {
      AttrList a;
      a.set<AttrKind::Reduction>(r).set<AttrKind::Axes>({2, 3});
      outs.push_back(node(F, NodeKind::Reduce, {x}, a));
      AttrList b;
      b.set<AttrKind::Reduction>(r).set<AttrKind::Axes>({1});
      outs.push_back(node(F, NodeKind::Reduce, {x}, b));
    }
    AttrList bn;
    bn.set<AttrKind::Epsilon>(1e-3f);
    Constant *var = M.createConstant(Tensor::fromValues<float>({5}, {1, 2, 0.5, 3, 0.1f}), "var");
    outs.push_back(node(F, NodeKind::BatchNorm,
                        {x, constant(M, {5}, 1), constant(M, {5}, 2), constant(M, {5}, 3), var},
                        bn));
    return outs;
  });
}

TEST(CPUBackend, DataMovement) {
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {2, 3, 4, 5});
    AttrList t;
    t.set<AttrKind::Shuffle>({0, 3, 1, 2});
    AttrList s;
    s.set<AttrKind::Starts>({1, 2, 0, 4}).set<AttrKind::Steps>({1, -1, 2, -2}).set<AttrKind::Dims>(
        {1, 3, 2, 3});
    AttrList b;
    b.set<AttrKind::Dims>({2, 2, 3, 4, 5});
    AttrList c;
    c.set<AttrKind::Axis>(2);
    AttrList r;
    r.set<AttrKind::Dims>({6, 20});
    Placeholder *idx = M.createPlaceholder(Type(ElemKind::Int64, {2, 2}), "idx");
    AttrList g;
    g.set<AttrKind::Axis>(1);
    return {node(F, NodeKind::Transpose, {x}, t), node(F, NodeKind::Slice, {x}, s),
            node(F, NodeKind::Broadcast, {x}, b), node(F, NodeKind::Concat, {x, x, x}, c),
            node(F, NodeKind::Reshape, {x}, r), node(F, NodeKind::Gather, {x, idx}, g)};
  });
}

TEST(CPUBackend, GatherIndexOutOfRangeIsARunTimeError) {
  auto M = std::make_unique<Module>();
  Function *F = M->createFunction(kMainFunctionName);
  Placeholder *x = M->createPlaceholder(Type(ElemKind::Float32, {4, 3}), "x");
  Placeholder *idx = M->createPlaceholder(Type(ElemKind::Int32, {2}), "idx");
  AttrList g;
  g.set<AttrKind::Axis>(0);
  ASSERT_OK_AND_ASSIGN(Node * gather, F->createNode(NodeKind::Gather, "gather", {x, idx}, g));
  Placeholder *out = M->createPlaceholder(gather->getType(), "out");
  ASSERT_TRUE(bool(F->createNode(NodeKind::Save, "save", {gather, out})));
  CompileOptions opts;
  opts.backend = "CPU";
  ASSERT_OK_AND_ASSIGN(auto cm, CompiledModel::compile(std::move(M), opts));
  ASSERT_FALSE(bool(cm->setInput("idx", Tensor::fromValues<int32_t>({2}, {-4, 3}))));
  EXPECT_EQ(errorToString(cm->run()), "");
  ASSERT_FALSE(bool(cm->setInput("idx", Tensor::fromValues<int32_t>({2}, {1, 4}))));
  std::string err = errorToString(cm->run());
  EXPECT_NE(err.find("instruction 'gather' (gather)"), std::string::npos) << err;
  EXPECT_NE(err.find("out of range"), std::string::npos) << err;
}

TEST(Backends, RefuseUnsupportedNodesListingAll) {
  // Nodes no backend runs (the CPU backend runs what the Interpreter runs): MaxPool on int32 and
  // on int16. Each backend lists both, and not the node it does run.
  for (const std::string &backend : getBackendNames()) {
    SCOPED_TRACE(backend);
    auto M = std::make_unique<Module>();
    Function *F = M->createFunction(kMainFunctionName);
    Placeholder *x = M->createPlaceholder(Type(ElemKind::Float32, {4, 6}), "x");
    Placeholder *i = M->createPlaceholder(Type(ElemKind::Int32, {1, 2, 6, 6}), "i");
    AttrList pool = maxPoolAttrs({2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 0);
    ASSERT_OK_AND_ASSIGN(Node * intPool, F->createNode(NodeKind::MaxPool, "intpool", {i}, pool));
    Placeholder *s = M->createPlaceholder(Type(ElemKind::Int16, {1, 2, 6, 6}), "s");
    ASSERT_OK_AND_ASSIGN(Node * shortPool,
                         F->createNode(NodeKind::MaxPool, "shortpool", {s}, pool));
    ASSERT_OK_AND_ASSIGN(Node * relu, F->createNode(NodeKind::Relu, "relu", {x}));
    for (NodeValue v : {NodeValue(intPool, 0), NodeValue(shortPool, 0), NodeValue(relu, 0)}) {
      Placeholder *p = M->createPlaceholder(v.getType(), "out");
      ASSERT_TRUE(bool(F->createNode(NodeKind::Save, "save", {v, p})));
    }
    CompileOptions opts;
    opts.backend = backend;
    opts.pipeline = {"dce"};
    std::string err = errorOf(CompiledModel::compile(std::move(M), opts));
    EXPECT_NE(err.find("does not support 2 node(s)"), std::string::npos) << err;
    EXPECT_NE(err.find("node 'intpool' (MaxPool) int32"), std::string::npos) << err;
    EXPECT_NE(err.find("node 'shortpool' (MaxPool) int16"), std::string::npos) << err;
    EXPECT_EQ(err.find("'relu'"), std::string::npos) << err;
  }
}

} // namespace
