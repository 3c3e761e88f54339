// The quantized family on every backend against the Interpreter: QuantizeLinear (every input
// kind, per-tensor and per-axis parameters, ties, saturation, NaN and infinities), Requantize,
// DequantizeLinear (also in the chains of a residual add the CPU backend fuses into one loop),
// DynamicQuantizeLinear (including an all-zero input), IntegerMatMul (every
// operand kind pair, per-row/per-column zero points, broadcast batches, 32-bit wrap-around) and
// IntegerConv (1-D to 3-D, padding, strides, dilations, groups, per-channel zero points), also
// requantized as the CPU backend's int8 GEMM finishes; the CPU backend's int8 GEMM
// (kernels/QuantizedIntegerGemm.h) at its tile edges, on values over the whole 8-bit ranges, in
// every variant this machine runs and split over threads; and uint8 / int8 MaxPool.
#include "BackendTestUtils.h"

#include <cmath>
#include <limits>
#include <random>

using namespace ember;
using namespace ember::test;

namespace {

Constant *constantOf(Module &M, ElemKind k, std::vector<dim_t> dims,
                     const std::vector<double> &values, const std::string &name) {
  return M.createConstant(tensorOf(k, dims, values), name);
}

using ember::test::dceOnly; // the overload below adds to it, does not hide it

/// dceOnly() with inputs given as name, tensor, name, tensor... (the others random).
template <typename... Rest> RunOptions dceOnly(const std::string &name, Tensor t, Rest &&...rest) {
  RunOptions o = dceOnly(std::forward<Rest>(rest)...);
  o.inputs.emplace(name, std::move(t));
  return o;
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// Values reaching ties (scale 0.5 makes x.25 and x.75 ties too), saturation at both ends of
/// int8 and uint8, NaN and infinities.
const std::vector<double> kSpecial = {0.5,  1.5,   2.5,   -0.5,  -1.5,   -2.5, 0.25, 0.75,
                                      63.5, 127.4, 127.6, 300.0, -300.0, kNaN, kInf, -kInf,
                                      1e10, -1e10, 0.0,   -0.0,  3.3,    -7.9, 128.5};

class QuantizeLinearFrom : public ::testing::TestWithParam<ElemKind> {};

TEST_P(QuantizeLinearFrom, PerTensorAndPerAxisToBothByteKinds) {
  ElemKind k = GetParam();
  bool isInt = k == ElemKind::Int32;
  std::vector<double> xs = kSpecial;
  if (isInt)
    xs = {0, 1, -1, 2, 3, -3, 5, 7, 255, 256, -129, 1000, 2147483647, -2147483648.0, 12345678, 3};
  Tensor x = tensorOf(k, {2, 3, 23}, xs);
  expectBackendsAgree(
      [k](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *xp = input(M, {2, 3, 23}, k, "x");
        std::vector<NodeValue> outs;
        for (ElemKind q : {ElemKind::Int8, ElemKind::UInt8}) {
          double zp = q == ElemKind::Int8 ? -3 : 7;
          // Per-tensor, then per-axis (axis 1) scale and zero point.
          Constant *s = constantOf(M, ElemKind::Float32, {1, 1, 1}, {0.5}, "s");
          Constant *z = constantOf(M, q, {1, 1, 1}, {zp}, "z");
          outs.push_back(node(F, NodeKind::QuantizeLinear, {xp, s, z}));
          Constant *sa = constantOf(M, ElemKind::Float32, {1, 3, 1}, {1.0, 0.25, 3.0}, "sa");
          Constant *za = constantOf(M, q, {1, 3, 1}, {zp, 0, zp + 2}, "za");
          outs.push_back(node(F, NodeKind::QuantizeLinear, {xp, sa, za}));
          // Per-element along the last axis (a ragged row of parameters).
          Constant *sl = constantOf(M, ElemKind::Float32, {1, 1, 23}, {0.1, 2.0, 0.7}, "sl");
          Constant *zl = constantOf(M, q, {1, 1, 23}, {1, 2, 0, 4}, "zl");
          outs.push_back(node(F, NodeKind::QuantizeLinear, {xp, sl, zl}));
        }
        return outs;
      },
      dceOnly("x", std::move(x)));
}

INSTANTIATE_TEST_SUITE_P(Kinds, QuantizeLinearFrom,
                         ::testing::Values(ElemKind::Float32, ElemKind::Float64,
                                           ElemKind::Float16, ElemKind::BFloat16,
                                           ElemKind::Int32));

TEST(QuantizedOps, QuantizeLinearScalarAndRandom) {
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {}, ElemKind::Float32, "x");
        Placeholder *y = input(M, {5, 37}, ElemKind::Float32, "y");
        Constant *s = constantOf(M, ElemKind::Float32, {}, {0.02}, "s");
        Constant *z = constantOf(M, ElemKind::UInt8, {}, {128}, "z");
        Constant *s2 = constantOf(M, ElemKind::Float32, {1, 1}, {0.013}, "s2");
        Constant *z2 = constantOf(M, ElemKind::Int8, {1, 1}, {-5}, "z2");
        return {node(F, NodeKind::QuantizeLinear, {x, s, z}),
                node(F, NodeKind::QuantizeLinear, {y, s2, z2})};
      },
      dceOnly());
}

TEST(QuantizedOps, Requantize) {
  std::vector<double> acc = {0,      1,      -1,       127,     128,         -129,  100000,
                             -99999, 65535,  2147483647, -2147483648.0, 4099, -4099, 777,
                             12,     -13,    3000,     -3000,   1234567};
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {4, 19}, ElemKind::Int32, "x");
        Constant *s = constantOf(M, ElemKind::Float32, {1, 1}, {0.0371}, "s");
        Constant *z8 = constantOf(M, ElemKind::Int8, {1, 1}, {3}, "z8");
        Constant *zu = constantOf(M, ElemKind::UInt8, {1, 1}, {128}, "zu");
        // Per-row multipliers and zero points, as a per-channel requantization.
        Constant *sr = constantOf(M, ElemKind::Float32, {4, 1}, {0.5, 0.01, 1.0, 0.0039}, "sr");
        Constant *zr = constantOf(M, ElemKind::UInt8, {4, 1}, {0, 10, 255, 128}, "zr");
        return {node(F, NodeKind::Requantize, {x, s, z8}),
                node(F, NodeKind::Requantize, {x, s, zu}),
                node(F, NodeKind::Requantize, {x, sr, zr})};
      },
      dceOnly("x", tensorOf(ElemKind::Int32, {4, 19}, acc)));
}

