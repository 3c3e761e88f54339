// Shape rules: control flow. If, Loop and BodyInput take their types from the bodies they
// connect (Graph/ControlFlow.h checks them), so they have no rule of their own.
#include "Common.h"

using namespace llvm;

namespace ember {

static Expected<TypeList> typedByBodies(StringRef kind) {
  return makeError(kind + " is typed by its bodies: create it with explicit result types");
}

Expected<TypeList> inferTypesIf(ArrayRef<Type>, const AttrList &) { return typedByBodies("If"); }
Expected<TypeList> inferTypesLoop(ArrayRef<Type>, const AttrList &) {
  return typedByBodies("Loop");
}
Expected<TypeList> inferTypesBodyInput(ArrayRef<Type>, const AttrList &) {
  return typedByBodies("BodyInput");
}
Expected<TypeList> inferTypesBodyOutput(ArrayRef<Type>, const AttrList &attrs) {
  if (attrs.get<AttrKind::Index>() < 0)
    return makeError("negative index");
  return TypeList{};
}

} // namespace ember
