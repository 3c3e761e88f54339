// fuse-activations: an activation (a row of Nodes/FusedActivations.def; Clip only with constant
// bounds) whose input is a float Conv, MatMul or FullyConnected without an activation, used by
// nothing else, is folded into it: Conv becomes FusedConv, MatMul FusedMatMul, and FullyConnected
// gets the activation in its FusedActivation attribute. Safe because the fused kernels apply the
// activation to each result element after rounding it to the element kind, with the separate node's
// formula (ember/Semantics/ScalarFormulas.inc), so the values are bit for bit those of the two
// nodes; the producer has no other user, so its unactivated result is not needed elsewhere. Clip
// bounds must be representable as float (the attribute's type), which every float32, float16 and
// bfloat16 bound is.
#include "FusionUtils.h"
#include "Passes.h"

#include "ember/Graph/FusedActivations.h"

#include <optional>

using namespace llvm;

namespace ember {

using namespace fusion;

namespace {

struct Activation {
  std::string name;
  std::vector<float> args;
};

/// The one-element constant \p v as a float, if it has one exactly (NaN included).
std::optional<float> exactFloat(NodeValue v) {
  Constant *c = asConstant(v);
  if (!c || c->getType().numElements() != 1)
    return std::nullopt;
  double d = c->getPayload().elementAsDouble(0);
  float f = float(d);
  if (double(f) != d && !std::isnan(d))
    return std::nullopt;
  return f;
}

/// The fused form of activation node \p n (a row of Nodes/FusedActivations.def), if it has one:
/// its arguments are the node's Alpha and Beta attributes, or Clip's constant bounds.
std::optional<Activation> activationOf(const Node &n) {
  const FusedActivationInfo *info = fusedActivationFrom(n);
  if (!info)
    return std::nullopt;
  Activation a{info->name.str(), {}};
  if (n.getKind() == NodeKind::Clip) {
    std::optional<float> lo = exactFloat(n.getOperand(ops::Clip::Min));
    std::optional<float> hi = exactFloat(n.getOperand(ops::Clip::Max));
    if (!lo || !hi)
      return std::nullopt;
    a.args = {*lo, *hi};
  } else {
    if (info->arity > 0)
      a.args.push_back(n.attr<AttrKind::Alpha>());
    if (info->arity > 1)
      a.args.push_back(n.attr<AttrKind::Beta>());
  }
  if (a.args.size() != info->arity)
    return std::nullopt;
  return a;
}

/// The fused kind \p producer becomes with an activation, if it can take one.
std::optional<NodeKind> fusedKindOf(const Node &producer) {
  switch (producer.getKind()) {
  case NodeKind::Conv: return NodeKind::FusedConv;
  case NodeKind::MatMul: return NodeKind::FusedMatMul;
  case NodeKind::FullyConnected:
    if (producer.attr<AttrKind::FusedActivation>().empty())
      return NodeKind::FullyConnected;
    return std::nullopt;
  default: return std::nullopt;
  }
}

bool fuse(Function &F, Node *act) {
  std::optional<Activation> a = activationOf(*act);
  if (!a)
    return false;
  // Every activation matched above reads its input as operand 0.
  Node *producer = act->getOperand(0).node;
  std::optional<NodeKind> kind = fusedKindOf(*producer);
  if (!kind || !isFloatKind(producer->getType().kind) || !onlyUsedBy(producer, act) ||
      producer->getType() != act->getType())
    return false;
  AttrList attrs = producer->getAttrs();
  attrs.set<AttrKind::FusedActivation>(a->name).set<AttrKind::FusedActivationArgs>(a->args);
  return replaceWithNew(F, act, *kind, producer->getName(),
                        SmallVector<NodeValue, 3>(producer->getOperands().begin(),
                                                  producer->getOperands().end()),
                        std::move(attrs));
}

} // namespace

bool runFuseActivations(Function &F, const PassContext &) {
  bool changed = false;
  for (Node *n : F.topologicalOrder())
    changed |= fuse(F, n);
  return changed;
}

} // namespace ember
