// Data movement on every backend against the Interpreter (BackendTestUtils.h): the strided
// copies at ranks beyond any loop nest, Pad in every mode, Trilu, Range, the indexed kinds
// (gathers, scatters with every reduction, OneHot, ReverseSequence) and Resize in every mode and
// coordinate transformation, each on every class of element kind it accepts. Index operands are
// constants with values in range (negative ones included), so the pipeline is dce only: constant
// folding would otherwise evaluate the nodes on the Interpreter at compile time. Last, one test
// per run-time error the kernels report.
#include "BackendTestUtils.h"

#include <cmath>
#include <limits>
#include <random>

using namespace ember;
using namespace ember::test;

namespace {

/// A constant of kind \p k holding \p v (converted as Tensor::setElementFromDouble).
Constant *values(Module &M, ElemKind k, std::vector<dim_t> dims, const std::vector<double> &v,
                 const std::string &name = "v") {
  Tensor t(Type(k, dims));
  EXPECT_EQ(t.numElements(), v.size());
  for (size_t i = 0; i < v.size() && i < t.numElements(); ++i)
    t.setElementFromDouble(i, v[i]);
  return M.createConstant(std::move(t), name);
}

/// Indices (kind \p k, dims \p dims) in [-len, len): every position on an axis of length len,
/// from either end.
Constant *indicesIn(Module &M, ElemKind k, std::vector<dim_t> dims, int64_t len, unsigned seed) {
  std::mt19937 gen(seed);
  size_t n = dimsProduct(dims);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i)
    v.push_back(double(int64_t(gen() % uint64_t(2 * len)) - len));
  return values(M, k, dims, v, "idx");
}

/// Index tuples for GatherND/ScatterND: the last axis of \p dims has one index per axis of
/// \p lens, each in [-len, len).
Constant *tuplesIn(Module &M, ElemKind k, std::vector<dim_t> dims, std::vector<int64_t> lens,
                   unsigned seed) {
  std::mt19937 gen(seed);
  size_t n = dimsProduct(dims);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) {
    int64_t len = lens[i % lens.size()];
    v.push_back(double(int64_t(gen() % uint64_t(2 * len)) - len));
  }
  return values(M, k, dims, v, "tuples");
}

const ElemKind kMoveKinds[] = {ElemKind::Float32, ElemKind::Float16, ElemKind::Float64,
                               ElemKind::Int8,    ElemKind::UInt8,   ElemKind::Int64,
                               ElemKind::Bool};

class DataMovementKinds : public ::testing::TestWithParam<ElemKind> {};

TEST_P(DataMovementKinds, StridedCopiesOfHighRank) {
  // No two adjacent axes merge, so the strided copies see rank 7 and 8.
  ElemKind k = GetParam();
  expectBackendsAgree([k](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, {2, 3, 2, 3, 2, 3, 2, 3}, k);
    AttrList t;
    t.set<AttrKind::Shuffle>({7, 0, 6, 1, 5, 2, 4, 3});
    Placeholder *y = input(M, {3, 4, 3, 4, 3, 4, 5}, k, "y");
    AttrList s;
    s.set<AttrKind::Starts>({2, 0, 1, 3, 0, 1, 4})
        .set<AttrKind::Steps>({-1, 2, 1, -2, 2, 1, -3})
        .set<AttrKind::Dims>({3, 2, 2, 2, 2, 3, 2});
    Placeholder *z = input(M, {3, 1, 2, 1, 3}, k, "z");
    AttrList b;
    b.set<AttrKind::Dims>({2, 2, 3, 4, 2, 5, 3});
    return {node(F, NodeKind::Transpose, {x}, t), node(F, NodeKind::Slice, {y}, s),
            node(F, NodeKind::Broadcast, {z}, b)};
  });
}

TEST_P(DataMovementKinds, PadEveryMode) {
  ElemKind k = GetParam();
  for (const char *mode : {"constant", "reflect", "edge"}) {
    SCOPED_TRACE(mode);
    expectBackendsAgree(
        [k, mode](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {3, 4, 5}, k);
          Placeholder *v = input(M, {}, k, "value");
          AttrList a, b, c;
          // Reflect pads longer than the axis wrap around the mirror's period.
          a.set<AttrKind::Pads>({1, 0, 2, 2, 6, 4}).set<AttrKind::Mode>(mode);
          Placeholder *one = input(M, {1, 7}, k, "one"); // edge/reflect of a length-1 axis
          b.set<AttrKind::Pads>({2, 1, 3, 0}).set<AttrKind::Mode>(mode);
          Placeholder *s = input(M, {}, k, "scalar");
          c.set<AttrKind::Pads>({}).set<AttrKind::Mode>(mode);
          return {node(F, NodeKind::Pad, {x, v}, a), node(F, NodeKind::Pad, {one, v}, b),
                  node(F, NodeKind::Pad, {s, v}, c)};
        },
        dceOnly());
  }
}

