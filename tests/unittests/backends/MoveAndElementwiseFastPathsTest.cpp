// The vectorized paths of copies, element-wise operations and the edges of products against
// the Interpreter, on every backend: the OpenCL backend's copy by runs (copy_runs_<bytes>: a concat's parts, transposes
// and slices that keep the last axis, broadcasts, plain copies) and its float32 element-wise
// fast path (ewv_f32: Relu, Sigmoid, Tanh, Add, Sub, Mul, Div, Max, Min, 64 elements per
// work-item in vectors of 16), with the chains it fuses (x * sigmoid(x) and the like; a
// Broadcast read in place by the binary op after it). Sizes are chosen so that runs and
// vectors have tails (not a multiple of 16, of the 64-element chunk, runs shorter than 8),
// and broadcasts take every form the fused read covers (scalar, per channel, per row, inner
// block) and some it does not. Last, products of one row (gemv_f32) and GEMM blocks at the
// right edge (fewer than 32 columns left, more or fewer than 16, rows shorter than 16).
#include "BackendTestUtils.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace ember;
using namespace ember::test;

namespace {

const ElemKind kMoveKinds[] = {ElemKind::Float32, ElemKind::Float16, ElemKind::Int8,
                               ElemKind::Int64, ElemKind::Bool};

std::string kindName(ElemKind k) { return elemKindName(k).str(); }

AttrList axisAttr(int64_t axis) {
  AttrList a;
  a.set<AttrKind::Axis>(axis);
  return a;
}

AttrList dimsAttr(std::vector<int64_t> dims) {
  AttrList a;
  a.set<AttrKind::Dims>(dims);
  return a;
}

TEST(MoveFastPaths, ConcatOnEveryAxisWithOddSizes) {
  for (ElemKind k : kMoveKinds) {
    SCOPED_TRACE(kindName(k));
    expectBackendsAgree([k](Module &M, Function *F) -> std::vector<NodeValue> {
      // Runs of 67 (past a chunk, with a vector tail), of 3 (shorter than a vector: copy_nd)
      // and of whole blocks, at every axis.
      std::vector<NodeValue> outs;
      std::vector<dim_t> base = {2, 3, 5, 67};
      for (int64_t axis = 0; axis < 4; ++axis) {
        std::vector<NodeValue> parts;
        for (dim_t extra : {dim_t(1), dim_t(3), dim_t(2)}) {
          std::vector<dim_t> dims = base;
          dims[size_t(axis)] = extra;
          parts.push_back(input(M, dims, k, "p" + std::to_string(axis) + "_" +
                                                std::to_string(extra)));
        }
        outs.push_back(node(F, NodeKind::Concat, parts, axisAttr(axis)));
      }
      // A concat of short rows on the last axis (runs of 3 and 5) and of single elements.
      Placeholder *a = input(M, {4, 3}, k, "a"), *b = input(M, {4, 5}, k, "b");
      outs.push_back(node(F, NodeKind::Concat, {a, b, a}, axisAttr(1)));
      Placeholder *s = input(M, {1}, k, "s"), *t = input(M, {17}, k, "t");
      outs.push_back(node(F, NodeKind::Concat, {s, t, s}, axisAttr(0)));
      return outs;
    });
  }
}

TEST(MoveFastPaths, TransposesOfEveryPermutationOfRank3And4) {
  for (ElemKind k : {ElemKind::Float32, ElemKind::UInt8, ElemKind::Int64}) {
    SCOPED_TRACE(kindName(k));
    expectBackendsAgree([k](Module &M, Function *F) -> std::vector<NodeValue> {
      std::vector<NodeValue> outs;
      // The last axis long enough for runs with tails; a dim of 1 that merges away.
      for (const std::vector<dim_t> &dims :
           {std::vector<dim_t>{3, 5, 70}, std::vector<dim_t>{2, 3, 1, 37},
            std::vector<dim_t>{2, 3, 4, 19}}) {
        Placeholder *x = input(M, dims, k, "x" + std::to_string(outs.size()));
        std::vector<int64_t> perm(dims.size());
        std::iota(perm.begin(), perm.end(), 0);
        do {
          AttrList a;
          a.set<AttrKind::Shuffle>(perm);
          outs.push_back(node(F, NodeKind::Transpose, {x}, a));
        } while (std::next_permutation(perm.begin(), perm.end()));
      }
      return outs;
    });
  }
}

TEST(MoveFastPaths, SlicesAndCopies) {
  for (ElemKind k : kMoveKinds) {
    SCOPED_TRACE(kindName(k));
    expectBackendsAgree([k](Module &M, Function *F) -> std::vector<NodeValue> {
      Placeholder *x = input(M, {3, 4, 83}, k);
      std::vector<NodeValue> outs;
      auto slice = [&](std::vector<int64_t> starts, std::vector<int64_t> steps,
                       std::vector<int64_t> dims) {
        AttrList a;
        a.set<AttrKind::Starts>(starts).set<AttrKind::Steps>(steps).set<AttrKind::Dims>(dims);
        outs.push_back(node(F, NodeKind::Slice, {x}, a));
      };
      slice({1, 0, 5}, {1, 1, 1}, {2, 4, 71});   // runs of 71 at an offset
      slice({2, 3, 0}, {-1, -2, 1}, {3, 2, 83}); // reversed outer axes, whole rows
      slice({0, 1, 82}, {2, 1, -1}, {2, 3, 80}); // reversed last axis: copy_nd
      slice({0, 0, 1}, {1, 1, 3}, {3, 4, 27});   // strided last axis
      // A reshape is a plain copy when it does not alias.
      AttrList r;
      r.set<AttrKind::Dims>({12, 83});
      Placeholder *y = input(M, {3, 4, 83}, k, "y");
      Node *sum = node(F, NodeKind::Concat, {y, x}, axisAttr(0));
      outs.push_back(node(F, NodeKind::Reshape, {sum}, dimsAttr({2, 12, 83})));
      return outs;
    });
  }
}

TEST(MoveFastPaths, BroadcastsOfEveryForm) {
  for (ElemKind k : kMoveKinds) {
    SCOPED_TRACE(kindName(k));
    expectBackendsAgree([k](Module &M, Function *F) -> std::vector<NodeValue> {
      std::vector<NodeValue> outs;
      auto bcast = [&](std::vector<dim_t> from, std::vector<int64_t> to) {
        Placeholder *v = input(M, from, k, "v" + std::to_string(outs.size()));
        outs.push_back(node(F, NodeKind::Broadcast, {v}, dimsAttr(to)));
      };
      bcast({1}, {2, 3, 5, 7});             // a scalar
      bcast({1, 3, 1, 1}, {2, 3, 5, 7});    // per channel, planes of 35
      bcast({1, 3, 1, 1}, {1, 3, 8, 8});    // per channel, planes of 64
      bcast({2, 3, 5, 1}, {2, 3, 5, 70});   // per row
      bcast({1, 1, 5, 7}, {2, 3, 5, 7});    // an inner block repeated
      bcast({3, 1, 7}, {2, 3, 5, 7});       // two copied runs, new leading axis
      bcast({5}, {3, 5});                   // rows of 5
      return outs;
    });
  }
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// Values with the specials the formulas treat apart (NaN, infinities, signed zeros, large
/// magnitudes where exp overflows), then spread ones.
Tensor floatValues(std::vector<dim_t> dims, size_t shift) {
  static const std::vector<double> specials = {kNaN, kInf,  -kInf, 0.0,  -0.0, 100.0, -100.0,
                                               89.0, -89.0, 1e-8,  -0.5, 0.5,  3.7,   -3.7,
                                               20.0, -20.0, 1.0,   -1.0, 7.25, -0.125};
  Tensor t(Type(ElemKind::Float32, dims));
  for (size_t i = 0; i < t.numElements(); ++i)
    t.setElementFromDouble(i, specials[(i * 7 + shift) % specials.size()] *
                                  (i % 3 == 2 ? 0.37 : 1.0));
  return t;
}

const NodeKind kBinaryKinds[] = {NodeKind::Add, NodeKind::Sub, NodeKind::Mul,
                                 NodeKind::Div, NodeKind::Max, NodeKind::Min};
const NodeKind kUnaryKinds[] = {NodeKind::Relu, NodeKind::Sigmoid, NodeKind::Tanh};

TEST(ElementwiseFastPaths, UnaryAndBinaryOnOddSizes) {
  for (dim_t n : {dim_t(1), dim_t(15), dim_t(16), dim_t(17), dim_t(64), dim_t(65), dim_t(1001)}) {
    SCOPED_TRACE(n);
    RunOptions o = dceOnly();
    o.inputs["a"] = floatValues({n}, 0);
    o.inputs["b"] = floatValues({n}, 5);
    expectBackendsAgree(
        [n](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *a = input(M, {n}, ElemKind::Float32, "a");
          Placeholder *b = input(M, {n}, ElemKind::Float32, "b");
          std::vector<NodeValue> outs;
          for (NodeKind k : kUnaryKinds)
            outs.push_back(node(F, k, {a}));
          for (NodeKind k : kBinaryKinds)
            outs.push_back(node(F, k, {a, b}));
          return outs;
        },
        o);
  }
}

TEST(ElementwiseFastPaths, FusedUnaryThenBinaryChains) {
  // x op u(x) and u(x) op x for every fast unary and binary op: SiLU is Mul of Sigmoid. Each
  // unary result is read once, by the binary op right after it, so it fuses.
  for (dim_t n : {dim_t(7), dim_t(100)}) {
    SCOPED_TRACE(n);
    for (bool unaryFirst : {false, true}) {
      RunOptions o = dceOnly();
      o.inputs["x"] = floatValues({2, n}, 3);
      expectBackendsAgree(
          [&](Module &M, Function *F) -> std::vector<NodeValue> {
            Placeholder *x = input(M, {2, n}, ElemKind::Float32, "x");
            std::vector<NodeValue> outs;
            for (NodeKind u : kUnaryKinds)
              for (NodeKind bk : kBinaryKinds) {
                // One unary node per chain (dce only: no CSE to share them).
                Node *un = node(F, u, {x});
                outs.push_back(unaryFirst ? node(F, bk, {un, x}) : node(F, bk, {x, un}));
              }
            return outs;
          },
          o);
    }
  }
}

TEST(ElementwiseFastPaths, UnaryResultReadAgainIsNotFused) {
  // The sigmoid's result is read after the product too: it must still be written.
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {3, 37});
    Node *s = node(F, NodeKind::Sigmoid, {x});
    Node *silu = node(F, NodeKind::Mul, {x, s});
    Node *later = node(F, NodeKind::Add, {silu, s});
    return {later, s};
  });
}

