// Random draws: RandomUniform, RandomNormal, their -Like forms and Bernoulli. ember compiles
// them to values drawn once, at compile time, so a compiled model is deterministic: the same
// seed attribute gives the same draws on every compile, backend and run (a node without a seed
// draws from one derived from its name). The draws cannot equal another implementation's,
// which uses its own generator; what the spec fixes is the distribution, and the tests check
// that (ImporterOpsTest). Bernoulli's probabilities are a run-time input: it becomes a
// comparison of a constant uniform draw with them (the ONNX function body's own form).
#include "ElementwiseOps.h"
#include "OpContext.h"
#include "ONNXTensor.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/Hashing.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace llvm;

namespace ember {

namespace {

/// One node's draws: a 64-bit Mersenne Twister (its sequence is fixed by the C++ standard, so
/// draws do not depend on the compiler), seeded by the seed attribute's bits.
class Draws {
  std::mt19937_64 gen_;

public:
  explicit Draws(OpContext &ctx) {
    uint64_t seed;
    if (ctx.hasAttr("seed")) {
      float s = ctx.getFloat("seed", 0);
      uint32_t bits;
      std::memcpy(&bits, &s, sizeof bits);
      seed = bits;
    } else {
      seed = uint64_t(hash_value(ctx.baseName()));
    }
    gen_.seed(seed);
  }
  /// Uniform on [0, 1): 53 random bits.
  double uniform() { return double(gen_() >> 11) * 0x1.0p-53; }
  /// Standard normal, Box-Muller.
  double normal() {
    double u = 1.0 - uniform(); // (0, 1]: the log is finite
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * M_PI * uniform());
  }
};

/// RandomUniform's and RandomNormal's required 'shape' (as float32; dtype comes after).
Expected<Type> shapeAttr(OpContext &ctx) {
  if (!ctx.hasAttr("shape"))
    return ctx.fail("attribute 'shape' is required");
  DimsVec dims;
  for (int64_t d : ctx.getInts("shape")) {
    if (d < 0)
      return ctx.fail("attribute 'shape' holds " + Twine(d) + "; dims are not negative");
    dims.push_back(dim_t(d));
  }
  return Type::checkedDims(ElemKind::Float32, dims);
}

/// The output kind: the dtype attribute, else \p def.
Expected<ElemKind> outputKind(OpContext &ctx, ElemKind def) {
  if (!ctx.hasAttr("dtype"))
    return def;
  EMBER_ASSIGN_OR_RETURN(ElemKind k, elemKindFromONNX(int(ctx.getInt("dtype", 0))));
  return k;
}

/// The type of what a random operator draws: its input's (the -Like forms) or its 'shape'
/// attribute's, of the dtype attribute's kind, else the input's kind or float32.
Expected<Type> drawnType(OpContext &ctx, bool like) {
  Type ty;
  if (like) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.input(0));
    ty = v.getType();
  } else {
    EMBER_ASSIGN_OR_RETURN(ty, shapeAttr(ctx));
  }
  EMBER_ASSIGN_OR_RETURN(ty.kind, outputKind(ctx, ty.kind));
  return ty;
}

/// A Constant of \p ty whose element i is \p draw() (rounded to the kind once).
template <typename DrawFn> Error setDrawn(OpContext &ctx, const Type &ty, DrawFn draw) {
  if (!isFloatKind(ty.kind))
    return ctx.fail("draws floating-point values, not " + elemKindName(ty.kind));
  EMBER_ASSIGN_OR_RETURN(Tensor t, ctx.newTensor(ty, "the drawn constant"));
  for (size_t i = 0, e = t.numElements(); i < e; ++i)
    t.setElementFromDouble(i, draw());
  return ctx.setOutput(0, ctx.createConstant(std::move(t), "drawn")->getResult());
}

/// RandomUniform(Like): low + (high - low) * U[0, 1).
template <bool Like> Error loadRandomUniform(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(Type ty, drawnType(ctx, Like));
  double low = ctx.getFloat("low", 0), high = ctx.getFloat("high", 1);
  Draws draws(ctx);
  return setDrawn(ctx, ty, [&] { return low + (high - low) * draws.uniform(); });
}

/// RandomNormal(Like): mean + scale * N(0, 1).
template <bool Like> Error loadRandomNormal(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(Type ty, drawnType(ctx, Like));
  double mean = ctx.getFloat("mean", 0), scale = ctx.getFloat("scale", 1);
  Draws draws(ctx);
  return setDrawn(ctx, ty, [&] { return mean + scale * draws.normal(); });
}

/// Bernoulli: 1 where a uniform draw on [0, 1) is below the input's probability, else 0 (the
/// operator's ONNX function: RandomUniformLike, Less, Cast).
Error loadBernoulli(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue p, ctx.input(0));
  if (!isFloatKind(p.getType().kind))
    return ctx.fail("the probabilities must be floating-point, got " + p.getType().str());
  EMBER_ASSIGN_OR_RETURN(ElemKind kind, outputKind(ctx, p.getType().kind));
  Draws draws(ctx);
  Tensor u(p.getType());
  for (size_t i = 0, e = u.numElements(); i < e; ++i)
    u.setElementFromDouble(i, draws.uniform());
  NodeValue drawn = ctx.createConstant(std::move(u), "uniform")->getResult();
  EMBER_ASSIGN_OR_RETURN(NodeValue hit, ctx.create(NodeKind::Less, {drawn, p}, {}, "hit"));
  return createCast(ctx, hit, kind);
}

} // namespace

void registerRandomOps(OpRegistry &r) {
  r.add("RandomUniform", 1, loadRandomUniform<false>);
  r.add("RandomUniformLike", 1, loadRandomUniform<true>);
  r.add("RandomNormal", 1, loadRandomNormal<false>);
  r.add("RandomNormalLike", 1, loadRandomNormal<true>);
  r.add("Bernoulli", 15, loadBernoulli);
}

} // namespace ember
