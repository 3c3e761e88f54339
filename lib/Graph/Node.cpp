#include "ember/Graph/Graph.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace ember {

namespace {
/// Unqualified attribute names, so Nodes.def can say ATTRS(Kernels, Strides).
namespace attr_names {
#define ATTR(E, T, N) constexpr AttrKind E = AttrKind::E;
#include "ember/Graph/Attrs.def"
} // namespace attr_names

/// "LHS, RHS" -> {"LHS", "RHS"}; "" -> {}.
std::vector<std::string> splitNames(StringRef list) {
  std::vector<std::string> out;
  SmallVector<StringRef, 8> parts;
  list.split(parts, ',', -1, false);
  for (StringRef p : parts)
    out.push_back(p.trim().str());
  return out;
}

std::vector<NodeInfo> buildNodeInfos() {
  std::vector<NodeInfo> infos;
  infos.push_back({"Placeholder", {}, {"Result"}, {}, false, "graph input or output"});
  infos.push_back({"Constant", {}, {"Result"}, {}, false, "weights known at compile time"});
#define OPERANDS(...) #__VA_ARGS__
#define RESULTS(...) #__VA_ARGS__
#define ATTRS(...) std::vector<AttrKind>{__VA_ARGS__}
#define NODE(K, OPS, RES, ATTR_LIST, ARITY, CAT, DOC)                                              \
  {                                                                                                \
    using namespace attr_names;                                                                    \
    infos.push_back({#K, splitNames(OPS), splitNames(RES), ATTR_LIST,                              \
                     std::string_view(#ARITY) == "Variadic", DOC});                                \
  }
#include "ember/Graph/Nodes.def"
#undef OPERANDS
#undef RESULTS
#undef ATTRS
  return infos;
}
} // namespace

const NodeInfo &getNodeInfo(NodeKind k) {
  static const std::vector<NodeInfo> infos = buildNodeInfos();
  return infos[unsigned(k)];
}

StringRef nodeKindName(NodeKind k) { return getNodeInfo(k).name; }

NodeCategory categoryOf(NodeKind k) {
  switch (k) {
  case NodeKind::Placeholder:
  case NodeKind::Constant:
    return NodeCategory::Storage;
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC)                                                  \
  case NodeKind::K:                                                                                \
    return NodeCategory::CAT;
#include "ember/Graph/Nodes.def"
  }
  return NodeCategory::Storage;
}

const Type &NodeValue::getType() const { return node->getType(resNo); }

Node::Node(NodeKind kind, StringRef name, ArrayRef<NodeValue> operands, ArrayRef<Type> results,
           AttrList attrs)
    : kind_(kind), name_(name.str()), results_(results.begin(), results.end()),
      attrs_(std::move(attrs)) {
  for (unsigned i = 0; i < operands.size(); ++i) {
    operands_.push_back(operands[i]);
    operands[i].node->addUser(this, i);
  }
}

Node::~Node() = default;

void Node::addUser(Node *user, unsigned idx) { users_.push_back({user, idx}); }

void Node::removeUser(Node *user, unsigned idx) {
  auto it = std::find_if(users_.begin(), users_.end(), [&](const NodeUse &u) {
    return u.user == user && u.operandIdx == idx;
  });
  assert(it != users_.end() && "use list out of sync");
  users_.erase(it);
}

void Node::setOperand(unsigned i, NodeValue v) {
  operands_[i].node->removeUser(this, i);
  operands_[i] = v;
  v.node->addUser(this, i);
}

void Node::replaceAllUsesOfWith(unsigned resNo, NodeValue v) {
  std::vector<NodeUse> uses = users_;
  for (const NodeUse &u : uses)
    if (u.user->getOperand(u.operandIdx).resNo == resNo)
      u.user->setOperand(u.operandIdx, v);
}

size_t Node::hash() const {
  size_t h = hash_combine(unsigned(kind_), attrs_.hash());
  for (const NodeValue &v : operands_)
    h = hash_combine(h, v.node, v.resNo);
  for (const Type &t : results_)
    h = hash_combine(h, t.hash());
  return h;
}

bool Node::isEqual(const Node &o) const {
  return kind_ == o.kind_ && operands_ == o.operands_ && results_ == o.results_ &&
         attrs_ == o.attrs_;
}

void Node::printSummary(raw_ostream &os) const {
  os << "%" << name_ << " = " << getKindName() << "(";
  for (unsigned i = 0; i < operands_.size(); ++i) {
    os << (i ? ", " : "") << "%" << operands_[i].node->getName();
    if (operands_[i].node->getNumResults() > 1)
      os << "#" << operands_[i].resNo;
  }
  os << ")";
}

} // namespace ember