TEST_P(DataMovementKinds, Trilu) {
  ElemKind k = GetParam();
  expectBackendsAgree(
      [k](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {2, 3, 5, 4}, k);
        Placeholder *wide = input(M, {3, 19}, k, "wide");
        std::vector<NodeValue> outs;
        for (int64_t upper : {0, 1})
          for (int64_t diag : {std::numeric_limits<int64_t>::min(), int64_t(-7), int64_t(-1),
                               int64_t(0), int64_t(2), int64_t(9),
                               std::numeric_limits<int64_t>::max()}) {
            AttrList a;
            a.set<AttrKind::Upper>(upper).set<AttrKind::DiagonalOffset>(diag);
            outs.push_back(node(F, NodeKind::Trilu, {x}, a));
            outs.push_back(node(F, NodeKind::Trilu, {wide}, a));
          }
        return outs;
      },
      dceOnly());
}

TEST_P(DataMovementKinds, GatherElementsEveryAxis) {
  ElemKind k = GetParam();
  expectBackendsAgree(
      [k](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {4, 5, 6}, k);
        Placeholder *line = input(M, {7}, k, "line");
        std::vector<NodeValue> outs;
        // Indices may be shorter than data off the axis, and longer on it.
        std::vector<std::vector<dim_t>> shapes = {{3, 5, 2}, {4, 3, 6}, {2, 5, 9}};
        for (int64_t axis = 0; axis < 3; ++axis)
          for (ElemKind ik : {ElemKind::Int32, ElemKind::Int64}) {
            AttrList a;
            a.set<AttrKind::Axis>(axis);
            Constant *idx = indicesIn(M, ik, shapes[axis], int64_t(x->getType().dims[axis]),
                                      unsigned(axis * 2 + (ik == ElemKind::Int64)));
            outs.push_back(node(F, NodeKind::GatherElements, {x, idx}, a));
          }
        AttrList a0;
        a0.set<AttrKind::Axis>(0);
        outs.push_back(node(F, NodeKind::GatherElements,
                            {line, indicesIn(M, ElemKind::Int64, {11}, 7, 9)}, a0));
        return outs;
      },
      dceOnly());
}

TEST_P(DataMovementKinds, GatherAndGatherND) {
  ElemKind k = GetParam();
  expectBackendsAgree(
      [k](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {2, 3, 4, 5}, k);
        AttrList g;
        g.set<AttrKind::Axis>(2);
        std::vector<NodeValue> outs = {
            node(F, NodeKind::Gather, {x, indicesIn(M, ElemKind::Int32, {2, 3}, 4, 1)}, g)};
        struct Case {
          std::vector<dim_t> dims;
          int64_t batch;
          std::vector<int64_t> lens;
        };
        for (const Case &c : {Case{{3, 2}, 0, {2, 3}}, Case{{2, 4, 2}, 1, {3, 4}},
                              Case{{2, 3, 2}, 2, {4, 5}}, Case{{5, 4}, 0, {2, 3, 4, 5}},
                              Case{{2, 1}, 0, {2}}})
          for (ElemKind ik : {ElemKind::Int32, ElemKind::Int64}) {
            AttrList a;
            a.set<AttrKind::BatchDims>(c.batch);
            outs.push_back(node(F, NodeKind::GatherND,
                                {x, tuplesIn(M, ik, c.dims, c.lens, unsigned(c.dims[0]))}, a));
          }
        return outs;
      },
      dceOnly());
}

TEST_P(DataMovementKinds, ReverseSequence) {
  ElemKind k = GetParam();
  expectBackendsAgree(
      [k](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {4, 3, 5}, k);
        Placeholder *y = input(M, {3, 6, 2, 2}, k, "y");
        AttrList timeFirst, batchFirst;
        timeFirst.set<AttrKind::BatchAxis>(1).set<AttrKind::TimeAxis>(0);
        batchFirst.set<AttrKind::BatchAxis>(0).set<AttrKind::TimeAxis>(1);
        return {node(F, NodeKind::ReverseSequence,
                     {x, values(M, ElemKind::Int64, {3}, {4, 0, 2})}, timeFirst),
                node(F, NodeKind::ReverseSequence,
                     {y, values(M, ElemKind::Int32, {3}, {1, 6, 5})}, batchFirst)};
      },
      dceOnly());
}

TEST_P(DataMovementKinds, OneHotValues) {
  // The result kind is the values' kind; indices are int64 here (every index kind below).
  ElemKind k = GetParam();
  expectBackendsAgree(
      [k](Module &M, Function *F) -> std::vector<NodeValue> {
        Constant *idx = values(M, ElemKind::Int64, {2, 3}, {0, -1, 4, 5, -6, 2});
        Constant *vals = values(M, k, {2}, {0, 1});
        std::vector<NodeValue> outs;
        for (int64_t axis : {0, 1, 2}) {
          AttrList a;
          a.set<AttrKind::Axis>(axis).set<AttrKind::Depth>(5);
          outs.push_back(node(F, NodeKind::OneHot, {idx, vals}, a));
        }
        return outs;
      },
      dceOnly());
}