TEST(QuantizedOps, DequantizeLinear) {
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        std::vector<NodeValue> outs;
        for (auto [k, name] : {std::make_pair(ElemKind::Int8, "x_int8"),
                               std::make_pair(ElemKind::UInt8, "x_uint8"),
                               std::make_pair(ElemKind::Int32, "x_int32")}) {
          Placeholder *x = input(M, {2, 3, 4, 5}, k, name);
          double zp = k == ElemKind::UInt8 ? 128 : -7;
          Constant *s = constantOf(M, ElemKind::Float32, {1, 1, 1, 1}, {0.125}, "s");
          Constant *z = constantOf(M, k, {1, 1, 1, 1}, {zp}, "z");
          outs.push_back(node(F, NodeKind::DequantizeLinear, {x, s, z}));
          Constant *sa = constantOf(M, ElemKind::Float32, {1, 3, 1, 1}, {0.5, 0.03, 2.0}, "sa");
          Constant *za = constantOf(M, k, {1, 3, 1, 1}, {zp, 0, 3}, "za");
          outs.push_back(node(F, NodeKind::DequantizeLinear, {x, sa, za}));
        }
        return outs;
      },
      dceOnly("x_int8", tensorOf(ElemKind::Int8, {2, 3, 4, 5}, {-128, 127, 0, -1, 5, 99}),
              "x_uint8", tensorOf(ElemKind::UInt8, {2, 3, 4, 5}, {0, 255, 128, 1, 77}),
              "x_int32",
              tensorOf(ElemKind::Int32, {2, 3, 4, 5}, {2147483647, -2147483648.0, 0, 123456789, -5})));
}

TEST(QuantizedOps, BlockedParameters) {
  // ONNX's blocked quantization (opset 21) imports as parameters of the input's full dims (each
  // block's scale and zero point repeated along the blocked axis): no dim of them is 1.
  std::vector<double> scales = {0.5, 0.03, 2.0, 0.25, 1.5, 0.1, 0.7}, zps = {-3, 0, 5, 7, -1};
  expectBackendsAgree(
      [&](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {2, 3, 5}, ElemKind::Float32, "x");
        Placeholder *q = input(M, {2, 3, 5}, ElemKind::Int8, "q");
        Constant *s = constantOf(M, ElemKind::Float32, {2, 3, 5}, scales, "s");
        Constant *z = constantOf(M, ElemKind::Int8, {2, 3, 5}, zps, "z");
        return {node(F, NodeKind::QuantizeLinear, {x, s, z}),
                node(F, NodeKind::DequantizeLinear, {q, s, z})};
      },
      dceOnly("x", tensorOf(ElemKind::Float32, {2, 3, 5}, kSpecial), "q",
              tensorOf(ElemKind::Int8, {2, 3, 5}, {-128, 127, 0, -1, 5, 99, 3})));
}

TEST(QuantizedOps, ResidualAddChainsFuse) {
  // A QDQ model's residual add: DequantizeLinear, Add, (Relu,) QuantizeLinear, DequantizeLinear,
  // per-tensor, which the CPU backend runs as one fused loop over chunks (CodeGenFusion.cpp),
  // its 8-bit operands addressed by their own size; 665 elements end in a partial chunk. The
  // residual's values reach ties, saturation, NaN and infinities.
  std::vector<double> residual;
  for (int i = 0; i < 665; ++i)
    residual.push_back(i < int(kSpecial.size()) ? kSpecial[i] : std::sin(i) * 40.0);
  for (ElemKind k : {ElemKind::UInt8, ElemKind::Int8}) {
    SCOPED_TRACE(elemKindName(k).str());
    double zp = k == ElemKind::UInt8 ? 131 : -3;
    expectBackendsAgree(
        [k, zp](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {1, 19, 7, 5}, k, "x");
          Placeholder *r = input(M, {1, 19, 7, 5}, ElemKind::Float32, "r");
          Constant *sx = constantOf(M, ElemKind::Float32, {1, 1, 1, 1}, {0.37}, "sx");
          Constant *zx = constantOf(M, k, {1, 1, 1, 1}, {zp}, "zx");
          Constant *sy = constantOf(M, ElemKind::Float32, {1, 1, 1, 1}, {0.5}, "sy");
          Constant *zy = constantOf(M, k, {1, 1, 1, 1}, {zp - 1}, "zy");
          Node *dx = node(F, NodeKind::DequantizeLinear, {x, sx, zx});
          Node *sum = node(F, NodeKind::Add, {dx, r});
          Node *q = node(F, NodeKind::QuantizeLinear, {sum, sy, zy});
          Node *dq = node(F, NodeKind::DequantizeLinear, {q, sy, zy});
          // The same with a Relu before the quantization, the result read only by the chain.
          Node *dx2 = node(F, NodeKind::DequantizeLinear, {q, sy, zy});
          Node *relu = node(F, NodeKind::Relu, {node(F, NodeKind::Sub, {dx2, r})});
          Node *q2 = node(F, NodeKind::QuantizeLinear, {relu, sx, zx});
          return {q, dq, node(F, NodeKind::DequantizeLinear, {q2, sx, zx})};
        },
        dceOnly("r", tensorOf(ElemKind::Float32, {1, 19, 7, 5}, residual)));
  }
}

