// The blocked float32 paths of convolutions, products and pools against the Interpreter, on
// every backend: the edge cases of kernels that compute a block of outputs per work-item (the
// OpenCL backend's dwconv_f32, its zero-padded copy, the per-group GEMM, the GEMM's bias and
// activation epilogue, maxpool2d_f32, avgpool2d_f32, global_avgpool_f32): rows not a multiple of
// the block, strides 1, 2 and 3, padding, dilation, channel multipliers, every fused activation,
// and weights that are not finite next to padding.
#include "BackendTestUtils.h"
#include "ModelTestCase.h"

#include "ember/Graph/FusedActivations.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

using namespace ember;
using namespace ember::test;

namespace {

/// "" (no activation) and every row of Nodes/FusedActivations.def.
std::vector<std::string> activations() {
  std::vector<std::string> names = {""};
  for (const FusedActivationInfo &r : fusedActivations())
    names.push_back(r.name.str());
  return names;
}

/// \p a with activation \p act and its arguments (0.2 then 0.5: a valid Clip, LeakyRelu and
/// HardSigmoid).
AttrList withActivation(AttrList a, const std::string &act) {
  const FusedActivationInfo *info = findFusedActivation(act);
  std::vector<float> args = {0.2f, 0.5f};
  args.resize(info ? info->arity : 0);
  a.set<AttrKind::FusedActivation>(act).set<AttrKind::FusedActivationArgs>(args);
  return a;
}

/// expectBackendsAgree with \p opts on 1 and 2 threads (on 2, the CPU backend's kernels split
/// their work over a team).
void expectAgreeOnOneAndTwoThreads(const GraphBuilder &build, RunOptions opts = RunOptions(),
                                   double atol = 1e-5, double rtol = 1e-4) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    opts.backend.threads = threads;
    expectBackendsAgree(build, opts, atol, rtol);
  }
}

struct GroupedCase {
  dim_t n, c, h, w, k;
  int64_t kernel, stride, pad, dilation, group;
};

/// Conv and FusedConv (every activation) of groups: depthwise (one input channel a group, with
/// and without a channel multiplier) and grouped.
void expectGroupedConvsAgree(const GroupedCase &p) {
  SCOPED_TRACE(::testing::Message() << "input " << p.n << "x" << p.c << "x" << p.h << "x" << p.w
                                    << " K " << p.k << " kernel " << p.kernel << " stride "
                                    << p.stride << " pad " << p.pad << " dilation "
                                    << p.dilation << " group " << p.group);
  expectBackendsAgree([&](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {p.n, p.c, p.h, p.w});
    Constant *w = constant(M, {p.k, p.c / dim_t(p.group), dim_t(p.kernel), dim_t(p.kernel)}, 7);
    Constant *b = constant(M, {p.k}, 8);
    AttrList a = convAttrs({p.kernel, p.kernel}, {p.stride, p.stride},
                           {p.pad, p.pad, p.pad, p.pad}, {p.dilation, p.dilation}, p.group);
    std::vector<NodeValue> outs = {node(F, NodeKind::Conv, {x, w, b}, a)};
    for (const std::string &act : activations())
      outs.push_back(node(F, NodeKind::FusedConv, {x, w, b}, withActivation(a, act)));
    return outs;
  });
}

TEST(NNFastPaths, DepthwiseConvRowsAndEdges) {
  for (const GroupedCase &p : {
           GroupedCase{2, 3, 5, 1, 3, 3, 1, 1, 1, 3},    // one column
           GroupedCase{1, 4, 7, 7, 4, 3, 1, 1, 1, 4},    // shorter than a block
           GroupedCase{1, 2, 6, 8, 2, 3, 1, 1, 1, 2},    // one block exactly
           GroupedCase{1, 3, 9, 17, 3, 3, 1, 1, 1, 3},   // two blocks and one column
           GroupedCase{2, 4, 11, 33, 4, 3, 2, 1, 1, 4},  // stride 2, odd width
           GroupedCase{1, 3, 12, 29, 3, 5, 2, 2, 1, 3},  // 5x5 stride 2
           GroupedCase{1, 2, 10, 40, 2, 3, 3, 1, 1, 2},  // stride 3 (gathered)
           GroupedCase{1, 2, 13, 27, 2, 3, 1, 2, 2, 2},  // dilation 2
           GroupedCase{1, 3, 8, 20, 6, 3, 1, 0, 1, 3},   // no padding, multiplier 2
           GroupedCase{1, 2, 9, 23, 6, 3, 2, 1, 1, 2},   // multiplier 3, stride 2
           GroupedCase{1, 2, 8, 10, 2, 7, 1, 3, 1, 2},   // 7x7: weights past the registers' 25
           GroupedCase{1, 2, 5, 6, 2, 3, 1, 4, 1, 2},    // pads wider than the window
       })
    expectGroupedConvsAgree(p);
}

