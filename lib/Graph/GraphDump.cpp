// Text and Graphviz dumps of a Function (-dump-graph, -dump-graph-DAG).
#include "ember/Graph/Graph.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ember {

static void printOperandName(raw_ostream &os, const NodeValue &v) {
  os << "%" << v.node->getName();
  if (v.node->getNumResults() > 1)
    os << "#" << v.resNo;
}

void Function::dump(raw_ostream &os) const {
  const Module &m = *parent_;
  os << "function " << name_ << " (" << nodes_.size() << " nodes)\n";
  for (const auto &p : m.getPlaceholders())
    os << "  placeholder %" << p->getName() << " : " << p->getType().str() << "\n";
  for (const auto &c : m.getConstants())
    os << "  constant %" << c->getName() << " : " << c->getType().str() << "\n";
  for (Node *n : topologicalOrder()) {
    const NodeInfo &info = getNodeInfo(n->getKind());
    os << "  %" << n->getName() << " = " << info.name;
    if (n->getNumResults()) {
      os << " : ";
      for (unsigned r = 0; r < n->getNumResults(); ++r)
        os << (r ? ", " : "") << n->getType(r).str();
    }
    os << "\n";
    for (unsigned i = 0; i < n->getNumOperands(); ++i) {
      StringRef opName = i < info.operandNames.size() ? StringRef(info.operandNames[i])
                                                      : StringRef(info.operandNames.back());
      os << "      " << opName << ": ";
      printOperandName(os, n->getOperand(i));
      os << " : " << n->getOperand(i).getType().str() << "\n";
    }
    if (!n->getAttrs().items().empty()) {
      os << "      { ";
      n->getAttrs().print(os);
      os << " }\n";
    }
    if (n->hasUsers()) {
      os << "      users:";
      for (const NodeUse &u : n->getUsers())
        os << " %" << u.user->getName();
      os << "\n";
    }
  }
}

static std::string escapeDOT(StringRef s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\' || c == '{' || c == '}' || c == '<' || c == '>' || c == '|')
      out += '\\';
    out += c;
  }
  return out;
}

void Function::dumpDAG(raw_ostream &os) const {
  os << "digraph \"" << escapeDOT(name_) << "\" {\n  rankdir=TB;\n  node [shape=record];\n";
  auto id = [](const Node *n) { return "n" + utohexstr(uintptr_t(n)); };
  std::vector<const Node *> storage;
  for (Node *n : topologicalOrder()) {
    std::string label = "{" + escapeDOT(n->getKindName()) + "|" + escapeDOT(n->getName());
    for (unsigned r = 0; r < n->getNumResults(); ++r)
      label += "|" + escapeDOT(n->getType(r).str());
    label += "}";
    os << "  " << id(n) << " [label=\"" << label << "\"];\n";
    for (const NodeValue &v : n->getOperands()) {
      if (v.node->isStorage() &&
          std::find(storage.begin(), storage.end(), v.node) == storage.end()) {
        storage.push_back(v.node);
        os << "  " << id(v.node) << " [label=\"{" << escapeDOT(v.node->getKindName()) << "|"
           << escapeDOT(v.node->getName()) << "|" << escapeDOT(v.getType().str())
           << "}\", style=filled, fillcolor="
           << (v.node->getKind() == NodeKind::Constant ? "lightgrey" : "lightblue") << "];\n";
      }
      os << "  " << id(v.node) << " -> " << id(n) << ";\n";
    }
  }
  os << "}\n";
}

} // namespace ember