TEST(QuantizedOps, ResidualAddOfTwoDequantizedBranchesFuses) {
  // A QDQ residual block as exporters write it: the shortcut's DequantizeLinear right after
  // its QuantizeLinear, far from the Add that reads it. IRGen moves it down to the Add, and the
  // CPU backend fuses both dequantizations, the Add and the QuantizeLinear into one loop,
  // whose dequantized values the memory plan may place over the 8-bit buffers the loop reads
  // (they are never stored). 665 elements end in a partial chunk.
  std::vector<double> a, b;
  for (int i = 0; i < 665; ++i) {
    a.push_back(i < int(kSpecial.size()) ? kSpecial[i] : std::sin(i) * 40.0);
    b.push_back(std::cos(0.7 * i) * 25.0);
  }
  for (ElemKind k : {ElemKind::UInt8, ElemKind::Int8}) {
    SCOPED_TRACE(elemKindName(k).str());
    double zp = k == ElemKind::UInt8 ? 131 : -3;
    expectBackendsAgree(
        [k, zp](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {1, 19, 7, 5}, ElemKind::Float32, "x");
          Placeholder *y = input(M, {1, 19, 7, 5}, ElemKind::Float32, "y");
          Constant *s1 = constantOf(M, ElemKind::Float32, {1, 1, 1, 1}, {0.37}, "s1");
          Constant *s2 = constantOf(M, ElemKind::Float32, {1, 1, 1, 1}, {0.25}, "s2");
          Constant *s3 = constantOf(M, ElemKind::Float32, {1, 1, 1, 1}, {0.5}, "s3");
          Constant *z1 = constantOf(M, k, {1, 1, 1, 1}, {zp}, "z1");
          Constant *z2 = constantOf(M, k, {1, 1, 1, 1}, {zp - 7}, "z2");
          // The shortcut, quantized and dequantized first; then the branch, whose 8-bit
          // result is dead once dequantized.
          Node *shortcut8 = node(F, NodeKind::QuantizeLinear, {y, s2, z2});
          Node *shortcut = node(F, NodeKind::DequantizeLinear, {shortcut8, s2, z2});
          Node *branch8 = node(F, NodeKind::QuantizeLinear,
                               {node(F, NodeKind::Relu, {x}), s1, z1});
          Node *branch = node(F, NodeKind::DequantizeLinear, {branch8, s1, z1});
          Node *sum = node(F, NodeKind::Add, {branch, shortcut});
          return {node(F, NodeKind::QuantizeLinear, {sum, s3, z1})};
        },
        dceOnly("x", tensorOf(ElemKind::Float32, {1, 19, 7, 5}, a), "y",
                tensorOf(ElemKind::Float32, {1, 19, 7, 5}, b)));
  }
}

TEST(QuantizedOps, DynamicQuantizeLinear) {
  auto build = [](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {3, 29}, ElemKind::Float32, "x");
    Node *n = node(F, NodeKind::DynamicQuantizeLinear, {x});
    if (!n)
      return {NodeValue()};
    return {NodeValue(n, 0), NodeValue(n, 1), NodeValue(n, 2)};
  };
  // Random values in [-2, 2); all positive (the range starts at 0); all negative; all zero
  // (scale 0); special values (NaN is skipped by the range, infinities make it infinite).
  expectBackendsAgree(build, dceOnly());
  for (std::vector<double> v : std::vector<std::vector<double>>{
           {0.5, 3.25, 9.75, 0.0, 1.0, 7.5},
           {-0.5, -3.25, -9.75, -1.0, -2.0},
           {0.0},
           {1.0, -2.0, kNaN, 3.5, 0.1},
           {1.0, kInf, -2.0}}) {
    SCOPED_TRACE(v.size());
    expectBackendsAgree(build, dceOnly("x", tensorOf(ElemKind::Float32, {3, 29}, v)));
  }
}

class IntegerMatMulKinds
    : public ::testing::TestWithParam<std::pair<ElemKind, ElemKind>> {};

TEST_P(IntegerMatMulKinds, PerTensorPerRowAndBatched) {
  auto [ka, kb] = GetParam();
  expectBackendsAgree(
      [ka = ka, kb = kb](Module &M, Function *F) -> std::vector<NodeValue> {
        auto zpOf = [](ElemKind k) { return k == ElemKind::UInt8 ? 3.0 : -2.0; };
        // 2-D, odd sizes for vector tails; per-tensor zero points.
        Placeholder *a = input(M, {7, 19}, ka, "a");
        Placeholder *b = input(M, {19, 37}, kb, "b");
        Constant *za = constantOf(M, ka, {1, 1}, {zpOf(ka)}, "za");
        Constant *zb = constantOf(M, kb, {1, 1}, {zpOf(kb)}, "zb");
        NodeValue plain = node(F, NodeKind::IntegerMatMul, {a, b, za, zb});
        // Per-row zero points of the LHS, per-column of the RHS.
        Constant *zar = constantOf(M, ka, {7, 1}, {0, 1, 2, 3, 4, 5, 6}, "zar");
        Constant *zbc = constantOf(M, kb, {1, 37}, {1, 0, 2}, "zbc");
        NodeValue perAxis = node(F, NodeKind::IntegerMatMul, {a, b, zar, zbc});
        // Batched with broadcast batch dims on both sides.
        Placeholder *a3 = input(M, {2, 1, 5, 9}, ka, "a3");
        Placeholder *b3 = input(M, {1, 3, 9, 17}, kb, "b3");
        Constant *za3 = constantOf(M, ka, {1, 1, 1, 1}, {zpOf(ka)}, "za3");
        Constant *zb3 = constantOf(M, kb, {1, 3, 1, 1}, {0, 1, 2}, "zb3");
        NodeValue batched = node(F, NodeKind::IntegerMatMul, {a3, b3, za3, zb3});
        return {plain, perAxis, batched};
      },
      dceOnly());
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, IntegerMatMulKinds,
    ::testing::Values(std::make_pair(ElemKind::UInt8, ElemKind::UInt8),
                      std::make_pair(ElemKind::UInt8, ElemKind::Int8),
                      std::make_pair(ElemKind::Int8, ElemKind::UInt8),
                      std::make_pair(ElemKind::Int8, ElemKind::Int8)));

TEST(QuantizedOps, IntegerMatMulWrapsAround32Bits) {
  // 40000 products of 255 * 255 (and of 255 * -255) overflow int32: the result wraps.
  const dim_t K = 40000;
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *a = input(M, {1, K}, ElemKind::UInt8, "a");
        Placeholder *b = input(M, {K, 2}, ElemKind::Int8, "b");
        Constant *za = constantOf(M, ElemKind::UInt8, {1, 1}, {0}, "za");
        Constant *zb = constantOf(M, ElemKind::Int8, {1, 2}, {-128, 127}, "zb");
        return {node(F, NodeKind::IntegerMatMul, {a, b, za, zb})};
      },
      dceOnly("a", tensorOf(ElemKind::UInt8, {1, K}, {255}), "b",
              tensorOf(ElemKind::Int8, {K, 2}, {127, -128})));
}

/// \p n values of 8-bit kind \p k spread over its whole range, its extremes and 0 first (so
/// that sums wrap and every saturation shows), the rest pseudo-random from \p seed.
std::vector<double> fullRange(ElemKind k, size_t n, unsigned seed) {
  double lo = k == ElemKind::Int8 ? -128 : 0;
  std::vector<double> v{lo, lo + 255, 0, lo + 255, lo, 1};
  std::mt19937 gen(seed);
  while (v.size() < n)
    v.push_back(lo + double(gen() % 256));
  v.resize(n);
  return v;
}

