// The element-wise family on every backend against the Interpreter (BackendTestUtils.h): every
// node kind on every element kind the Interpreter accepts for it, fed special values (NaN, the
// infinities, signed zeros, halves, values out of a narrower kind's range, the most negative
// integer, -1 divisors) over odd sizes so that vector tails run; and the run-time errors
// (integer division, remainder by zero, integer 0 to a negative power).
#include "BackendTestUtils.h"

#include "ModelTestCase.h"

#include "ember/Backends/Backend.h"
#include "ember/Graph/UnaryFunctions.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace ember;
using namespace ember::test;

namespace {

const ElemKind kFloatKinds[] = {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16,
                                ElemKind::BFloat16};
const ElemKind kIntKinds[] = {ElemKind::Int8,  ElemKind::UInt8,  ElemKind::Int16,
                              ElemKind::UInt16, ElemKind::Int32, ElemKind::UInt32,
                              ElemKind::Int64,  ElemKind::UInt64};

std::vector<ElemKind> numericKinds() {
  std::vector<ElemKind> v;
  for (ElemKind k : kFloatKinds)
    v.push_back(k);
  for (ElemKind k : kIntKinds)
    v.push_back(k);
  return v;
}
std::vector<ElemKind> allKinds() {
  std::vector<ElemKind> v = numericKinds();
  v.push_back(ElemKind::Bool);
  return v;
}
bool isUnsigned(ElemKind k) {
  return k == ElemKind::UInt8 || k == ElemKind::UInt16 || k == ElemKind::UInt32 ||
         k == ElemKind::UInt64;
}
std::string kindName(ElemKind k) { return elemKindName(k).str(); }

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

const std::vector<double> kFloatSpecials = {
    kNaN, kInf,  -kInf, 0.0,    -0.0,  0.5,    -0.5,  1.5,     2.5,   -2.5,   1e-8,  100.0,
    -100, 3.7,   -3.7,  65519., 65520, 1e10,   -1e10, 128.4,   -129.6, 255.5, 256.0, 3e38,
    -3e38, 0.25, 1.0,   -1.0,   7.0,   -1.75,  2.0,   -3.0,    0.125, 40000., 5e9,   -2e19,
    2e19};
const std::vector<int64_t> kIntSpecials = {
    0,      1,          -1,         2,          -2,          3,
    -3,     7,          -7,         127,        -128,        128,
    255,    256,        32767,      -32768,     65535,       65536,
    5,      -5,         2147483647, INT64_C(-2147483648), INT64_C(4294967295),
    INT64_MAX, INT64_MIN, 100,      -100,       13,          -13,
    64,     63,         31,         8,          16,          -9};

/// A tensor of kind \p k and \p n elements cycling through the special values from \p shift;
/// integers take the low bytes of kIntSpecials (so that each kind sees its own extremes),
/// skipping 0 if \p nonzero.
Tensor specials(ElemKind k, std::vector<dim_t> dims, size_t shift, bool nonzero = false) {
  Tensor t(Type(k, dims));
  size_t n = t.numElements();
  if (isFloatKind(k)) {
    for (size_t i = 0; i < n; ++i)
      t.setElementFromDouble(i, kFloatSpecials[(i + shift) % kFloatSpecials.size()]);
  } else if (k == ElemKind::Bool) {
    for (size_t i = 0; i < n; ++i)
      t.setElementFromDouble(i, double(((i + shift) * 7 / 3) % 2));
  } else {
    size_t esz = t.getType().elementSize();
    uint64_t mask = esz == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * esz)) - 1;
    for (size_t i = 0, j = shift; i < n; ++i, ++j) {
      int64_t v = kIntSpecials[j % kIntSpecials.size()];
      // Low bytes (little-endian); skip values whose low bytes are all zero if asked.
      while (nonzero && (uint64_t(v) & mask) == 0)
        v = kIntSpecials[++j % kIntSpecials.size()];
      std::memcpy(t.data() + i * esz, &v, esz);
    }
  }
  return t;
}

