// Shape rules: matrix products (MatMul with numpy batch broadcasting).
#include "Common.h"

using namespace llvm;

namespace ember {

using namespace shape;

namespace {

/// Operands of a product: equal kinds, numeric (not bool, not quantized).
Error checkProductKinds(const Type &a, const Type &b) {
  if (a.kind != b.kind)
    return makeError("operand kinds differ: " + a.str() + " vs " + b.str());
  if (a.isQuantized() || a.kind == ElemKind::Bool)
    return makeError("operands must be numeric, got " + a.str());
  return Error::success();
}

} // namespace

Expected<TypeList> inferTypesMatMul(ArrayRef<Type> in, const AttrList &) {
  const Type &a = in[ops::MatMul::LHS], &b = in[ops::MatMul::RHS];
  EMBER_TRY(checkProductKinds(a, b));
  if (a.rank() < 2 || a.rank() != b.rank())
    return makeError("operands must have equal ranks >= 2, got " + a.str() + " and " + b.str());
  size_t r = a.rank();
  if (a.dims[r - 1] != b.dims[r - 2])
    return makeError("inner dimensions differ: " + a.str() + " x " + b.str());
  DimsVec dims;
  for (size_t i = 0; i + 2 < r; ++i) {
    dim_t da = a.dims[i], db = b.dims[i];
    if (da != db && da != 1 && db != 1)
      return makeError("batch dims of " + a.str() + " and " + b.str() + " do not broadcast");
    dims.push_back(da == 1 ? db : da);
  }
  dims.push_back(a.dims[r - 2]);
  dims.push_back(b.dims[r - 1]);
  EMBER_ASSIGN_OR_RETURN(Type y, Type::checkedDims(a.kind, dims));
  return TypeList{y};
}

} // namespace ember
