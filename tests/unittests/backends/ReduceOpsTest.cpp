// Reductions and selections on every backend against the Interpreter: Reduce (every reduction,
// consecutive and scattered axes, every numeric kind), ArgMax/ArgMin, CumSum, TopK, Einsum and
// NLLLoss, with ties, NaN and integer wrap-around, and NLLLoss's run-time error.
#include "BackendTestUtils.h"

#include <cmath>
#include <limits>

using namespace ember;
using namespace ember::test;

namespace {

const char *const kReductions[] = {"sum", "mean", "max",  "min",     "prod",
                                   "l1",  "l2",   "log_sum", "log_sum_exp", "sum_square"};

AttrList reduceAttrs(const char *how, std::vector<int64_t> axes) {
  AttrList a;
  a.set<AttrKind::Reduction>(how).set<AttrKind::Axes>(axes);
  return a;
}

class ReduceOpsKinds : public ::testing::TestWithParam<ElemKind> {};

TEST_P(ReduceOpsKinds, EveryReductionOverScatteredAndConsecutiveAxes) {
  ElemKind k = GetParam();
  expectBackendsAgree(
      [k](Module &M, Function *F) -> std::vector<NodeValue> {
        // Axis 2 of size 1 sits between reduced axes: the view merges it away.
        Placeholder *x = input(M, {3, 4, 1, 5, 7}, k);
        std::vector<NodeValue> outs;
        for (const char *how : kReductions)
          for (std::vector<int64_t> axes :
               {std::vector<int64_t>{0, 3}, {1, 2, 3}, {4}, {0, 1, 2, 3, 4}, {}})
            outs.push_back(node(F, NodeKind::Reduce, {x}, reduceAttrs(how, axes)));
        return outs;
      },
      dceOnly());
}

INSTANTIATE_TEST_SUITE_P(Kinds, ReduceOpsKinds,
                         ::testing::Values(ElemKind::Float32, ElemKind::Float64,
                                           ElemKind::Float16, ElemKind::BFloat16, ElemKind::Int8,
                                           ElemKind::UInt8, ElemKind::Int32, ElemKind::UInt16,
                                           ElemKind::Int64, ElemKind::UInt64),
                         [](const auto &info) { return std::string(elemKindName(info.param)); });

TEST(ReduceOps, Float32FastPathShapes) {
  // One run of reduced axes: leading, middle (inner 37: chunk tail), trailing (long contiguous
  // sums with a vector tail), and a reduced axis of size 1 only.
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {3, 70, 37});
        Placeholder *y = input(M, {2, 1, 1003});
        std::vector<NodeValue> outs;
        for (const char *how : kReductions) {
          outs.push_back(node(F, NodeKind::Reduce, {x}, reduceAttrs(how, {0})));
          outs.push_back(node(F, NodeKind::Reduce, {x}, reduceAttrs(how, {1})));
          outs.push_back(node(F, NodeKind::Reduce, {x}, reduceAttrs(how, {1, 2})));
          outs.push_back(node(F, NodeKind::Reduce, {y}, reduceAttrs(how, {1, 2})));
          outs.push_back(node(F, NodeKind::Reduce, {y}, reduceAttrs(how, {1})));
        }
        return outs;
      },
      dceOnly());
}

TEST(ReduceOps, SpecialValues) {
  // NaN propagates through max/min (the first met), infinities through log_sum_exp.
  double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16}) {
    SCOPED_TRACE(elemKindName(k).str());
    RunOptions opts = dceOnly();
    opts.inputs["x"] = tensorOf(k, {4, 3},
                                {1, nan, 2, inf, 1, -3, -inf, -inf, -inf, 0.5, -0.0, inf});
    expectBackendsAgree(
        [k](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {4, 3}, k);
          std::vector<NodeValue> outs;
          for (const char *how : kReductions) {
            outs.push_back(node(F, NodeKind::Reduce, {x}, reduceAttrs(how, {0})));
            outs.push_back(node(F, NodeKind::Reduce, {x}, reduceAttrs(how, {1})));
          }
          return outs;
        },
        opts);
  }
}

