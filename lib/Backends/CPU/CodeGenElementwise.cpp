// Codegen for the element-wise kinds, on every element kind the Interpreter accepts for each
// (lib/Backends/Interpreter/Elementwise*.cpp: its supports<Kind> functions are mirrored here).
// The kernels are named `ember_<op>_<kind suffix>`: float32 ones vectorized by hand
// (kernels/Elementwise.cpp), the other kinds type-generic (kernels/ElementwiseArith.cpp,
// ElementwiseLogic.cpp, ElementwiseUnary.cpp). Integer Div and Mod by zero and integer Pow of 0
// to a negative power are run-time errors, reported through callChecked.
#include "CodeGenUtils.h"

#include "ember/Graph/UnaryFunctions.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

// The kind sets the Interpreter's kernels accept (ember/Base/KindSets.h): quantized and narrow
// kinds (float8, int4, uint4, float4) are in none; those only convert, by Cast's own kernels.
bool isNumericOrBool(ElemKind k) { return kindInSet(k, KindSet::NumericOrBool); }
bool isNumeric(ElemKind k) { return kindInSet(k, KindSet::Numeric); }
bool isFloat(ElemKind k) { return kindInSet(k, KindSet::Float); }
bool isInteger(ElemKind k) { return isNumeric(k) && !isFloatKind(k); }

ElemKind resultKind(const Node &n) { return n.getType().kind; }
ElemKind operandKind(const Node &n, unsigned i) { return n.getOperand(i).getType().kind; }
ElemKind outKind(const Instruction &I) { return I.getOutput()->getType().kind; }
ElemKind inKind(const Instruction &I, unsigned i) { return I.getInput(i)->getType().kind; }
llvm::Constant *count(Emitter &E, const Instruction &I) { return E.elementCount(I); }

//===-- Two-operand arithmetic ---------------------------------------------------------------===//

StringRef binaryBase(InstrKind k) {
  switch (k) {
  case InstrKind::Add: return "ember_add";
  case InstrKind::Sub: return "ember_sub";
  case InstrKind::Mul: return "ember_mul";
  case InstrKind::Div: return "ember_div";
  case InstrKind::Max: return "ember_max";
  case InstrKind::Min: return "ember_min";
  case InstrKind::PRelu: return "ember_prelu";
  case InstrKind::ShiftLeft: return "ember_shift_left";
  case InstrKind::ShiftRight: return "ember_shift_right";
  default: return "";
  }
}

bool supportsNumeric(const Node &n) { return isNumeric(resultKind(n)); }
bool supportsUnsigned(const Node &n) { return isUnsignedIntKind(resultKind(n)); }

Error emitBinary(Emitter &E, const Instruction &I) {
  ElemKind k = outKind(I);
  std::string name = kernelFor(binaryBase(I.getKind()), k);
  SmallVector<Value *, 4> args = {E.out(I), E.in(I, 0), E.in(I, 1), count(E, I)};
  if (I.getKind() == InstrKind::Div && isInteger(k))
    return E.callChecked(name, args, I, "integer division by zero");
  return E.call(name, args);
}

Error emitMod(Emitter &E, const Instruction &I) {
  ElemKind k = outKind(I);
  std::string name = kernelFor("ember_mod", k);
  SmallVector<Value *, 5> args = {E.out(I), E.in(I, 0), E.in(I, 1), count(E, I),
                                  E.i64(I.attr<AttrKind::FMod>())};
  if (isInteger(k))
    return E.callChecked(name, args, I, "integer remainder by zero");
  return E.call(name, args);
}

bool isPowBase(ElemKind k) {
  return isFloat(k) || k == ElemKind::Int32 || k == ElemKind::Int64;
}

bool supportsPow(const Node &n) {
  return isPowBase(resultKind(n)) && isNumeric(operandKind(n, ops::Pow::Exponent));
}

Error emitPow(Emitter &E, const Instruction &I) {
  ElemKind b = outKind(I), e = inKind(I, ops::Pow::Exponent);
  std::string name = ("ember_pow_" + kindSuffix(b) + "_" + kindSuffix(e)).str();
  SmallVector<Value *, 4> args = {E.out(I), E.in(I, ops::Pow::Base),
                                  E.in(I, ops::Pow::Exponent), count(E, I)};
  // Only integer ^ integer can fail; the other kernels always return 0.
  if (isInteger(b) && isInteger(e))
    return E.callChecked(name, args, I, "integer 0 raised to a negative power");
  return E.call(name, args);
}

