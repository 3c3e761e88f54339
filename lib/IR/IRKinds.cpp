// The IR's kinds and their names: instruction kinds (and the node kinds they come from),
// operand modes and memory regions, as -dump-ir prints them.
#include "ember/IR/IR.h"

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
  case InstrKind::TensorView:
    return "tensorview";
  case InstrKind::IfBegin:
    return "ifbegin";
  case InstrKind::IfElse:
    return "ifelse";
  case InstrKind::IfEnd:
    return "ifend";
  case InstrKind::LoopBegin:
    return "loopbegin";
  case InstrKind::LoopEnd:
    return "loopend";
  case InstrKind::StoreIteration:
    return "storeiteration";
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC)                                                  \
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
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC)                                                  \
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
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC)                                                  \
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

} // namespace ember