TEST(ReduceOps, IntegerWrapAndSaturation) {
  // int8 sums and products wrap; the mean saturates into range; l1 of the most negative value.
  RunOptions opts = dceOnly();
  opts.inputs["x"] = tensorOf(ElemKind::Int8, {2, 4}, {127, 127, 127, -128, -128, -128, 100, 3});
  opts.inputs["y"] = tensorOf(ElemKind::Int64, {3},
                              {double(std::numeric_limits<int64_t>::min()), 5, -7});
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {2, 4}, ElemKind::Int8, "x");
        Placeholder *y = input(M, {3}, ElemKind::Int64, "y");
        std::vector<NodeValue> outs;
        for (const char *how : kReductions) {
          outs.push_back(node(F, NodeKind::Reduce, {x}, reduceAttrs(how, {1})));
          outs.push_back(node(F, NodeKind::Reduce, {x}, reduceAttrs(how, {0, 1})));
          outs.push_back(node(F, NodeKind::Reduce, {y}, reduceAttrs(how, {0})));
        }
        return outs;
      },
      opts);
}

AttrList axisAttrs(int64_t axis, int64_t selectLast) {
  AttrList a;
  a.set<AttrKind::Axis>(axis).set<AttrKind::SelectLastIndex>(selectLast);
  return a;
}

TEST(ReduceOps, ArgMaxArgMinEveryKind) {
  // Integers in [-3, 3] tie a lot: first and last index both matter.
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16, ElemKind::Int8,
                     ElemKind::UInt8, ElemKind::Int32, ElemKind::UInt64}) {
    SCOPED_TRACE(elemKindName(k).str());
    expectBackendsAgree(
        [k](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {3, 9, 67}, k);
          std::vector<NodeValue> outs;
          for (int64_t axis : {0, 1, 2})
            for (int64_t last : {0, 1}) {
              outs.push_back(node(F, NodeKind::ArgMax, {x}, axisAttrs(axis, last)));
              outs.push_back(node(F, NodeKind::ArgMin, {x}, axisAttrs(axis, last)));
            }
          return outs;
        },
        dceOnly());
  }
}

TEST(ReduceOps, ArgMaxArgMinNaN) {
  double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  RunOptions opts = dceOnly();
  opts.inputs["x"] = tensorOf(ElemKind::Float32, {4, 4},
                              {1, nan, 3, nan, nan, 2, 2, 1, inf, 1, inf, -inf, -inf, 0, -inf, 0});
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {4, 4});
        std::vector<NodeValue> outs;
        for (int64_t axis : {0, 1})
          for (int64_t last : {0, 1}) {
            outs.push_back(node(F, NodeKind::ArgMax, {x}, axisAttrs(axis, last)));
            outs.push_back(node(F, NodeKind::ArgMin, {x}, axisAttrs(axis, last)));
          }
        return outs;
      },
      opts);
}

TEST(ReduceOps, CumSumEveryKind) {
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16, ElemKind::Int8,
                     ElemKind::UInt8, ElemKind::Int32, ElemKind::Int64}) {
    SCOPED_TRACE(elemKindName(k).str());
    expectBackendsAgree(
        [k](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {2, 70, 67}, k); // int8 sums of 70 values wrap
          std::vector<NodeValue> outs;
          for (int64_t axis : {0, 1, 2})
            for (int64_t exclusive : {0, 1})
              for (int64_t reverse : {0, 1}) {
                AttrList a;
                a.set<AttrKind::Axis>(axis)
                    .set<AttrKind::Exclusive>(exclusive)
                    .set<AttrKind::Reverse>(reverse);
                outs.push_back(node(F, NodeKind::CumSum, {x}, a));
              }
          return outs;
        },
        dceOnly());
  }
}

AttrList topKAttrs(int64_t axis, int64_t count, int64_t largest) {
  AttrList a;
  a.set<AttrKind::Axis>(axis).set<AttrKind::Count>(count).set<AttrKind::Largest>(largest);
  return a;
}