TEST(NNFastPaths, DepthwiseConvInChannelLanes) {
  // NNDepthwiseLanes.h: 16 channels a block, their rows transposed into a ring of padded rows
  // and the outputs staged and transposed back 16 positions at a time. 37 channels make two
  // whole blocks and one of 5 lanes (whose last lane's loads reach the input's end); rows of 3,
  // 7 and 29 outputs leave 1-15 positions staged across rows; every activation; two images;
  // the unrolled windows (3x3, 5x5 at strides 1 and 2) and the generic one (7x7, dilation,
  // unequal strides, asymmetric pads, pads wider than the window); 1 and 2 threads.
  struct Case {
    dim_t h, w, k;
    std::vector<int64_t> strides, pads, dilations;
  };
  const std::vector<Case> cases = {
      {7, 7, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}},     {14, 13, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}},
      {9, 29, 5, {1, 1}, {2, 2, 2, 2}, {1, 1}},    {15, 14, 5, {2, 2}, {2, 2, 2, 2}, {1, 1}},
      {11, 12, 7, {1, 1}, {3, 3, 3, 3}, {1, 1}},   {13, 14, 3, {1, 2}, {1, 2, 0, 1}, {1, 1}},
      {17, 16, 3, {1, 1}, {2, 2, 2, 2}, {2, 2}},   {3, 2, 3, {1, 1}, {4, 3, 4, 3}, {1, 1}},
  };
  expectAgreeOnOneAndTwoThreads([&](Module &M, Function *F) -> std::vector<NodeValue> {
    std::vector<NodeValue> outs;
    int seed = 21;
    for (const Case &k : cases) {
      Placeholder *x = input(M, {2, 37, k.h, k.w}, ElemKind::Float32,
                             "x" + std::to_string(outs.size()));
      Constant *w = constant(M, {37, 1, k.k, k.k}, seed++), *b = constant(M, {37}, seed++);
      AttrList a = convAttrs({int64_t(k.k), int64_t(k.k)}, k.strides, k.pads, k.dilations, 37);
      outs.push_back(node(F, NodeKind::Conv, {x, w, b}, a));
      for (const std::string &act : activations())
        if (!act.empty())
          outs.push_back(node(F, NodeKind::FusedConv, {x, w, b}, withActivation(a, act)));
    }
    return outs;
  });
}

TEST(NNFastPaths, GroupedConvPerGroup) {
  for (const GroupedCase &p : {
           GroupedCase{2, 6, 9, 11, 9, 3, 1, 1, 1, 3},   // batch, 2 channels a group
           GroupedCase{1, 8, 10, 13, 4, 3, 2, 1, 1, 4},  // 2 in, 1 out a group, stride 2
           GroupedCase{1, 12, 6, 7, 24, 1, 1, 0, 1, 2},  // 1x1: the input is the matrix
           GroupedCase{1, 9, 7, 9, 18, 3, 1, 2, 2, 3},   // dilated
       })
    expectGroupedConvsAgree(p);
}

TEST(NNFastPaths, DepthwiseWeightsNotFiniteNextToPadding) {
  // The Interpreter skips padding, so an infinite or NaN weight only meets real cells: a
  // backend that reads padding as zeros (the OpenCL backend's padded copy, the CPU backend's
  // phase planes) must not turn it into 0 * inf = NaN.
  auto build = [](Module &M, Function *F) -> std::vector<NodeValue> {
    float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
    Placeholder *x = input(M, {1, 3, 6, 11});
    std::vector<float> wv(3 * 9, 0.5f);
    wv[0] = inf;       // channel 0: top-left tap
    wv[9 + 5] = -inf;  // channel 1: right tap
    wv[18 + 8] = nan;  // channel 2: bottom-right tap
    Constant *w = M.createConstant(Tensor::fromValues<float>({3, 1, 3, 3}, wv), "w");
    Constant *b = constant(M, {3}, 8);
    AttrList a = convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 3);
    return {node(F, NodeKind::Conv, {x, w, b}, a),
            node(F, NodeKind::FusedConv, {x, w, b}, withActivation(a, "relu"))};
  };
  expectBackendsAgree(build);
}