/// Like specials, but with every third element equal to \p a's (for comparisons).
Tensor partlyEqual(const Tensor &a, size_t shift) {
  const auto &dims = a.getType().dims;
  Tensor b = specials(a.getType().kind, std::vector<dim_t>(dims.begin(), dims.end()), shift);
  size_t esz = a.getType().elementSize();
  for (size_t i = 0; i < a.numElements(); i += 3)
    std::memcpy(b.data() + i * esz, a.data() + i * esz, esz);
  return b;
}

AttrList fmodAttr(int64_t f) {
  AttrList a;
  a.set<AttrKind::FMod>(f);
  return a;
}

TEST(ElementwiseOps, ArithmeticOnEveryNumericKind) {
  for (ElemKind k : numericKinds()) {
    SCOPED_TRACE(kindName(k));
    bool isInt = !isFloatKind(k);
    RunOptions o = dceOnly();
    o.inputs["a"] = specials(k, {41}, 0);
    o.inputs["b"] = specials(k, {41}, 11);
    o.inputs["d"] = specials(k, {41}, 5, /*nonzero=*/true);
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *a = input(M, {41}, k, "a"), *b = input(M, {41}, k, "b");
          Placeholder *d = input(M, {41}, k, "d");
          std::vector<NodeValue> outs;
          for (NodeKind nk : {NodeKind::Add, NodeKind::Sub, NodeKind::Mul, NodeKind::Max,
                              NodeKind::Min, NodeKind::PRelu})
            outs.push_back(node(F, nk, {a, b}));
          outs.push_back(node(F, NodeKind::Div, {a, isInt ? d : b}));
          outs.push_back(node(F, NodeKind::Mod, {a, isInt ? d : b}, fmodAttr(1)));
          if (isInt)
            outs.push_back(node(F, NodeKind::Mod, {a, d}, fmodAttr(0)));
          return outs;
        },
        o);
  }
}

TEST(ElementwiseOps, InPlaceChains) {
  // Each result is dead after the next node reads it, so share-buffers writes in place.
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float16, ElemKind::Int16, ElemKind::UInt8}) {
    SCOPED_TRACE(kindName(k));
    expectBackendsAgree([k](Module &M, Function *F) -> std::vector<NodeValue> {
      Placeholder *a = input(M, {3, 13}, k, "a"), *b = input(M, {3, 13}, k, "b");
      Node *n = node(F, NodeKind::Add, {a, b});
      n = node(F, NodeKind::Mul, {n, a});
      n = node(F, NodeKind::Sub, {b, n});
      n = node(F, NodeKind::Max, {n, a});
      n = node(F, NodeKind::Relu, {n});
      AttrList abs;
      abs.set<AttrKind::Function>("abs");
      n = node(F, NodeKind::Unary, {n}, abs);
      return {n};
    });
  }
}

TEST(ElementwiseOps, PowOnEveryBaseAndExponentKind) {
  const ElemKind bases[] = {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16,
                            ElemKind::BFloat16, ElemKind::Int32, ElemKind::Int64};
  for (ElemKind bk : bases) {
    SCOPED_TRACE(kindName(bk));
    bool intBase = !isFloatKind(bk);
    RunOptions o = dceOnly();
    // Integer bases nonzero (0 to a negative power is an error), exponents small enough for
    // float results to stay in range, and large ones for the integer square-and-multiply.
    Tensor base(Type(bk, {29}));
    const double baseValues[] = {2, -2, 3, -3, 1, -1, 0.5, -1.5, 7, 10, 0, kNaN, 100};
    for (size_t i = 0; i < 29; ++i) {
      double v = baseValues[i % 13];
      if (intBase) {
        v = std::isnan(v) ? 5 : std::trunc(v);
        v = v == 0 ? 5 : v;
      }
      base.setElementFromDouble(i, v);
    }
    o.inputs["base"] = std::move(base);
    for (ElemKind ek : numericKinds()) {
      Tensor e(Type(ek, {29}));
      const double expValues[] = {0, 1, 2, 3, -1, -2, 5, 31, 0.5, -0.5, 63, 64, 100, kNaN, 2.5};
      for (size_t i = 0; i < 29; ++i) {
        double v = expValues[(i * 7) % 15];
        if (!isFloatKind(ek))
          v = std::isnan(v) ? 4 : std::trunc(v);
        if (isUnsigned(ek))
          v = std::fabs(v);
        e.setElementFromDouble(i, v);
      }
      o.inputs["e_" + kindName(ek)] = std::move(e);
    }
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *b = input(M, {29}, bk, "base");
          std::vector<NodeValue> outs;
          for (ElemKind ek : numericKinds())
            outs.push_back(node(F, NodeKind::Pow, {b, input(M, {29}, ek, "e_" + kindName(ek))}));
          return outs;
        },
        o);
  }
}

