// Dispatch from a node kind to its shape rule; the rules sit by family in ShapeRules/.
#include "ShapeRules.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

Expected<TypeList> inferTypesSave(ArrayRef<Type> in, const AttrList &) {
  if (in[0] != in[1])
    return makeError("saved value " + in[0].str() + " does not match output " + in[1].str());
  return TypeList{};
}

Expected<TypeList> inferResultTypes(NodeKind kind, ArrayRef<NodeValue> operands,
                                    const AttrList &attrs) {
  const NodeInfo &info = getNodeInfo(kind);
  size_t fixed = info.operandNames.size();
  if (info.variadic ? operands.size() + 1 < fixed : operands.size() != fixed)
    return makeError(info.name + " takes " + Twine(fixed) + (info.variadic ? " or more" : "") +
                     " operands, got " + Twine(operands.size()));
  for (AttrKind a : info.attrs)
    if (!attrs.has(a))
      return makeError("missing attribute '" + attrName(a) + "'");
  SmallVector<Type, 4> types;
  for (const NodeValue &v : operands) {
    if (!v.node || v.resNo >= v.node->getNumResults())
      return makeError("operand refers to a missing value");
    types.push_back(v.getType());
  }
  switch (kind) {
  case NodeKind::Placeholder:
  case NodeKind::Constant:
    return makeError("storage has no shape rule");
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC)                                                  \
  case NodeKind::K:                                                                                \
    return inferTypes##K(types, attrs);
#include "ember/Graph/Nodes.def"
  }
  return makeError("unknown node kind");
}

} // namespace ember
