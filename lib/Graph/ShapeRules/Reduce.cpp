// Shape rules: reductions, normalizations and selections.
#include "Common.h"

using namespace llvm;

namespace ember {

using namespace shape;

Expected<TypeList> inferTypesBatchNorm(ArrayRef<Type> in, const AttrList &) {
  const Type &x = in[0];
  EMBER_TRY(expectFloat(x, "input"));
  if (x.rank() < 2)
    return makeError("input must have rank >= 2, got " + x.str());
  for (unsigned i = 1; i < in.size(); ++i)
    if (in[i].rank() != 1 || in[i].dims[0] != x.dims[1] || in[i].kind != x.kind)
      return makeError("scale, bias, mean and var must be " + elemKindName(x.kind) + "<" +
                       Twine(x.dims[1]) + ">, got " + in[i].str());
  return TypeList{x};
}

Expected<TypeList> inferTypesSoftmax(ArrayRef<Type> in, const AttrList &attrs) {
  EMBER_TRY(expectFloat(in[0], "input"));
  int64_t axis = attrs.get<AttrKind::Axis>();
  if (axis < 0 || axis >= int64_t(in[0].rank()))
    return makeError("axis " + Twine(axis) + " out of range for " + in[0].str());
  return sameAsInput(in);
}

} // namespace ember