TEST(ElementwiseOps, ShiftsOnUnsignedKinds) {
  for (ElemKind k : {ElemKind::UInt8, ElemKind::UInt16, ElemKind::UInt32, ElemKind::UInt64}) {
    SCOPED_TRACE(kindName(k));
    RunOptions o = dceOnly();
    o.inputs["a"] = specials(k, {37}, 0);
    Tensor s(Type(k, {37}));
    for (size_t i = 0; i < 37; ++i) // every shift from 0 past the widest kind's width
      s.setElementFromDouble(i, double(i * 2));
    o.inputs["s"] = std::move(s);
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *a = input(M, {37}, k, "a"), *s = input(M, {37}, k, "s");
          return {node(F, NodeKind::ShiftLeft, {a, s}), node(F, NodeKind::ShiftRight, {a, s})};
        },
        o);
  }
}

TEST(ElementwiseOps, ComparisonsOnEveryKind) {
  for (ElemKind k : allKinds()) {
    SCOPED_TRACE(kindName(k));
    RunOptions o = dceOnly();
    o.inputs["a"] = specials(k, {2, 19}, 0);
    o.inputs["b"] = partlyEqual(o.inputs["a"], 7);
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *a = input(M, {2, 19}, k, "a"), *b = input(M, {2, 19}, k, "b");
          std::vector<NodeValue> outs;
          for (NodeKind nk : {NodeKind::Equal, NodeKind::Less, NodeKind::LessOrEqual,
                              NodeKind::Greater, NodeKind::GreaterOrEqual})
            outs.push_back(node(F, nk, {a, b}));
          return outs;
        },
        o);
  }
}

TEST(ElementwiseOps, BitwiseLogicOnIntegerKinds) {
  for (ElemKind k : kIntKinds) {
    SCOPED_TRACE(kindName(k));
    RunOptions o = dceOnly();
    o.inputs["a"] = specials(k, {37}, 0);
    o.inputs["b"] = specials(k, {37}, 5);
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *a = input(M, {37}, k, "a"), *b = input(M, {37}, k, "b");
          return {node(F, NodeKind::And, {a, b}), node(F, NodeKind::Or, {a, b}),
                  node(F, NodeKind::Xor, {a, b})};
        },
        o);
  }
}

TEST(ElementwiseOps, LogicNotAndWhere) {
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *a = input(M, {37}, ElemKind::Bool, "a");
        Placeholder *b = input(M, {37}, ElemKind::Bool, "b");
        AttrList no;
        no.set<AttrKind::Function>("not");
        std::vector<NodeValue> outs = {
            node(F, NodeKind::And, {a, b}), node(F, NodeKind::Or, {a, b}),
            node(F, NodeKind::Xor, {a, b}), node(F, NodeKind::Unary, {a}, no)};
        for (ElemKind k : allKinds())
          outs.push_back(node(F, NodeKind::Where,
                              {a, input(M, {37}, k, "x" + kindName(k)),
                               input(M, {37}, k, "y" + kindName(k))}));
        return outs;
      },
      dceOnly());
}