//===-- Comparisons, logic, selection, clamping, conversion ----------------------------------===//

StringRef compareBase(InstrKind k) {
  switch (k) {
  case InstrKind::Equal: return "ember_equal";
  case InstrKind::Less: return "ember_less";
  case InstrKind::LessOrEqual: return "ember_less_equal";
  case InstrKind::Greater: return "ember_greater";
  case InstrKind::GreaterOrEqual: return "ember_greater_equal";
  case InstrKind::And: return "ember_and";
  case InstrKind::Or: return "ember_or";
  case InstrKind::Xor: return "ember_xor";
  default: return "";
  }
}

bool supportsCompare(const Node &n) { return isNumericOrBool(operandKind(n, 0)); }
bool supportsLogic(const Node &n) {
  return resultKind(n) == ElemKind::Bool || isInteger(resultKind(n));
}

/// Comparisons and bitwise logic are instantiated per operand kind.
Error emitCompare(Emitter &E, const Instruction &I) {
  return E.call(kernelFor(compareBase(I.getKind()), inKind(I, 0)),
                {E.out(I), E.in(I, 0), E.in(I, 1), count(E, I)});
}

bool supportsWhere(const Node &n) {
  ElemKind k = resultKind(n);
  size_t esz = n.getType().elementSize();
  return isNumericOrBool(k) && (esz == 1 || esz == 2 || esz == 4 || esz == 8) &&
         operandKind(n, ops::Where::Condition) == ElemKind::Bool;
}

/// Where moves bytes: one kernel per element size.
Error emitWhere(Emitter &E, const Instruction &I) {
  size_t bits = I.getOutput()->getType().elementSize() * 8;
  return E.call("ember_where_b" + std::to_string(bits),
                {E.out(I), E.in(I, ops::Where::Condition), E.in(I, ops::Where::LHS),
                 E.in(I, ops::Where::RHS), count(E, I)});
}

Error emitClip(Emitter &E, const Instruction &I) {
  return E.call(kernelFor("ember_clip", outKind(I)),
                {E.out(I), E.in(I, ops::Clip::Input), count(E, I), E.in(I, ops::Clip::Min),
                 E.in(I, ops::Clip::Max)});
}

bool supportsCast(const Node &n) {
  auto convertible = [](ElemKind k) { return isNumericOrBool(k) || isNarrowKind(k); };
  return convertible(operandKind(n, 0)) && convertible(resultKind(n));
}

Error emitCast(Emitter &E, const Instruction &I) {
  ElemKind from = inKind(I, 0), to = outKind(I);
  // A narrow kind is one kernel argument (its NarrowKinds.h code), not an instantiation.
  if (isNarrowKind(from) && isNarrowKind(to))
    return E.call("ember_cast_narrow_narrow",
                  {E.out(I), E.in(I, 0), count(E, I), E.i64(narrowKindCode(from)),
                   E.i64(narrowKindCode(to)), E.i64(castSaturates(I.getAttrs()) != 0)});
  if (isNarrowKind(to))
    return E.call(("ember_cast_" + kindSuffix(from) + "_narrow").str(),
                  {E.out(I), E.in(I, 0), count(E, I), E.i64(narrowKindCode(to)),
                   E.i64(castSaturates(I.getAttrs()) != 0)});
  if (isNarrowKind(from))
    return E.call(("ember_cast_narrow_" + kindSuffix(to)).str(),
                  {E.out(I), E.in(I, 0), count(E, I), E.i64(narrowKindCode(from))});
  std::string name =
      ("ember_cast_" + kindSuffix(inKind(I, 0)) + "_" + kindSuffix(outKind(I))).str();
  return E.call(name, {E.out(I), E.in(I, 0), count(E, I)});
}

//===-- One-operand functions and activations ------------------------------------------------===//

/// Every Unary function has a kernel for every kind of its domain, generated from its row
/// (kernels/UnaryFunctions.cpp).
bool supportsUnary(const Node &n) {
  return unaryFunctionAccepts(n.attr<AttrKind::Function>(), resultKind(n));
}

Error emitUnary(Emitter &E, const Instruction &I) {
  const std::string &fn = I.attr<AttrKind::Function>();
  ElemKind k = outKind(I);
  if (!unaryFunctionAccepts(fn, k))
    return instrError(I, "no CPU kernel for function '" + fn + "' of " + elemKindName(k));
  return E.call(kernelFor("ember_" + fn, k),
                {E.out(I), E.in(I, 0), count(E, I), E.f32(0), E.f32(0)});
}

