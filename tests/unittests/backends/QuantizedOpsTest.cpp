// The quantized family on every backend against the Interpreter: QuantizeLinear (every input
// kind, per-tensor and per-axis parameters, ties, saturation, NaN and infinities), Requantize,
// DequantizeLinear, DynamicQuantizeLinear (including an all-zero input), IntegerMatMul (every
// operand kind pair, per-row/per-column zero points, broadcast batches, 32-bit wrap-around) and
// IntegerConv (1-D to 3-D, padding, strides, dilations, groups, per-channel zero points).
#include "BackendTestUtils.h"

#include <cmath>
#include <limits>

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

struct IntegerConvCase {
  std::vector<dim_t> x;   // [N, C, spatial...]
  dim_t cout;
  std::vector<dim_t> k;   // kernel spatial dims
  int64_t stride, pad, dilation, group;
  bool perChannel;        // filter zero point per output channel
  ElemKind xKind, wKind;
};

class IntegerConvShapes : public ::testing::TestWithParam<IntegerConvCase> {};

TEST_P(IntegerConvShapes, MatchesInterpreter) {
  IntegerConvCase p = GetParam();
  expectBackendsAgree(
      [p](Module &M, Function *F) -> std::vector<NodeValue> {
        size_t nsp = p.x.size() - 2;
        Placeholder *x = input(M, p.x, p.xKind, "x");
        std::vector<dim_t> wd{p.cout, p.x[1] / dim_t(p.group)};
        wd.insert(wd.end(), p.k.begin(), p.k.end());
        Placeholder *w = input(M, wd, p.wKind, "w");
        Placeholder *b = input(M, {p.cout}, ElemKind::Int32, "b");
        std::vector<dim_t> ones(p.x.size(), 1);
        double zx = p.xKind == ElemKind::UInt8 ? 4 : -1;
        Constant *zxc = constantOf(M, p.xKind, ones, {zx}, "zx");
        std::vector<dim_t> zwDims = ones;
        if (p.perChannel)
          zwDims[0] = p.cout;
        Constant *zwc = constantOf(M, p.wKind, zwDims, {0, 1, 2, 5, 3}, "zw");
        AttrList a;
        std::vector<int64_t> kernels(p.k.begin(), p.k.end());
        a.set<AttrKind::Kernels>(kernels)
            .set<AttrKind::Strides>(std::vector<int64_t>(nsp, p.stride))
            .set<AttrKind::Pads>(std::vector<int64_t>(2 * nsp, p.pad))
            .set<AttrKind::Dilations>(std::vector<int64_t>(nsp, p.dilation))
            .set<AttrKind::Group>(p.group);
        return {node(F, NodeKind::IntegerConv, {x, w, b, zxc, zwc}, a)};
      },
      dceOnly());
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

} // namespace
