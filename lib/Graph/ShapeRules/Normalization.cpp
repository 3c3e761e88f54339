// Shape rules: normalizations and softmaxes (Nodes/Normalization.def).
#include "ReduceCommon.h"

using namespace llvm;

namespace ember {

using namespace shape;

namespace {

/// Input [N, C, ...] with the four per-channel statistics of batch norm.
Error checkBatchNorm(ArrayRef<Type> in) {
  const Type &x = in[0];
  EMBER_TRY(expectFloat(x, "input"));
  if (x.rank() < 2)
    return makeError("input must have rank >= 2, got " + x.str());
  static const char *const names[] = {"input", "scale", "bias", "mean", "var"};
  for (unsigned i = 1; i < in.size(); ++i)
    EMBER_TRY(expectChannelVector(in[i], x.dims[1], names[i]));
  return Error::success();
}

Expected<TypeList> alongOneAxis(ArrayRef<Type> in, const AttrList &attrs) {
  EMBER_TRY(expectFloat(in[0], "input"));
  EMBER_TRY(expectAxis(attrs.get<AttrKind::Axis>(), in[0]));
  return sameAsInput(in);
}

} // namespace

Expected<TypeList> inferTypesBatchNorm(ArrayRef<Type> in, const AttrList &) {
  EMBER_TRY(checkBatchNorm(in));
  return TypeList{in[0]};
}

Expected<TypeList> inferTypesBatchNormTraining(ArrayRef<Type> in, const AttrList &) {
  EMBER_TRY(checkBatchNorm(in));
  return TypeList{in[0], in[ops::BatchNormTraining::Mean], in[ops::BatchNormTraining::Var]};
}

Expected<TypeList> inferTypesInstanceNorm(ArrayRef<Type> in, const AttrList &) {
  const Type &x = in[0];
  EMBER_TRY(expectFloat(x, "input"));
  if (x.rank() < 2)
    return makeError("input must have rank >= 2, got " + x.str());
  EMBER_TRY(expectChannelVector(in[ops::InstanceNorm::Scale], x.dims[1], "scale"));
  EMBER_TRY(expectChannelVector(in[ops::InstanceNorm::Bias], x.dims[1], "bias"));
  return TypeList{x};
}

Expected<TypeList> inferTypesLayerNorm(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[0];
  EMBER_TRY(expectFloat(x, "input"));
  int64_t axis = attrs.get<AttrKind::Axis>();
  EMBER_TRY(expectAxis(axis, x));
  ArrayRef<dim_t> normalized = ArrayRef<dim_t>(x.dims).drop_front(axis);
  for (unsigned i : {unsigned(ops::LayerNorm::Scale), unsigned(ops::LayerNorm::Bias)})
    if (in[i].kind != x.kind || ArrayRef<dim_t>(in[i].dims) != normalized)
      return makeError(StringRef(i == ops::LayerNorm::Scale ? "scale" : "bias") + " must be " +
                       x.withDims(normalized).str() + ", got " + in[i].str());
  ElemKind stash;
  const std::string &stashName = attrs.get<AttrKind::StashKind>();
  if (!parseElemKind(stashName, stash) || !isFloatKind(stash))
    return makeError("stash_kind '" + stashName + "' is not a float kind");
  DimsVec statDims = x.dims;
  for (size_t i = axis; i < statDims.size(); ++i)
    statDims[i] = 1;
  return TypeList{x, Type(stash, statDims), Type(stash, statDims)};
}

Expected<TypeList> inferTypesMeanVarNorm(ArrayRef<Type> in, const AttrList &attrs) {
  EMBER_TRY(expectFloat(in[0], "input"));
  EMBER_TRY(expectSortedAxes(attrs.get<AttrKind::Axes>(), in[0]));
  return sameAsInput(in);
}

Expected<TypeList> inferTypesLRN(ArrayRef<Type> in, const AttrList &attrs) {
  EMBER_TRY(expectFloat(in[0], "input"));
  if (in[0].rank() < 2)
    return makeError("input must have rank >= 2 (N x C x ...), got " + in[0].str());
  int64_t size = attrs.get<AttrKind::Size>();
  if (size <= 0)
    return makeError("size " + Twine(size) + " must be positive");
  return sameAsInput(in);
}

Expected<TypeList> inferTypesSoftmax(ArrayRef<Type> in, const AttrList &attrs) {
  return alongOneAxis(in, attrs);
}

Expected<TypeList> inferTypesLogSoftmax(ArrayRef<Type> in, const AttrList &attrs) {
  return alongOneAxis(in, attrs);
}

Expected<TypeList> inferTypesHardmax(ArrayRef<Type> in, const AttrList &attrs) {
  return alongOneAxis(in, attrs);
}

} // namespace ember