/// Int32 biases over the whole range.
std::vector<double> fullRangeBias(size_t n, unsigned seed) {
  std::vector<double> v{2147483647.0, -2147483648.0, 0};
  std::mt19937 gen(seed);
  while (v.size() < n)
    v.push_back(double(int32_t(gen())));
  v.resize(n);
  return v;
}


/// expectBackendsAgree for the CPU's int8 GEMM variants (kernels/QuantizedIntegerVariants.def):
/// the host's best row, then -mattr=-amx-int8 (the VNNI row on an AMX machine), -avx512vnni
/// (the AVX2 row on a VNNI machine) and the x86-64 baseline (plain C).
void expectEveryIntegerVariantAgrees(const GraphBuilder &build, const RunOptions &opts) {
  struct Target {
    const char *cpu, *features;
  };
  for (Target t : {Target{"", ""}, Target{"", "-amx-int8"}, Target{"", "-avx512vnni"},
                   Target{"x86-64", ""}}) {
    SCOPED_TRACE(std::string("cpu '") + t.cpu + "' features '" + t.features + "'");
#if !defined(__x86_64__)
    if (*t.cpu || *t.features)
      continue; // x86 CPU names and features
#endif
    RunOptions o = copyOf(opts);
    o.backend.cpu = t.cpu;
    o.backend.features = t.features;
    expectBackendsAgree(build, o);
  }
}

struct IntegerConvCase {
  std::vector<dim_t> x;   // [N, C, spatial...]
  dim_t cout;
  std::vector<dim_t> k;   // kernel spatial dims
  int64_t stride, pad, dilation, group;
  bool perChannel;        // filter zero point per output channel
  ElemKind xKind, wKind;
  // Values over the kinds' whole ranges (else the small random ones) and these zero points
  // (else 4 or -1 for the input, 0, 1, 2, 5, 3 cycled for the filter); in every int8 GEMM
  // variant of the CPU backend.
  bool fullRange = false;
  std::vector<double> zx = {}, zw = {};
};

class IntegerConvShapes : public ::testing::TestWithParam<IntegerConvCase> {};

/// The filter's dims of case \p p.
std::vector<dim_t> filterDims(const IntegerConvCase &p) {
  std::vector<dim_t> wd{p.cout, p.x[1] / dim_t(p.group)};
  wd.insert(wd.end(), p.k.begin(), p.k.end());
  return wd;
}

/// Case \p p's IntegerConv of inputs x, w and b; with \p constantFilter, w is a constant
/// holding the values expectIntegerConvCaseAgrees would give it (the CPU backend then sums its
/// filters at compile time).
Node *integerConvOf(Module &M, Function *F, const IntegerConvCase &p,
                    bool constantFilter = false) {
  size_t nsp = p.x.size() - 2;
  Placeholder *x = input(M, p.x, p.xKind, "x");
  std::vector<dim_t> wd = filterDims(p);
  NodeValue w = constantFilter ? NodeValue(constantOf(M, p.wKind, wd,
                                                      fullRange(p.wKind, dimsProduct(wd), 2), "w"))
                               : NodeValue(input(M, wd, p.wKind, "w"));
  Placeholder *b = input(M, {p.cout}, ElemKind::Int32, "b");
  std::vector<dim_t> ones(p.x.size(), 1);
  std::vector<double> zx = p.zx;
  if (zx.empty())
    zx = {p.xKind == ElemKind::UInt8 ? 4.0 : -1.0};
  Constant *zxc = constantOf(M, p.xKind, ones, zx, "zx");
  std::vector<dim_t> zwDims = ones;
  if (p.perChannel)
    zwDims[0] = p.cout;
  Constant *zwc = constantOf(M, p.wKind, zwDims,
                             p.zw.empty() ? std::vector<double>{0, 1, 2, 5, 3} : p.zw, "zw");
  AttrList a;
  std::vector<int64_t> kernels(p.k.begin(), p.k.end());
  a.set<AttrKind::Kernels>(kernels)
      .set<AttrKind::Strides>(std::vector<int64_t>(nsp, p.stride))
      .set<AttrKind::Pads>(std::vector<int64_t>(2 * nsp, p.pad))
      .set<AttrKind::Dilations>(std::vector<int64_t>(nsp, p.dilation))
      .set<AttrKind::Group>(p.group);
  return node(F, NodeKind::IntegerConv, {x, w, b, zxc, zwc}, a);
}

/// Runs \p build on case \p p's inputs: the small random ones, or values over the kinds' whole
/// ranges in every int8 GEMM variant of the CPU backend (w's only if it is an input).
void expectIntegerConvCaseAgrees(const IntegerConvCase &p, const GraphBuilder &build,
                                 bool constantFilter = false) {
  if (!p.fullRange)
    return expectBackendsAgree(build, dceOnly());
  std::vector<dim_t> wd = filterDims(p);
  RunOptions o =
      dceOnly("x", tensorOf(p.xKind, p.x, fullRange(p.xKind, dimsProduct(p.x), 1)), "b",
              tensorOf(ElemKind::Int32, {p.cout}, fullRangeBias(p.cout, 3)));
  if (!constantFilter)
    o.inputs.emplace("w", tensorOf(p.wKind, wd, fullRange(p.wKind, dimsProduct(wd), 2)));
  expectEveryIntegerVariantAgrees(build, o);
}

TEST_P(IntegerConvShapes, MatchesInterpreter) {
  IntegerConvCase p = GetParam();
  expectIntegerConvCaseAgrees(p, [p](Module &M, Function *F) -> std::vector<NodeValue> {
    return {integerConvOf(M, F, p)};
  });
}

TEST_P(IntegerConvShapes, ConstantFilterMatchesInterpreter) {
  IntegerConvCase p = GetParam();
  expectIntegerConvCaseAgrees(p, [p](Module &M, Function *F) -> std::vector<NodeValue> {
    return {integerConvOf(M, F, p, /*constantFilter=*/true)};
  }, /*constantFilter=*/true);
}

