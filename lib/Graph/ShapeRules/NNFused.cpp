// Shape rules: the fused forms the graph optimizer creates (FusedConv, FusedMatMul,
// FullyConnected). Each is its unfused rule plus a check of the fused activation.
#include "Common.h"

#include "ember/Graph/FusedActivations.h"

using namespace llvm;

namespace ember {

using namespace shape;

namespace {

/// The activation attributes are consistent (Nodes/FusedActivations.def), and the result (\p y)
/// is floating point.
Error checkFusedActivation(const Type &y, const AttrList &attrs) {
  EMBER_TRY(expectFloat(y, "result"));
  const std::string &name = attrs.get<AttrKind::FusedActivation>();
  const std::vector<float> &args = attrs.get<AttrKind::FusedActivationArgs>();
  unsigned arity = 0;
  if (!name.empty()) {
    const FusedActivationInfo *info = findFusedActivation(name);
    if (!info)
      return makeError("unknown fused activation '" + name + "' (" + fusedActivationNames() +
                       ")");
    arity = info->arity;
  }
  if (args.size() != arity)
    return makeError("fused activation '" + name + "' takes " + Twine(arity) +
                     " argument(s), got " + Twine(args.size()));
  return Error::success();
}

} // namespace

Expected<TypeList> inferTypesFusedConv(ArrayRef<Type> in, const AttrList &attrs) {
  EMBER_ASSIGN_OR_RETURN(TypeList types, inferTypesConv(in, attrs));
  EMBER_TRY(checkFusedActivation(types[0], attrs));
  return types;
}

Expected<TypeList> inferTypesFusedMatMul(ArrayRef<Type> in, const AttrList &attrs) {
  EMBER_ASSIGN_OR_RETURN(TypeList types, inferTypesMatMul(in, attrs));
  EMBER_TRY(checkFusedActivation(types[0], attrs));
  return types;
}

Expected<TypeList> inferTypesFullyConnected(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[ops::FullyConnected::Input], &w = in[ops::FullyConnected::Weights],
             &b = in[ops::FullyConnected::Bias];
  EMBER_TRY(expectFloat(x, "input"));
  if (x.rank() < 2)
    return makeError("input must have rank >= 2, got " + x.str());
  EMBER_TRY(expectRank(w, 2, "weights"));
  EMBER_TRY(expectRank(b, 1, "bias"));
  if (w.kind != x.kind || b.kind != x.kind)
    return makeError("input, weights and bias kinds differ: " + x.str() + ", " + w.str() + ", " +
                     b.str());
  if (x.dims.back() != w.dims[0])
    return makeError("inner dimensions differ: " + x.str() + " x " + w.str());
  if (b.dims[0] != w.dims[1])
    return makeError("bias " + b.str() + " does not match weights " + w.str());
  DimsVec dims = x.dims;
  dims.back() = w.dims[1];
  EMBER_ASSIGN_OR_RETURN(Type y, Type::checkedDims(x.kind, dims));
  EMBER_TRY(checkFusedActivation(y, attrs));
  return TypeList{y};
}

} // namespace ember
