// The high-level graph's node: a kind from Nodes.def (or storage), typed results, operands that
// are (node, result number) pairs, attributes, and the list of its users.
#ifndef EMBER_GRAPH_NODE_H
#define EMBER_GRAPH_NODE_H

#include "ember/Base/Tensor.h"
#include "ember/Base/Type.h"
#include "ember/Graph/Attribute.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace ember {

class Function;
class Node;

enum class NodeKind : uint8_t {
  Placeholder,
  Constant,
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC) K,
#include "ember/Graph/Nodes.def"
};

/// Operand and result indices by name: `ops::Conv::Filter`, `ops::Conv::Result`,
/// `ops::Conv::NumOperands`.
namespace ops {
#define EMBER_INDEX_LIST(...) __VA_OPT__(__VA_ARGS__, )
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC)                                                  \
  namespace K {                                                                                    \
  enum OperandIdx : unsigned { OPS NumOperands };                                                  \
  enum ResultIdx : unsigned { RES NumResults };                                                    \
  }
#define OPERANDS EMBER_INDEX_LIST
#define RESULTS EMBER_INDEX_LIST
#include "ember/Graph/Nodes.def"
#undef OPERANDS
#undef RESULTS
#undef EMBER_INDEX_LIST
} // namespace ops

/// The Category column of Nodes.def: what a pass or backend asks of a kind instead of listing
/// kinds by hand. Placeholder and Constant are Storage.
enum class NodeCategory : uint8_t {
  Storage,
  ElementwiseUnary,
  ElementwiseNary,
  NN,
  Normalization,
  Reduction,
  DataMovement,
  Quantized,
  Recurrent,
  ControlFlow,
  Output,
};

NodeCategory categoryOf(NodeKind k);

/// The element-wise family (Nodes/Elementwise.def): each result element is computed from the
/// operands' elements at its index alone.
inline bool isElementwise(NodeKind k) {
  NodeCategory c = categoryOf(k);
  return c == NodeCategory::ElementwiseUnary || c == NodeCategory::ElementwiseNary;
}

/// What the node table knows about a kind.
struct NodeInfo {
  llvm::StringRef name;
  std::vector<std::string> operandNames;
  std::vector<std::string> resultNames;
  std::vector<AttrKind> attrs;
  bool variadic; ///< the last operand repeats
  llvm::StringRef doc;
};
const NodeInfo &getNodeInfo(NodeKind k);
llvm::StringRef nodeKindName(NodeKind k);

/// One result of a node.
struct NodeValue {
  Node *node = nullptr;
  unsigned resNo = 0;

  NodeValue() = default;
  NodeValue(Node *n, unsigned r = 0) : node(n), resNo(r) {}
  const Type &getType() const;
  explicit operator bool() const { return node != nullptr; }
  bool operator==(const NodeValue &o) const { return node == o.node && resNo == o.resNo; }
  bool operator!=(const NodeValue &o) const { return !(*this == o); }
};

struct NodeUse {
  Node *user;
  unsigned operandIdx;
};

class Node {
  NodeKind kind_;
  std::string name_;
  llvm::SmallVector<NodeValue, 3> operands_;
  llvm::SmallVector<Type, 1> results_;
  AttrList attrs_;
  std::vector<NodeUse> users_;
  Function *parent_ = nullptr;

  void addUser(Node *user, unsigned idx);
  void removeUser(Node *user, unsigned idx);
  friend class Function;

protected:
  Node(NodeKind kind, llvm::StringRef name, llvm::ArrayRef<Type> results)
      : kind_(kind), name_(name.str()), results_(results.begin(), results.end()) {}

public:
  Node(NodeKind kind, llvm::StringRef name, llvm::ArrayRef<NodeValue> operands,
       llvm::ArrayRef<Type> results, AttrList attrs);
  virtual ~Node();
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;

  NodeKind getKind() const { return kind_; }
  llvm::StringRef getKindName() const { return nodeKindName(kind_); }
  llvm::StringRef getName() const { return name_; }
  void setName(llvm::StringRef n) { name_ = n.str(); }
  bool isStorage() const { return kind_ == NodeKind::Placeholder || kind_ == NodeKind::Constant; }
  Function *getParent() const { return parent_; }

  unsigned getNumOperands() const { return operands_.size(); }
  NodeValue getOperand(unsigned i) const { return operands_[i]; }
  llvm::ArrayRef<NodeValue> getOperands() const { return operands_; }
  /// Operands from \p first on (a variadic kind's repeated operand).
  llvm::ArrayRef<NodeValue> getOperandsFrom(unsigned first) const {
    return llvm::ArrayRef<NodeValue>(operands_).drop_front(first);
  }
  void setOperand(unsigned i, NodeValue v);

  unsigned getNumResults() const { return results_.size(); }
  const Type &getType(unsigned r = 0) const { return results_[r]; }
  llvm::ArrayRef<Type> getResultTypes() const { return results_; }
  NodeValue getResult(unsigned r = 0) { return NodeValue(this, r); }

  const AttrList &getAttrs() const { return attrs_; }
  template <AttrKind K> const typename AttrTraits<K>::type &attr() const {
    return attrs_.get<K>();
  }

  llvm::ArrayRef<NodeUse> getUsers() const { return users_; }
  bool hasUsers() const { return !users_.empty(); }
  /// Points every user of (this, \p resNo) at \p v instead.
  void replaceAllUsesOfWith(unsigned resNo, NodeValue v);

  /// Structural hash and equality (kind, operands, result types, attributes): the basis of CSE.
  size_t hash() const;
  bool isEqual(const Node &o) const;
  /// "%name = Kind(...)"; one line.
  void printSummary(llvm::raw_ostream &os) const;
};

/// Graph inputs and outputs: a typed slot the caller fills or reads.
class Placeholder : public Node {
public:
  Placeholder(llvm::StringRef name, const Type &ty) : Node(NodeKind::Placeholder, name, {ty}) {}
  /// Whether a Save node writes it: a model output (otherwise an input).
  bool isSaveTarget() const;
};

/// Weights: a named tensor known at compile time.
class Constant : public Node {
  Tensor payload_;

public:
  Constant(llvm::StringRef name, Tensor t)
      : Node(NodeKind::Constant, name, {t.getType()}), payload_(std::move(t)) {}
  const Tensor &getPayload() const { return payload_; }
};

} // namespace ember

#endif
