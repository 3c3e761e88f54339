#include "ember/Graph/Graph.h"
#include "ember/Graph/ControlFlow.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

using namespace llvm;

namespace ember {

//===-- Function ---------------------------------------------------------===//

Function::~Function() {
  // Drop uses first so that storage nodes' user lists never point at freed nodes.
  for (auto &n : nodes_)
    for (unsigned i = 0; i < n->getNumOperands(); ++i)
      n->getOperand(i).node->removeUser(n.get(), i);
}

Expected<Node *> Function::createNode(NodeKind kind, StringRef name,
                                      ArrayRef<NodeValue> operands, AttrList attrs) {
  EMBER_ASSIGN_OR_RETURN(auto types, inferResultTypes(kind, operands, attrs));
  return createNodeWithTypes(kind, name, operands, types, std::move(attrs));
}

Node *Function::createNodeWithTypes(NodeKind kind, StringRef name, ArrayRef<NodeValue> operands,
                                    ArrayRef<Type> results, AttrList attrs) {
  auto n = std::make_unique<Node>(kind, parent_->uniqueName(name), operands, results,
                                  std::move(attrs));
  n->parent_ = this;
  nodes_.push_back(std::move(n));
  return nodes_.back().get();
}

std::vector<Node *> Function::topologicalOrder() const {
  std::vector<Node *> order;
  DenseSet<Node *> visited;
  // Iterative post-order DFS: deep graphs must not overflow the stack.
  for (const auto &root : nodes_) {
    if (visited.count(root.get()))
      continue;
    SmallVector<std::pair<Node *, unsigned>, 32> stack{{root.get(), 0}};
    visited.insert(root.get());
    while (!stack.empty()) {
      auto &[n, next] = stack.back();
      if (next < n->getNumOperands()) {
        Node *op = n->getOperand(next++).node;
        if (!op->isStorage() && op->getParent() == this && visited.insert(op).second)
          stack.push_back({op, 0});
        continue;
      }
      order.push_back(n);
      stack.pop_back();
    }
  }
  return order;
}

void Function::eraseNode(Node *n) {
  assert(!n->hasUsers() && "erasing a node that is still used");
  for (unsigned i = 0; i < n->getNumOperands(); ++i)
    n->getOperand(i).node->removeUser(n, i);
  auto it = std::find_if(nodes_.begin(), nodes_.end(),
                         [&](const std::unique_ptr<Node> &p) { return p.get() == n; });
  assert(it != nodes_.end() && "node is not in this function");
  nodes_.erase(it);
}

size_t Function::eraseNodesIf(const std::function<bool(Node *)> &pred) {
  SmallPtrSet<Node *, 16> doomed;
  for (auto &n : nodes_)
    if (pred(n.get()))
      doomed.insert(n.get());
  for (Node *n : doomed) {
    for (unsigned i = 0; i < n->getNumOperands(); ++i)
      n->getOperand(i).node->removeUser(n, i);
  }
  for (Node *n : doomed)
    assert(!n->hasUsers() && "erased node is used by a surviving node");
  size_t before = nodes_.size();
  nodes_.erase(std::remove_if(nodes_.begin(), nodes_.end(),
                              [&](const std::unique_ptr<Node> &p) { return doomed.count(p.get()); }),
               nodes_.end());
  return before - nodes_.size();
}

Error Function::verify() const {
  Error errs = Error::success();
  DenseSet<const Node *> mine;
  for (const auto &n : nodes_)
    mine.insert(n.get());
  DenseMap<const Node *, const Node *> writers;
  for (const auto &n : nodes_) {
    auto fail = [&](const Twine &why) {
      errs = joinErrors(std::move(errs), makeError("node '" + n->getName() + "' (" +
                                                   n->getKindName() + "): " + why));
    };
    for (const NodeValue &v : n->getOperands())
      if (!v.node->isStorage() && !mine.count(v.node))
        fail("operand '" + v.node->getName() + "' is not in function '" + name_ + "'");
    if (n->getKind() == NodeKind::If || n->getKind() == NodeKind::Loop) {
      if (Error e = verifyControlFlow(*n))
        fail(errorToString(std::move(e)));
      continue; // typed by its bodies, not by a shape rule
    }
    if (n->getKind() == NodeKind::BodyInput)
      continue; // typed by the node that runs the body (verifyControlFlow)
    auto types = inferResultTypes(n->getKind(), n->getOperands(), n->getAttrs());
    if (!types) {
      fail(errorToString(types.takeError()));
      continue;
    }
    if (ArrayRef<Type>(*types) != n->getResultTypes())
      fail("result types do not follow from the operands");
    if (n->getKind() == NodeKind::Save) {
      const Node *out = n->getOperand(ops::Save::Output).node;
      if (out->getKind() != NodeKind::Placeholder)
        fail("writes to '" + out->getName() + "', which is not a placeholder");
      else if (!writers.try_emplace(out, n.get()).second)
        fail("placeholder '" + out->getName() + "' is written twice");
    }
    for (const NodeUse &u : n->getUsers())
      if (u.operandIdx >= u.user->getNumOperands() ||
          u.user->getOperand(u.operandIdx).node != n.get())
        fail("use list out of sync");
  }
  return errs;
}

//===-- Module -----------------------------------------------------------===//

Module::Module() = default;
Module::~Module() {
  functions_.clear(); // functions first: their nodes use the storage
}

Function *Module::createFunction(StringRef name) {
  functions_.push_back(std::make_unique<Function>(this, name));
  return functions_.back().get();
}

std::string Module::uniqueName(StringRef base) {
  std::string name = base.empty() ? "v" : base.str();
  if (usedNames_.insert(name).second)
    return name;
  for (unsigned i = 1;; ++i) {
    std::string candidate = name + "__" + std::to_string(i);
    if (usedNames_.insert(candidate).second)
      return candidate;
  }
}

Placeholder *Module::createPlaceholder(const Type &ty, StringRef name, bool reserved) {
  placeholders_.push_back(
      std::make_unique<Placeholder>(reserved ? name.str() : uniqueName(name), ty));
  return placeholders_.back().get();
}

Constant *Module::createConstant(Tensor t, StringRef name) {
  constants_.push_back(std::make_unique<Constant>(uniqueName(name), std::move(t)));
  return constants_.back().get();
}

void Module::eraseFunction(Function *F) {
  functions_.erase(std::remove_if(functions_.begin(), functions_.end(),
                                  [&](const std::unique_ptr<Function> &f) { return f.get() == F; }),
                   functions_.end());
}

Function *Module::getFunction(StringRef name) const {
  for (const auto &f : functions_)
    if (f->getName() == name)
      return f.get();
  return nullptr;
}

Placeholder *Module::getPlaceholder(StringRef name) const {
  for (const auto &p : placeholders_)
    if (p->getName() == name)
      return p.get();
  return nullptr;
}

size_t Module::eraseUnusedConstants() {
  size_t before = constants_.size();
  constants_.erase(std::remove_if(constants_.begin(), constants_.end(),
                                  [](const std::unique_ptr<Constant> &c) { return !c->hasUsers(); }),
                   constants_.end());
  return before - constants_.size();
}

bool Placeholder::isSaveTarget() const {
  for (const NodeUse &u : getUsers())
    if (u.user->getKind() == NodeKind::Save && u.operandIdx == ops::Save::Output)
      return true;
  return false;
}

std::vector<Placeholder *> Module::getOutputPlaceholders() const {
  std::vector<Placeholder *> out;
  for (const auto &p : placeholders_)
    if (p->isSaveTarget())
      out.push_back(p.get());
  return out;
}

std::vector<Placeholder *> Module::getInputPlaceholders() const {
  std::vector<Placeholder *> in;
  for (const auto &p : placeholders_)
    if (!p->isSaveTarget())
      in.push_back(p.get());
  return in;
}

} // namespace ember
