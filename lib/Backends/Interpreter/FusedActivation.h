// The activation a fused kernel (FusedConv, FusedMatMul, FullyConnected in NNConv.cpp and
// NNMatMul.cpp) applies to each result element: a row of Nodes/FusedActivations.def, evaluated
// with its formula from ember/Semantics/ScalarFormulas.inc, the one the separate node's kernel
// uses. So it gives bit for bit what the separate node would: the kernel first rounds its
// accumulator to the result kind T, as it would store it, and the activation then computes in
// Compute<T> and rounds once more to T.
#ifndef EMBER_LIB_BACKENDS_INTERPRETER_FUSEDACTIVATION_H
#define EMBER_LIB_BACKENDS_INTERPRETER_FUSEDACTIVATION_H

#include "ElementwiseCommon.h"

#include "ember/Graph/FusedActivations.h"
#include "ember/Semantics/Formulas.h"

namespace ember {
namespace interp {

class FusedActivation {
public:
  enum Kind {
    None,
#define FUSED_ACTIVATION(E, NAME, ARITY, FROM, FROM_FN, FORMULA, VEC, DOC) E,
#include "ember/Graph/Nodes/FusedActivations.def"
  };

private:
  Kind kind_ = None;
  float a_ = 0, b_ = 0; // the arguments, as many as the row's arity

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
    const FusedActivationInfo *info;
    if (!resolveFusedActivation(name, args.size(), info))
      return ctx.unsupported("invalid fused activation '" + name + "'");
    if (!info)
      return f;
    f.kind_ = Kind(info->code); // codes are 1-based in row order, as Kind after None
    if (info->arity > 0)
      f.a_ = args[0];
    if (info->arity > 1)
      f.b_ = args[1];
    return f;
  }

  /// \p v (already rounded to the result's storage type T) through the activation.
  template <typename T> T apply(T v) const {
    using namespace formula;
    using C = Compute<T>;
    C x = C(v), a = C(a_), b = C(b_);
    (void)a;
    (void)b;
    switch (kind_) {
    case None:
      return v;
#define FUSED_ACTIVATION(E, NAME, ARITY, FROM, FROM_FN, FORMULA, VEC, DOC)                         \
  case E:                                                                                          \
    return T(FORMULA);
#include "ember/Graph/Nodes/FusedActivations.def"
    }
    return v;
  }
};

} // namespace interp
} // namespace ember

#endif