TEST(ReduceOps, TopKEveryKind) {
  // Lengths that are not powers of two (the merge sort's ragged runs); ties by lower index.
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16, ElemKind::Int8,
                     ElemKind::UInt16, ElemKind::Int64}) {
    SCOPED_TRACE(elemKindName(k).str());
    expectBackendsAgree(
        [k](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {3, 37, 5}, k);
          std::vector<NodeValue> outs;
          for (int64_t largest : {0, 1}) {
            for (auto [axis, count] : {std::pair<int64_t, int64_t>{1, 37}, {1, 4}, {2, 3}, {0, 1},
                                       {1, 0}}) {
              Node *t = node(F, NodeKind::TopK, {x}, topKAttrs(axis, count, largest));
              outs.push_back(NodeValue(t, 0));
              outs.push_back(NodeValue(t, 1));
            }
          }
          return outs;
        },
        dceOnly());
  }
}

TEST(ReduceOps, TopKNaN) {
  double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  RunOptions opts = dceOnly();
  opts.inputs["x"] = tensorOf(ElemKind::Float32, {2, 7},
                              {1, nan, 3, nan, -inf, 3, 0, inf, 2, nan, 2, -1, inf, nan});
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {2, 7});
        std::vector<NodeValue> outs;
        for (int64_t largest : {0, 1}) {
          Node *t = node(F, NodeKind::TopK, {x}, topKAttrs(1, 7, largest));
          outs.push_back(NodeValue(t, 0));
          outs.push_back(NodeValue(t, 1));
        }
        return outs;
      },
      opts);
}

AttrList einsumAttrs(std::vector<int64_t> in, std::vector<int64_t> out) {
  AttrList a;
  a.set<AttrKind::InputLabels>(in).set<AttrKind::OutputLabels>(out);
  return a;
}

TEST(ReduceOps, EinsumEquations) {
  // Labels as character codes: batch matmul, transpose, diagonal, traces, sums, outer and inner
  // products, and three operands.
  const int64_t b = 'b', i = 'i', j = 'j', k = 'k', l = 'l';
  for (ElemKind kind : {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16, ElemKind::Int32,
                        ElemKind::UInt8}) {
    SCOPED_TRACE(elemKindName(kind).str());
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {3, 5, 6}, kind, "x"), *y = input(M, {3, 6, 4}, kind, "y");
          Placeholder *sq = input(M, {3, 5, 5}, kind, "sq"), *v = input(M, {5}, kind, "v");
          Placeholder *w = input(M, {4, 7}, kind, "w");
          return {
              node(F, NodeKind::Einsum, {x, y}, einsumAttrs({b, i, j, b, j, k}, {b, i, k})),
              node(F, NodeKind::Einsum, {x}, einsumAttrs({b, i, j}, {j, b, i})),
              node(F, NodeKind::Einsum, {sq}, einsumAttrs({b, i, i}, {b, i})),
              node(F, NodeKind::Einsum, {sq}, einsumAttrs({b, i, i}, {b})),
              node(F, NodeKind::Einsum, {x}, einsumAttrs({b, i, j}, {})),
              node(F, NodeKind::Einsum, {v, v}, einsumAttrs({i, i}, {})),
              node(F, NodeKind::Einsum, {v, w}, einsumAttrs({i, k, l}, {i, l, k})),
              node(F, NodeKind::Einsum, {x, y, w},
                   einsumAttrs({b, i, j, b, j, k, k, l}, {l, i})),
          };
        },
        dceOnly());
  }
}

Node *nllLoss(Function *F, NodeValue x, NodeValue target, NodeValue weight, const char *how,
              std::vector<int64_t> ignore) {
  AttrList a;
  a.set<AttrKind::Reduction>(how).set<AttrKind::IgnoreIndex>(ignore);
  return node(F, NodeKind::NLLLoss, {x, target, weight}, a);
}

