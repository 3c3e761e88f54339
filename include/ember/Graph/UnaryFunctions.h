// The functions a Unary node applies (Nodes/ElementwiseFunctions.def) as data: what the shape
// rule, the backends' supports checks and the OpenCL planner look up by name.
#ifndef EMBER_GRAPH_UNARYFUNCTIONS_H
#define EMBER_GRAPH_UNARYFUNCTIONS_H

#include "ember/Base/KindSets.h"

#include "llvm/ADT/StringRef.h"

namespace ember {

enum class UnaryFunction {
#define UNARY_FUNCTION(E, NAME, DOMAIN, FLOAT_FORM, INTEGER_FORM, VECTOR_FORM, FUSE, DOC) E,
#include "ember/Graph/Nodes/ElementwiseFunctions.def"
};

struct UnaryFunctionInfo {
  UnaryFunction fn;
  /// The printed name (the Function attribute).
  llvm::StringRef name;
  /// The enum's name (OpenCL's element-wise rows are named by it).
  llvm::StringRef enumName;
  /// The element kinds accepted; the result has the operand's kind.
  KindSet domain;
  llvm::StringRef doc;
};

/// The row named \p name, or null.
const UnaryFunctionInfo *findUnaryFunction(llvm::StringRef name);

/// Whether \p name is a function that accepts (and so every backend runs) kind \p k.
bool unaryFunctionAccepts(llvm::StringRef name, ElemKind k);

} // namespace ember

#endif