TEST_P(DataMovementKinds, ResizeNearest) {
  ElemKind k = GetParam();
  struct Case {
    const char *coord, *nearest;
  };
  for (Case c : {Case{"half_pixel", "round_prefer_floor"}, Case{"asymmetric", "floor"},
                 Case{"align_corners", "round_prefer_ceil"}, Case{"pytorch_half_pixel", "ceil"},
                 Case{"tf_half_pixel_for_nn", "round_prefer_floor"},
                 Case{"tf_crop_and_resize", "round_prefer_ceil"}}) {
    SCOPED_TRACE(c.coord);
    expectBackendsAgree(
        [k, c](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {2, 3, 4, 5}, k);
          bool crop = std::string(c.coord) == "tf_crop_and_resize";
          std::vector<float> roi;
          if (crop)
            roi = {0, 0.2f, -0.3f, 0.1f, 1, 0.9f, 1.2f, 0.7f};
          AttrList up, down;
          up.set<AttrKind::Dims>({2, 5, 9, 11})
              .set<AttrKind::Scales>({})
              .set<AttrKind::Roi>(roi)
              .set<AttrKind::Mode>("nearest")
              .set<AttrKind::CoordinateMode>(c.coord)
              .set<AttrKind::NearestMode>(c.nearest)
              .set<AttrKind::CubicCoeffA>(-0.75f)
              .set<AttrKind::ExcludeOutside>(0)
              .set<AttrKind::ExtrapolationValue>(3.f)
              .set<AttrKind::Antialias>(0);
          down = up;
          down.set<AttrKind::Dims>({1, 2, 3, 2}).set<AttrKind::Scales>({0.5f, 0.8f, 0.7f, 0.5f});
          return {node(F, NodeKind::Resize, {x}, up), node(F, NodeKind::Resize, {x}, down)};
        },
        dceOnly());
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, DataMovementKinds, ::testing::ValuesIn(kMoveKinds),
                         [](const ::testing::TestParamInfo<ElemKind> &i) {
                           return elemKindName(i.param).str();
                         });

TEST(DataMovement, QuantizedMovesBytes) {
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Type q(ElemKind::QInt8, {2, 3, 2, 3, 2, 3, 2}, 0.25f, 3);
        Placeholder *x = M.createPlaceholder(q, "x");
        AttrList t;
        t.set<AttrKind::Shuffle>({6, 0, 5, 1, 4, 2, 3});
        Placeholder *v = M.createPlaceholder(q.withDims({}), "v");
        Placeholder *img = M.createPlaceholder(q.withDims({1, 2, 3, 4}), "img");
        AttrList p;
        p.set<AttrKind::Pads>({0, 0, 1, 2, 0, 0, 2, 1}).set<AttrKind::Mode>("reflect");
        AttrList r;
        r.set<AttrKind::Dims>({1, 2, 7, 9})
            .set<AttrKind::Scales>({})
            .set<AttrKind::Roi>({0, 0, 0.1f, 0.2f, 1, 1, 0.8f, 1.3f})
            .set<AttrKind::Mode>("nearest")
            .set<AttrKind::CoordinateMode>("tf_crop_and_resize")
            .set<AttrKind::NearestMode>("round_prefer_floor")
            .set<AttrKind::CubicCoeffA>(-0.75f)
            .set<AttrKind::ExcludeOutside>(0)
            .set<AttrKind::ExtrapolationValue>(1.5f)
            .set<AttrKind::Antialias>(0);
        return {node(F, NodeKind::Transpose, {x}, t), node(F, NodeKind::Pad, {img, v}, p),
                node(F, NodeKind::Resize, {img}, r)};
      },
      dceOnly());
}

TEST(DataMovement, PadImageFloat32) {
  // The CNN case: odd widths (vector tails), interior copied as one run per row.
  for (const char *mode : {"constant", "reflect", "edge"}) {
    SCOPED_TRACE(mode);
    expectBackendsAgree(
        [mode](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {2, 3, 37, 29});
          AttrList a;
          a.set<AttrKind::Pads>({0, 0, 1, 3, 0, 1, 2, 5}).set<AttrKind::Mode>(mode);
          return {node(F, NodeKind::Pad, {x, values(M, ElemKind::Float32, {}, {-1.5})}, a)};
        },
        dceOnly());
  }
}

