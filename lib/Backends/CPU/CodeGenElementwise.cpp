// Codegen for the element-wise kinds (kernels/Elementwise.cpp): float32 arithmetic, activations
// and one-operand functions, Clip, and Where on any element kind of 1, 2, 4 or 8 bytes.
#include "CodeGenUtils.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

StringRef binaryKernel(InstrKind k) {
  switch (k) {
  case InstrKind::Add: return "ember_add_f32";
  case InstrKind::Sub: return "ember_sub_f32";
  case InstrKind::Mul: return "ember_mul_f32";
  case InstrKind::Div: return "ember_div_f32";
  case InstrKind::Max: return "ember_max_f32";
  case InstrKind::Min: return "ember_min_f32";
  case InstrKind::PRelu: return "ember_prelu_f32";
  case InstrKind::Pow: return "ember_pow_f32";
  default: return "";
  }
}

Error emitBinary(Emitter &E, const Instruction &I) {
  return E.call(binaryKernel(I.getKind()),
                {E.out(I), E.in(I, 0), E.in(I, 1), E.i64(numElements(I.getOutput()))});
}

/// The activation kinds with their own nodes: kernel name and its two float parameters.
struct ActivationCall {
  StringRef kernel;
  float a = 0, b = 0;
};

ActivationCall activationCall(const Instruction &I) {
  switch (I.getKind()) {
  case InstrKind::Relu: return {"ember_relu_f32"};
  case InstrKind::Sigmoid: return {"ember_sigmoid_f32"};
  case InstrKind::Tanh: return {"ember_tanh_f32"};
  case InstrKind::LeakyRelu: return {"ember_leaky_relu_f32", I.attr<AttrKind::Alpha>()};
  case InstrKind::HardSigmoid:
    return {"ember_hard_sigmoid_f32", I.attr<AttrKind::Alpha>(), I.attr<AttrKind::Beta>()};
  case InstrKind::Elu: return {"ember_elu_f32", I.attr<AttrKind::Alpha>()};
  case InstrKind::Celu: return {"ember_celu_f32", I.attr<AttrKind::Alpha>()};
  case InstrKind::Selu:
    return {"ember_selu_f32", I.attr<AttrKind::Alpha>(), I.attr<AttrKind::Gamma>()};
  case InstrKind::ThresholdedRelu:
    return {"ember_thresholded_relu_f32", I.attr<AttrKind::Alpha>()};
  default: return {};
  }
}

Error emitActivation(Emitter &E, const Instruction &I) {
  ActivationCall c = activationCall(I);
  return E.call(c.kernel, {E.out(I), E.in(I, 0), E.i64(numElements(I.getOutput())), E.f32(c.a),
                           E.f32(c.b)});
}

/// The `Unary` functions with a float32 kernel (the rest, bool `not`, are refused).
bool hasUnaryKernel(StringRef fn) {
  return StringSwitch<bool>(fn)
      .Cases("abs", "neg", "sign", "reciprocal", "floor", "ceil", "round", true)
      .Cases("exp", "log", "sqrt", "sin", "cos", "tan", "asin", "acos", true)
      .Cases("atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erf", true)
      .Cases("softsign", "softplus", "hard_swish", "gelu", "gelu_tanh", true)
      .Default(false);
}

bool supportsUnary(const Node &n) {
  return allFloat32(n) && hasUnaryKernel(n.attr<AttrKind::Function>());
}

Error emitUnary(Emitter &E, const Instruction &I) {
  const std::string &fn = I.attr<AttrKind::Function>();
  if (!hasUnaryKernel(fn))
    return instrError(I, "no CPU kernel for function '" + fn + "'");
  return E.call("ember_" + fn + "_f32", {E.out(I), E.in(I, 0), E.i64(numElements(I.getOutput())),
                                         E.f32(0), E.f32(0)});
}

Error emitClip(Emitter &E, const Instruction &I) {
  return E.call("ember_clip_f32", {E.out(I), E.in(I, ops::Clip::Input),
                                   E.i64(numElements(I.getOutput())), E.in(I, ops::Clip::Min),
                                   E.in(I, ops::Clip::Max)});
}

bool supportsWhere(const Node &n) {
  ElemKind k = n.getType().kind;
  size_t esz = n.getType().elementSize();
  return !isQuantizedKind(k) && (esz == 1 || esz == 2 || esz == 4 || esz == 8) &&
         n.getOperand(ops::Where::Condition).getType().kind == ElemKind::Bool;
}

Error emitWhere(Emitter &E, const Instruction &I) {
  size_t bits = I.getOutput()->getType().elementSize() * 8;
  return E.call("ember_where_b" + std::to_string(bits),
                {E.out(I), E.in(I, ops::Where::Condition), E.in(I, ops::Where::LHS),
                 E.in(I, ops::Where::RHS), E.i64(numElements(I.getOutput()))});
}

} // namespace

void addElementwiseKernels(KernelTable &t) {
  for (NodeKind k : {NodeKind::Add, NodeKind::Sub, NodeKind::Mul, NodeKind::Div, NodeKind::Max,
                     NodeKind::Min, NodeKind::PRelu, NodeKind::Pow})
    t.add(k, allFloat32, emitBinary);
  for (NodeKind k : {NodeKind::Relu, NodeKind::Sigmoid, NodeKind::Tanh, NodeKind::LeakyRelu,
                     NodeKind::HardSigmoid, NodeKind::Elu, NodeKind::Celu, NodeKind::Selu,
                     NodeKind::ThresholdedRelu})
    t.add(k, allFloat32, emitActivation);
  t.add(NodeKind::Unary, supportsUnary, emitUnary);
  t.add(NodeKind::Clip, allFloat32, emitClip);
  t.add(NodeKind::Where, supportsWhere, emitWhere);
}

} // namespace cpu
} // namespace ember