bool supportsFloatPredicate(const Node &n) { return isFloat(operandKind(n, 0)); }

Error emitIsNaN(Emitter &E, const Instruction &I) {
  return E.call(kernelFor("ember_isnan", inKind(I, 0)), {E.out(I), E.in(I, 0), count(E, I)});
}

Error emitIsInf(Emitter &E, const Instruction &I) {
  return E.call(kernelFor("ember_isinf", inKind(I, 0)),
                {E.out(I), E.in(I, 0), count(E, I), E.i64(I.attr<AttrKind::DetectNegative>()),
                 E.i64(I.attr<AttrKind::DetectPositive>())});
}

/// The activation kinds with their own nodes: kernel base name and its two float parameters.
struct ActivationCall {
  StringRef base;
  float a = 0, b = 0;
};

ActivationCall activationCall(const Instruction &I) {
  switch (I.getKind()) {
  case InstrKind::Relu: return {"ember_relu"};
  case InstrKind::Sigmoid: return {"ember_sigmoid"};
  case InstrKind::Tanh: return {"ember_tanh"};
  case InstrKind::LeakyRelu: return {"ember_leaky_relu", I.attr<AttrKind::Alpha>()};
  case InstrKind::HardSigmoid:
    return {"ember_hard_sigmoid", I.attr<AttrKind::Alpha>(), I.attr<AttrKind::Beta>()};
  case InstrKind::Elu: return {"ember_elu", I.attr<AttrKind::Alpha>()};
  case InstrKind::Celu: return {"ember_celu", I.attr<AttrKind::Alpha>()};
  case InstrKind::Selu:
    return {"ember_selu", I.attr<AttrKind::Alpha>(), I.attr<AttrKind::Gamma>()};
  case InstrKind::ThresholdedRelu: return {"ember_thresholded_relu", I.attr<AttrKind::Alpha>()};
  case InstrKind::Shrink:
    return {"ember_shrink", I.attr<AttrKind::Bias>(), I.attr<AttrKind::Lambd>()};
  default: return {};
  }
}

bool supportsFloatResult(const Node &n) { return isFloat(resultKind(n)); }

Error emitActivation(Emitter &E, const Instruction &I) {
  ActivationCall c = activationCall(I);
  return E.call(kernelFor(c.base, outKind(I)),
                {E.out(I), E.in(I, 0), count(E, I), E.f32(c.a), E.f32(c.b)});
}

} // namespace

void addElementwiseKernels(KernelTable &t) {
  for (NodeKind k : {NodeKind::Add, NodeKind::Sub, NodeKind::Mul, NodeKind::Div, NodeKind::Max,
                     NodeKind::Min, NodeKind::PRelu})
    t.add(k, supportsNumeric, emitBinary);
  t.add(NodeKind::ShiftLeft, supportsUnsigned, emitBinary);
  t.add(NodeKind::ShiftRight, supportsUnsigned, emitBinary);
  t.add(NodeKind::Mod, supportsNumeric, emitMod);
  t.add(NodeKind::Pow, supportsPow, emitPow);

  for (NodeKind k : {NodeKind::Equal, NodeKind::Less, NodeKind::LessOrEqual, NodeKind::Greater,
                     NodeKind::GreaterOrEqual})
    t.add(k, supportsCompare, emitCompare);
  for (NodeKind k : {NodeKind::And, NodeKind::Or, NodeKind::Xor})
    t.add(k, supportsLogic, emitCompare);
  t.add(NodeKind::Where, supportsWhere, emitWhere);
  t.add(NodeKind::Clip, supportsNumeric, emitClip);
  t.add(NodeKind::Cast, supportsCast, emitCast);

  t.add(NodeKind::Unary, supportsUnary, emitUnary);
  t.add(NodeKind::IsNaN, supportsFloatPredicate, emitIsNaN);
  t.add(NodeKind::IsInf, supportsFloatPredicate, emitIsInf);
  t.add(NodeKind::Relu, supportsNumeric, emitActivation);
  t.add(NodeKind::Shrink, supportsNumeric, emitActivation);
  for (NodeKind k : {NodeKind::Sigmoid, NodeKind::Tanh, NodeKind::LeakyRelu,
                     NodeKind::HardSigmoid, NodeKind::Elu, NodeKind::Celu, NodeKind::Selu,
                     NodeKind::ThresholdedRelu})
    t.add(k, supportsFloatResult, emitActivation);
}

} // namespace cpu
} // namespace ember