TEST(DataMovement, RangeEveryKind) {
  struct Case {
    ElemKind k;
    double start, delta;
    int64_t n;
  };
  for (Case c : {Case{ElemKind::Float32, -1.25, 0.3, 17}, Case{ElemKind::Float64, 7, -0.7, 9},
                 Case{ElemKind::Int16, 5, -3, 11}, Case{ElemKind::Int32, -20, 7, 13},
                 Case{ElemKind::Int64, 3, -5, 4}}) {
    SCOPED_TRACE(elemKindName(c.k).str());
    expectBackendsAgree(
        [c](Module &M, Function *F) -> std::vector<NodeValue> {
          AttrList a;
          a.set<AttrKind::Dims>({c.n});
          return {node(F, NodeKind::Range,
                       {values(M, c.k, {}, {c.start}, "start"),
                        values(M, c.k, {}, {c.delta}, "delta")},
                       a)};
        },
        dceOnly());
  }
}

const ElemKind kComputeKinds[] = {ElemKind::Float32, ElemKind::Float16, ElemKind::BFloat16,
                                  ElemKind::Float64, ElemKind::Int8,    ElemKind::UInt8,
                                  ElemKind::Int32,   ElemKind::UInt64,  ElemKind::Bool};

class ScatterKinds : public ::testing::TestWithParam<ElemKind> {};

TEST_P(ScatterKinds, ScatterElementsEveryReduction) {
  // Random indices repeat, so the reductions combine several updates into one element.
  ElemKind k = GetParam();
  for (const char *how : {"none", "add", "mul", "max", "min"}) {
    SCOPED_TRACE(how);
    expectBackendsAgree(
        [k, how](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {4, 5, 6}, k);
          std::vector<std::vector<dim_t>> shapes = {{6, 5, 2}, {4, 3, 6}, {2, 5, 9}};
          std::vector<NodeValue> outs;
          for (int64_t axis = 0; axis < 3; ++axis) {
            ElemKind ik = axis == 1 ? ElemKind::Int32 : ElemKind::Int64;
            Placeholder *u = input(M, shapes[axis], k, "u" + std::to_string(axis));
            AttrList a;
            a.set<AttrKind::Axis>(axis).set<AttrKind::Reduction>(how);
            Constant *idx = indicesIn(M, ik, shapes[axis], int64_t(x->getType().dims[axis]),
                                      unsigned(axis + 5));
            outs.push_back(node(F, NodeKind::ScatterElements, {x, idx, u}, a));
          }
          return outs;
        },
        dceOnly());
  }
}

TEST_P(ScatterKinds, ScatterNDEveryReduction) {
  ElemKind k = GetParam();
  for (const char *how : {"none", "add", "mul", "max", "min"}) {
    SCOPED_TRACE(how);
    expectBackendsAgree(
        [k, how](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {4, 5, 6}, k);
          AttrList a;
          a.set<AttrKind::Reduction>(how);
          Constant *rows = tuplesIn(M, ElemKind::Int64, {5, 2}, {4, 5}, 1);
          Constant *cells = tuplesIn(M, ElemKind::Int32, {3, 2, 3}, {4, 5, 6}, 2);
          Constant *planes = tuplesIn(M, ElemKind::Int64, {3, 1}, {4}, 3);
          return {node(F, NodeKind::ScatterND, {x, rows, input(M, {5, 6}, k, "u1")}, a),
                  node(F, NodeKind::ScatterND, {x, cells, input(M, {3, 2}, k, "u2")}, a),
                  node(F, NodeKind::ScatterND, {x, planes, input(M, {3, 5, 6}, k, "u3")}, a)};
        },
        dceOnly());
  }
}

TEST_P(ScatterKinds, ScatterMaxMinLetNaNWin) {
  // numpy's maximum and minimum (Graph/ScatterReduction.h): a NaN in the data or in an update
  // wins, the element already there first; repeated indices combine in index order.
  ElemKind k = GetParam();
  if (!isFloatKind(k))
    GTEST_SKIP() << "no NaN in " << elemKindName(k).str();
  double nan = std::nan("");
  RunOptions opts = dceOnly();
  opts.inputs["x"] = tensorOf(k, {2, 4}, {nan, 1, -2, 3, 0.5, -1, 2, nan});
  opts.inputs["u"] = tensorOf(k, {2, 4}, {5, nan, -3, 7, nan, 0, -4, 1});
  for (const char *how : {"max", "min"}) {
    SCOPED_TRACE(how);
    expectBackendsAgree(
        [k, how](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {2, 4}, k, "x"), *u = input(M, {2, 4}, k, "u");
          AttrList a;
          a.set<AttrKind::Axis>(1).set<AttrKind::Reduction>(how);
          Constant *idx = values(M, ElemKind::Int64, {2, 4}, {0, 1, 1, 0, 3, 3, 2, 3});
          AttrList nd;
          nd.set<AttrKind::Reduction>(how);
          Constant *rows = values(M, ElemKind::Int32, {2, 1}, {1, 1}, "rows");
          return {node(F, NodeKind::ScatterElements, {x, idx, u}, a),
                  node(F, NodeKind::ScatterND, {x, rows, u}, nd)};
        },
        opts);
  }
}

