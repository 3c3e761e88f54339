// The OpenCL launches of the element-wise family (kernels/Elementwise.cl): the rows of
// kernels/Ops.def through the per-kind ew_unary, ew_binary and ew_compare kernels, and Pow,
// Clip, Where, Cast, IsNaN and IsInf through kernels of their own; every element kind the
// Interpreter takes for each.
#include "KernelTable.h"

#include "ember/Graph/UnaryFunctions.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <optional>

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

/// The element kinds an Ops.def row is written for (All: the compare rows).
enum class OpKinds { Float, Int, Unsigned, Numeric, Bool, All };

struct OpRow {
  const char *name;
  OpKinds kinds;
  /// Null for a form a Unary function lacks (the row keeps its op code unused).
  const char *expression;
};

// The rows of Ops.def, then the Unary functions' from their table (a float row and an integer
// or bool row each, with the table's expressions; none for a form the function lacks).
#define FLOAT(...) #__VA_ARGS__
#define NO_FLOAT nullptr
#define INTEGER(...) #__VA_ARGS__
#define NO_INTEGER nullptr
#define INTEGER_ROW_KINDS_Float Int
#define INTEGER_ROW_KINDS_Signed Int
#define INTEGER_ROW_KINDS_Numeric Int
#define INTEGER_ROW_KINDS_Bool Bool
const OpRow kUnaryRows[] = {
#define EW_UNARY(Name, Kinds, Expr) {#Name, OpKinds::Kinds, #Expr},
#include "kernels/Ops.def"
#undef EW_UNARY
#define UNARY_FUNCTION(E, NAME, DOMAIN, FLOAT_FORM, INTEGER_FORM, VECTOR_FORM, FUSE, DOC)     \
  {#E, OpKinds::Float, FLOAT_FORM}, {#E, OpKinds::INTEGER_ROW_KINDS_##DOMAIN, INTEGER_FORM},
#include "ember/Graph/Nodes/ElementwiseFunctions.def"
};
#undef FLOAT
#undef NO_FLOAT
#undef INTEGER
#undef NO_INTEGER
const OpRow kBinaryRows[] = {
#define EW_BINARY(Name, Kinds, Expr) {#Name, OpKinds::Kinds, #Expr},
#include "kernels/Ops.def"
#undef EW_BINARY
};
const OpRow kCompareRows[] = {
#define EW_COMPARE(Name, Expr) {#Name, OpKinds::All, #Expr},
#include "kernels/Ops.def"
#undef EW_COMPARE
};

/// The kinds the kernels tell apart; None for the quantized and the narrow kinds, which no kernel
/// here takes but Cast's.
enum class KindClass { Float, Signed, Unsigned, Bool, None };

KindClass classOf(ElemKind k) {
  if (isQuantizedKind(k) || isNarrowKind(k))
    return KindClass::None;
  if (isFloatKind(k))
    return KindClass::Float;
  if (k == ElemKind::Bool)
    return KindClass::Bool;
  if (isUnsignedIntKind(k))
    return KindClass::Unsigned;
  return KindClass::Signed;
}

bool covers(OpKinds kinds, KindClass c) {
  switch (kinds) {
  case OpKinds::Float: return c == KindClass::Float;
  case OpKinds::Int: return c == KindClass::Signed || c == KindClass::Unsigned;
  case OpKinds::Unsigned: return c == KindClass::Unsigned;
  case OpKinds::Numeric: return c == KindClass::Float || c == KindClass::Signed ||
                                c == KindClass::Unsigned;
  case OpKinds::Bool: return c == KindClass::Bool;
  case OpKinds::All: return c != KindClass::None;
  }
  return false;
}

/// The op code (row index) of the row of \p rows named \p name that covers kind \p k, or -1.
template <size_t N> int64_t findRow(const OpRow (&rows)[N], StringRef name, ElemKind k) {
  KindClass c = classOf(k);
  for (size_t i = 0; i < N; ++i)
    if (rows[i].expression && name == rows[i].name && covers(rows[i].kinds, c))
      return int64_t(i);
  return -1;
}

/// A one-operand operation: its Ops.def name and float attributes.
struct UnaryOp {
  StringRef name;
  float p0 = 0, p1 = 0;
};

/// The Ops.def row name of a one-operand node kind, and its attributes from \p a; no name if
/// \p k is not one. Unary nodes name the function (ElementwiseFunctions.def's enum).
template <typename Kind> UnaryOp unaryOp(Kind k, const AttrList &a) {
  switch (k) {
  case Kind::Unary: {
    const UnaryFunctionInfo *f = findUnaryFunction(a.get<AttrKind::Function>());
    return {f ? f->enumName : ""};
  }
  case Kind::Relu: return {"Relu"};
  case Kind::Sigmoid: return {"Sigmoid"};
  case Kind::Tanh: return {"Tanh"};
  case Kind::LeakyRelu: return {"LeakyRelu", a.get<AttrKind::Alpha>()};
  case Kind::Elu: return {"Elu", a.get<AttrKind::Alpha>()};
  case Kind::Celu: return {"Celu", a.get<AttrKind::Alpha>()};
  case Kind::ThresholdedRelu: return {"ThresholdedRelu", a.get<AttrKind::Alpha>()};
  case Kind::Selu: return {"Selu", a.get<AttrKind::Alpha>(), a.get<AttrKind::Gamma>()};
  case Kind::HardSigmoid:
    return {"HardSigmoid", a.get<AttrKind::Alpha>(), a.get<AttrKind::Beta>()};
  case Kind::Shrink: return {"Shrink", a.get<AttrKind::Bias>(), a.get<AttrKind::Lambd>()};
  default: return {};
  }
}

/// The Ops.def row name of a two-operand node kind (Mod by its FMod attribute), or "".
template <typename Kind> StringRef binaryOp(Kind k, const AttrList &a) {
  switch (k) {
  case Kind::Add: return "Add";
  case Kind::Sub: return "Sub";
  case Kind::Mul: return "Mul";
  case Kind::Div: return "Div";
  case Kind::Max: return "Max";
  case Kind::Min: return "Min";
  case Kind::Mod: return a.get<AttrKind::FMod>() ? "FMod" : "Mod";
  case Kind::PRelu: return "PRelu";
  case Kind::ShiftLeft: return "ShiftLeft";
  case Kind::ShiftRight: return "ShiftRight";
  case Kind::And: return "And";
  case Kind::Or: return "Or";
  case Kind::Xor: return "Xor";
  default: return "";
  }
}

template <typename Kind> StringRef compareOp(Kind k) {
  switch (k) {
  case Kind::Equal: return "Equal";
  case Kind::Less: return "Less";
  case Kind::LessOrEqual: return "LessOrEqual";
  case Kind::Greater: return "Greater";
  case Kind::GreaterOrEqual: return "GreaterOrEqual";
  default: return "";
  }
}

/// A kind's index in Elementwise.cl's EW_KINDS (FOR_EACH_KIND's order), for the kernels that
/// take a second kind as a parameter; -1 for the quantized kinds.
int64_t kindIndex(ElemKind k) {
  static const char *const kSuffixes[] = {"f32", "f64", "f16", "bf16", "i8",  "u8",  "i16",
                                          "u16", "i32", "u32", "i64",  "u64", "bool"};
  if (isQuantizedKind(k))
    return -1;
  for (int64_t i = 0; i < 13; ++i)
    if (kindSuffix(k) == kSuffixes[i])
      return i;
  return -1;
}

bool isPowBase(ElemKind k) {
  return isFloatKind(k) || k == ElemKind::Int32 || k == ElemKind::Int64;
}

bool isNumeric(ElemKind k) {
  KindClass c = classOf(k);
  return c != KindClass::Bool && c != KindClass::None;
}

/// The EMBER_EW_<TABLE>_<CLASS>_CASES(K) macros: one `case` per row of \p rows covering the
/// kinds of \p classes, returning its expression (Elementwise.cl's EW_FUNCTIONS expands them).
template <size_t N>
std::string casesMacro(const std::string &macro, const OpRow (&rows)[N],
                       std::initializer_list<KindClass> classes) {
  std::string s = "#define " + macro + "(K)";
  for (size_t i = 0; i < N; ++i)
    for (KindClass c : classes)
      if (rows[i].expression && covers(rows[i].kinds, c)) {
        s += " \\\n  case " + std::to_string(i) + ": return (" + rows[i].expression + ");";
        break;
      }
  return s + "\n";
}

/// The operations of the float32 fast path ewv_f32 (kernels/Elementwise.cl), by Ops.def row
/// name: their codes there, 0 for the others.
int64_t fastUnary(StringRef name) {
  return StringSwitch<int64_t>(name).Case("Relu", 1).Case("Sigmoid", 2).Case("Tanh", 3).Default(0);
}
int64_t fastBinary(StringRef name) {
  return StringSwitch<int64_t>(name)
      .Case("Add", 1)
      .Case("Sub", 2)
      .Case("Mul", 3)
      .Case("Div", 4)
      .Case("Max", 5)
      .Case("Min", 6)
      .Default(0);
}

/// The fast path's code of \p I's operation when \p I is a float32 one it has, else 0.
int64_t fastUnaryOf(const Instruction &I) {
  if (I.getOutput()->getType().kind != ElemKind::Float32 || I.getNumInputs() != 1)
    return 0;
  UnaryOp u = unaryOp(I.getKind(), I.getAttrs());
  return u.name.empty() ? 0 : fastUnary(u.name);
}
int64_t fastBinaryOf(const Instruction &I) {
  if (I.getOutput()->getType().kind != ElemKind::Float32 || I.getNumInputs() != 2)
    return 0;
  return fastBinary(binaryOp(I.getKind(), I.getAttrs()));
}

/// Elements per work-item of ewv_f32 (EWV_CHUNK).
constexpr uint64_t kFastChunk = 64;

/// y = B(U(a), c) (or B(c, U(a)) when \p swapped) on ewv_f32; c is element (i / inner) %
/// count of \p bm, or a itself when \p bm is -1.
Expected<bool> fastLaunch(LaunchBuilder &b, const Instruction &I, uint64_t n, int64_t y,
                          int64_t a, int64_t bm, int64_t uop, int64_t bop, bool swapped,
                          int64_t inner, int64_t count) {
  return b.add(I, "ewv_f32", (n + kFastChunk - 1) / kFastChunk,
               {int64_t(n), y, a, bm, uop, bop, int64_t(swapped), inner, count});
}

/// A broadcast as ewv_f32 reads its source: {inner, count} when the result's dims, ones
/// dropped, are spread ones, then copied ones, then spread ones (a scalar, a per-channel
/// vector, a same-shaped tensor...); nothing for other patterns.
std::optional<std::array<int64_t, 2>> broadcastReads(const Instruction &I) {
  ArrayRef<dim_t> od = I.getOutput()->getType().dims, id = I.getInput(0)->getType().dims;
  size_t lead = od.size() - id.size();
  int64_t inner = 1, count = 1;
  int state = 0; // 0: leading spread dims, 1: copied ones, 2: trailing spread ones
  for (size_t k = 0; k < od.size(); ++k) {
    if (od[k] == 1)
      continue;
    bool copied = k >= lead && id[k - lead] != 1;
    if (copied) {
      if (state == 2)
        return std::nullopt;
      state = 1;
      count *= int64_t(od[k]);
    } else if (state == 1 || state == 2) {
      state = 2;
      inner *= int64_t(od[k]);
    }
  }
  // A scalar: one block of every element, so that whole vectors read it at once.
  if (state == 0)
    inner = int64_t(I.getOutput()->getType().numElements());
  return std::array<int64_t, 2>{inner, count};
}

/// Whether the bytes of \p a and \p b overlap.
bool overlap(IRValue *a, IRValue *b) {
  if (regionOf(a) != regionOf(b))
    return false;
  int64_t pa = placeOf(a), pb = placeOf(b);
  return pa < pb + int64_t(b->sizeInBytes()) && pb < pa + int64_t(a->sizeInBytes());
}

Error noRow(const Instruction &I, ElemKind k) {
  return makeError("no OpenCL kernel for " + I.getKindName() + " of " + elemKindName(k));
}

Expected<bool> planElementwise(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  ElemKind k = out.kind;
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  auto inKind = [&](unsigned i) { return I.getInput(i)->getType().kind; };
  int64_t y = placeOf(I.getOutput());
  const AttrList &a = I.getAttrs();
  std::string suffix = kindSuffix(k).str();
  if (int64_t uop = fastUnaryOf(I))
    return fastLaunch(b, I, n, y, in(0), -1, uop, 0, false, 1, 1);
  if (int64_t bop = fastBinaryOf(I))
    return fastLaunch(b, I, n, y, in(0), in(1), 0, bop, false, 1, int64_t(n));
  if (UnaryOp u = unaryOp(I.getKind(), a); !u.name.empty()) {
    int64_t op = findRow(kUnaryRows, u.name, k);
    if (op < 0)
      return noRow(I, k);
    return b.add(I, "ew_unary_" + suffix, n,
                 {op, y, in(0), floatBits(u.p0), floatBits(u.p1)});
  }
  if (StringRef name = binaryOp(I.getKind(), a); !name.empty()) {
    int64_t op = findRow(kBinaryRows, name, k);
    if (op < 0)
      return noRow(I, k);
    // Only the integer Div, FMod and Mod rows fail (EW_FAIL()), on a zero divisor.
    bool divides = !isFloatKind(k) && (name == "Div" || name == "FMod" || name == "Mod");
    StringRef failure = !divides          ? ""
                        : name == "Div" ? "integer division by zero"
                                        : "integer remainder by zero";
    return b.add(I, "ew_binary_" + suffix, n, {op, y, in(0), in(1)}, kDefaultGroup, failure);
  }
  if (StringRef name = compareOp(I.getKind()); !name.empty()) {
    int64_t op = findRow(kCompareRows, name, inKind(0));
    if (op < 0)
      return noRow(I, inKind(0));
    return b.add(I, "ew_compare_" + kindSuffix(inKind(0)).str(), n, {op, y, in(0), in(1)});
  }
  switch (I.getKind()) {
  case InstrKind::Pow:
    if (!isPowBase(k) || !isNumeric(inKind(1)))
      return noRow(I, k);
    // Only an integer base to a signed integer exponent can fail (0 to a negative power).
    return b.add(I, "ew_pow_" + suffix, n, {y, in(0), in(1), kindIndex(inKind(1))},
                 kDefaultGroup,
                 isFloatKind(k) || isFloatKind(inKind(1)) ? ""
                                                          : "integer 0 raised to a negative power");
  case InstrKind::Clip:
    if (!isNumeric(k))
      return noRow(I, k);
    return b.add(I, "ew_clip_" + suffix, n, {y, in(0), in(1), in(2)});
  case InstrKind::Where:
    if (kindIndex(k) < 0)
      return noRow(I, k);
    return b.add(I, "ew_where_" + std::to_string(elemSize(k)), n, {y, in(0), in(1), in(2)});
  case InstrKind::Cast: {
    // A narrow kind is a kernel parameter (its NarrowKinds.h code), not an instantiation.
    ElemKind from = inKind(0);
    int64_t saturate = castSaturates(I.getAttrs()) != 0;
    if (isNarrowKind(from) && isNarrowKind(k))
      return b.add(I, "ew_cast_narrow_narrow", n,
                   {y, in(0), narrowKindCode(from), narrowKindCode(k), saturate});
    if (isNarrowKind(k) && kindIndex(from) >= 0)
      return b.add(I, "ew_cast_" + kindSuffix(from).str() + "_narrow", n,
                   {y, in(0), narrowKindCode(k), saturate});
    if (isNarrowKind(from) && kindIndex(k) >= 0)
      return b.add(I, "ew_cast_narrow", n, {y, in(0), narrowKindCode(from), kindIndex(k)});
    if (kindIndex(k) < 0 || kindIndex(from) < 0)
      return noRow(I, k);
    return b.add(I, "ew_cast_" + kindSuffix(from).str(), n, {y, in(0), kindIndex(k)});
  }
  case InstrKind::IsNaN:
  case InstrKind::IsInf: {
    if (!isFloatKind(inKind(0)))
      return noRow(I, inKind(0));
    bool isInf = I.getKind() == InstrKind::IsInf;
    int64_t neg = isInf && a.get<AttrKind::DetectNegative>() != 0;
    int64_t pos = isInf && a.get<AttrKind::DetectPositive>() != 0;
    return b.add(I, "ew_classify_" + kindSuffix(inKind(0)).str(), n,
                 {y, in(0), int64_t(!isInf), neg, pos});
  }
  default:
    return false;
  }
}

} // namespace

