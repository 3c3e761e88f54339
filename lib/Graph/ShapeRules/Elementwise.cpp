// Shape rules: element-wise arithmetic and activations.
#include "Common.h"

using namespace llvm;

namespace ember {

using namespace shape;

Expected<TypeList> inferTypesAdd(ArrayRef<Type> in, const AttrList &) {
  return elementwiseBinary(in);
}

Expected<TypeList> inferTypesSub(ArrayRef<Type> in, const AttrList &) {
  return elementwiseBinary(in);
}

Expected<TypeList> inferTypesMul(ArrayRef<Type> in, const AttrList &) {
  return elementwiseBinary(in);
}

Expected<TypeList> inferTypesDiv(ArrayRef<Type> in, const AttrList &) {
  return elementwiseBinary(in);
}

Expected<TypeList> inferTypesRelu(ArrayRef<Type> in, const AttrList &) { return sameAsInput(in); }

Expected<TypeList> inferTypesSigmoid(ArrayRef<Type> in, const AttrList &) {
  EMBER_TRY(expectFloat(in[0], "input"));
  return sameAsInput(in);
}

Expected<TypeList> inferTypesTanh(ArrayRef<Type> in, const AttrList &) {
  EMBER_TRY(expectFloat(in[0], "input"));
  return sameAsInput(in);
}

} // namespace ember