TEST(ElementwiseFastPaths, BroadcastThenBinaryOfEveryForm) {
  struct Form {
    std::vector<dim_t> from;
    std::vector<dim_t> to;
  };
  const Form forms[] = {
      {{1}, {2, 3, 5, 7}},          // a scalar
      {{1, 3, 1, 1}, {2, 3, 5, 7}}, // per channel (squeeze-excitation), planes of 35
      {{2, 3, 1, 1}, {2, 3, 4, 4}}, // per image and channel, planes of 16
      {{1, 3, 1, 1}, {1, 3, 9, 9}}, // planes of 81: vectors straddle two channels
      {{2, 3, 5, 1}, {2, 3, 5, 7}}, // per row
      {{1, 1, 5, 7}, {2, 3, 5, 7}}, // an inner block repeated
      {{3, 1, 7}, {2, 3, 5, 7}},    // two copied runs: not fused
      {{2, 3, 5, 7}, {2, 3, 5, 7}}, // the same shape
  };
  for (const Form &f : forms) {
    SCOPED_TRACE(::testing::Message() << f.from.size() << "-d source, " << f.from.back());
    for (bool broadcastFirst : {false, true}) {
      RunOptions o = dceOnly();
      o.inputs["v"] = floatValues(f.from, 1);
      o.inputs["x"] = floatValues(f.to, 4);
      expectBackendsAgree(
          [&](Module &M, Function *F) -> std::vector<NodeValue> {
            Placeholder *v = input(M, f.from, ElemKind::Float32, "v");
            Placeholder *x = input(M, f.to, ElemKind::Float32, "x");
            std::vector<int64_t> to(f.to.begin(), f.to.end());
            std::vector<NodeValue> outs;
            for (NodeKind bk : kBinaryKinds) {
              // A broadcast per op (dce only: no CSE to share them), read once, right after.
              Node *b = node(F, NodeKind::Broadcast, {v}, dimsAttr(to));
              outs.push_back(broadcastFirst ? node(F, bk, {b, x}) : node(F, bk, {x, b}));
            }
            return outs;
          },
          o);
    }
  }
}

