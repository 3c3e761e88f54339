// Shape rules: for each kind in Nodes.def, `inferTypes<Kind>` gives the result types that its
// operand types and attributes imply, or the reason they are inconsistent. The builder uses them
// to type new nodes and the verifier uses them to check existing ones.
#ifndef EMBER_LIB_GRAPH_SHAPERULES_H
#define EMBER_LIB_GRAPH_SHAPERULES_H

#include "ember/Graph/Graph.h"

namespace ember {

using TypeList = llvm::SmallVector<Type, 1>;

#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC)                                                  \
  llvm::Expected<TypeList> inferTypes##K(llvm::ArrayRef<Type> in, const AttrList &attrs);
#include "ember/Graph/Nodes.def"

} // namespace ember

#endif
