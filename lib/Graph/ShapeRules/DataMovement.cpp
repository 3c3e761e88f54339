// Shape rules: reshape, transpose, broadcast, concat and other data movement.
#include "Common.h"

using namespace llvm;

namespace ember {

using namespace shape;

Expected<TypeList> inferTypesReshape(ArrayRef<Type> in, const AttrList &attrs) {
  const auto &dims = attrs.get<AttrKind::Dims>();
  EMBER_ASSIGN_OR_RETURN(Type t, Type::checked(in[0].kind, dims));
  if (t.numElements() != in[0].numElements())
    return makeError("cannot reshape " + in[0].str() + " to " + intsToString(dims) +
                     ": element counts differ");
  return TypeList{in[0].withDims(t.dims)};
}

Expected<TypeList> inferTypesTranspose(ArrayRef<Type> in, const AttrList &attrs) {
  const auto &shuffle = attrs.get<AttrKind::Shuffle>();
  unsigned rank = in[0].rank();
  std::vector<bool> seen(rank, false);
  if (shuffle.size() != rank)
    return makeError("permutation " + intsToString(shuffle) + " does not match rank of " +
                     in[0].str());
  DimsVec dims;
  for (int64_t s : shuffle) {
    if (s < 0 || s >= int64_t(rank) || seen[s])
      return makeError(intsToString(shuffle) + " is not a permutation of " + Twine(rank) + " axes");
    seen[s] = true;
    dims.push_back(in[0].dims[s]);
  }
  return TypeList{in[0].withDims(dims)};
}

Expected<TypeList> inferTypesBroadcast(ArrayRef<Type> in, const AttrList &attrs) {
  const auto &target = attrs.get<AttrKind::Dims>();
  EMBER_ASSIGN_OR_RETURN(Type t, Type::checked(in[0].kind, target));
  const DimsVec &src = in[0].dims;
  if (src.size() > t.dims.size())
    return makeError("cannot broadcast " + in[0].str() + " to " + dimsToString(t.dims));
  size_t shift = t.dims.size() - src.size();
  for (size_t i = 0; i < src.size(); ++i)
    if (src[i] != 1 && src[i] != t.dims[i + shift])
      return makeError("cannot broadcast " + in[0].str() + " to " + dimsToString(t.dims));
  return TypeList{in[0].withDims(t.dims)};
}

Expected<TypeList> inferTypesConcat(ArrayRef<Type> in, const AttrList &attrs) {
  if (in.empty())
    return makeError("needs at least one input");
  int64_t axis = attrs.get<AttrKind::Axis>();
  const Type &first = in[0];
  if (axis < 0 || axis >= int64_t(first.rank()))
    return makeError("axis " + Twine(axis) + " out of range for " + first.str());
  DimsVec dims = first.dims;
  dims[axis] = 0;
  for (const Type &t : in) {
    bool compatible = t.kind == first.kind && t.rank() == first.rank();
    for (unsigned d = 0; compatible && d < t.rank(); ++d)
      compatible = d == unsigned(axis) || t.dims[d] == first.dims[d];
    if (!compatible)
      return makeError("inputs " + first.str() + " and " + t.str() +
                       " differ outside axis " + Twine(axis));
    if (!checkedAdd(dims[axis], t.dims[axis], dims[axis]))
      return makeError("concatenated dimension overflows");
  }
  EMBER_ASSIGN_OR_RETURN(Type t, Type::checkedDims(first.kind, dims));
  return TypeList{first.withDims(t.dims)};
}

} // namespace ember
