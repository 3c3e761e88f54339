// Named sets of element kinds: which kinds an operation accepts, as the node tables name them
// (Nodes/ElementwiseFunctions.def's domains) and as the backends dispatch on them. The one rule
// for every layer: quantized and narrow kinds (ember/Base/Type.h) are in none of the sets, since
// nothing but Cast and data movement computes on them.
#ifndef EMBER_BASE_KINDSETS_H
#define EMBER_BASE_KINDSETS_H

#include "ember/Base/Type.h"

namespace ember {

enum class KindSet { Float, Signed, Numeric, Unsigned, Bool, NumericOrBool, IntegerOrBool };

/// Whether a kind with these properties belongs to \p s: the one rule behind kindInSet (run
/// time) and the Interpreter's typeInSet (compile time).
constexpr bool classInSet(KindSet s, bool isFloat, bool isBool, bool isUnsigned) {
  switch (s) {
  case KindSet::Float: return isFloat;
  case KindSet::Signed: return !isBool && !isUnsigned;
  case KindSet::Numeric: return !isBool;
  case KindSet::Unsigned: return isUnsigned;
  case KindSet::Bool: return isBool;
  case KindSet::NumericOrBool: return true;
  case KindSet::IntegerOrBool: return !isFloat;
  }
  return false;
}

inline bool isUnsignedIntKind(ElemKind k) {
  return k == ElemKind::UInt8 || k == ElemKind::UInt16 || k == ElemKind::UInt32 ||
         k == ElemKind::UInt64;
}

/// Whether element kind \p k belongs to \p s.
inline bool kindInSet(ElemKind k, KindSet s) {
  if (isQuantizedKind(k) || isNarrowKind(k))
    return false;
  return classInSet(s, isFloatKind(k), k == ElemKind::Bool, isUnsignedIntKind(k));
}

/// \p s for a message: "must be <kindSetName(s)>".
inline const char *kindSetName(KindSet s) {
  switch (s) {
  case KindSet::Float: return "floating point";
  case KindSet::Signed: return "a signed number";
  case KindSet::Numeric: return "numeric (integer or floating point)";
  case KindSet::Unsigned: return "an unsigned integer";
  case KindSet::Bool: return "bool";
  case KindSet::NumericOrBool: return "numeric or bool";
  case KindSet::IntegerOrBool: return "an integer or bool";
  }
  return "?";
}

} // namespace ember

#endif