/// Det on every float kind: a batch of matrices of several orders (1 to 6), among them singular
/// ones (a zero column, equal rows, all zeros), ones that need row exchanges (a zero on the
/// diagonal), NaN and an infinity; and a batch of no matrices and matrices of order 0.
TEST(ReduceOps, DetBatchesSingularAndSpecial) {
  double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16, ElemKind::BFloat16}) {
    SCOPED_TRACE(elemKindName(k).str());
    RunOptions opts = dceOnly();
    opts.inputs["x2"] = tensorOf(k, {6, 2, 2},
                                 {1, 2, 3, 4, /**/ 0, 1, 1, 0, /**/ 2, 4, 1, 2, /**/ 0, 0, 0, 0,
                                  /**/ nan, 1, 2, 3, /**/ inf, 1, 1, 1});
    opts.inputs["x3"] = tensorOf(k, {2, 3, 3},
                                 {0, 2, 1, 1, 0, 3, 4, 1, 0, /**/ 1, 2, 3, 1, 2, 3, 0, 1, 5});
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          std::vector<NodeValue> outs = {node(F, NodeKind::Det, {input(M, {6, 2, 2}, k, "x2")}),
                                         node(F, NodeKind::Det, {input(M, {2, 3, 3}, k, "x3")})};
          for (dim_t m : {1, 4, 6})
            outs.push_back(
                node(F, NodeKind::Det, {input(M, {2, 3, m, m}, k, "r" + std::to_string(m))}));
          outs.push_back(node(F, NodeKind::Det, {input(M, {5, 5}, k, "single")}));
          outs.push_back(node(F, NodeKind::Det, {input(M, {0, 3, 3}, k, "none")}));
          outs.push_back(node(F, NodeKind::Det, {input(M, {2, 0, 0}, k, "empty")}));
          return outs;
        },
        opts, 1e-5, 1e-4);
  }
}

/// Det's values against numpy.linalg.det: the singular matrices give 0, the order-0 ones 1.
TEST(ReduceOps, DetMatchesNumpy) {
  Outputs got = runOn(
      "Interpreter",
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Constant *x = M.createConstant(
            tensorOf(ElemKind::Float64, {4, 3, 3},
                     {0, 2, 1, 1, 0, 3, 4, 1, 0, /**/ 1, 2, 3, 1, 2, 3, 0, 1, 5, /**/ 2, -1, 0, -1,
                      2, -1, 0, -1, 2, /**/ 1e-3, 5, 7, 2, 1e3, 3, -4, 8, 0.5}),
            "x");
        Constant *e = M.createConstant(tensorOf(ElemKind::Float32, {2, 0, 0}, {}), "e");
        return {node(F, NodeKind::Det, {x}), node(F, NodeKind::Det, {e})};
      },
      dceOnly());
  ASSERT_EQ(got.error, "");
  // numpy.linalg.det of the four matrices.
  const double want[] = {25.0, 0.0, 4.0, 28047.476};
  for (size_t i = 0; i < 4; ++i)
    EXPECT_NEAR(got.tensors[0].elementAsDouble(i), want[i], 1e-9 * (1 + std::fabs(want[i])));
  EXPECT_EQ(got.tensors[1].elementAsDouble(0), 1);
  EXPECT_EQ(got.tensors[1].elementAsDouble(1), 1);
}

TEST(ReduceOps, NLLLossEveryReduction) {
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16}) {
    for (ElemKind tk : {ElemKind::Int32, ElemKind::Int64}) {
      SCOPED_TRACE(elemKindName(k).str() + " " + elemKindName(tk).str());
      RunOptions opts = dceOnly();
      // [N=2, d1=3, d2=2] targets over C=4 classes; -1 and 2 serve as ignore indices.
      opts.inputs["t"] = tensorOf(tk, {2, 3, 2}, {0, 3, -1, 2, 1, 1, 2, 2, 0, -1, 3, 1});
      opts.inputs["all"] = tensorOf(tk, {2, 1}, {2, 2}); // every target ignored: mean is NaN
      opts.inputs["t2"] = tensorOf(tk, {2}, {3, 0});
      expectBackendsAgree(
          [k, tk](Module &M, Function *F) -> std::vector<NodeValue> {
            Placeholder *x = input(M, {2, 4, 3, 2}, k, "x");
            Placeholder *t = input(M, {2, 3, 2}, tk, "t");
            Placeholder *w = input(M, {4}, k, "w");
            Placeholder *x2 = input(M, {2, 4}, k, "x2");
            Placeholder *all = input(M, {2, 1}, tk, "all");
            Placeholder *x3 = input(M, {2, 4, 1}, k, "x3");
            std::vector<NodeValue> outs;
            for (const char *how : {"none", "sum", "mean"}) {
              outs.push_back(nllLoss(F, x, t, w, how, {-1}));
              outs.push_back(nllLoss(F, x3, all, w, how, {2}));
            }
            // No ignore index: the targets of x2 are all valid.
            Placeholder *t2 = input(M, {2}, tk, "t2");
            outs.push_back(nllLoss(F, x2, t2, w, "mean", {}));
            return outs;
          },
          opts);
    }
  }
}