TEST_P(ScatterKinds, OneHotIndexKinds) {
  // Every kind as indices: fractional ones truncate, unsigned and bool never count from the end,
  // NaN and infinities are off everywhere.
  ElemKind k = GetParam();
  expectBackendsAgree(
      [k](Module &M, Function *F) -> std::vector<NodeValue> {
        double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
        std::vector<double> v = {0, 1, -1, 3.7, -3.7, 4.99, -5.5, 6, -6, 250, nan, inf};
        if (k == ElemKind::Bool || k == ElemKind::UInt8 || k == ElemKind::UInt64)
          v = {0, 1, 1, 0, 4, 5, 3, 2, 255, 0, 1, 1};
        else if (!isFloatKind(k))
          v = {0, 1, -1, 3, -3, 4, -5, 6, -6, 100, 2, -2};
        if (k == ElemKind::Bool)
          for (double &d : v)
            d = d != 0;
        Constant *idx = values(M, k, {3, 4}, v);
        AttrList a, b;
        a.set<AttrKind::Axis>(1).set<AttrKind::Depth>(5);
        b.set<AttrKind::Axis>(2).set<AttrKind::Depth>(1);
        return {node(F, NodeKind::OneHot, {idx, values(M, ElemKind::Float32, {2}, {-2, 7})}, a),
                node(F, NodeKind::OneHot, {idx, values(M, ElemKind::Int64, {2}, {3, -9})}, b)};
      },
      dceOnly());
}

INSTANTIATE_TEST_SUITE_P(Kinds, ScatterKinds, ::testing::ValuesIn(kComputeKinds),
                         [](const ::testing::TestParamInfo<ElemKind> &i) {
                           return elemKindName(i.param).str();
                         });

// Resize linear/cubic: every coordinate transformation, on kinds that round (integers) and
// that do not.
struct ResizeCase {
  const char *mode, *coord;
  float a;
  int64_t exclude;
  bool scales;
  int64_t antialias = 0; ///< Resize-18: the downsampling axes widen the filter
};

class ResizeInterp : public ::testing::TestWithParam<ResizeCase> {};

AttrList resizeAttrs(const ResizeCase &c, std::vector<int64_t> dims, std::vector<float> scales,
                     std::vector<float> roi) {
  AttrList r;
  r.set<AttrKind::Dims>(dims)
      .set<AttrKind::Scales>(c.scales ? scales : std::vector<float>{})
      .set<AttrKind::Roi>(std::string(c.coord) == "tf_crop_and_resize" ? roi
                                                                        : std::vector<float>{})
      .set<AttrKind::Mode>(c.mode)
      .set<AttrKind::CoordinateMode>(c.coord)
      .set<AttrKind::NearestMode>("round_prefer_floor")
      .set<AttrKind::CubicCoeffA>(c.a)
      .set<AttrKind::ExcludeOutside>(c.exclude)
      .set<AttrKind::ExtrapolationValue>(-2.5f)
      .set<AttrKind::Antialias>(c.antialias);
  return r;
}

