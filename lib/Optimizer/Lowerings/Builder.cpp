#include "Lowerings.h"

#include "ember/Graph/FusedActivations.h"

using namespace llvm;

namespace ember {
namespace lowering {

NodeValue Builder::create(NodeKind kind, ArrayRef<NodeValue> operands, AttrList attrs,
                          unsigned resNo) {
  if (failed_ || llvm::any_of(operands, [](NodeValue v) { return !v; })) {
    failed_ = true;
    return {};
  }
  Expected<Node *> n =
      F_.createNode(kind, (orig_.getName() + "." + nodeKindName(kind)).str(), operands,
                    std::move(attrs));
  if (!n) {
    // The shape rule refused (an operand kind the subgraph cannot take): decline.
    consumeError(n.takeError());
    failed_ = true;
    return {};
  }
  return (*n)->getResult(resNo);
}

NodeValue Builder::scalar(ElemKind k, double value) {
  if (failed_)
    return {};
  Tensor t(Type(k, {}));
  t.setElementFromDouble(0, value);
  return F_.getParent()->createConstant(std::move(t), orig_.getName().str() + ".const")
      ->getResult();
}

NodeValue Builder::splat(ElemKind k, ArrayRef<dim_t> dims, double value) {
  return broadcast(scalar(k, value), dims);
}

NodeValue Builder::splat(NodeValue like, double value) {
  if (!like) {
    failed_ = true;
    return {};
  }
  return splat(like.getType().kind, like.getType().dims, value);
}

/// \p v as a \p kind (Broadcast or Reshape) to \p dims; \p v itself when it has them.
NodeValue Builder::toDims(NodeKind kind, NodeValue v, ArrayRef<dim_t> dims) {
  if (v && ArrayRef<dim_t>(v.getType().dims) == dims)
    return v;
  AttrList attrs;
  attrs.set<AttrKind::Dims>(std::vector<int64_t>(dims.begin(), dims.end()));
  return create(kind, {v}, std::move(attrs));
}

NodeValue Builder::perChannel(NodeValue v, ArrayRef<dim_t> dims) {
  DimsVec channel(dims.size(), 1);
  channel[1] = dims[1];
  return broadcast(reshape(v, channel), dims);
}

NodeValue Builder::slice(NodeValue v, size_t axis, dim_t start, dim_t count) {
  if (!v) {
    failed_ = true;
    return {};
  }
  const DimsVec &dims = v.getType().dims;
  std::vector<int64_t> starts(dims.size(), 0), steps(dims.size(), 1),
      result(dims.begin(), dims.end());
  starts[axis] = int64_t(start);
  result[axis] = int64_t(count);
  AttrList attrs;
  attrs.set<AttrKind::Starts>(std::move(starts))
      .set<AttrKind::Steps>(std::move(steps))
      .set<AttrKind::Dims>(std::move(result));
  return create(NodeKind::Slice, {v}, std::move(attrs));
}

NodeValue Builder::unary(StringRef function, NodeValue v) {
  AttrList attrs;
  attrs.set<AttrKind::Function>(function.str());
  return create(NodeKind::Unary, {v}, std::move(attrs));
}

NodeValue Builder::reduce(StringRef reduction, NodeValue v, ArrayRef<int64_t> axes) {
  AttrList attrs;
  attrs.set<AttrKind::Reduction>(reduction.str())
      .set<AttrKind::Axes>(std::vector<int64_t>(axes.begin(), axes.end()));
  return create(NodeKind::Reduce, {v}, std::move(attrs));
}

NodeValue Builder::activation(StringRef name, ArrayRef<float> args, NodeValue v) {
  const FusedActivationInfo *info;
  bool known = resolveFusedActivation(name, args.size(), info);
  if (known && !info)
    return v; // no activation
  if (!known || !v) {
    failed_ = true; // an activation the shape rules do not know
    return {};
  }
  // The node fuse-activations took it from (Nodes/FusedActivations.def): a Unary of its
  // function, Clip with its arguments as bounds, or a kind taking them as Alpha and Beta.
  if (info->from == NodeKind::Unary)
    return unary(info->fromFunction, v);
  if (info->from == NodeKind::Clip) {
    ElemKind k = v.getType().kind;
    return create(NodeKind::Clip, {v, scalar(k, args[0]), scalar(k, args[1])});
  }
  AttrList attrs;
  if (info->arity > 0)
    attrs.set<AttrKind::Alpha>(args[0]);
  if (info->arity > 1)
    attrs.set<AttrKind::Beta>(args[1]);
  return create(info->from, {v}, std::move(attrs));
}

bool Builder::replace(ArrayRef<NodeValue> results) {
  if (failed_ || results.size() != orig_.getNumResults())
    return false;
  for (unsigned i = 0; i < results.size(); ++i) {
    bool used = llvm::any_of(orig_.getUsers(), [&](const NodeUse &u) {
      return u.user->getOperand(u.operandIdx).resNo == i;
    });
    if (used && (!results[i] || results[i].getType() != orig_.getType(i)))
      return false;
  }
  for (unsigned i = 0; i < results.size(); ++i)
    if (results[i])
      orig_.replaceAllUsesOfWith(i, results[i]);
  return !orig_.hasUsers();
}

} // namespace lowering
} // namespace ember