TEST_P(IntegerConvShapes, RequantizedMatchesInterpreter) {
  // The CPU backend requantizes an IntegerConv's result as its tiles finish when the Requantize
  // right after it is its only reader: per-channel scales to uint8, and a per-tensor scale with
  // per-channel zero points to int8, both saturating; the result a model output, or read by a
  // DequantizeLinear (the memory plan then may place it over the convolution's scratch, and the
  // tiles write it to the scratch first). Two of the four with a constant filter, which the
  // VNNI row may hold in panels of output channels for its tile over pixels (flat ones).
  IntegerConvCase p = GetParam();
  for (int variant = 0; variant < 4; ++variant) {
    bool toInt8 = variant & 1, dequantized = variant & 2, constantFilter = toInt8 != dequantized;
    SCOPED_TRACE(std::string(toInt8 ? "to int8" : "to uint8") +
                 (dequantized ? ", dequantized" : "") +
                 (constantFilter ? ", constant filter" : ""));
    expectIntegerConvCaseAgrees(p, [=](Module &M, Function *F) -> std::vector<NodeValue> {
      std::vector<dim_t> ones(p.x.size(), 1), perChannel = ones;
      perChannel[1] = p.cout;
      Constant *scale =
          toInt8 ? constantOf(M, ElemKind::Float32, ones, {0.0625}, "scale")
                 : constantOf(M, ElemKind::Float32, perChannel,
                              {0.5, 0.0371, 1e-3, 2.5, 1e-5, 0.125, 7e-8}, "scales");
      Constant *zp = toInt8
                         ? constantOf(M, ElemKind::Int8, perChannel, {-128, 0, 127, -3, 5}, "zi")
                         : constantOf(M, ElemKind::UInt8, ones, {37}, "zu");
      Node *rq =
          node(F, NodeKind::Requantize, {integerConvOf(M, F, p, constantFilter), scale, zp});
      if (!dequantized)
        return {rq};
      return {node(F, NodeKind::DequantizeLinear,
                   {rq, constantOf(M, ElemKind::Float32, ones, {1.0}, "one"), zp})};
    }, constantFilter);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, IntegerConvShapes,
    ::testing::Values(
        // 2-D: plain, padded (the padding holds the zero point), stride 2, dilation, groups.
        IntegerConvCase{{1, 3, 9, 11}, 5, {3, 3}, 1, 0, 1, 1, false, ElemKind::UInt8,
                        ElemKind::UInt8},
        IntegerConvCase{{2, 4, 8, 7}, 6, {3, 3}, 1, 1, 1, 1, true, ElemKind::UInt8,
                        ElemKind::Int8},
        IntegerConvCase{{1, 4, 10, 13}, 4, {3, 2}, 2, 1, 1, 2, true, ElemKind::Int8,
                        ElemKind::Int8},
        IntegerConvCase{{1, 6, 12, 12}, 6, {3, 3}, 1, 2, 2, 6, false, ElemKind::Int8,
                        ElemKind::UInt8},
        IntegerConvCase{{1, 2, 5, 5}, 3, {5, 5}, 3, 2, 1, 1, true, ElemKind::UInt8,
                        ElemKind::UInt8},
        // 1-D and 3-D.
        IntegerConvCase{{2, 3, 19}, 4, {3}, 2, 1, 1, 1, true, ElemKind::UInt8, ElemKind::Int8},
        IntegerConvCase{{1, 2, 4, 5, 6}, 4, {2, 3, 3}, 1, 1, 1, 2, true, ElemKind::Int8,
                        ElemKind::UInt8}));

// The int8 GEMM's shapes: resnet's layers and the edges of its tiles (32 x 32 for AMX, 8 x 48
// for VNNI, 6 x 8 for AVX2, 4 x 16 in plain C) and of its blocks of k (2304), with values and
// zero points at the kinds' extremes (the padding holds the input's zero point).
INSTANTIATE_TEST_SUITE_P(
    Gemm, IntegerConvShapes,
    ::testing::Values(
        // 3x3 pad 1 on 56x56, 64 -> 64.
        IntegerConvCase{{1, 64, 56, 56}, 64, {3, 3}, 1, 1, 1, 1, false, ElemKind::UInt8,
                        ElemKind::Int8, true, {255}, {-128}},
        // 1x1 (the input read in place), per-channel filter zero points, two images.
        IntegerConvCase{{2, 96, 14, 14}, 40, {1, 1}, 1, 0, 1, 1, true, ElemKind::Int8,
                        ElemKind::Int8, true, {-128}, {127, -128, 0, 5, -7}},
        // 3x3 stride 2 (odd sizes, Cout past a tile), uint8 filters.
        IntegerConvCase{{1, 32, 15, 17}, 41, {3, 3}, 2, 1, 1, 1, true, ElemKind::UInt8,
                        ElemKind::UInt8, true, {0}, {255, 0, 128, 3}},
        // Flat at stride 2 (the input's four phases, QuantizedLayout.h): 3x3 in two groups of
        // 8 channels with an int8 input, uint8 filters and odd sizes; 5x5 with padding 2, so
        // taps two cells into a phase.
        IntegerConvCase{{1, 16, 17, 15}, 12, {3, 3}, 2, 1, 1, 2, true, ElemKind::Int8,
                        ElemKind::UInt8, true, {-128}, {255, 0, 7}},
        IntegerConvCase{{1, 8, 20, 21}, 10, {5, 5}, 2, 2, 1, 1, false, ElemKind::UInt8,
                        ElemKind::Int8, true, {201}, {-3}},
        // VNNI's tile over pixels (8 pixels x 32 or 16 output channels; a constant int8
        // filter in panels): two images of two groups of 48 filters (a panel of 32, one of
        // 16) with per-channel filter zero points, 143 pixels (the last tile 7); stride 2 with
        // symmetric filters (no column terms), 90 pixels.
        IntegerConvCase{{2, 24, 11, 13}, 96, {3, 3}, 1, 1, 1, 2, true, ElemKind::Int8,
                        ElemKind::Int8, true, {-128}, {0, 3, -128, 127, 1}},
        IntegerConvCase{{1, 32, 19, 18}, 48, {3, 3}, 2, 1, 1, 1, false, ElemKind::UInt8,
                        ElemKind::Int8, true, {9}, {0}},
        // 7x7 stride 2 with 3 input channels (K = 147, not a multiple of 4).
        IntegerConvCase{{1, 3, 29, 31}, 16, {7, 7}, 2, 3, 1, 1, true, ElemKind::Int8,
                        ElemKind::UInt8, true, {127}, {0, 255, 17}},
        // K = 45, 7 output channels, odd spatial sizes, dilation 2.
        IntegerConvCase{{1, 5, 9, 11}, 7, {3, 3}, 1, 2, 2, 1, false, ElemKind::Int8,
                        ElemKind::Int8, true, {-5}, {3}},
        // Grouped: 2 groups of 4 input and 6 output channels; stride 3 (gathered columns).
        IntegerConvCase{{1, 8, 10, 10}, 12, {3, 3}, 3, 1, 1, 2, true, ElemKind::UInt8,
                        ElemKind::Int8, true, {128}, {1, -1, 0, 127, -128, 2}},
        // 640 channels: K = 5760, three blocks of k; 1-D.
        IntegerConvCase{{1, 640, 6, 7}, 20, {3, 3}, 1, 1, 1, 1, true, ElemKind::UInt8,
                        ElemKind::UInt8, true, {255}, {255, 0}},
        IntegerConvCase{{2, 6, 37}, 9, {5}, 1, 2, 1, 1, true, ElemKind::UInt8, ElemKind::Int8,
                        true, {7}, {-128, 127, 1}},
        // B read in place with dropped grid columns and two blocks of k (K = 2880).
        IntegerConvCase{{1, 320, 12, 12}, 16, {3, 3}, 1, 1, 1, 1, true, ElemKind::Int8,
                        ElemKind::Int8, true, {3}, {0, -2}},
        // A 7x7 map (49 columns) of more filters than columns: 1x1 with K = 1024, and 3x3.
        IntegerConvCase{{1, 1024, 7, 7}, 40, {1, 1}, 1, 0, 1, 1, true, ElemKind::UInt8,
                        ElemKind::Int8, true, {128}, {0, 1}},
        IntegerConvCase{{1, 64, 7, 7}, 72, {3, 3}, 1, 1, 1, 1, false, ElemKind::UInt8,
                        ElemKind::Int8, true, {0}, {0}},
        // Columns past the last unit of 16 as dot products down k (VNNI's strips): 100
        // columns (four strip columns; more than 50 filters, so not flat) with per-channel
        // filter zero points (column terms) and a row's last 44 bytes of k a partial vector;
        // a 2x2 map (strips only) over two blocks of k, 2 x 9 filters past a tile's 8 rows.
        IntegerConvCase{{1, 300, 10, 10}, 60, {1, 1}, 1, 0, 1, 1, true, ElemKind::UInt8,
                        ElemKind::Int8, true, {250}, {3, -128, 0, 127}},
        IntegerConvCase{{1, 512, 2, 2}, 18, {3, 3}, 1, 1, 1, 1, false, ElemKind::Int8,
                        ElemKind::Int8, true, {-7}, {0}},
        // The AMX tile's (K a multiple of 64, filters of 32, B packed): 3x3 on 7x7; 1x1
        // stride 2; 1x1 with 25 columns (all of k, 256 quads, in one block) and with 400
        // (too wide for that: two blocks); two groups.
        IntegerConvCase{{1, 64, 7, 7}, 64, {3, 3}, 1, 1, 1, 1, true, ElemKind::UInt8,
                        ElemKind::Int8, true, {200}, {-128, 127, 0, 3}},
        IntegerConvCase{{1, 128, 13, 13}, 96, {1, 1}, 2, 0, 1, 1, false, ElemKind::Int8,
                        ElemKind::Int8, true, {-128}, {5}},
        // 1x1 stride 2 without padding (the input subsampled into dense rows, 16 columns a
        // vector then one at a time): 36 -> 18 columns, int8 and uint8 inputs.
        IntegerConvCase{{1, 40, 36, 36}, 24, {1, 1}, 2, 0, 1, 1, true, ElemKind::Int8,
                        ElemKind::Int8, true, {-3}, {0, 2}},
        IntegerConvCase{{1, 64, 34, 33}, 16, {1, 1}, 2, 0, 1, 1, false, ElemKind::UInt8,
                        ElemKind::Int8, true, {130}, {0}},
        IntegerConvCase{{1, 1024, 5, 5}, 32, {1, 1}, 1, 0, 1, 1, true, ElemKind::UInt8,
                        ElemKind::Int8, true, {255}, {1, 0}},
        IntegerConvCase{{1, 1024, 20, 20}, 32, {1, 1}, 1, 0, 1, 1, true, ElemKind::UInt8,
                        ElemKind::Int8, true, {77}, {0, -3}},
        // ... and K off its steps of 64, A copied into rows padded with zeros: resnet50's first
        // convolution's shape (K = 147) with a uint8 filter; 1x1 with K = 96; K = 2340 in two
        // blocks of k, the second not a whole number of steps.
        IntegerConvCase{{1, 3, 29, 31}, 32, {7, 7}, 2, 3, 1, 1, true, ElemKind::Int8,
                        ElemKind::UInt8, true, {-128}, {255, 0, 128}},
        IntegerConvCase{{1, 96, 9, 9}, 64, {1, 1}, 1, 0, 1, 1, false, ElemKind::UInt8,
                        ElemKind::Int8, true, {3}, {-128}},
        IntegerConvCase{{1, 260, 24, 24}, 32, {3, 3}, 2, 1, 1, 1, true, ElemKind::UInt8,
                        ElemKind::Int8, true, {250}, {0, 127, -1}},
        IntegerConvCase{{1, 128, 6, 6}, 64, {3, 3}, 1, 1, 1, 2, true, ElemKind::UInt8,
                        ElemKind::Int8, true, {9}, {0, -1}},
        // ... and B read in place: two blocks of k, dropped columns; 1x1 (uint8 filters).
        IntegerConvCase{{1, 320, 12, 12}, 32, {3, 3}, 1, 1, 1, 1, true, ElemKind::Int8,
                        ElemKind::Int8, true, {-1}, {3, -128}},
        IntegerConvCase{{1, 64, 20, 20}, 32, {1, 1}, 1, 0, 1, 1, true, ElemKind::UInt8,
                        ElemKind::UInt8, true, {17}, {128, 0, 255}},
        // Symmetric int8 filters (a zero point of 0, what quantizers write: no column terms,
        // the requantized tiles' straight-line finish): mobilenet's expansions, K = 16 and 24
        // on the VNNI tile, its first convolution (K = 27, stride 2), a 1x1 with K = 64 (AMX).
        IntegerConvCase{{1, 16, 20, 20}, 96, {1, 1}, 1, 0, 1, 1, false, ElemKind::UInt8,
                        ElemKind::Int8, true, {128}, {0}},
        IntegerConvCase{{1, 24, 14, 14}, 40, {1, 1}, 1, 0, 1, 1, false, ElemKind::UInt8,
                        ElemKind::Int8, true, {3}, {0}},
        IntegerConvCase{{1, 3, 33, 35}, 32, {3, 3}, 2, 1, 1, 1, false, ElemKind::UInt8,
                        ElemKind::Int8, true, {200}, {0}},
        IntegerConvCase{{1, 64, 16, 16}, 64, {1, 1}, 1, 0, 1, 1, false, ElemKind::Int8,
                        ElemKind::Int8, true, {-3}, {0}},
        // A dense B of int8 (a 1x1 on packed panels: fewer columns than twice the filters),
        // flipped as packB reads it in place, and a strip column.
        IntegerConvCase{{1, 128, 7, 7}, 64, {1, 1}, 1, 0, 1, 1, false, ElemKind::Int8,
                        ElemKind::Int8, true, {-128}, {0}}));

/// MaxPool attributes (storage order 0).
TEST(QuantizedOps, ByteMaxPools) {
  // uint8 and int8 max pools over the kinds' whole ranges (the CPU backend's row kernel when
  // nobody reads the indices): resnet's 3x3 stride 2 pad 1, ceil mode past the input, dilation,
  // asymmetric pads, strides 1, 2 and 3, 1-D; and one whose indices are read.
  for (ElemKind k : {ElemKind::UInt8, ElemKind::Int8}) {
    SCOPED_TRACE(k == ElemKind::UInt8 ? "uint8" : "int8");
    std::vector<dim_t> d4{2, 3, 13, 14}, d3{2, 3, 17};
    expectBackendsAgree(
        [=](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, d4, k, "x");
          Placeholder *x1 = input(M, d3, k, "x1");
          auto pool = [&](NodeValue v, AttrList a) { return NodeValue(node(F, NodeKind::MaxPool, {v}, a), 0); };
          Node *withIndices =
              node(F, NodeKind::MaxPool, {x}, maxPoolAttrs({2, 2}, {1, 1}, {1, 0, 0, 1}, {1, 1}, 0));
          return {pool(x, maxPoolAttrs({3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 0)),
                  pool(x, maxPoolAttrs({2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1)),
                  pool(x, maxPoolAttrs({3, 3}, {1, 1}, {2, 2, 2, 2}, {2, 2}, 0)),
                  pool(x, maxPoolAttrs({5, 3}, {3, 1}, {1, 0, 2, 1}, {1, 1}, 1)),
                  pool(x, maxPoolAttrs({3, 2}, {1, 3}, {0, 1, 0, 1}, {1, 1}, 1)),
                  pool(x1, maxPoolAttrs({4}, {2}, {1, 2}, {1}, 1)),
                  NodeValue(withIndices, 0),
                  NodeValue(withIndices, 1)};
        },
        dceOnly("x", tensorOf(k, d4, fullRange(k, dimsProduct(d4), 5)), "x1",
                tensorOf(k, d3, fullRange(k, dimsProduct(d3), 6))));
  }
}

/// IntegerConv attributes: 2-D, \p k x \p k, stride \p stride, pad \p pad on every side.
AttrList conv2d(int64_t k, int64_t stride, int64_t pad) {
  AttrList a;
  a.set<AttrKind::Kernels>({k, k})
      .set<AttrKind::Strides>({stride, stride})
      .set<AttrKind::Pads>({pad, pad, pad, pad})
      .set<AttrKind::Dilations>({1, 1})
      .set<AttrKind::Group>(1);
  return a;
}

TEST(QuantizedOps, IntegerConvWrapsAround32Bits) {
  // 4096 channels x 9 taps (packed B) and 40000 channels x 1 tap (B read in place) of 255 *
  // -255: the sums pass 2^31 and wrap.
  expectEveryIntegerVariantAgrees(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {1, 4096, 3, 3}, ElemKind::UInt8, "x");
        Placeholder *w = input(M, {2, 4096, 3, 3}, ElemKind::Int8, "w");
        Placeholder *x1 = input(M, {1, 40000, 1, 4}, ElemKind::UInt8, "x1");
        Placeholder *w1 = input(M, {2, 40000, 1, 1}, ElemKind::Int8, "w1");
        Constant *b = constantOf(M, ElemKind::Int32, {2}, {2147483647.0, -5}, "b");
        Constant *zx = constantOf(M, ElemKind::UInt8, {1, 1, 1, 1}, {0}, "zx");
        Constant *zw = constantOf(M, ElemKind::Int8, {2, 1, 1, 1}, {127, -127}, "zw");
        return {node(F, NodeKind::IntegerConv, {x, w, b, zx, zw}, conv2d(3, 1, 1)),
                node(F, NodeKind::IntegerConv, {x1, w1, b, zx, zw}, conv2d(1, 1, 0))};
      },
      dceOnly("x", tensorOf(ElemKind::UInt8, {1, 4096, 3, 3}, {255}), "w",
              tensorOf(ElemKind::Int8, {2, 4096, 3, 3}, {-128}), "x1",
              tensorOf(ElemKind::UInt8, {1, 40000, 1, 4}, {255}), "w1",
              tensorOf(ElemKind::Int8, {2, 40000, 1, 1}, {-128})));
}