TEST(NNFastPaths, ProductsWithBiasAndActivation) {
  // FullyConnected (bias per column) and FusedMatMul: rows not a multiple of 8, columns not a
  // multiple of 32, and broadcast batches.
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {3, 5, 37}, ElemKind::Float32, "x");
    Placeholder *a = input(M, {2, 1, 9, 21}, ElemKind::Float32, "a");
    Placeholder *b = input(M, {1, 3, 21, 45}, ElemKind::Float32, "b");
    Constant *w = constant(M, {37, 70}, 3), *bias = constant(M, {70}, 4);
    std::vector<NodeValue> outs;
    for (const std::string &act : activations()) {
      AttrList fm = withActivation(AttrList(), act);
      outs.push_back(node(F, NodeKind::FullyConnected, {x, w, bias}, fm));
      outs.push_back(node(F, NodeKind::FusedMatMul, {a, b}, fm));
    }
    return outs;
  });
}

TEST(NNFastPaths, ProductsOnWeightsPackedInColumnPanels) {
  // A constant B of a product on the GEMM is stored in panels of the tile's columns
  // (CPUConstants.h): K past one block of k (256), N past one block of columns (512) and not a
  // multiple of the panel (its narrow last panel is copied every call), rows not a multiple of
  // the tile; a MatMul of batches over one shared matrix ([S, 1, K] x [1, K, N]: one product of
  // S rows), with the matrix a constant (packed) and an input (read as it is); and a constant
  // read both by the GEMM and by the few-row kernel, which reads it in place (so it stays so).
  expectAgreeOnOneAndTwoThreads([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {3, 5, 300}, ElemKind::Float32, "x");
    Placeholder *y = input(M, {13, 37}, ElemKind::Float32, "y");
    Placeholder *s = input(M, {20, 1, 37}, ElemKind::Float32, "s");
    Placeholder *few = input(M, {2, 37}, ElemKind::Float32, "few");
    Placeholder *b = input(M, {1, 37, 45}, ElemKind::Float32, "b");
    Constant *w1 = constant(M, {300, 70}, 3), *bias1 = constant(M, {70}, 4);
    Constant *w2 = constant(M, {37, 600}, 5), *bias2 = constant(M, {600}, 6);
    Constant *w3 = constant(M, {1, 37, 45}, 7), *w4 = constant(M, {37, 64}, 8);
    Constant *bias4 = constant(M, {64}, 9);
    return {node(F, NodeKind::FullyConnected, {x, w1, bias1},
                 withActivation(AttrList(), "relu")),
            node(F, NodeKind::FullyConnected, {y, w2, bias2}, withActivation(AttrList(), "")),
            node(F, NodeKind::MatMul, {s, w3}, AttrList()),
            node(F, NodeKind::FusedMatMul, {s, b}, withActivation(AttrList(), "gelu")),
            node(F, NodeKind::FullyConnected, {y, w4, bias4}, withActivation(AttrList(), "")),
            node(F, NodeKind::FullyConnected, {few, w4, bias4},
                 withActivation(AttrList(), ""))};
  });
}

TEST(NNFastPaths, SingleChannelConvWithAWideStridedWindow) {
  // One input channel, 400-tap windows at stride 160 (an STFT as a Conv1d) is a GEMM, not the
  // depthwise kernel with a channel multiplier; here smaller, with two blocks of k.
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {2, 1, 1000});
    Constant *w = constant(M, {21, 1, 300}, 7), *b = constant(M, {21}, 8);
    AttrList a = convAttrs({300}, {96}, {150, 150}, {1}, 1);
    return {node(F, NodeKind::Conv, {x, w, b}, a),
            node(F, NodeKind::FusedConv, {x, w, b}, withActivation(a, "relu"))};
  });
}

