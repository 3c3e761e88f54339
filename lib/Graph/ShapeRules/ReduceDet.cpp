// Shape rule: Det (ember/Semantics/Determinant.h states what it computes).
#include "Common.h"

using namespace llvm;

namespace ember {

using namespace shape;

Expected<TypeList> inferTypesDet(ArrayRef<Type> in, const AttrList &) {
  const Type &x = in[0];
  EMBER_TRY(expectFloat(x, "input"));
  unsigned rank = x.rank();
  if (rank < 2 || x.dims[rank - 1] != x.dims[rank - 2])
    return makeError("input must be square matrices [.., M, M], got " + x.str());
  return TypeList{x.withDims(ArrayRef<dim_t>(x.dims).drop_back(2))};
}

} // namespace ember