Expected<bool> planElementwisePair(LaunchBuilder &b, const Instruction &I, const Instruction &J,
                                   function_ref<bool()> deadAfterJ) {
  int64_t bop = fastBinaryOf(J);
  if (!bop || J.getOutput()->getType() != I.getOutput()->getType())
    return false;
  IRValue *s = I.getOutput(), *j0 = J.getInput(0), *j1 = J.getInput(1);
  if (j0 != s && j1 != s)
    return false;
  // The other operand of J: the one that is not I's result.
  IRValue *other = j0 == s ? j1 : j0;
  if (other->getType() != s->getType())
    return false;
  auto dead = [&] { return J.getOutput() == s || deadAfterJ(); };
  uint64_t n = s->getType().numElements();
  if (int64_t uop = fastUnaryOf(I)) {
    // y = B(x, U(x)) or B(U(x), x): a SiLU x * sigmoid(x), say.
    if (other != I.getInput(0) || !dead())
      return false;
    return fastLaunch(b, I, n, placeOf(J.getOutput()), placeOf(other), -1, uop, bop, j0 == other,
                      1, int64_t(n));
  }
  if (I.getKind() == InstrKind::Broadcast && s->getType().kind == ElemKind::Float32) {
    // y = B(broadcast(v), x) or B(x, broadcast(v)), reading v in place of its broadcast: J
    // must not write over v while reading it.
    std::optional<std::array<int64_t, 2>> reads = broadcastReads(I);
    IRValue *v = I.getInput(0);
    if (!reads || other == s || overlap(v, J.getOutput()) || !dead())
      return false;
    return fastLaunch(b, I, n, placeOf(J.getOutput()), placeOf(other), placeOf(v), 0, bop,
                      j0 == s, (*reads)[0], (*reads)[1]);
  }
  return false;
}

