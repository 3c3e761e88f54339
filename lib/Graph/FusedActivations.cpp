#include "ember/Graph/FusedActivations.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace ember {

namespace {

enum RowIndex : int64_t {
#define FUSED_ACTIVATION(E, NAME, ARITY, FROM, FROM_FN, FORMULA, VEC, DOC) Row##E,
#include "ember/Graph/Nodes/FusedActivations.def"
};

#define VECTOR(expression) true
#define VECTOR_OUT_OF_LINE(expression) true
#define SCALAR_ONLY false
const FusedActivationInfo kRows[] = {
#define FUSED_ACTIVATION(E, NAME, ARITY, FROM, FROM_FN, FORMULA, VEC, DOC)                         \
  {Row##E + 1, NAME, ARITY, NodeKind::FROM, FROM_FN, VEC, DOC},
#include "ember/Graph/Nodes/FusedActivations.def"
};
#undef VECTOR
#undef VECTOR_OUT_OF_LINE
#undef SCALAR_ONLY

} // namespace

ArrayRef<FusedActivationInfo> fusedActivations() { return kRows; }

const FusedActivationInfo *findFusedActivation(StringRef name) {
  for (const FusedActivationInfo &r : kRows)
    if (r.name == name)
      return &r;
  return nullptr;
}

bool resolveFusedActivation(StringRef name, size_t numArgs, const FusedActivationInfo *&row) {
  row = name.empty() ? nullptr : findFusedActivation(name);
  return row ? numArgs == row->arity : name.empty() && numArgs == 0;
}

const FusedActivationInfo *fusedActivationFrom(const Node &n) {
  for (const FusedActivationInfo &r : kRows)
    if (r.from == n.getKind() &&
        (r.fromFunction.empty() || n.attr<AttrKind::Function>() == r.fromFunction))
      return &r;
  return nullptr;
}

std::string fusedActivationNames() {
  SmallVector<StringRef, 8> names;
  for (const FusedActivationInfo &r : kRows)
    names.push_back(r.name);
  return join(names, ", ");
}

} // namespace ember