TEST(ElementwiseOps, ClipOnEveryNumericKind) {
  for (ElemKind k : numericKinds()) {
    SCOPED_TRACE(kindName(k));
    RunOptions o = dceOnly();
    o.inputs["x"] = specials(k, {41}, 0);
    Tensor lo(Type(k, {})), hi(Type(k, {})), lo2(Type(k, {1})), hi2(Type(k, {1}));
    lo.setElementFromDouble(0, isUnsigned(k) ? 2 : -3);
    hi.setElementFromDouble(0, 100);
    lo2.setElementFromDouble(0, 7); // lo > hi: every element becomes hi
    hi2.setElementFromDouble(0, 3);
    o.inputs["lo"] = std::move(lo);
    o.inputs["hi"] = std::move(hi);
    o.inputs["lo2"] = std::move(lo2);
    o.inputs["hi2"] = std::move(hi2);
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {41}, k, "x");
          return {node(F, NodeKind::Clip, {x, input(M, {}, k, "lo"), input(M, {}, k, "hi")}),
                  node(F, NodeKind::Clip, {x, input(M, {1}, k, "lo2"), input(M, {1}, k, "hi2")})};
        },
        o);
  }
}

TEST(ElementwiseOps, CastBetweenEveryPairOfKinds) {
  for (ElemKind from : allKinds()) {
    SCOPED_TRACE(kindName(from));
    RunOptions o = dceOnly();
    o.inputs["x"] = specials(from, {43}, 0);
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {43}, from, "x");
          std::vector<NodeValue> outs;
          for (ElemKind to : allKinds()) {
            AttrList a;
            a.set<AttrKind::ResultKind>(kindName(to));
            outs.push_back(node(F, NodeKind::Cast, {x}, a));
          }
          return outs;
        },
        o);
  }
}

const ElemKind kNarrowKinds[] = {ElemKind::Float8E4M3FN, ElemKind::Float8E4M3FNUZ,
                                 ElemKind::Float8E5M2,   ElemKind::Float8E5M2FNUZ,
                                 ElemKind::Int4,         ElemKind::UInt4,
                                 ElemKind::Float4E2M1};

/// Every bit pattern narrow kind \p k stores (int4 sign-extended), cycled over \p n elements.
Tensor everyNarrowValue(ElemKind k, size_t n) {
  Tensor t(Type(k, {n}));
  unsigned patterns = k == ElemKind::Int4 || k == ElemKind::UInt4 || k == ElemKind::Float4E2M1
                          ? 16
                          : 256;
  for (size_t i = 0; i < n; ++i) {
    unsigned b = unsigned(i % patterns);
    t.dataAs<uint8_t>()[i] = uint8_t(k == ElemKind::Int4 && b >= 8 ? b | 0xF0 : b);
  }
  return t;
}

/// The Interpreter's outputs and every other backend's: narrow results bit for bit (a float8
/// NaN's or zero's sign is part of the result), the others as expectBackendsAgree compares them
/// (the float16 a NaN becomes has the device's payload on OpenCL).
void expectSameBits(const GraphBuilder &build, const RunOptions &o) {
  Outputs want = runOn("Interpreter", build, o);
  ASSERT_EQ(want.error, "");
  for (const std::string &backend : backendsUnderTest()) {
    SCOPED_TRACE(backend);
    Outputs got = runOn(backend, build, o);
    ASSERT_EQ(got.error, "");
    ASSERT_EQ(got.tensors.size(), want.tensors.size());
    for (size_t i = 0; i < got.tensors.size(); ++i) {
      const Tensor &g = got.tensors[i], &w = want.tensors[i];
      if (isNarrowKind(w.getType().kind))
        EXPECT_TRUE(g.bitwiseEqual(w)) << "output " << i << " " << w.getType().str();
      else
        EXPECT_EQ(tools::compareTensors(g, w, {0, 0}), "") << "output " << i;
    }
  }
}

