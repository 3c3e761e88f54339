#include "ember/IR/IR.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ember {

StringRef instrKindName(InstrKind k) {
  switch (k) {
  case InstrKind::AllocActivation:
    return "allocactivation";
  case InstrKind::DeallocActivation:
    return "deallocactivation";
  case InstrKind::Copy:
    return "copy";
#define NODE(K, OPS, RES, ATTRS, ARITY, DOC)                                                       \
  case InstrKind::K: {                                                                             \
    static const std::string lower = StringRef(#K).lower();                                        \
    return lower;                                                                                  \
  }
#include "ember/Graph/Nodes.def"
  }
  return "?";
}

InstrKind instrKindFor(NodeKind k) {
  switch (k) {
#define NODE(K, OPS, RES, ATTRS, ARITY, DOC)                                                       \
  case NodeKind::K:                                                                                \
    return NodeKind::K == NodeKind::Save ? InstrKind::Copy : InstrKind::K;
#include "ember/Graph/Nodes.def"
  case NodeKind::Placeholder:
  case NodeKind::Constant:
    break;
  }
  assert(false && "storage has no instruction kind");
  return InstrKind::Copy;
}

bool nodeKindFor(InstrKind ik, NodeKind &nk) {
  switch (ik) {
#define NODE(K, OPS, RES, ATTRS, ARITY, DOC)                                                       \
  case InstrKind::K:                                                                               \
    nk = NodeKind::K;                                                                              \
    return true;
#include "ember/Graph/Nodes.def"
  default:
    return false;
  }
}

StringRef operandModeName(OperandMode m) {
  switch (m) {
  case OperandMode::In:
    return "@in";
  case OperandMode::Out:
    return "@out";
  case OperandMode::InOut:
    return "@inout";
  }
  return "?";
}

StringRef memRegionName(MemRegion r) {
  switch (r) {
  case MemRegion::Constant:
    return "constant";
  case MemRegion::Mutable:
    return "mutable";
  case MemRegion::Activations:
    return "activations";
  }
  return "?";
}

MemRegion regionOf(const IRValue *v) {
  if (auto *w = dyn_cast<WeightVar>(v))
    return w->getRegion();
  return MemRegion::Activations;
}

WeightVar *IRFunction::createWeightVar(const Node *storage) {
  weights_.push_back(std::make_unique<WeightVar>(storage));
  weightOf_[storage] = weights_.back().get();
  return weights_.back().get();
}

Instruction *IRFunction::append(std::unique_ptr<Instruction> instr) {
  instrs_.push_back(std::move(instr));
  return instrs_.back().get();
}

Error IRFunction::verify() const {
  Error errs = Error::success();
  DenseSet<const IRValue *> live, dead, written, known;
  for (const auto &w : weights_) {
    known.insert(w.get());
    // Inputs and constants hold data before the first instruction runs.
    written.insert(w.get());
  }
  unsigned index = 0;
  for (const auto &I : instrs_) {
    auto fail = [&](const Twine &why) {
      errs = joinErrors(std::move(errs), makeError("instruction " + Twine(index) + " '" +
                                                   I->getName() + "' (" + I->getKindName() +
                                                   "): " + why));
    };
    switch (I->getKind()) {
    case InstrKind::AllocActivation:
      if (I->getNumOperands() != 0)
        fail("takes no operands");
      live.insert(I.get());
      known.insert(I.get());
      break;
    case InstrKind::DeallocActivation: {
      const auto *alloc = dyn_cast<Instruction>(I->getOperand(0));
      if (!alloc || alloc->getKind() != InstrKind::AllocActivation)
        fail("deallocates something that is not an allocation");
      else if (!live.erase(alloc))
        fail("deallocates '" + alloc->getName() + "', which is not live");
      else
        dead.insert(alloc);
      break;
    }
    default: {
      for (const InstrOperand &op : I->getOperands()) {
        if (!known.count(op.value) || dead.count(op.value)) {
          fail("operand '" + op.value->getName() + "' is not live here");
          continue;
        }
        if (isa<WeightVar>(op.value) && cast<WeightVar>(op.value)->isConstant() &&
            op.mode != OperandMode::In)
          fail("writes constant weight '" + op.value->getName() + "'");
        if (op.mode != OperandMode::Out && !written.count(op.value))
          fail("reads '" + op.value->getName() + "' before anything writes it");
      }
      for (const InstrOperand &op : I->getOperands())
        if (op.mode != OperandMode::In)
          written.insert(op.value);
      if (I->getKind() == InstrKind::Copy) {
        if (I->getNumOperands() != 2 || I->getOperand(0)->getType() != I->getOperand(1)->getType())
          fail("copies between different types");
        break;
      }
      NodeKind nk;
      if (!nodeKindFor(I->getKind(), nk)) {
        fail("unknown instruction kind");
        break;
      }
      // Type-check through the node kind's shape rule: one rule for graph and IR.
      const NodeInfo &info = getNodeInfo(nk);
      if (I->getNumOutputs() != info.resultNames.size()) {
        fail("has " + Twine(I->getNumOutputs()) + " outputs, " + info.name + " has " +
             Twine(info.resultNames.size()));
        break;
      }
      SmallVector<std::unique_ptr<Placeholder>, 4> stand;
      SmallVector<NodeValue, 4> operands;
      for (unsigned i = 0; i < I->getNumInputs(); ++i) {
        stand.push_back(std::make_unique<Placeholder>("in", I->getInput(i)->getType()));
        operands.push_back(NodeValue(stand.back().get()));
      }
      auto types = inferResultTypes(nk, operands, I->getAttrs());
      if (!types) {
        fail(errorToString(types.takeError()));
        break;
      }
      for (unsigned r = 0; r < I->getNumOutputs(); ++r)
        if ((*types)[r] != I->getOutput(r)->getType())
          fail("output " + Twine(r) + " has type " + I->getOutput(r)->getType().str() +
               ", the operands imply " + (*types)[r].str());
    }
    }
    ++index;
  }
  for (const IRValue *v : live)
    errs = joinErrors(std::move(errs),
                      makeError("activation '" + v->getName() + "' is never deallocated"));
  return errs;
}

static void printOffset(raw_ostream &os, const IRValue *v) {
  if (v->offset != kUnplanned)
    os << " @" << memRegionName(regionOf(v)) << "+" << v->offset;
}

void IRFunction::dump(raw_ostream &os) const {
  os << "function " << (graph_ ? graph_->getName() : "?") << "\n";
  os << "declare {\n";
  for (const auto &w : weights_) {
    os << "  %" << w->getName() << " : " << w->getType().str() << " ("
       << (w->isConstant() ? "constant" : "mutable") << ", " << w->sizeInBytes() << " bytes";
    printOffset(os, w.get());
    os << ")\n";
  }
  os << "}\n";
  if (constantSize || mutableSize || activationsSize)
    os << "memory { constant: " << constantSize << ", mutable: " << mutableSize
       << ", activations: " << activationsSize << " }\n";
  os << "code {\n";
  unsigned index = 0;
  for (const auto &I : instrs_) {
    os << "  " << index++ << " %" << I->getName() << " = " << I->getKindName();
    bool first = true;
    for (const InstrOperand &op : I->getOperands()) {
      os << (first ? " " : ", ") << operandModeName(op.mode) << " %" << op.value->getName();
      first = false;
    }
    if (I->getKind() == InstrKind::AllocActivation) {
      os << " { type: " << I->getType().str() << ", bytes: " << I->sizeInBytes();
      if (I->offset != kUnplanned)
        os << ", offset: " << I->offset;
      os << " }";
    } else if (!I->getAttrs().items().empty()) {
      os << " { ";
      I->getAttrs().print(os);
      os << " }";
    }
    os << "\n";
  }
  os << "}\n";
}

} // namespace ember