TEST_P(IntegerMatMulKinds, GemmTileEdgesAndExtremes) {
  // The int8 GEMM's products: per-tensor RHS zero points, per-tensor or per-row LHS ones; M, N
  // and K off every tile; batch dims broadcast on both sides; products one to three rows high.
  auto [ka, kb] = GetParam();
  auto lo = [](ElemKind k) { return k == ElemKind::Int8 ? -128.0 : 0.0; };
  std::vector<dim_t> a2{13, 45}, b2{45, 50}, a4{2, 1, 9, 21}, b4{1, 3, 21, 70}, a1{1, 300},
      b1{300, 17}, a3{3, 45}, a5{2, 1030}, b5{1030, 150}, a6{20, 64}, b6{64, 35};
  RunOptions o = dceOnly();
  unsigned seed = 10;
  for (auto [name, k, dims] : {std::make_tuple("a2", ka, a2), std::make_tuple("b2", kb, b2),
                               std::make_tuple("a4", ka, a4), std::make_tuple("b4", kb, b4),
                               std::make_tuple("a1", ka, a1), std::make_tuple("b1", kb, b1),
                               std::make_tuple("a3", ka, a3), std::make_tuple("a5", ka, a5),
                               std::make_tuple("b5", kb, b5), std::make_tuple("a6", ka, a6),
                               std::make_tuple("b6", kb, b6)})
    o.inputs.emplace(name, tensorOf(k, dims, fullRange(k, dimsProduct(dims), ++seed)));
  expectEveryIntegerVariantAgrees(
      [=](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *pa2 = input(M, a2, ka, "a2"), *pb2 = input(M, b2, kb, "b2");
        Placeholder *pa4 = input(M, a4, ka, "a4"), *pb4 = input(M, b4, kb, "b4");
        Placeholder *pa1 = input(M, a1, ka, "a1"), *pb1 = input(M, b1, kb, "b1");
        Placeholder *pa3 = input(M, a3, ka, "a3");
        Placeholder *pa5 = input(M, a5, ka, "a5"), *pb5 = input(M, b5, kb, "b5");
        Placeholder *pa6 = input(M, a6, ka, "a6"), *pb6 = input(M, b6, kb, "b6");
        Constant *za = constantOf(M, ka, {1, 1}, {lo(ka) + 255}, "za");
        Constant *zb = constantOf(M, kb, {1, 1}, {lo(kb)}, "zb");
        Constant *zaRows = constantOf(M, ka, {13, 1}, {lo(ka), lo(ka) + 255, 0, 3}, "za_rows");
        Constant *za4 = constantOf(M, ka, {1, 1, 9, 1}, {lo(ka) + 1, 0, lo(ka) + 200}, "za4");
        Constant *zb4 = constantOf(M, kb, {1, 1, 1, 1}, {lo(kb) + 255}, "zb4");
        return {node(F, NodeKind::IntegerMatMul, {pa2, pb2, za, zb}),
                node(F, NodeKind::IntegerMatMul, {pa2, pb2, zaRows, zb}),
                node(F, NodeKind::IntegerMatMul, {pa4, pb4, za4, zb4}),
                node(F, NodeKind::IntegerMatMul, {pa1, pb1, za, zb}),
                // Three rows (no GEMM: B streamed once), K and N off its steps of 4 and 16.
                node(F, NodeKind::IntegerMatMul,
                     {pa3, pb2, constantOf(M, ka, {3, 1}, {lo(ka), lo(ka) + 255, 7}, "za3"), zb}),
                // Two rows: panels of 64 columns and of 16, a column tail; two blocks of k
                // (1024, then 4) and a k past them.
                node(F, NodeKind::IntegerMatMul,
                     {pa5, pb5, constantOf(M, ka, {2, 1}, {lo(ka) + 3, lo(ka) + 250}, "za5"),
                      constantOf(M, kb, {1, 1}, {lo(kb) + 200}, "zb5")}),
                // 35 columns: two units and three strip columns (an int8 LHS, K = 64, is read
                // in place: VNNI's dot products down k), with both zero points' terms.
                node(F, NodeKind::IntegerMatMul,
                     {pa6, pb6,
                      constantOf(M, ka, {20, 1}, {lo(ka) + 9, lo(ka) + 255, lo(ka) + 1}, "za6"),
                      constantOf(M, kb, {1, 1}, {lo(kb) + 77}, "zb6")})};
      },
      o);
}