TEST(ReduceOps, NLLLossTargetOutOfRangeIsARunTimeError) {
  for (const std::string &backend : backendsUnderTest()) {
    SCOPED_TRACE(backend);
    RunOptions opts = dceOnly();
    opts.inputs["t"] = tensorOf(ElemKind::Int64, {3}, {1, 4, 0}); // 4 is not a class of 4
    Outputs o = runOn(
        backend,
        [](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {3, 4}, ElemKind::Float32, "x");
          Placeholder *t = input(M, {3}, ElemKind::Int64, "t");
          Placeholder *w = input(M, {4}, ElemKind::Float32, "w");
          return {nllLoss(F, x, t, w, "mean", {-100})};
        },
        opts);
    EXPECT_NE(o.error.find("not a class index"), std::string::npos) << o.error;
    opts.inputs["t"] = tensorOf(ElemKind::Int64, {3}, {1, -100, 3}); // ignored: fine
    o = runOn(
        backend,
        [](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {3, 4}, ElemKind::Float32, "x");
          Placeholder *t = input(M, {3}, ElemKind::Int64, "t");
          Placeholder *w = input(M, {4}, ElemKind::Float32, "w");
          return {nllLoss(F, x, t, w, "mean", {-100})};
        },
        opts);
    EXPECT_EQ(o.error, "");
  }
}

AttrList embagAttrs(const char *mode, const char *reduction) {
  AttrList a;
  a.set<AttrKind::Mode>(mode).set<AttrKind::Reduction>(reduction);
  return a;
}

/// Float, fused8 and fused4 tables whose rows are 1 (fused4: 2), 16, 83 (a 64-column block, a
/// 16 and a ragged 3 on the CPU; fused4: 84) and 130 values wide, summed, weighted and
/// averaged over int32 and int64 indices with empty and long (prefetching) segments, on every
/// backend against the Interpreter.
TEST(ReduceOps, EmbeddingBagEveryLayoutAndWidth) {
  std::vector<double> idx = {3, 0, 5, 3, 7, 1, 2, 4, 5, 6, 0, 7, 1, 2, 6, 4};
  for (int64_t cols : {1, 16, 83, 130}) {
    SCOPED_TRACE(cols);
    RunOptions opts = dceOnly();
    std::vector<double> table(size_t(8 * cols)), bytes(size_t(8 * (cols + 8)));
    for (size_t i = 0; i < table.size(); ++i)
      table[i] = double(int(i * 37 % 101) - 50) / 16;
    for (size_t r = 0; r < 8; ++r) { // codes, then scale 2^-4 and bias -1.5 as float32 bytes
      for (int64_t j = 0; j < cols; ++j)
        bytes[r * size_t(cols + 8) + size_t(j)] = double((r * 53 + size_t(j) * 29) % 256);
      const unsigned char tail[8] = {0, 0, 0x80, 0x3d, 0, 0, 0xc0, 0xbf};
      for (int k = 0; k < 8; ++k)
        bytes[r * size_t(cols + 8) + size_t(cols + k)] = tail[k];
    }
    // fused4: an even number of codes, two a byte, then float16 scale 2^-3 and bias -0.75.
    int64_t cols4 = cols + (cols & 1);
    std::vector<double> nibbles(size_t(8 * (cols4 / 2 + 4)));
    for (size_t r = 0; r < 8; ++r) {
      size_t row = r * size_t(cols4 / 2 + 4);
      for (int64_t j = 0; j < cols4 / 2; ++j)
        nibbles[row + size_t(j)] = double((r * 71 + size_t(j) * 37) % 256);
      const unsigned char tail[4] = {0x00, 0x30, 0x00, 0xba};
      for (int k = 0; k < 4; ++k)
        nibbles[row + size_t(cols4 / 2 + k)] = tail[k];
    }
    opts.inputs["fused4"] = tensorOf(ElemKind::UInt8, {8, dim_t(cols4 / 2 + 4)}, nibbles);
    opts.inputs["table"] = tensorOf(ElemKind::Float32, {8, dim_t(cols)}, table);
    opts.inputs["fused"] = tensorOf(ElemKind::UInt8, {8, dim_t(cols + 8)}, bytes);
    opts.inputs["i32"] = tensorOf(ElemKind::Int32, {16}, idx);
    opts.inputs["i64"] = tensorOf(ElemKind::Int64, {16}, idx);
    opts.inputs["lengths"] = tensorOf(ElemKind::Int32, {5}, {2, 0, 1, 12, 1});
    std::vector<double> w(16);
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = double(int(i * 7 % 9) - 4) / 3;
    opts.inputs["w"] = tensorOf(ElemKind::Float32, {16}, w);
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *t = input(M, {8, dim_t(cols)}, ElemKind::Float32, "table");
          Placeholder *f = input(M, {8, dim_t(cols + 8)}, ElemKind::UInt8, "fused");
          Placeholder *f4 = input(M, {8, dim_t(cols4 / 2 + 4)}, ElemKind::UInt8, "fused4");
          Placeholder *i32 = input(M, {16}, ElemKind::Int32, "i32");
          Placeholder *i64 = input(M, {16}, ElemKind::Int64, "i64");
          Placeholder *l = input(M, {5}, ElemKind::Int32, "lengths");
          Placeholder *wt = input(M, {16}, ElemKind::Float32, "w");
          std::vector<NodeValue> outs;
          for (const char *how : {"sum", "mean"})
            for (Placeholder *ix : {i32, i64})
              for (const char *mode : {"float", "fused8", "fused4"}) {
                std::string m = mode;
                Placeholder *table = m == "float" ? t : m == "fused8" ? f : f4;
                AttrList a = embagAttrs(mode, how);
                outs.push_back(node(F, NodeKind::EmbeddingBag, {table, ix, l}, a));
                outs.push_back(node(F, NodeKind::EmbeddingBag, {table, ix, l, wt}, a));
              }
          return outs;
        },
        opts);
  }
}