TEST(NNFastPaths, WinogradConvolutions) {
  // 3x3 convolutions of stride 1 that scratch::winogradTile takes run Winograd F(4x4, 3x3) or
  // F(2x2, 3x3) on the CPU backend (kernels/NNWinograd.cpp): maps whose sides are not multiples
  // of the tile (the edge tiles cut), two images of 16 tiles each (a 16-column register tile),
  // symmetric and asymmetric padding, every fused activation, three blocks of tile rows
  // (130 x 130: 33 x 33 tiles), a filter shared with a stride-2 convolution (which then keeps
  // the GEMM's panels), and a 9x7 map of 2x2 tiles, on 1 and 2 threads (split by filters, each
  // part with its own transformed input, but the 130 x 130 map by steps, as
  // scratch::winogradByFilters says; 64 and 70 filters end in part panels). Winograd's error is
  // larger than the direct sum's (36 products of transformed values, each output a sum of them
  // with weights up to 8) and scales with the outputs' magnitude, not each element's: here
  // outputs reach about 50 (sums of 1296 products of values in [-2, 2]), so an absolute 5e-3,
  // 1e-4 of that, as utils/zoo.sh's rule against torch (about 7e-4 here).
  expectAgreeOnOneAndTwoThreads(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {2, 144, 15, 13});
        Constant *w = constant(M, {64, 144, 3, 3}, 11), *b = constant(M, {64}, 12);
        std::vector<NodeValue> outs;
        for (const std::string &act : activations())
          outs.push_back(node(F, act.empty() ? NodeKind::Conv : NodeKind::FusedConv, {x, w, b},
                              withActivation(convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1),
                                             act)));
        Placeholder *y = input(M, {1, 24, 30, 29}, ElemKind::Float32, "y");
        Constant *v = constant(M, {70, 24, 3, 3}, 13), *c = constant(M, {70}, 14);
        outs.push_back(node(F, NodeKind::Conv, {y, v, c},
                            convAttrs({3, 3}, {1, 1}, {0, 1, 2, 0}, {1, 1}, 1)));
        Constant *shared = constant(M, {70, 24, 3, 3}, 17);
        outs.push_back(node(F, NodeKind::Conv, {y, shared, c},
                            convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1)));
        outs.push_back(node(F, NodeKind::Conv, {y, shared, c},
                            convAttrs({3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1)));
        // F(2x2): too few tiles of 4x4 (6 here), enough of 2x2 (20), C x K of 256 x 256.
        Placeholder *small = input(M, {1, 256, 9, 7}, ElemKind::Float32, "small");
        Constant *e = constant(M, {256, 256, 3, 3}, 18), *f = constant(M, {256}, 19);
        outs.push_back(node(F, NodeKind::FusedConv, {small, e, f},
                            withActivation(convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1),
                                           "relu")));
        Placeholder *z = input(M, {1, 16, 130, 130}, ElemKind::Float32, "z");
        Constant *u = constant(M, {64, 16, 3, 3}, 15), *d = constant(M, {64}, 16);
        outs.push_back(node(F, NodeKind::Conv, {z, u, d},
                            convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1)));
        return outs;
      },
      RunOptions(), 5e-3, 1e-4);
}