TEST_P(ResizeInterp, MatchesInterpreter) {
  ResizeCase c = GetParam();
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16, ElemKind::Int32,
                     ElemKind::UInt8, ElemKind::Int8}) {
    SCOPED_TRACE(elemKindName(k).str());
    expectBackendsAgree(
        [c, k](Module &M, Function *F) -> std::vector<NodeValue> {
          // Upsampling the image axes (the CNN case); resampling every axis of a rank-5 tensor
          // (several outer axes with more than one tap); down to length 1 on one axis; rank 1.
          Placeholder *img = input(M, {1, 3, 5, 7}, k);
          Placeholder *vol = input(M, {2, 3, 4, 3, 5}, k, "vol");
          Placeholder *line = input(M, {6}, k, "line");
          return {node(F, NodeKind::Resize, {img},
                       resizeAttrs(c, {1, 3, 10, 17}, {1, 1, 2, 2.5f},
                                   {0, 0, 0.1f, -0.2f, 1, 1, 0.9f, 1.1f})),
                  node(F, NodeKind::Resize, {vol},
                       resizeAttrs(c, {3, 2, 7, 1, 4}, {1.5f, 0.8f, 1.75f, 0.4f, 0.8f},
                                   {-0.1f, 0, 0.2f, 0.3f, 0, 1, 1, 0.7f, 0.6f, 1.2f})),
                  node(F, NodeKind::Resize, {line},
                       resizeAttrs(c, {13}, {2.2f}, {0.3f, 0.8f}))};
        },
        dceOnly(), 1e-5, 1e-4);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, ResizeInterp,
    ::testing::Values(ResizeCase{"linear", "half_pixel", -0.75f, 0, false},
                      ResizeCase{"linear", "align_corners", -0.75f, 0, true},
                      ResizeCase{"linear", "asymmetric", -0.75f, 0, true},
                      ResizeCase{"linear", "pytorch_half_pixel", -0.75f, 0, false},
                      ResizeCase{"linear", "tf_crop_and_resize", -0.75f, 0, false},
                      ResizeCase{"linear", "tf_half_pixel_for_nn", -0.75f, 1, true},
                      ResizeCase{"cubic", "half_pixel", -0.75f, 0, true},
                      ResizeCase{"cubic", "half_pixel", -0.5f, 1, false},
                      ResizeCase{"cubic", "align_corners", -0.75f, 0, false},
                      ResizeCase{"cubic", "asymmetric", -0.5f, 0, true},
                      ResizeCase{"cubic", "pytorch_half_pixel", -0.75f, 1, true},
                      ResizeCase{"cubic", "tf_crop_and_resize", -0.5f, 0, true},
                      ResizeCase{"linear", "half_pixel_symmetric", -0.75f, 0, true},
                      ResizeCase{"linear", "half_pixel", -0.75f, 0, true, 1},
                      ResizeCase{"cubic", "half_pixel_symmetric", -0.5f, 1, true, 1},
                      ResizeCase{"cubic", "align_corners", -0.75f, 0, false, 1}),
    [](const ::testing::TestParamInfo<ResizeCase> &i) {
      return std::string(i.param.mode) + "_" + i.param.coord + (i.param.exclude ? "_excl" : "") +
             (i.param.antialias ? "_antialias" : "") + (i.param.scales ? "_scales" : "_sizes") +
             "_" + std::to_string(i.index);
    });

TEST(DataMovement, ResizeOfAScalarAndSpecialValues) {
  // A float64 sum still rounds through float, as the Interpreter's; NaN and infinities flow
  // through the taps that weigh them.
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        ResizeCase lin{"linear", "half_pixel", -0.75f, 0, false};
        ResizeCase crop{"linear", "tf_crop_and_resize", -0.75f, 0, false}; // rank 0: no roi
        double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
        Constant *s = values(M, ElemKind::Float64, {}, {0.1});
        Constant *sp = values(M, ElemKind::Float32, {1, 5}, {1, nan, 2, inf, -3});
        ResizeCase cub{"cubic", "align_corners", -0.75f, 0, false};
        return {node(F, NodeKind::Resize, {s}, resizeAttrs(crop, {}, {}, {})),
                node(F, NodeKind::Resize, {sp}, resizeAttrs(lin, {2, 11}, {}, {})),
                node(F, NodeKind::Resize, {sp}, resizeAttrs(cub, {1, 9}, {}, {}))};
      },
      dceOnly());
}

// --- GridSample ------------------------------------------------------------------------------

const char *const kGridModes[] = {"nearest", "linear", "cubic"};
const char *const kGridPaddings[] = {"zeros", "border", "reflection"};

AttrList gridSampleAttrs(const char *mode, const char *padding, int64_t align) {
  AttrList a;
  a.set<AttrKind::Mode>(mode).set<AttrKind::PaddingMode>(padding).set<AttrKind::AlignCorners>(
      align);
  return a;
}

/// A GridSample of \p x at \p grid in every mode, padding and align_corners (the outer loops in
/// that order); \p aligns limits align_corners.
std::vector<NodeValue> everyGridSample(Function *F, NodeValue x, NodeValue grid,
                                       std::vector<int64_t> aligns = {0, 1}) {
  std::vector<NodeValue> outs;
  for (const char *mode : kGridModes)
    for (const char *padding : kGridPaddings)
      for (int64_t align : aligns)
        outs.push_back(
            node(F, NodeKind::GridSample, {x, grid}, gridSampleAttrs(mode, padding, align)));
  return outs;
}

/// Every mode, padding and align_corners on every float kind, at grid points inside [-1, 1], on
/// its edges, just outside, and far outside (several reflections) on either side and axis.
TEST(DataMovement, GridSampleEveryModePaddingAndKind) {
  const std::vector<double> coords = {-1,   1,     0,    0.3,    -0.77, 1.2,  -1.3, 2.9,
                                      -5.25, 7.6,  40.1, -123.4, 0.999, -0.5, 0.52, -1.01};
  std::vector<double> grid;
  for (size_t i = 0; i < 2 * 3 * 10; ++i)
    grid.insert(grid.end(), {coords[i % coords.size()], coords[(i * 7 + 3) % coords.size()]});
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16, ElemKind::BFloat16}) {
    SCOPED_TRACE(elemKindName(k).str());
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          return everyGridSample(F, input(M, {2, 3, 5, 4}, k), values(M, k, {2, 3, 10, 2}, grid));
        },
        dceOnly());
  }
}