/// Caffe2's run-time conditions: an index out of [0, rows), lengths running past the indices
/// or falling short of them stop the run with an error naming the instruction, on every
/// backend; no indices at all give zeros whatever the lengths.
TEST(ReduceOps, EmbeddingBagBadIndicesAndLengthsAreRunTimeErrors) {
  auto run = [](const std::string &backend, std::vector<double> idx, std::vector<double> len) {
    return runOn(
        backend,
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Constant *t = M.createConstant(tensorOf(ElemKind::Float32, {3, 2}, {1, 2, 3, 4, 5, 6}),
                                         "t");
          Constant *i =
              M.createConstant(tensorOf(ElemKind::Int64, {dim_t(idx.size())}, idx), "i");
          Constant *l =
              M.createConstant(tensorOf(ElemKind::Int32, {dim_t(len.size())}, len), "l");
          return {node(F, NodeKind::EmbeddingBag, {t, i, l}, embagAttrs("float", "sum"))};
        },
        dceOnly());
  };
  std::vector<std::string> backends = backendsUnderTest();
  backends.insert(backends.begin(), "Interpreter");
  for (const std::string &backend : backends) {
    SCOPED_TRACE(backend);
    Outputs ok = run(backend, {2, 0}, {1, 1});
    ASSERT_EQ(ok.error, "");
    EXPECT_EQ(ok.tensors[0].elementAsDouble(0), 5);
    EXPECT_EQ(ok.tensors[0].elementAsDouble(3), 2);
    Outputs empty = run(backend, {}, {2, 1});
    ASSERT_EQ(empty.error, "");
    EXPECT_EQ(empty.tensors[0].elementAsDouble(2), 0);
    for (auto [idx, len] : {std::pair<std::vector<double>, std::vector<double>>{{3, 0}, {1, 1}},
                            {{0, -1}, {1, 1}},
                            {{0, 1}, {1, 2}},
                            {{0, 1}, {1, 0}}}) {
      std::string err = run(backend, idx, len).error;
      EXPECT_NE(err.find("instruction 'n' (embeddingbag)"), std::string::npos) << err;
      EXPECT_NE(err.find(backend == "Interpreter" ? "" : "an index is not in [0, 3)"),
                std::string::npos)
          << err;
    }
  }
}

} // namespace
