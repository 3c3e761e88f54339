// Shape rules: reshape, transpose, broadcast, concat, slice, pad, trilu and range. The indexed
// kinds (gather, scatter, ...) are in DataMovementIndexed.cpp, Resize in DataMovementResize.cpp.
#include "DataMovementCommon.h"

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
      return makeError("inputs " + first.str() + " and " + t.str() + " differ outside axis " +
                       Twine(axis));
    if (!checkedAdd(dims[axis], t.dims[axis], dims[axis]))
      return makeError("concatenated dimension overflows");
  }
  EMBER_ASSIGN_OR_RETURN(Type t, Type::checkedDims(first.kind, dims));
  return TypeList{first.withDims(t.dims)};
}

Expected<TypeList> inferTypesSlice(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[0];
  const auto &starts = attrs.get<AttrKind::Starts>();
  const auto &steps = attrs.get<AttrKind::Steps>();
  const auto &dims = attrs.get<AttrKind::Dims>();
  if (starts.size() != x.rank() || steps.size() != x.rank() || dims.size() != x.rank())
    return makeError("starts " + intsToString(starts) + ", steps " + intsToString(steps) +
                     " and dims " + intsToString(dims) + " must each have one value per axis of " +
                     x.str());
  for (unsigned d = 0; d < x.rank(); ++d) {
    if (dims[d] < 0)
      return makeError("negative result dim in " + intsToString(dims));
    if (dims[d] == 0)
      continue; // nothing is read on this axis
    // Both ends of the walk must lie inside the axis: start and start + (dims-1) * step.
    int64_t last;
    bool inRange = steps[d] != 0 && !__builtin_mul_overflow(dims[d] - 1, steps[d], &last) &&
                   !__builtin_add_overflow(last, starts[d], &last);
    for (int64_t i : {starts[d], last})
      inRange = inRange && i >= 0 && uint64_t(i) < x.dims[d];
    if (!inRange)
      return makeError("axis " + Twine(d) + ": " + Twine(dims[d]) + " elements from " +
                       Twine(starts[d]) + " in steps of " + Twine(steps[d]) + " leave the input " +
                       x.str());
  }
  EMBER_ASSIGN_OR_RETURN(Type t, Type::checked(x.kind, dims));
  return TypeList{x.withDims(t.dims)};
}

Expected<TypeList> inferTypesPad(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[0], &value = in[1];
  EMBER_TRY(expectSameElement(x, value, "pad value"));
  if (value.rank() != 0)
    return makeError("pad value must be a scalar, got " + value.str());
  const std::string &mode = attrs.get<AttrKind::Mode>();
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return makeError("unknown pad mode '" + mode + "' (constant, reflect or edge)");
  const auto &pads = attrs.get<AttrKind::Pads>();
  unsigned rank = x.rank();
  if (pads.size() != 2 * rank)
    return makeError("pads " + intsToString(pads) + " must have 2 values per axis of " + x.str());
  DimsVec dims = x.dims;
  for (unsigned d = 0; d < rank; ++d) {
    int64_t begin = pads[d], end = pads[d + rank];
    if (begin < 0 || end < 0)
      return makeError("pads " + intsToString(pads) + " must not be negative");
    if ((begin || end) && mode != "constant" && x.dims[d] == 0)
      return makeError("axis " + Twine(d) + " of " + x.str() + " is empty: nothing to " + mode +
                       "-pad from");
    if (!checkedAdd(dims[d], dim_t(begin), dims[d]) || !checkedAdd(dims[d], dim_t(end), dims[d]))
      return makeError("padded dimension overflows");
  }
  return resultWithDims(x, dims);
}

Expected<TypeList> inferTypesTrilu(ArrayRef<Type> in, const AttrList &attrs) {
  if (in[0].rank() < 2)
    return makeError("input must have rank 2 or more, got " + in[0].str());
  int64_t upper = attrs.get<AttrKind::Upper>();
  if (upper != 0 && upper != 1)
    return makeError("upper must be 0 or 1, got " + Twine(upper));
  return sameAsInput(in);
}

Expected<TypeList> inferTypesRange(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &start = in[0], &delta = in[1];
  if (start.rank() != 0 || start != delta)
    return makeError("start " + start.str() + " and delta " + delta.str() +
                     " must be scalars of one kind");
  if (start.isQuantized() || start.kind == ElemKind::Bool)
    return makeError("range of " + start.str() + " is not defined");
  const auto &dims = attrs.get<AttrKind::Dims>();
  if (dims.size() != 1)
    return makeError("result dims " + intsToString(dims) + " must have rank 1");
  EMBER_ASSIGN_OR_RETURN(Type t, Type::checked(start.kind, dims));
  return TypeList{t};
}

} // namespace ember