/// Volumetric inputs (5-D, ONNX GridSample-20) and inputs of one spatial axis: every mode,
/// padding and align_corners, at points inside, on the edges and outside along every axis.
TEST(DataMovement, GridSampleVolumetricAndOneAxis) {
  const std::vector<double> coords = {-1,   1,     0,    0.3,    -0.77, 1.2,  -1.3, 2.9,
                                      -5.25, 7.6,  40.1, -123.4, 0.999, -0.5, 0.52, -1.01};
  std::vector<double> grid3, grid1;
  for (size_t i = 0; i < 2 * 2 * 3 * 4; ++i)
    grid3.insert(grid3.end(), {coords[i % coords.size()], coords[(i * 7 + 3) % coords.size()],
                               coords[(i * 5 + 1) % coords.size()]});
  for (size_t i = 0; i < 2 * 9; ++i)
    grid1.push_back(coords[(i * 3 + 2) % coords.size()]);
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16}) {
    SCOPED_TRACE(elemKindName(k).str());
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          std::vector<NodeValue> outs = everyGridSample(
              F, input(M, {2, 3, 4, 5, 3}, k), values(M, k, {2, 2, 3, 4, 3}, grid3, "g3"));
          std::vector<NodeValue> one = everyGridSample(F, input(M, {2, 3, 7}, k, "x1"),
                                                       values(M, k, {2, 9, 1}, grid1, "g1"));
          outs.insert(outs.end(), one.begin(), one.end());
          return outs;
        },
        dceOnly());
  }
}

/// Points outside [-1, 1] against torch.nn.functional.grid_sample (torch 2, float32) on
/// arange(12) as [1, 1, 3, 4], except where onnxruntime differs from torch (marked below).
TEST(DataMovement, GridSampleOutsideMatchesTorch) {
  const std::vector<double> grid = {-1.7, 0.2, 2.9, -1.3, -5.25, 7.6, 0.3, -0.77};
  // Per mode, padding, align_corners 0 then 1: the 4 points' values.
  const double want[3][3][2][4] = {
      {{{0, 0, 0, 2}, {0, 0, 0, 2}},
       {{4, 3, 8, 2}, {4, 3, 8, 2}},
       {{5, 0, 0, 2}, {5, 0, 4, 2}}},
      {{{0, 0, 0, 1.7745}, {0, 0, 0, 2.87}},
       {{5.2, 3, 8, 2.1}, {4.8, 3, 8, 2.87}},
       {{6.1, 0, 1.6, 2.1}, {5.85, 1.35, 2.775, 2.87}}},
      // Cubic with border: onnxruntime clamps a point outside to the border before taking its
      // 4 x 4 cells, so (2.9, -1.3) reads the corner cell 3 alone (torch: 2.99287, 2.559).
      {{{-0.0400619, 0, 0, 1.54234}, {-0.178695, 0, 0, 2.82804}},
       {{5.55699, 3, 8.0, 1.81073}, {5.088, 3, 8.0, 2.63079}},
       {{6.41424, -0.3, 1.26400, 1.74982}, {6.25537, 0.518063, 1.91257, 2.22169}}}};
  std::vector<double> image(12);
  for (size_t i = 0; i < image.size(); ++i)
    image[i] = double(i);
  GraphBuilder build = [&](Module &M, Function *F) -> std::vector<NodeValue> {
    return everyGridSample(F, values(M, ElemKind::Float32, {1, 1, 3, 4}, image, "x"),
                           values(M, ElemKind::Float32, {1, 1, 4, 2}, grid, "g"));
  };
  std::vector<std::string> backends = backendsUnderTest();
  backends.insert(backends.begin(), "Interpreter");
  for (const std::string &backend : backends) {
    SCOPED_TRACE(backend);
    Outputs got = runOn(backend, build, dceOnly());
    ASSERT_EQ(got.error, "");
    ASSERT_EQ(got.tensors.size(), 18u);
    for (size_t o = 0; o < 18; ++o)
      for (size_t p = 0; p < 4; ++p)
        EXPECT_NEAR(got.tensors[o].elementAsDouble(p), want[o / 6][o / 2 % 3][o % 2][p], 1e-4)
            << kGridModes[o / 6] << " " << kGridPaddings[o / 2 % 3] << " align " << o % 2
            << " point " << p;
  }
}

