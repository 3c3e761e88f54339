// Shape rules: indexed data movement (Gather, GatherElements, GatherND, ScatterElements,
// ScatterND, OneHot, ReverseSequence).
#include "DataMovementCommon.h"

#include "ember/Graph/ScatterReduction.h"

using namespace llvm;

namespace ember {

using namespace shape;

namespace {

Error expectScatterReduction(const AttrList &attrs) {
  const std::string &how = attrs.get<AttrKind::Reduction>();
  if (!scatterReductionNamed(how))
    return makeError("unknown scatter reduction '" + how + "' (" + scatterReductionNames() + ")");
  return Error::success();
}

/// GatherElements and ScatterElements: \p indices has \p data's rank and fits inside it on every
/// axis but \p axis (where the indices themselves say where to go).
Error expectElementIndices(const Type &data, const Type &indices, int64_t axis) {
  EMBER_TRY(expectIndexKind(indices, "indices"));
  EMBER_TRY(expectAxisOf(axis, data));
  bool fits = indices.rank() == data.rank();
  for (unsigned d = 0; fits && d < data.rank(); ++d)
    fits = int64_t(d) == axis || indices.dims[d] <= data.dims[d];
  if (!fits)
    return makeError("indices " + indices.str() + " must have the rank of data " + data.str() +
                     " and fit inside it outside axis " + Twine(axis));
  return Error::success();
}

/// GatherND and ScatterND: the length of an index tuple (indices' last dim), checked against
/// the \p rank data axes after the batch axes.
Expected<size_t> indexTupleLength(const Type &indices, unsigned rank) {
  EMBER_TRY(expectIndexKind(indices, "indices"));
  if (indices.rank() == 0)
    return makeError("indices must have rank 1 or more");
  dim_t m = indices.dims.back();
  if (m < 1 || m > rank)
    return makeError("index tuples of length " + Twine(m) + " (indices " + indices.str() +
                     ") must have between 1 and " + Twine(rank) + " elements");
  return size_t(m);
}

} // namespace

Expected<TypeList> inferTypesGather(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &data = in[0], &indices = in[1];
  EMBER_TRY(expectIndexKind(indices, "indices"));
  int64_t axis = attrs.get<AttrKind::Axis>();
  EMBER_TRY(expectAxisOf(axis, data));
  DimsVec dims(data.dims.begin(), data.dims.begin() + axis);
  dims.append(indices.dims.begin(), indices.dims.end());
  dims.append(data.dims.begin() + axis + 1, data.dims.end());
  if (data.dims[axis] == 0 && indices.numElements() != 0)
    return makeError("axis " + Twine(axis) + " of " + data.str() + " is empty: nothing to gather");
  return resultWithDims(data, dims);
}

Expected<TypeList> inferTypesGatherElements(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &data = in[0], &indices = in[1];
  EMBER_TRY(expectElementIndices(data, indices, attrs.get<AttrKind::Axis>()));
  return TypeList{data.withDims(indices.dims)};
}

Expected<TypeList> inferTypesGatherND(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &data = in[0], &indices = in[1];
  int64_t batch = attrs.get<AttrKind::BatchDims>();
  if (batch < 0 || batch >= int64_t(std::min(data.rank(), indices.rank())))
    return makeError("batch_dims " + Twine(batch) + " must be below the ranks of data " +
                     data.str() + " and indices " + indices.str());
  for (int64_t d = 0; d < batch; ++d)
    if (data.dims[d] != indices.dims[d])
      return makeError("data " + data.str() + " and indices " + indices.str() +
                       " differ in batch axis " + Twine(d));
  EMBER_ASSIGN_OR_RETURN(size_t m, indexTupleLength(indices, data.rank() - batch));
  DimsVec dims(indices.dims.begin(), indices.dims.end() - 1);
  dims.append(data.dims.begin() + batch + m, data.dims.end());
  return resultWithDims(data, dims);
}

Expected<TypeList> inferTypesScatterElements(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &data = in[0], &indices = in[1], &updates = in[2];
  EMBER_TRY(expectElementIndices(data, indices, attrs.get<AttrKind::Axis>()));
  EMBER_TRY(expectSameElement(data, updates, "updates"));
  if (updates.dims != indices.dims)
    return makeError("updates " + updates.str() + " and indices " + indices.str() +
                     " must have the same dims");
  EMBER_TRY(expectScatterReduction(attrs));
  return sameAsInput(in);
}

Expected<TypeList> inferTypesScatterND(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &data = in[0], &indices = in[1], &updates = in[2];
  EMBER_ASSIGN_OR_RETURN(size_t m, indexTupleLength(indices, data.rank()));
  EMBER_TRY(expectSameElement(data, updates, "updates"));
  DimsVec want(indices.dims.begin(), indices.dims.end() - 1);
  want.append(data.dims.begin() + m, data.dims.end());
  if (updates.dims != want)
    return makeError("updates " + updates.str() + " must have dims " + dimsToString(want) +
                     " (indices " + indices.str() + ", data " + data.str() + ")");
  EMBER_TRY(expectScatterReduction(attrs));
  return sameAsInput(in);
}

Expected<TypeList> inferTypesOneHot(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &indices = in[0], &values = in[1];
  if (indices.isQuantized())
    return makeError("indices must be numeric, got " + indices.str());
  if (values.rank() != 1 || values.dims[0] != 2)
    return makeError("values must hold [off, on], got " + values.str());
  int64_t depth = attrs.get<AttrKind::Depth>();
  if (depth < 1)
    return makeError("depth must be positive, got " + Twine(depth));
  int64_t axis = attrs.get<AttrKind::Axis>();
  if (axis < 0 || axis > int64_t(indices.rank()))
    return makeError("axis " + Twine(axis) + " out of range for a result of rank " +
                     Twine(indices.rank() + 1));
  DimsVec dims = indices.dims;
  dims.insert(dims.begin() + axis, dim_t(depth));
  return resultWithDims(values, dims);
}

Expected<TypeList> inferTypesReverseSequence(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[0], &lens = in[1];
  int64_t batch = attrs.get<AttrKind::BatchAxis>(), time = attrs.get<AttrKind::TimeAxis>();
  if (x.rank() < 2)
    return makeError("input must have rank 2 or more, got " + x.str());
  if (!((batch == 0 && time == 1) || (batch == 1 && time == 0)))
    return makeError("batch_axis " + Twine(batch) + " and time_axis " + Twine(time) +
                     " must be 0 and 1 in some order");
  EMBER_TRY(expectIndexKind(lens, "sequence lengths"));
  if (lens.rank() != 1 || lens.dims[0] != x.dims[batch])
    return makeError("sequence lengths " + lens.str() + " must have one value per batch of " +
                     x.str());
  return sameAsInput(in);
}

} // namespace ember