TEST(QuantizedOps, IntegerGemmSplitOverThreadsAgrees) {
  // -threads=2 splits the int8 GEMM's columns, of a convolution reading B in place, one packing
  // it, one requantized as it finishes and a matrix product (a float32 convolution big enough
  // to start the team rides along): the same results as on one thread, bit for bit.
  GraphBuilder build = [](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *f = input(M, {1, 64, 50, 50}, ElemKind::Float32, "f");
    Node *conv = node(F, NodeKind::Conv, {f, constant(M, {64, 64, 3, 3}, 2), constant(M, {64}, 3)},
                      convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1));
    Placeholder *x = input(M, {1, 48, 30, 30}, ElemKind::UInt8, "x");
    Placeholder *w = input(M, {50, 48, 3, 3}, ElemKind::Int8, "w");
    Placeholder *b = input(M, {50}, ElemKind::Int32, "b");
    Constant *zx = constantOf(M, ElemKind::UInt8, {1, 1, 1, 1}, {200}, "zx");
    Constant *zw = constantOf(M, ElemKind::Int8, {50, 1, 1, 1}, {-3, 0, 100}, "zw");
    Placeholder *x2 = input(M, {1, 48, 61, 61}, ElemKind::UInt8, "x2");
    Placeholder *l = input(M, {40, 300}, ElemKind::Int8, "l");
    Placeholder *r = input(M, {300, 500}, ElemKind::UInt8, "r");
    Constant *zl = constantOf(M, ElemKind::Int8, {1, 1}, {-128}, "zl");
    Constant *zr = constantOf(M, ElemKind::UInt8, {1, 1}, {255}, "zr");
    Node *requantized = node(
        F, NodeKind::Requantize,
        {node(F, NodeKind::IntegerConv, {x2, w, b, zx, zw}, conv2d(3, 1, 1)),
         constantOf(M, ElemKind::Float32, {1, 50, 1, 1}, {1e-3, 0.1, 2e-5}, "scales"),
         constantOf(M, ElemKind::Int8, {1, 1, 1, 1}, {-7}, "zq")});
    return {conv,
            node(F, NodeKind::IntegerConv, {x, w, b, zx, zw}, conv2d(3, 1, 1)),
            node(F, NodeKind::IntegerConv, {x2, w, b, zx, zw}, conv2d(3, 2, 1)),
            node(F, NodeKind::IntegerMatMul, {l, r, zl, zr}),
            requantized};
  };
  RunOptions one = dceOnly("x", tensorOf(ElemKind::UInt8, {1, 48, 30, 30},
                                         fullRange(ElemKind::UInt8, 48 * 900, 21)),
                           "w", tensorOf(ElemKind::Int8, {50, 48, 3, 3},
                                         fullRange(ElemKind::Int8, 50 * 48 * 9, 22)),
                           "l", tensorOf(ElemKind::Int8, {40, 300},
                                         fullRange(ElemKind::Int8, 40 * 300, 23)),
                           "r", tensorOf(ElemKind::UInt8, {300, 500},
                                         fullRange(ElemKind::UInt8, 300 * 500, 24)));
  expectSplitMatchesOneThread(build, one, 1e-3, 1e-4);
}

} // namespace
