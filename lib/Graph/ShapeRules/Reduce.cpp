// Shape rules: reductions, selections and losses (Reduce, ArgMax/ArgMin, CumSum, TopK, Einsum,
// NLLLoss). The normalizations and softmaxes are in Normalization.cpp.
#include "ReduceCommon.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace ember {

using namespace shape;

Expected<TypeList> inferTypesReduce(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[0];
  EMBER_TRY(expectNumeric(x, "input"));
  const std::string &how = attrs.get<AttrKind::Reduction>();
  bool known = StringSwitch<bool>(how)
                   .Cases("sum", "mean", "max", "min", "prod", true)
                   .Cases("l1", "l2", "log_sum", "log_sum_exp", "sum_square", true)
                   .Default(false);
  if (!known)
    return makeError("unknown reduction '" + how + "'");
  const std::vector<int64_t> &axes = attrs.get<AttrKind::Axes>();
  EMBER_TRY(expectSortedAxes(axes, x));
  DimsVec dims = x.dims;
  for (int64_t a : axes)
    dims[a] = 1;
  return TypeList{x.withDims(dims)};
}

namespace {

Expected<TypeList> argSelect(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[0];
  EMBER_TRY(expectNumeric(x, "input"));
  int64_t axis = attrs.get<AttrKind::Axis>();
  EMBER_TRY(expectAxis(axis, x));
  if (x.dims[axis] == 0)
    return makeError("axis " + Twine(axis) + " of " + x.str() + " is empty: no index to select");
  DimsVec dims = x.dims;
  dims[axis] = 1;
  return TypeList{Type(ElemKind::Int64, dims)};
}

} // namespace

Expected<TypeList> inferTypesArgMax(ArrayRef<Type> in, const AttrList &attrs) {
  return argSelect(in, attrs);
}

Expected<TypeList> inferTypesArgMin(ArrayRef<Type> in, const AttrList &attrs) {
  return argSelect(in, attrs);
}

Expected<TypeList> inferTypesCumSum(ArrayRef<Type> in, const AttrList &attrs) {
  EMBER_TRY(expectNumeric(in[0], "input"));
  EMBER_TRY(expectAxis(attrs.get<AttrKind::Axis>(), in[0]));
  return sameAsInput(in);
}

Expected<TypeList> inferTypesTopK(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[0];
  EMBER_TRY(expectNumeric(x, "input"));
  int64_t axis = attrs.get<AttrKind::Axis>();
  EMBER_TRY(expectAxis(axis, x));
  int64_t k = attrs.get<AttrKind::Count>();
  if (k < 0 || uint64_t(k) > x.dims[axis])
    return makeError("k " + Twine(k) + " is out of range for axis " + Twine(axis) + " of " +
                     x.str());
  DimsVec dims = x.dims;
  dims[axis] = dim_t(k);
  return TypeList{x.withDims(dims), Type(ElemKind::Int64, dims)};
}

Expected<TypeList> inferTypesEinsum(ArrayRef<Type> in, const AttrList &attrs) {
  const std::vector<int64_t> &inLabels = attrs.get<AttrKind::InputLabels>();
  const std::vector<int64_t> &outLabels = attrs.get<AttrKind::OutputLabels>();
  if (in.empty())
    return makeError("einsum needs at least one operand");
  size_t totalRank = 0;
  for (const Type &t : in) {
    EMBER_TRY(expectNumeric(t, "operand"));
    if (t.kind != in[0].kind)
      return makeError("operand kinds differ: " + in[0].str() + " vs " + t.str());
    totalRank += t.rank();
  }
  if (inLabels.size() != totalRank)
    return makeError("input_labels " + intsToString(inLabels) + " has " + Twine(inLabels.size()) +
                     " labels, the operands have " + Twine(totalRank) + " dims");
  // Every occurrence of a label must see the same size.
  DenseMap<int64_t, dim_t> sizes;
  size_t next = 0;
  for (size_t op = 0; op < in.size(); ++op) {
    for (dim_t d : in[op].dims) {
      int64_t label = inLabels[next++];
      if (label < 0)
        return makeError("negative label " + Twine(label) + " in input_labels");
      auto [it, inserted] = sizes.try_emplace(label, d);
      if (!inserted && it->second != d)
        return makeError("label " + Twine(label) + " has size " + Twine(it->second) + " and size " +
                         Twine(d) + " (operand " + Twine(op) + ")");
    }
  }
  // The kernel visits every combination of label values once: that count must fit 64 bits.
  size_t combinations = 1;
  for (auto &entry : sizes)
    if (!checkedMul(combinations, entry.second, combinations))
      return makeError("einsum over label sizes whose product overflows 64 bits");
  DimsVec dims;
  for (size_t i = 0; i < outLabels.size(); ++i) {
    auto it = sizes.find(outLabels[i]);
    if (it == sizes.end())
      return makeError("output label " + Twine(outLabels[i]) + " is not an operand label");
    for (size_t j = 0; j < i; ++j)
      if (outLabels[j] == outLabels[i])
        return makeError("output label " + Twine(outLabels[i]) + " repeats");
    dims.push_back(it->second);
  }
  EMBER_ASSIGN_OR_RETURN(Type result, Type::checkedDims(in[0].kind, dims));
  return TypeList{result};
}

Expected<TypeList> inferTypesNLLLoss(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[ops::NLLLoss::Input], &target = in[ops::NLLLoss::Target];
  EMBER_TRY(expectFloat(x, "input"));
  if (x.rank() < 2)
    return makeError("input must have rank >= 2 (N x C x ...), got " + x.str());
  if (target.kind != ElemKind::Int32 && target.kind != ElemKind::Int64)
    return makeError("target must be int32 or int64, got " + target.str());
  DimsVec targetDims = x.dims;
  targetDims.erase(targetDims.begin() + 1);
  if (ArrayRef<dim_t>(target.dims) != ArrayRef<dim_t>(targetDims))
    return makeError("target " + target.str() + " does not match input " + x.str() +
                     " without its class axis");
  const Type &weight = in[ops::NLLLoss::Weight];
  if (weight.kind != x.kind || weight.rank() != 1 || weight.dims[0] != x.dims[1])
    return makeError("weight must be " + x.withDims({x.dims[1]}).str() + ", got " + weight.str());
  if (attrs.get<AttrKind::IgnoreIndex>().size() > 1)
    return makeError("ignore_index must hold at most one value");
  const std::string &how = attrs.get<AttrKind::Reduction>();
  if (how == "none")
    return TypeList{x.withDims(targetDims)};
  if (how == "sum" || how == "mean")
    return TypeList{x.withDims({})};
  return makeError("unknown reduction '" + how + "' (none, sum or mean)");
}

} // namespace ember