namespace {

bool supportsElementwise(const Node &n) {
  ElemKind k = n.getType(0).kind;
  auto inKind = [&](unsigned i) { return n.getOperand(i).getType().kind; };
  if (n.getKind() == NodeKind::Unary) {
    const UnaryFunctionInfo *f = findUnaryFunction(n.attr<AttrKind::Function>());
    return f && kindInSet(k, f->domain) && findRow(kUnaryRows, f->enumName, k) >= 0;
  }
  if (UnaryOp u = unaryOp(n.getKind(), n.getAttrs()); !u.name.empty())
    return findRow(kUnaryRows, u.name, k) >= 0;
  if (StringRef name = binaryOp(n.getKind(), n.getAttrs()); !name.empty())
    return findRow(kBinaryRows, name, k) >= 0;
  if (StringRef name = compareOp(n.getKind()); !name.empty())
    return findRow(kCompareRows, name, inKind(0)) >= 0;
  switch (n.getKind()) {
  case NodeKind::Pow: return isPowBase(k) && isNumeric(inKind(1));
  case NodeKind::Clip: return isNumeric(k);
  case NodeKind::Where: return kindIndex(k) >= 0;
  case NodeKind::Cast: {
    auto castable = [](ElemKind x) { return kindIndex(x) >= 0 || isNarrowKind(x); };
    return castable(k) && castable(inKind(0));
  }
  case NodeKind::IsNaN:
  case NodeKind::IsInf: return isFloatKind(inKind(0));
  default: return false;
  }
}

} // namespace

