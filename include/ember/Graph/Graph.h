// Module (placeholders, constants, functions) and Function (a DAG of compute nodes).
#ifndef EMBER_GRAPH_GRAPH_H
#define EMBER_GRAPH_GRAPH_H

#include "ember/Graph/Node.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace ember {

class Module;

class Function {
  Module *parent_;
  std::string name_;
  std::vector<std::unique_ptr<Node>> nodes_;

public:
  Function(Module *parent, llvm::StringRef name) : parent_(parent), name_(name.str()) {}
  ~Function();
  Module *getParent() const { return parent_; }
  llvm::StringRef getName() const { return name_; }

  /// Creates a node whose result types follow from its kind's shape rule; fails with the
  /// rule's reason (the caller adds which node and where).
  llvm::Expected<Node *> createNode(NodeKind kind, llvm::StringRef name,
                                    llvm::ArrayRef<NodeValue> operands, AttrList attrs = {});
  /// Creates a node with given result types (cloning, tests); verify() checks them.
  Node *createNodeWithTypes(NodeKind kind, llvm::StringRef name,
                            llvm::ArrayRef<NodeValue> operands, llvm::ArrayRef<Type> results,
                            AttrList attrs = {});

  /// Nodes in creation order (which the importers keep topological).
  const std::vector<std::unique_ptr<Node>> &getNodes() const { return nodes_; }
  size_t size() const { return nodes_.size(); }
  /// Nodes in an order where each comes after its operands.
  std::vector<Node *> topologicalOrder() const;
  /// Removes \p n, which must have no users.
  void eraseNode(Node *n);
  /// Removes all nodes for which \p pred holds; they may only be used by each other.
  size_t eraseNodesIf(const std::function<bool(Node *)> &pred);

  /// Checks every node: operand counts, attributes, operand types against the shape rule, users.
  llvm::Error verify() const;
  /// Text dump: each node with kind, name, operand and result types, attributes and users.
  void dump(llvm::raw_ostream &os) const;
  /// Graphviz DOT of this function.
  void dumpDAG(llvm::raw_ostream &os) const;
};

class Module {
  std::vector<std::unique_ptr<Function>> functions_;
  std::vector<std::unique_ptr<Placeholder>> placeholders_;
  std::vector<std::unique_ptr<Constant>> constants_;
  llvm::StringSet<> usedNames_;

public:
  Module();
  ~Module();

  Function *createFunction(llvm::StringRef name);
  /// Removes \p F and its nodes (a body the importer built and then did not use).
  void eraseFunction(Function *F);
  /// Names are unique in a module: a taken \p name gets a suffix.
  Placeholder *createPlaceholder(const Type &ty, llvm::StringRef name, bool reserved = false);
  Constant *createConstant(Tensor t, llvm::StringRef name);
  /// A fresh name based on \p base.
  std::string uniqueName(llvm::StringRef base);
  /// Keeps \p name for a later createPlaceholder(..., /*reserved=*/true); false if taken.
  bool reserveName(llvm::StringRef name) { return usedNames_.insert(name).second; }

  const std::vector<std::unique_ptr<Function>> &getFunctions() const { return functions_; }
  Function *getFunction(llvm::StringRef name) const;
  const std::vector<std::unique_ptr<Placeholder>> &getPlaceholders() const { return placeholders_; }
  const std::vector<std::unique_ptr<Constant>> &getConstants() const { return constants_; }
  Placeholder *getPlaceholder(llvm::StringRef name) const;
  /// Removes constants no node uses; returns how many.
  size_t eraseUnusedConstants();
  /// Placeholders some Save node writes (graph outputs), in creation order.
  std::vector<Placeholder *> getOutputPlaceholders() const;
  /// Placeholders no Save node writes (graph inputs), in creation order.
  std::vector<Placeholder *> getInputPlaceholders() const;
};

/// The result types \p kind produces from \p operands and \p attrs, or why it cannot.
llvm::Expected<llvm::SmallVector<Type, 1>> inferResultTypes(NodeKind kind,
                                                            llvm::ArrayRef<NodeValue> operands,
                                                            const AttrList &attrs);

} // namespace ember

#endif