TEST(NNFastPaths, AttentionChainsAsOneKernel) {
  // MatMul(Q, K^T), an optional Add of a mask, Softmax along the keys and MatMul(P, V), as
  // torch exports attention: the CPU backend computes the chain a block of 48 query rows at a
  // time (CodeGenAttention.cpp). 50 query rows (a block and 2), 70 keys (panels of 32 and 6), 3
  // heads, with and without a mask that holds -inf (a causal frontier), on 1 and 2 threads.
  // 8 keys: too few for the fused kernel (no scratch is reserved for it), which must leave the
  // chain alone; fused anyway, it wrote past the first MatMul's scratch, which here happens to
  // hit nothing (in the zoo's transformer_encoder it hit a live activation: Zoo.CPU).
  for (dim_t T : {70, 8})
    for (bool masked : {false, true}) {
      SCOPED_TRACE(::testing::Message() << T << " keys, mask " << masked);
      RunOptions opts;
      opts.pipeline = {"dce"};
      std::vector<float> causal(3 * 50 * T);
      for (size_t h = 0; h < 3; ++h)
        for (size_t i = 0; i < 50; ++i)
          for (size_t j = 0; j < T; ++j)
            causal[(h * 50 + i) * T + j] =
                j > i + 20 ? -std::numeric_limits<float>::infinity() : 0.25f * float(j % 3);
      expectAgreeOnOneAndTwoThreads(
          [&](Module &M, Function *F) -> std::vector<NodeValue> {
            Placeholder *q = input(M, {3, 50, 24}, ElemKind::Float32, "q");
            Placeholder *kt = input(M, {3, 24, T}, ElemKind::Float32, "kt");
            Placeholder *v = input(M, {3, T, 40}, ElemKind::Float32, "v");
            NodeValue scores = node(F, NodeKind::MatMul, {q, kt}, AttrList());
            if (masked)
              scores = node(F, NodeKind::Add,
                            {scores, M.createConstant(
                                         Tensor::fromValues<float>({3, 50, T}, causal), "mask")},
                            AttrList());
            AttrList axis;
            axis.set<AttrKind::Axis>(2);
            NodeValue p = node(F, NodeKind::Softmax, {scores}, axis);
            return {node(F, NodeKind::MatMul, {p, v}, AttrList())};
          },
          std::move(opts));
    }
  // A causal mask of one [Sq, T] matrix, broadcast to every head (GPT-2's): the CPU backend
  // reads it unbroadcast.
  std::vector<float> causal(50 * 70);
  for (size_t i = 0; i < 50; ++i)
    for (size_t j = 0; j < 70; ++j)
      causal[i * 70 + j] = j > i + 20 ? -std::numeric_limits<float>::infinity() : 0.f;
  expectBackendsAgree([&](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *q = input(M, {3, 50, 24}, ElemKind::Float32, "q");
    Placeholder *kt = input(M, {3, 24, 70}, ElemKind::Float32, "kt");
    Placeholder *v = input(M, {3, 70, 24}, ElemKind::Float32, "v");
    Placeholder *m = input(M, {1, 50, 70}, ElemKind::Float32, "m");
    AttrList dims;
    dims.set<AttrKind::Dims>(std::vector<int64_t>{3, 50, 70});
    NodeValue scores = node(F, NodeKind::Add,
                            {node(F, NodeKind::MatMul, {q, kt}, AttrList()),
                             node(F, NodeKind::Broadcast, {m}, dims)},
                            AttrList());
    AttrList axis;
    axis.set<AttrKind::Axis>(2);
    return {node(F, NodeKind::MatMul, {node(F, NodeKind::Softmax, {scores}, axis), v},
                 AttrList())};
  });
}

struct Pool2DCase {
  dim_t h, w;
  int64_t kernel, stride, pad, dilation, ceil;
};

TEST(NNFastPaths, Pools2DRowsAndEdges) {
  for (const Pool2DCase &p : {
           Pool2DCase{5, 1, 3, 1, 1, 1, 0},    // one column
           Pool2DCase{7, 7, 3, 1, 1, 1, 0},    // shorter than a block
           Pool2DCase{9, 25, 3, 1, 0, 1, 0},   // blocks inside and one short
           Pool2DCase{12, 35, 3, 2, 1, 1, 1},  // stride 2, ceil mode
           Pool2DCase{11, 41, 3, 2, 0, 1, 0},  // stride 2 without padding
           Pool2DCase{10, 40, 2, 3, 1, 1, 0},  // stride 3
           Pool2DCase{13, 30, 3, 1, 2, 2, 0},  // dilation 2 (AvgPool: the generic kernels)
           Pool2DCase{8, 20, 5, 1, 2, 1, 1},   // 5x5
           // 64 and wider: the CPU takes the maxima of unread indices by rows.
           Pool2DCase{6, 70, 3, 2, 1, 1, 1},   // stride 2, ceil mode
           Pool2DCase{5, 67, 3, 1, 1, 1, 0},   // stride 1, a short last vector
           Pool2DCase{4, 64, 2, 3, 0, 1, 0},   // stride 3
           Pool2DCase{5, 66, 2, 1, 2, 1, 0},   // pads wider than the window: windows of padding
       }) {
    SCOPED_TRACE(::testing::Message() << "input " << p.h << "x" << p.w << " kernel " << p.kernel
                                      << " stride " << p.stride << " pad " << p.pad
                                      << " dilation " << p.dilation << " ceil " << p.ceil);
    expectBackendsAgree([&](Module &M, Function *F) -> std::vector<NodeValue> {
      Placeholder *x = input(M, {2, 3, p.h, p.w});
      std::vector<int64_t> k = {p.kernel, p.kernel}, s = {p.stride, p.stride};
      std::vector<int64_t> pads = {p.pad, p.pad, p.pad, p.pad};
      std::vector<NodeValue> outs;
      for (int64_t order : {0, 1}) {
        AttrList mp;
        mp.set<AttrKind::Kernels>(k)
            .set<AttrKind::Strides>(s)
            .set<AttrKind::Pads>(pads)
            .set<AttrKind::Dilations>({p.dilation, p.dilation})
            .set<AttrKind::CeilMode>(p.ceil)
            .set<AttrKind::StorageOrder>(order);
        Node *maxPool = node(F, NodeKind::MaxPool, {x}, mp);
        outs.push_back(NodeValue(maxPool, 0));
        outs.push_back(NodeValue(maxPool, 1));
      }
      // Maxima whose indices nobody reads: the CPU pools them by rows (64 wide or more, no
      // window of padding alone) or by phase planes. Of an input of their own, which CSE keeps
      // apart.
      Placeholder *y = input(M, {2, 3, p.h, p.w}, ElemKind::Float32, "y");
      Node *maxima = node(F, NodeKind::MaxPool, {y},
                          maxPoolAttrs(k, s, pads, {p.dilation, p.dilation}, p.ceil));
      outs.push_back(NodeValue(maxima, 0));
      for (int64_t countPad : {0, 1}) {
        AttrList ap;
        ap.set<AttrKind::Kernels>(k)
            .set<AttrKind::Strides>(s)
            .set<AttrKind::Pads>(pads)
            .set<AttrKind::Dilations>({p.dilation, p.dilation})
            .set<AttrKind::CeilMode>(p.ceil)
            .set<AttrKind::CountIncludePad>(countPad);
        outs.push_back(node(F, NodeKind::AvgPool, {x}, ap));
      }
      return outs;
    });
  }
}

