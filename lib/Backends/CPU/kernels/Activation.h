// The fused activations of FusedConv / FusedMatMul / FullyConnected (Nodes/FusedActivations.def:
// codegen passes the row's 1-based position as the kind and up to two float arguments): the
// rows' vector forms for the float32 GEMM and convolution kernels, their scalar formulas for the
// generic kernels.
#ifndef EMBER_CPU_KERNELS_ACTIVATION_H
#define EMBER_CPU_KERNELS_ACTIVATION_H

#include "Formulas.h"
#include "KernelCommon.h"

enum ActKind {
  ActNone = 0,
#define FUSED_ACTIVATION(E, NAME, ARITY, FROM, FROM_FN, FORMULA, VEC, DOC) Act##E,
#include "ember/Graph/Nodes/FusedActivations.def"
};

struct Activation {
  i64 kind;
  float a, b;
};

/// The activation of a value already rounded to the result kind, in its compute type C, with
/// the scalar formula of the table's row; the caller rounds the result once more as it stores it.
template <typename C> EMBER_INLINE C activate(C x, i64 kind, float pa, float pb) {
  C a = C(pa), b = C(pb);
  (void)a;
  (void)b;
  switch (kind) {
#define FUSED_ACTIVATION(E, NAME, ARITY, FROM, FROM_FN, FORMULA, VEC, DOC)                         \
  case Act##E:                                                                                     \
    return FORMULA;
#include "ember/Graph/Nodes/FusedActivations.def"
  default:
    return x;
  }
}

/// The activation of a float32 vector: the row's vector form (each the scalar formula with the
/// vector approximations of KernelCommon.h). Codegen calls the generic kernels for a row without
/// one, so SCALAR_ONLY is never reached.
EMBER_INLINE Vec applyActivation(Vec x, Activation act) {
  float a = act.a, b = act.b;
  (void)a;
  (void)b;
  switch (act.kind) {
#define VECTOR(expression) expression
#define SCALAR_ONLY x
#define FUSED_ACTIVATION(E, NAME, ARITY, FROM, FROM_FN, FORMULA, VEC, DOC)                         \
  case Act##E:                                                                                     \
    return VEC;
#include "ember/Graph/Nodes/FusedActivations.def"
#undef VECTOR
#undef SCALAR_ONLY
  default:
    return x;
  }
}

#endif
