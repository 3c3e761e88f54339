// The OpenCL launches of element-wise operations, Cast and Clip (kernels/Elementwise.cl).
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/StringMap.h"

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

enum class UnaryOp {
#define EW_UNARY(Name, Expr) Name,
#include "kernels/Ops.def"
#undef EW_UNARY
};
enum class BinaryOp {
#define EW_BINARY(Name, Expr) Name,
#include "kernels/Ops.def"
#undef EW_BINARY
};

/// Unary node function name ("exp") -> op, for the functions Ops.def has a row for.
const StringMap<UnaryOp> &unaryFunctions() {
  static const StringMap<UnaryOp> table = [] {
    StringMap<UnaryOp> ops, byFunction;
#define EW_UNARY(Name, Expr) ops[#Name] = UnaryOp::Name;
#include "kernels/Ops.def"
#undef EW_UNARY
#define UNARY_FUNCTION(E, NAME, DOMAIN, DOC)                                                       \
  if (ops.count(#E))                                                                               \
    byFunction[NAME] = ops.lookup(#E);
#include "ember/Graph/Nodes/ElementwiseFunctions.def"
#undef UNARY_FUNCTION
    return byFunction;
  }();
  return table;
}

} // namespace

Expected<bool> planElementwise(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  int64_t y = placeOf(I.getOutput());
  const AttrList &a = I.getAttrs();
  switch (I.getKind()) {
  case InstrKind::Relu:
  case InstrKind::Sigmoid:
  case InstrKind::Tanh:
  case InstrKind::Unary:
  case InstrKind::LeakyRelu:
  case InstrKind::Elu:
  case InstrKind::HardSigmoid: {
    UnaryOp op = UnaryOp::Relu;
    float p0 = 0, p1 = 0;
    switch (I.getKind()) {
    case InstrKind::Sigmoid: op = UnaryOp::Sigmoid; break;
    case InstrKind::Tanh: op = UnaryOp::Tanh; break;
    case InstrKind::LeakyRelu: op = UnaryOp::LeakyRelu, p0 = a.get<AttrKind::Alpha>(); break;
    case InstrKind::Elu: op = UnaryOp::Elu, p0 = a.get<AttrKind::Alpha>(); break;
    case InstrKind::HardSigmoid:
      op = UnaryOp::HardSigmoid, p0 = a.get<AttrKind::Alpha>(), p1 = a.get<AttrKind::Beta>();
      break;
    case InstrKind::Unary: op = unaryFunctions().lookup(a.get<AttrKind::Function>()); break;
    default: break;
    }
    return b.add(I, "ew_unary", n, {int64_t(op), y, in(0), floatBits(p0), floatBits(p1)});
  }
  case InstrKind::Add:
  case InstrKind::Sub:
  case InstrKind::Mul:
    if (out.kind == ElemKind::Int32) {
      int64_t op = I.getKind() == InstrKind::Add ? 0 : I.getKind() == InstrKind::Sub ? 1 : 2;
      return b.add(I, "ew_integer", n, {op, y, in(0), in(1), kindCode(out.kind), -1});
    }
    [[fallthrough]];
  case InstrKind::Div:
  case InstrKind::Max:
  case InstrKind::Min:
  case InstrKind::Pow:
  case InstrKind::PRelu: {
    BinaryOp op = I.getKind() == InstrKind::Add   ? BinaryOp::Add
                  : I.getKind() == InstrKind::Sub ? BinaryOp::Sub
                  : I.getKind() == InstrKind::Mul ? BinaryOp::Mul
                  : I.getKind() == InstrKind::Div ? BinaryOp::Div
                  : I.getKind() == InstrKind::Max ? BinaryOp::Max
                  : I.getKind() == InstrKind::Min ? BinaryOp::Min
                  : I.getKind() == InstrKind::Pow ? BinaryOp::Pow
                                                  : BinaryOp::PRelu;
    return b.add(I, "ew_binary", n, {int64_t(op), y, in(0), in(1)});
  }
  case InstrKind::Clip:
    if (out.kind != ElemKind::Float32)
      return b.add(I, "ew_integer", n, {3, y, in(0), in(1), kindCode(out.kind), in(2)});
    return b.add(I, "clip", n, {y, in(0), in(1), in(2)});
  case InstrKind::Cast:
    return b.add(I, "cast", n,
               {y, in(0), kindCode(I.getInput(0)->getType().kind), kindCode(out.kind)});
  default:
    return false;
  }
}

std::optional<bool> supportsElementwise(const Node &n) {
  switch (n.getKind()) {
  case NodeKind::Unary:
    return allFloat32(n) && unaryFunctions().count(n.attr<AttrKind::Function>());
  case NodeKind::Cast:
    return kindCode(n.getType(0).kind) >= 0 && kindCode(n.getOperand(0).getType().kind) >= 0;
  case NodeKind::Add:
  case NodeKind::Sub:
  case NodeKind::Mul:
    return allFloat32(n) || n.getType(0).kind == ElemKind::Int32;
  case NodeKind::Clip: {
    ElemKind k = n.getType(0).kind;
    return k == ElemKind::Float32 || k == ElemKind::Int32 || k == ElemKind::UInt8 ||
           k == ElemKind::Int8;
  }
  case NodeKind::Relu:
  case NodeKind::Sigmoid:
  case NodeKind::Tanh:
  case NodeKind::LeakyRelu:
  case NodeKind::Elu:
  case NodeKind::HardSigmoid:
  case NodeKind::Div:
  case NodeKind::Max:
  case NodeKind::Min:
  case NodeKind::Pow:
  case NodeKind::PRelu:
    return allFloat32(n);
  default:
    return std::nullopt;
  }
}

std::string elementwiseSwitchSource() {
  std::string s = "float ember_ew_unary(int op, float x, float p0, float p1) {\n"
                  "  switch (op) {\n";
  int k = 0;
#define EW_UNARY(Name, Expr)                                                                       \
  s += "  case " + std::to_string(k++) + ": return " #Expr ";\n";
#include "kernels/Ops.def"
#undef EW_UNARY
  s += "  }\n  return NAN;\n}\n\nfloat ember_ew_binary(int op, float a, float b) {\n"
       "  switch (op) {\n";
  k = 0;
#define EW_BINARY(Name, Expr)                                                                      \
  s += "  case " + std::to_string(k++) + ": return " #Expr ";\n";
#include "kernels/Ops.def"
#undef EW_BINARY
  s += "  }\n  return NAN;\n}\n";
  return s;
}

} // namespace opencl
} // namespace ember
