// Shape rules: element-wise arithmetic, comparisons, logic, selection, conversion and
// activations. Operands of one node have equal dims (the importer broadcasts); these rules check
// that and the element kinds each kind accepts (Nodes/Elementwise.def).
#include "Common.h"

#include "ember/Graph/UnaryFunctions.h"

#include "llvm/ADT/StringRef.h"

using namespace llvm;

namespace ember {

using namespace shape;

namespace {

Error expectDomain(const Type &t, KindSet d, StringRef what) {
  if (kindInSet(t.kind, d))
    return Error::success();
  return makeError(what + " must be " + kindSetName(d) + ", got " + t.str());
}

/// Numeric, bool, or one of the narrow kinds, which Cast converts and Where selects (nothing
/// computes on them: they are in no KindSet).
bool isValueKind(ElemKind k) {
  return kindInSet(k, KindSet::NumericOrBool) || isNarrowKind(k);
}

/// Two operands of one type in \p d; the result has that type.
Expected<TypeList> sameTypeBinary(ArrayRef<Type> in, KindSet d) {
  EMBER_TRY(expectDomain(in[0], d, "operands"));
  return elementwiseBinary(in);
}

/// One operand in \p d; the result has its type.
Expected<TypeList> sameTypeUnary(ArrayRef<Type> in, KindSet d) {
  EMBER_TRY(expectDomain(in[0], d, "input"));
  return sameAsInput(in);
}

/// Two operands of one type in \p d; the result is bool of their dims.
Expected<TypeList> comparison(ArrayRef<Type> in, KindSet d) {
  EMBER_ASSIGN_OR_RETURN(TypeList t, sameTypeBinary(in, d));
  return TypeList{Type(ElemKind::Bool, t[0].dims)};
}

} // namespace

Expected<TypeList> inferTypesAdd(ArrayRef<Type> in, const AttrList &) {
  return sameTypeBinary(in, KindSet::Numeric);
}

Expected<TypeList> inferTypesSub(ArrayRef<Type> in, const AttrList &) {
  return sameTypeBinary(in, KindSet::Numeric);
}

Expected<TypeList> inferTypesMul(ArrayRef<Type> in, const AttrList &) {
  return sameTypeBinary(in, KindSet::Numeric);
}

Expected<TypeList> inferTypesDiv(ArrayRef<Type> in, const AttrList &) {
  return sameTypeBinary(in, KindSet::Numeric);
}

Expected<TypeList> inferTypesMax(ArrayRef<Type> in, const AttrList &) {
  return sameTypeBinary(in, KindSet::Numeric);
}

Expected<TypeList> inferTypesMin(ArrayRef<Type> in, const AttrList &) {
  return sameTypeBinary(in, KindSet::Numeric);
}

Expected<TypeList> inferTypesMod(ArrayRef<Type> in, const AttrList &attrs) {
  int64_t fmod = attrs.get<AttrKind::FMod>();
  if (fmod != 0 && fmod != 1)
    return makeError("fmod must be 0 or 1, got " + Twine(fmod));
  if (fmod == 0 && isFloatKind(in[0].kind))
    return makeError("floating point remainder needs fmod 1, got 0 for " + in[0].str());
  return sameTypeBinary(in, KindSet::Numeric);
}

Expected<TypeList> inferTypesPow(ArrayRef<Type> in, const AttrList &) {
  const Type &base = in[ops::Pow::Base], &exponent = in[ops::Pow::Exponent];
  if (!isFloatKind(base.kind) && base.kind != ElemKind::Int32 && base.kind != ElemKind::Int64)
    return makeError("base must be int32, int64 or floating point, got " + base.str());
  EMBER_TRY(expectDomain(exponent, KindSet::Numeric, "exponent"));
  if (base.dims != exponent.dims)
    return makeError("operand dims differ: " + base.str() + " vs " + exponent.str());
  return TypeList{base};
}

Expected<TypeList> inferTypesShiftLeft(ArrayRef<Type> in, const AttrList &) {
  return sameTypeBinary(in, KindSet::Unsigned);
}

Expected<TypeList> inferTypesShiftRight(ArrayRef<Type> in, const AttrList &) {
  return sameTypeBinary(in, KindSet::Unsigned);
}

Expected<TypeList> inferTypesPRelu(ArrayRef<Type> in, const AttrList &) {
  return sameTypeBinary(in, KindSet::Numeric);
}

Expected<TypeList> inferTypesEqual(ArrayRef<Type> in, const AttrList &) {
  return comparison(in, KindSet::NumericOrBool);
}

Expected<TypeList> inferTypesLess(ArrayRef<Type> in, const AttrList &) {
  return comparison(in, KindSet::NumericOrBool);
}

Expected<TypeList> inferTypesLessOrEqual(ArrayRef<Type> in, const AttrList &) {
  return comparison(in, KindSet::NumericOrBool);
}

Expected<TypeList> inferTypesGreater(ArrayRef<Type> in, const AttrList &) {
  return comparison(in, KindSet::NumericOrBool);
}

Expected<TypeList> inferTypesGreaterOrEqual(ArrayRef<Type> in, const AttrList &) {
  return comparison(in, KindSet::NumericOrBool);
}

Expected<TypeList> inferTypesAnd(ArrayRef<Type> in, const AttrList &) {
  return sameTypeBinary(in, KindSet::IntegerOrBool);
}

Expected<TypeList> inferTypesOr(ArrayRef<Type> in, const AttrList &) {
  return sameTypeBinary(in, KindSet::IntegerOrBool);
}

Expected<TypeList> inferTypesXor(ArrayRef<Type> in, const AttrList &) {
  return sameTypeBinary(in, KindSet::IntegerOrBool);
}

Expected<TypeList> inferTypesWhere(ArrayRef<Type> in, const AttrList &) {
  const Type &cond = in[ops::Where::Condition];
  EMBER_TRY(expectDomain(cond, KindSet::Bool, "condition"));
  if (!isValueKind(in[ops::Where::LHS].kind))
    return makeError("values must be numeric or bool, got " + in[ops::Where::LHS].str());
  EMBER_ASSIGN_OR_RETURN(TypeList t, elementwiseBinary(in.drop_front()));
  if (cond.dims != t[0].dims)
    return makeError("condition " + cond.str() + " and values " + t[0].str() + " differ in dims");
  return t;
}

Expected<TypeList> inferTypesClip(ArrayRef<Type> in, const AttrList &) {
  const Type &x = in[ops::Clip::Input];
  EMBER_TRY(expectDomain(x, KindSet::Numeric, "input"));
  for (unsigned i : {unsigned(ops::Clip::Min), unsigned(ops::Clip::Max)}) {
    StringRef what = i == ops::Clip::Min ? "min" : "max";
    if (in[i].kind != x.kind || in[i].numElements() != 1)
      return makeError(what + " must be one element of the input's kind " + elemKindName(x.kind) +
                       ", got " + in[i].str());
  }
  return sameAsInput(in);
}

Expected<TypeList> inferTypesCast(ArrayRef<Type> in, const AttrList &attrs) {
  if (!isValueKind(in[0].kind))
    return makeError("input must be numeric or bool, got " + in[0].str());
  const std::string &name = attrs.get<AttrKind::ResultKind>();
  ElemKind to;
  if (!parseElemKind(name, to) || !isValueKind(to))
    return makeError("result kind '" + name + "' is not a numeric or bool element kind");
  return TypeList{Type(to, in[0].dims)};
}

Expected<TypeList> inferTypesUnary(ArrayRef<Type> in, const AttrList &attrs) {
  const std::string &fn = attrs.get<AttrKind::Function>();
  const UnaryFunctionInfo *f = findUnaryFunction(fn);
  if (!f)
    return makeError("unknown function '" + fn + "'");
  if (!kindInSet(in[0].kind, f->domain))
    return makeError("input of " + fn + " must be " + kindSetName(f->domain) + ", got " +
                     in[0].str());
  return sameAsInput(in);
}

Expected<TypeList> inferTypesIsNaN(ArrayRef<Type> in, const AttrList &) {
  EMBER_TRY(expectFloat(in[0], "input"));
  return TypeList{Type(ElemKind::Bool, in[0].dims)};
}

Expected<TypeList> inferTypesIsInf(ArrayRef<Type> in, const AttrList &) {
  EMBER_TRY(expectFloat(in[0], "input"));
  return TypeList{Type(ElemKind::Bool, in[0].dims)};
}

Expected<TypeList> inferTypesRelu(ArrayRef<Type> in, const AttrList &) {
  return sameTypeUnary(in, KindSet::Numeric);
}

Expected<TypeList> inferTypesSigmoid(ArrayRef<Type> in, const AttrList &) {
  return sameTypeUnary(in, KindSet::Float);
}

Expected<TypeList> inferTypesTanh(ArrayRef<Type> in, const AttrList &) {
  return sameTypeUnary(in, KindSet::Float);
}

Expected<TypeList> inferTypesElu(ArrayRef<Type> in, const AttrList &) {
  return sameTypeUnary(in, KindSet::Float);
}

Expected<TypeList> inferTypesCelu(ArrayRef<Type> in, const AttrList &attrs) {
  if (attrs.get<AttrKind::Alpha>() == 0.0f)
    return makeError("alpha must not be 0");
  return sameTypeUnary(in, KindSet::Float);
}

Expected<TypeList> inferTypesSelu(ArrayRef<Type> in, const AttrList &) {
  return sameTypeUnary(in, KindSet::Float);
}

Expected<TypeList> inferTypesHardSigmoid(ArrayRef<Type> in, const AttrList &) {
  return sameTypeUnary(in, KindSet::Float);
}

Expected<TypeList> inferTypesLeakyRelu(ArrayRef<Type> in, const AttrList &) {
  return sameTypeUnary(in, KindSet::Float);
}

Expected<TypeList> inferTypesThresholdedRelu(ArrayRef<Type> in, const AttrList &) {
  return sameTypeUnary(in, KindSet::Float);
}

Expected<TypeList> inferTypesShrink(ArrayRef<Type> in, const AttrList &) {
  return sameTypeUnary(in, KindSet::Numeric);
}

} // namespace ember
