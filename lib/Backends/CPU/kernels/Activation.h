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

// The float32 vector forms. A hot loop (a GEMM register tile, a depthwise row) applies the
// VECTOR forms inline with applyInlineActivation and, if isOutOfLine(kind), the rest afterwards
// over what it stored with applyOutOfLineActivation: a call inside the loop, even on a path not
// taken, costs every activation's tiles their registers (resnet50 ~4% slower). Other callers
// use applyActivation, which does both.

/// Whether the row's vector form is VECTOR_OUT_OF_LINE.
EMBER_INLINE bool isOutOfLine(i64 kind) {
  switch (kind) {
#define VECTOR(expression) false
#define VECTOR_OUT_OF_LINE(expression) true
#define SCALAR_ONLY false
#define FUSED_ACTIVATION(E, NAME, ARITY, FROM, FROM_FN, FORMULA, VEC, DOC)                         \
  case Act##E:                                                                                     \
    return VEC;
#include "ember/Graph/Nodes/FusedActivations.def"
#undef VECTOR
#undef VECTOR_OUT_OF_LINE
#undef SCALAR_ONLY
  default:
    return false;
  }
}

/// The vector forms of one kind: the VECTOR ones (OutOfLine false) or the VECTOR_OUT_OF_LINE
/// ones (true); x itself for the other rows. The choice is a constant, so each instance keeps
/// only its own kind's expressions.
template <bool OutOfLine> EMBER_INLINE Vec vectorForms(Vec x, Activation act) {
  float a = act.a, b = act.b;
  (void)a;
  (void)b;
  switch (act.kind) {
#define VECTOR(expression) (OutOfLine ? x : (expression))
#define VECTOR_OUT_OF_LINE(expression) (OutOfLine ? (expression) : x)
#define SCALAR_ONLY x
#define FUSED_ACTIVATION(E, NAME, ARITY, FROM, FROM_FN, FORMULA, VEC, DOC)                         \
  case Act##E:                                                                                     \
    return VEC;
#include "ember/Graph/Nodes/FusedActivations.def"
#undef VECTOR
#undef VECTOR_OUT_OF_LINE
#undef SCALAR_ONLY
  default:
    return x;
  }
}

/// The VECTOR forms, inlined; x itself for the other rows.
EMBER_INLINE Vec applyInlineActivation(Vec x, Activation act) { return vectorForms<false>(x, act); }

/// The VECTOR_OUT_OF_LINE forms, never inlined; x itself for the other rows.
[[maybe_unused]] static EMBER_NOINLINE Vec applyOutOfLineVector(Vec x, Activation act) {
  return vectorForms<true>(x, act);
}

/// \p f over p[0, n) in place, in whole vectors and one partial one.
template <typename F> EMBER_INLINE void mapInPlace(float *p, i64 n, F f) {
  i64 i = 0;
  for (; i + EMBER_VW <= n; i += EMBER_VW)
    storev(p + i, f(loadv(p + i)));
  if (i < n)
    storePartial(p + i, f(loadPartial(p + i, n - i)), n - i);
}

/// The VECTOR_OUT_OF_LINE form over p[0, n), in place; nothing for the other rows. The row is
/// chosen once per call, and each row's loop has its form inlined: a call and a switch per
/// vector made a convolution with a fused SiLU slower than the convolution and a separate SiLU.
[[maybe_unused]] static EMBER_NOINLINE void applyOutOfLineActivation(float *p, i64 n,
                                                                   Activation act) {
  float a = act.a, b = act.b;
  (void)a;
  (void)b;
  switch (act.kind) {
#define VECTOR(expression)
#define VECTOR_OUT_OF_LINE(expression) mapInPlace(p, n, [=](Vec x) { return (expression); });
#define SCALAR_ONLY
#define FUSED_ACTIVATION(E, NAME, ARITY, FROM, FROM_FN, FORMULA, VEC, DOC)                         \
  case Act##E:                                                                                     \
    VEC                                                                                            \
    return;
#include "ember/Graph/Nodes/FusedActivations.def"
#undef VECTOR
#undef VECTOR_OUT_OF_LINE
#undef SCALAR_ONLY
  default:
    return;
  }
}

/// The activation over p[0, n) in place, whatever its row's vector form.
EMBER_INLINE void applyActivationInPlace(float *p, i64 n, Activation act) {
  if (isOutOfLine(act.kind))
    applyOutOfLineActivation(p, n, act);
  else
    mapInPlace(p, n, [=](Vec x) { return applyInlineActivation(x, act); });
}

/// The activation of a float32 vector, whatever its row's vector form. Codegen calls the
/// generic kernels for a row without one, so SCALAR_ONLY is never reached.
EMBER_INLINE Vec applyActivation(Vec x, Activation act) {
  return isOutOfLine(act.kind) ? applyOutOfLineVector(x, act) : applyInlineActivation(x, act);
}

#endif