/// NaN and infinite grid coordinates (ember/Semantics/GridSample.h): NaN gives NaN; an infinity
/// reads 0 (zeros), the border (border) or NaN (reflection); NaN and infinities in the input
/// flow through the taps that read them.
TEST(DataMovement, GridSampleSpecialValues) {
  double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  std::vector<double> grid = {nan, 0, 0.1, nan, inf, 0.2, -0.3, -inf, inf, inf, 0.5, 0.5};
  std::vector<double> image(2 * 4 * 5);
  for (size_t i = 0; i < image.size(); ++i)
    image[i] = double(int(i * 7 % 11) - 5) / 2;
  image[13] = nan, image[31] = inf;
  expectBackendsAgree(
      [&](Module &M, Function *F) -> std::vector<NodeValue> {
        return everyGridSample(F, values(M, ElemKind::Float32, {1, 2, 4, 5}, image, "x"),
                               values(M, ElemKind::Float32, {1, 2, 3, 2}, grid, "g"), {0});
      },
      dceOnly());
  Outputs got = runOn("Interpreter",
                      [&](Module &M, Function *F) -> std::vector<NodeValue> {
                        Constant *x = values(M, ElemKind::Float32, {1, 1, 2, 2}, {1, 2, 3, 4});
                        Constant *g = values(M, ElemKind::Float32, {1, 1, 3, 2},
                                             {nan, 0, inf, 0, -inf, -inf}, "g");
                        return {node(F, NodeKind::GridSample, {x, g},
                                     gridSampleAttrs("linear", "zeros", 0)),
                                node(F, NodeKind::GridSample, {x, g},
                                     gridSampleAttrs("linear", "border", 1))};
                      },
                      dceOnly());
  ASSERT_EQ(got.error, "");
  EXPECT_TRUE(std::isnan(got.tensors[0].elementAsDouble(0)));
  EXPECT_EQ(got.tensors[0].elementAsDouble(1), 0);
  EXPECT_EQ(got.tensors[0].elementAsDouble(2), 0);
  EXPECT_TRUE(std::isnan(got.tensors[1].elementAsDouble(0)));
  EXPECT_EQ(got.tensors[1].elementAsDouble(1), 3); // (inf, 0): the right border, middle row
  EXPECT_EQ(got.tensors[1].elementAsDouble(2), 1); // the top left corner
}

// Run-time errors: an index out of range stops the run with an error naming the instruction,
// on the Interpreter and on every other backend.
void expectRunTimeError(const GraphBuilder &build, const std::string &what) {
  Outputs want = runOn("Interpreter", build, dceOnly());
  EXPECT_NE(want.error, "") << "the Interpreter accepted it";
  for (const std::string &backend : backendsUnderTest()) {
    SCOPED_TRACE(backend);
    Outputs got = runOn(backend, build, dceOnly());
    EXPECT_NE(got.error.find("instruction '"), std::string::npos) << got.error;
    EXPECT_NE(got.error.find(what), std::string::npos) << got.error;
  }
}

TEST(DataMovementErrors, GatherElementsIndexOutOfRange) {
  expectRunTimeError(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        AttrList a;
        a.set<AttrKind::Axis>(1);
        return {node(F, NodeKind::GatherElements,
                     {input(M, {2, 3}), values(M, ElemKind::Int32, {2, 2}, {0, -3, 2, 3})}, a)};
      },
      "out of range");
}

TEST(DataMovementErrors, GatherNDIndexOutOfRange) {
  expectRunTimeError(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        AttrList a;
        a.set<AttrKind::BatchDims>(0);
        return {node(F, NodeKind::GatherND,
                     {input(M, {2, 3}), values(M, ElemKind::Int64, {2, 2}, {1, 2, -3, 0})}, a)};
      },
      "out of range");
}

TEST(DataMovementErrors, ScatterElementsIndexOutOfRange) {
  expectRunTimeError(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        AttrList a;
        a.set<AttrKind::Axis>(0).set<AttrKind::Reduction>("add");
        return {node(F, NodeKind::ScatterElements,
                     {input(M, {2, 3}), values(M, ElemKind::Int64, {1, 3}, {0, 1, 2}),
                      input(M, {1, 3}, ElemKind::Float32, "u")},
                     a)};
      },
      "out of range");
}

TEST(DataMovementErrors, ScatterNDIndexOutOfRange) {
  expectRunTimeError(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        AttrList a;
        a.set<AttrKind::Reduction>("none");
        return {node(F, NodeKind::ScatterND,
                     {input(M, {2, 3}), values(M, ElemKind::Int32, {2, 1}, {-1, -3}),
                      input(M, {2, 3}, ElemKind::Float32, "u")},
                     a)};
      },
      "out of range");
}

TEST(DataMovementErrors, ReverseSequenceLengthOutOfRange) {
  expectRunTimeError(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        AttrList a;
        a.set<AttrKind::BatchAxis>(0).set<AttrKind::TimeAxis>(1);
        return {node(F, NodeKind::ReverseSequence,
                     {input(M, {2, 3}), values(M, ElemKind::Int64, {2}, {3, 4})}, a)};
      },
      "sequence length");
}

} // namespace
