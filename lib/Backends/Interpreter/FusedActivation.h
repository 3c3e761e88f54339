// The activation a fused kernel (FusedConv, FusedMatMul, FullyConnected in Conv.cpp and
// MatMul.cpp) applies to each result element. It must give bit for bit what the separate node
// would (ElementwiseUnary.cpp, ElementwiseLogic.cpp): the kernel first rounds its accumulator to
// the result kind T, as it would store it, and the activation then computes in Compute<T> with
// the same formulas, and rounds once more to T.
#ifndef EMBER_LIB_BACKENDS_INTERPRETER_FUSEDACTIVATION_H
#define EMBER_LIB_BACKENDS_INTERPRETER_FUSEDACTIVATION_H

#include "ElementwiseCommon.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>

namespace ember {
namespace interp {

class FusedActivation {
public:
  enum Kind { None, Relu, Clip, LeakyRelu, Sigmoid, Tanh, HardSigmoid, HardSwish, Unknown };

private:
  Kind kind_ = None;
  float a_ = 0, b_ = 0; // clip min/max, leaky_relu alpha, hard_sigmoid alpha/beta

  FusedActivation() = default;

public:
  /// No activation: for the unfused kernels that share a loop with a fused one.
  static FusedActivation none() { return FusedActivation(); }

  /// The activation of a FusedConv, FusedMatMul or FullyConnected instruction; an error for a
  /// name or argument count the shape rule would refuse.
  static llvm::Expected<FusedActivation> of(const KernelContext &ctx) {
    const std::string &name = ctx.attr<AttrKind::FusedActivation>();
    const std::vector<float> &args = ctx.attr<AttrKind::FusedActivationArgs>();
    FusedActivation f;
    f.kind_ = llvm::StringSwitch<Kind>(name)
                  .Case("", None)
                  .Case("relu", Relu)
                  .Case("clip", Clip)
                  .Case("leaky_relu", LeakyRelu)
                  .Case("sigmoid", Sigmoid)
                  .Case("tanh", Tanh)
                  .Case("hard_sigmoid", HardSigmoid)
                  .Case("hard_swish", HardSwish)
                  .Default(Unknown);
    size_t arity = f.kind_ == Clip || f.kind_ == HardSigmoid ? 2 : f.kind_ == LeakyRelu ? 1 : 0;
    if (f.kind_ == Unknown || args.size() != arity)
      return ctx.unsupported("invalid fused activation '" + name + "'");
    if (arity > 0)
      f.a_ = args[0];
    if (arity > 1)
      f.b_ = args[1];
    return f;
  }

  /// \p v (already rounded to the result's storage type T) through the activation.
  template <typename T> T apply(T v) const {
    using C = Compute<T>;
    C x = C(v);
    switch (kind_) {
    case None:
    case Unknown:
      return v;
    case Relu: // NaN fails the test and stays NaN, as runRelu
      return x < C(0) ? T(0) : v;
    case Clip: { // as runClip: Min > Max gives Max
      C lo = C(a_), hi = C(b_);
      x = x < lo ? lo : x;
      return T(hi < x ? hi : x);
    }
    case LeakyRelu:
      return T(x < 0 ? C(a_) * x : x);
    case Sigmoid: { // as ElementwiseUnary's stableSigmoid
      if (x >= 0)
        return T(C(1) / (C(1) + std::exp(-x)));
      C e = std::exp(x);
      return T(e / (C(1) + e));
    }
    case Tanh:
      return T(std::tanh(x));
    case HardSigmoid:
      return T(clampKeepingNaN(C(a_) * x + C(b_), C(0), C(1)));
    case HardSwish:
      return T(x * clampKeepingNaN(x / C(6) + C(0.5), C(0), C(1)));
    }
    return v;
  }

private:
  /// min(max(x, lo), hi), NaN staying NaN (as ElementwiseUnary's clampKeepingNaN).
  template <typename C> static C clampKeepingNaN(C x, C lo, C hi) {
    return x < lo ? lo : hi < x ? hi : x;
  }
};

} // namespace interp
} // namespace ember

#endif