// Cast to every narrow kind, saturating and not, from every kind's special values; from every
// bit pattern of each narrow kind to every kind and every narrow kind; and the narrow kinds
// through data movement (one byte per element everywhere).
TEST(ElementwiseOps, CastToAndFromNarrowKinds) {
  auto cast = [](Function *F, NodeValue x, ElemKind to, int saturate) {
    AttrList a;
    a.set<AttrKind::ResultKind>(kindName(to));
    if (saturate >= 0)
      a.set<AttrKind::Saturate>(saturate);
    return node(F, NodeKind::Cast, {x}, a);
  };
  for (ElemKind from : allKinds()) {
    SCOPED_TRACE(kindName(from));
    RunOptions o = dceOnly();
    o.inputs["x"] = specials(from, {43}, 0);
    expectSameBits(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {43}, from, "x");
          std::vector<NodeValue> outs;
          for (ElemKind to : kNarrowKinds)
            for (int saturate : {-1, 0})
              outs.push_back(cast(F, x, to, saturate));
          return outs;
        },
        o);
  }
  for (ElemKind from : kNarrowKinds) {
    SCOPED_TRACE(kindName(from));
    RunOptions o = dceOnly();
    o.inputs["x"] = everyNarrowValue(from, 256);
    expectSameBits(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {256}, from, "x");
          std::vector<NodeValue> outs;
          for (ElemKind to : allKinds())
            outs.push_back(cast(F, x, to, -1));
          for (ElemKind to : kNarrowKinds)
            if (to != from)
              for (int saturate : {-1, 0})
                outs.push_back(cast(F, x, to, saturate));
          // Data movement moves bytes: a transpose and a concat of slices.
          NodeValue m = node(F, NodeKind::Reshape, {x},
                             AttrList().set<AttrKind::Dims>(std::vector<int64_t>{16, 16}));
          outs.push_back(node(F, NodeKind::Transpose, {m},
                              AttrList().set<AttrKind::Shuffle>(std::vector<int64_t>{1, 0})));
          return outs;
        },
        o);
  }
}

/// The Unary functions' names (Nodes/ElementwiseFunctions.def).
const char *const kUnaryFunctions[] = {
#define UNARY_FUNCTION(E, NAME, DOMAIN, FLOAT_FORM, INTEGER_FORM, VECTOR_FORM, FUSE, DOC) #NAME,
#include "ember/Graph/Nodes/ElementwiseFunctions.def"
};

TEST(ElementwiseOps, UnaryFunctionsOnEveryKindOfTheirDomain) {
  for (ElemKind k : allKinds()) {
    SCOPED_TRACE(kindName(k));
    RunOptions o = dceOnly();
    o.inputs["x"] = specials(k, {3, 17}, 0);
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {3, 17}, k, "x");
          std::vector<NodeValue> outs;
          for (const char *f : kUnaryFunctions) {
            // The domain is the table's; the test checks that every backend runs all of it.
            if (!unaryFunctionAccepts(f, k))
              continue;
            AttrList a;
            a.set<AttrKind::Function>(f);
            outs.push_back(node(F, NodeKind::Unary, {x}, a));
          }
          EXPECT_FALSE(outs.empty()) << "every kind is in some function's domain";
          return outs;
        },
        o);
  }
}

TEST(ElementwiseOps, IsNaNAndIsInfOnEveryFloatKind) {
  for (ElemKind k : kFloatKinds) {
    SCOPED_TRACE(kindName(k));
    RunOptions o = dceOnly();
    o.inputs["x"] = specials(k, {37}, 0);
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {37}, k, "x");
          std::vector<NodeValue> outs = {node(F, NodeKind::IsNaN, {x})};
          for (auto [neg, pos] : {std::pair{1, 1}, std::pair{1, 0}, std::pair{0, 1}}) {
            AttrList a;
            a.set<AttrKind::DetectNegative>(neg).set<AttrKind::DetectPositive>(pos);
            outs.push_back(node(F, NodeKind::IsInf, {x}, a));
          }
          return outs;
        },
        o);
  }
}