TEST(GemmEdges, ProductsOfOneRowAndRightEdgeBlocks) {
  expectBackendsAgree([](Module &M, Function *F) -> std::vector<NodeValue> {
    std::vector<NodeValue> outs;
    AttrList none, relu;
    none.set<AttrKind::FusedActivation>("").set<AttrKind::FusedActivationArgs>({});
    relu.set<AttrKind::FusedActivation>("relu").set<AttrKind::FusedActivationArgs>({});
    // Columns: under 16 (gathered), an edge block of 8, of 17, of 6 past full blocks, and 1000.
    for (dim_t n : {dim_t(5), dim_t(40), dim_t(49), dim_t(70), dim_t(1000)}) {
      for (dim_t m : {dim_t(1), dim_t(9)}) {
        std::string tag = std::to_string(m) + "x" + std::to_string(n);
        Placeholder *x = input(M, {m, 37}, ElemKind::Float32, "x" + tag);
        Constant *w = constant(M, {37, n}, 3), *bias = constant(M, {n}, 4);
        outs.push_back(node(F, NodeKind::FullyConnected, {x, w, bias}, none));
        outs.push_back(node(F, NodeKind::FusedMatMul, {x, w}, relu));
      }
    }
    // A 1x1 convolution of a 7x7 map: 49 columns, one full block and an edge of 17.
    Placeholder *img = input(M, {1, 12, 7, 7}, ElemKind::Float32, "img");
    Constant *cw = constant(M, {10, 12, 1, 1}, 5), *cb = constant(M, {10}, 6);
    outs.push_back(node(F, NodeKind::Conv, {img, cw, cb}, convAttrs({1, 1}, {1, 1}, {0, 0, 0, 0},
                                                                    {1, 1}, 1)));
    return outs;
  });
}

} // namespace