void addElementwiseKernels(KernelTable &t) {
  for (NodeKind k : {// The rows of Ops.def, on ew_unary, ew_binary and ew_compare (or ewv_f32).
                     NodeKind::Unary, NodeKind::Relu, NodeKind::Sigmoid, NodeKind::Tanh,
                     NodeKind::LeakyRelu, NodeKind::Elu, NodeKind::Celu,
                     NodeKind::ThresholdedRelu, NodeKind::Selu, NodeKind::HardSigmoid,
                     NodeKind::Shrink, NodeKind::Add, NodeKind::Sub, NodeKind::Mul, NodeKind::Div,
                     NodeKind::Max, NodeKind::Min, NodeKind::Mod, NodeKind::PRelu,
                     NodeKind::ShiftLeft, NodeKind::ShiftRight, NodeKind::And, NodeKind::Or,
                     NodeKind::Xor, NodeKind::Equal, NodeKind::Less, NodeKind::LessOrEqual,
                     NodeKind::Greater, NodeKind::GreaterOrEqual,
                     // On kernels of their own.
                     NodeKind::Pow, NodeKind::Clip, NodeKind::Where, NodeKind::Cast,
                     NodeKind::IsNaN, NodeKind::IsInf})
    t.add(k, supportsElementwise, planElementwise);
}

std::string elementwiseSwitchSource() {
  using C = KindClass;
  std::string s = "// The element-wise operations of kernels/Ops.def (LaunchesElementwise.cpp).\n";
  s += casesMacro("EMBER_EW_UNARY_FLOAT_CASES", kUnaryRows, {C::Float});
  s += casesMacro("EMBER_EW_UNARY_INT_CASES", kUnaryRows, {C::Signed, C::Unsigned});
  s += casesMacro("EMBER_EW_UNARY_BOOL_CASES", kUnaryRows, {C::Bool});
  s += casesMacro("EMBER_EW_BINARY_FLOAT_CASES", kBinaryRows, {C::Float});
  s += casesMacro("EMBER_EW_BINARY_INT_CASES", kBinaryRows, {C::Signed, C::Unsigned});
  s += casesMacro("EMBER_EW_BINARY_BOOL_CASES", kBinaryRows, {C::Bool});
  s += casesMacro("EMBER_EW_COMPARE_CASES", kCompareRows, {C::Float}); // all rows: every kind
  return s;
}

} // namespace opencl
} // namespace ember