TEST(NNFastPaths, MaxPoolSpecialValuesInsideBlocks) {
  // NaN and infinities in rows wide enough for whole blocks: the first NaN of a window stays,
  // a later one never wins, and the index is the winner's; with padding too, where the blocks
  // at the edges read some taps lane by lane.
  float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  RunOptions opts = dceOnly();
  Tensor t = tensorOf(ElemKind::Float32, {1, 2, 6, 72},
                      {0.5, -1, nan, 2, inf, -inf, 3, nan, 1, 1, -2, 4, 0, 7, -inf, 2.5, nan});
  // y: x, but its second plane without NaN, which the rows take whole.
  Tensor y = t.clone();
  for (size_t i = 6 * 72; i < y.numElements(); ++i)
    if (std::isnan(y.dataAs<float>()[i]))
      y.dataAs<float>()[i] = 5;
  opts.inputs.emplace("y", std::move(y));
  opts.inputs.emplace("x", std::move(t));
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {1, 2, 6, 72});
        Placeholder *y = input(M, {1, 2, 6, 72}, ElemKind::Float32, "y");
        std::vector<NodeValue> outs;
        for (int64_t stride : {1, 2})
          for (int64_t pad : {0, 1}) {
          Node *maxPool = node(F, NodeKind::MaxPool, {x},
                               maxPoolAttrs({3, 3}, {stride, stride}, {pad, pad, pad, pad},
                                            {1, 1}, 0));
          outs.push_back(NodeValue(maxPool, 0));
          outs.push_back(NodeValue(maxPool, 1));
          // The same maxima with their indices unread (pooled by rows on the CPU), of a copy of
          // x that CSE keeps apart: a NaN other than a window's first sends its plane back to
          // the cell-by-cell kernel.
          Node *maxima = node(F, NodeKind::MaxPool, {y},
                              maxPoolAttrs({3, 3}, {stride, stride}, {pad, pad, pad, pad},
                                           {1, 1}, 0));
          outs.push_back(NodeValue(maxima, 0));
        }
        return outs;
      },
      opts);
}

TEST(NNFastPaths, GlobalAveragePool) {
  // One window covering the plane: sizes below, at and past a 16-wide vector.
  for (dim_t hw : {1, 4, 5, 13, 56}) {
    SCOPED_TRACE(hw);
    expectBackendsAgree([&](Module &M, Function *F) -> std::vector<NodeValue> {
      Placeholder *x = input(M, {2, 5, hw, hw + 1});
      AttrList ap;
      ap.set<AttrKind::Kernels>({int64_t(hw), int64_t(hw) + 1})
          .set<AttrKind::Strides>({1, 1})
          .set<AttrKind::Pads>({0, 0, 0, 0})
          .set<AttrKind::Dilations>({1, 1})
          .set<AttrKind::CeilMode>(0)
          .set<AttrKind::CountIncludePad>(0);
      return {node(F, NodeKind::AvgPool, {x}, ap)};
    });
  }
}

} // namespace