TEST(ElementwiseOps, ActivationsOnEveryKind) {
  for (ElemKind k : numericKinds()) {
    SCOPED_TRACE(kindName(k));
    bool isFloat = isFloatKind(k);
    RunOptions o = dceOnly();
    o.inputs["x"] = specials(k, {41}, 0);
    expectBackendsAgree(
        [&](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {41}, k, "x");
          AttrList shrink;
          shrink.set<AttrKind::Bias>(1.5f).set<AttrKind::Lambd>(0.5f);
          std::vector<NodeValue> outs = {node(F, NodeKind::Relu, {x}),
                                         node(F, NodeKind::Shrink, {x}, shrink)};
          if (!isFloat)
            return outs;
          AttrList alpha, hs, selu, thr;
          alpha.set<AttrKind::Alpha>(0.3f);
          hs.set<AttrKind::Alpha>(0.2f).set<AttrKind::Beta>(0.5f);
          selu.set<AttrKind::Alpha>(1.67f).set<AttrKind::Gamma>(1.05f);
          thr.set<AttrKind::Alpha>(1.f);
          outs.push_back(node(F, NodeKind::Sigmoid, {x}));
          outs.push_back(node(F, NodeKind::Tanh, {x}));
          outs.push_back(node(F, NodeKind::Elu, {x}, alpha));
          outs.push_back(node(F, NodeKind::Celu, {x}, alpha));
          outs.push_back(node(F, NodeKind::Selu, {x}, selu));
          outs.push_back(node(F, NodeKind::HardSigmoid, {x}, hs));
          outs.push_back(node(F, NodeKind::LeakyRelu, {x}, alpha));
          outs.push_back(node(F, NodeKind::ThresholdedRelu, {x}, thr));
          return outs;
        },
        o);
  }
}

/// The CPU backend's error for \p build with inputs \p o, after checking that the Interpreter
/// fails too; empty if CPU is not registered.
std::string cpuRunError(const GraphBuilder &build, const RunOptions &o) {
  EXPECT_NE(runOn("Interpreter", build, o).error, "");
  for (const std::string &b : backendsUnderTest())
    if (b == "CPU")
      return runOn(b, build, o).error;
  return "";
}

TEST(ElementwiseOps, IntegerDivisionByZeroIsARunTimeError) {
  RunOptions o = dceOnly();
  o.inputs["a"] = Tensor::fromValues<int32_t>({5}, {1, 2, 3, 4, 5});
  o.inputs["b"] = Tensor::fromValues<int32_t>({5}, {1, -1, 0, 2, 3});
  std::string err = cpuRunError(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        return {node(F, NodeKind::Div, {input(M, {5}, ElemKind::Int32, "a"),
                                        input(M, {5}, ElemKind::Int32, "b")})};
      },
      o);
  EXPECT_NE(err.find("(div): integer division by zero"), std::string::npos) << err;
}

TEST(ElementwiseOps, IntegerRemainderByZeroIsARunTimeError) {
  RunOptions o = dceOnly();
  o.inputs["a"] = Tensor::fromValues<uint8_t>({3}, {1, 2, 3});
  o.inputs["b"] = Tensor::fromValues<uint8_t>({3}, {7, 0, 1});
  std::string err = cpuRunError(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        return {node(F, NodeKind::Mod, {input(M, {3}, ElemKind::UInt8, "a"),
                                        input(M, {3}, ElemKind::UInt8, "b")},
                     fmodAttr(0))};
      },
      o);
  EXPECT_NE(err.find("(mod): integer remainder by zero"), std::string::npos) << err;
}

TEST(ElementwiseOps, IntegerZeroToANegativePowerIsARunTimeError) {
  RunOptions o = dceOnly();
  o.inputs["a"] = Tensor::fromValues<int64_t>({3}, {2, 0, 3});
  o.inputs["b"] = Tensor::fromValues<int8_t>({3}, {1, -1, 2});
  std::string err = cpuRunError(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        return {node(F, NodeKind::Pow, {input(M, {3}, ElemKind::Int64, "a"),
                                        input(M, {3}, ElemKind::Int8, "b")})};
      },
      o);
  EXPECT_NE(err.find("(pow): integer 0 raised to a negative power"), std::string::npos) << err;
}

} // namespace
