// The IR as text: -dump-ir (IRFunction::dump) and the memory summary of -print-memory.
#include "ember/IR/IR.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ember {

static void printOffset(raw_ostream &os, const IRValue *v) {
  if (v->offset != kUnplanned)
    os << " @" << memRegionName(regionOf(v)) << "+" << v->offset;
}

uint64_t IRFunction::largestNodeFootprint() const {
  if (!graph_)
    return 0;
  uint64_t largest = 0;
  for (const auto &n : graph_->getNodes()) {
    if (n->getKind() == NodeKind::Save)
      continue;
    SmallVector<NodeValue, 8> values;
    for (unsigned r = 0; r < n->getNumResults(); ++r)
      values.push_back(NodeValue(n.get(), r));
    for (const NodeValue &v : n->getOperands())
      if (v.node->getKind() != NodeKind::Constant && !llvm::is_contained(values, v))
        values.push_back(v);
    uint64_t bytes = 0;
    for (const NodeValue &v : values)
      bytes += v.getType().sizeInBytes();
    largest = std::max(largest, bytes);
  }
  return largest;
}

void IRFunction::printMemorySummary(raw_ostream &os) const {
  auto mib = [](uint64_t b) { return format("%.3f MiB", double(b) / (1 << 20)); };
  os << "memory {\n";
  os << "  constant:    " << constantSize << " bytes (" << mib(constantSize) << ")\n";
  os << "  mutable:     " << mutableSize << " bytes (" << mib(mutableSize) << ")\n";
  os << "  activations: " << activationsSize << " bytes (" << mib(activationsSize) << ")";
  if (activationsSize)
    os << "; peak live " << activationsPeakLive << " ("
       << format("%.1f%%", 100.0 * activationsPeakLive / activationsSize)
       << " of the region), sum of all " << activationsSum << " ("
       << format("%.2fx", double(activationsSum) / activationsSize) << " the region)";
  if (scratchLargest)
    os << "\n  scratch:     largest " << scratchLargest << " bytes (" << mib(scratchLargest)
       << ", %" << scratchLargestAt << "); the values alone take " << activationsValuesSize
       << " bytes (" << mib(activationsValuesSize) << ")";
  os << "\n  largest node: " << largestNodeFootprint()
     << " bytes of non-constant inputs and outputs (" << mib(largestNodeFootprint()) << ")\n}\n";
}

void IRFunction::dump(raw_ostream &os) const {
  os << "function " << (graph_ ? graph_->getName() : "?") << "\n";
  os << "declare {\n";
  for (const auto &w : weights_) {
    os << "  %" << w->getName() << " : " << w->getType().str() << " ("
       << (w->isConstant() ? "constant" : "mutable") << (w->readOnly && !w->isConstant() ? ", read-only" : "")
       << ", " << w->sizeInBytes() << " bytes";
    printOffset(os, w.get());
    os << ")\n";
  }
  os << "}\n";
  if (constantSize || mutableSize || activationsSize)
    printMemorySummary(os);
  os << "code {\n";
  unsigned index = 0, depth = 0;
  for (const auto &I : instrs_) {
    InstrKind k = I->getKind();
    if (k == InstrKind::IfElse || k == InstrKind::IfEnd || k == InstrKind::LoopEnd)
      depth -= depth ? 1 : 0;
    os << "  " << std::string(2 * depth, ' ') << index++ << " %" << I->getName() << " = "
       << I->getKindName();
    if (k == InstrKind::IfBegin || k == InstrKind::IfElse || k == InstrKind::LoopBegin)
      ++depth;
    bool first = true;
    for (const InstrOperand &op : I->getOperands()) {
      os << (first ? " " : ", ") << operandModeName(op.mode) << " %" << op.value->getName();
      first = false;
    }
    if (I->getKind() == InstrKind::AllocActivation || I->getKind() == InstrKind::TensorView) {
      os << " { type: " << I->getType().str() << ", bytes: " << I->sizeInBytes();
      if (I->getKind() == InstrKind::TensorView)
        os << ", view offset: " << I->viewOffset;
      if (I->offset != kUnplanned)
        os << ", at: " << memRegionName(regionOf(I.get())) << "+" << I->offset;
      os << " }";
    } else if (!I->getAttrs().items().empty()) {
      os << " { ";
      I->getAttrs().print(os);
      os << " }";
    }
    if (I->scratchSize) {
      os << " scratch { bytes: " << I->scratchSize;
      if (I->scratchOffset != kUnplanned)
        os << ", at: activations+" << I->scratchOffset;
      os << " }";
    }
    os << "\n";
  }
  os << "}\n";
}

} // namespace ember
