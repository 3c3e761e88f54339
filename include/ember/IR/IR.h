// The low-level IR: an instruction list over addresses. Values are WeightVars (graph placeholders
// and constants), the activations that AllocActivation instructions define, and TensorViews: a
// typed window at a byte offset into another value (a reshape or a contiguous slice that costs
// nothing, a concat input written in place). Every instruction operand is read (@in), written
// (@out) or both (@inout). Instructions derived from a node kind put the node's results first
// (@out, or @inout when an element-wise instruction overwrites one of its inputs), then its
// operands (@in), and keep its attributes.
#ifndef EMBER_IR_IR_H
#define EMBER_IR_IR_H

#include "ember/Graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/Error.h"

#include <list>
#include <memory>
#include <string>
#include <vector>

namespace ember {

enum class InstrKind : uint8_t {
  AllocActivation,   ///< defines an activation buffer (the instruction is the value)
  DeallocActivation, ///< ends an activation's lifetime
  Copy,              ///< @out dest, @in src of the same type
  TensorView,        ///< @in base; a value of its own type at viewOffset bytes into base
  // Control flow (the graph's If and Loop), as structured markers around the instructions of
  // the bodies, which IRGen places inline. Regions nest; every IfBegin has its IfElse and IfEnd,
  // every LoopBegin its LoopEnd. An allocation made in a region is freed in it, so a value that
  // crosses a region boundary lives outside the whole region, and the memory plan's intervals
  // over the flat list stay sound.
  IfBegin,       ///< @in cond (one bool): runs the instructions up to IfElse when it is true
  IfElse,        ///< ends the then-region; runs up to IfEnd when IfBegin's condition was false
  IfEnd,         ///< ends the if
  LoopBegin,     ///< @out iter (int64 scalar), @in tripCount (int64 scalar), @in cond (bool
                 ///< scalar) { MaxTripCount }: iter := 0; then before each iteration, leaves
                 ///< the loop unless iter < tripCount && cond, and fails if iter reaches
                 ///< MaxTripCount. The body may write cond.
  LoopEnd,       ///< @inout iter: ++iter and back to the test before the loop's body
  StoreIteration, ///< @inout dest, @in value, @in iter: value's bytes into dest at byte offset
                  ///< iter * size(value) (a Loop's scan output); only inside a loop
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC) K,
#include "ember/Graph/Nodes.def"
};

llvm::StringRef instrKindName(InstrKind k);
/// The instruction kind a node kind becomes (Save becomes Copy).
InstrKind instrKindFor(NodeKind k);
/// The node kind an instruction kind was derived from; false for IR-only kinds.
bool nodeKindFor(InstrKind ik, NodeKind &nk);

enum class OperandMode : uint8_t { In, Out, InOut };
llvm::StringRef operandModeName(OperandMode m);

/// Which memory region a value lives in (the bundle ABI's three buffers).
enum class MemRegion : uint8_t { Constant, Mutable, Activations };
llvm::StringRef memRegionName(MemRegion r);

constexpr uint64_t kUnplanned = ~uint64_t(0);

class IRValue {
public:
  enum class ValueKind : uint8_t { WeightVar, Instruction };

private:
  ValueKind valueKind_;
  std::string name_;
  Type type_;

public:
  /// Byte offset inside the value's region, set by the memory planner.
  uint64_t offset = kUnplanned;

  IRValue(ValueKind vk, llvm::StringRef name, const Type &ty)
      : valueKind_(vk), name_(name.str()), type_(ty) {}
  virtual ~IRValue() = default;
  ValueKind getValueKind() const { return valueKind_; }
  llvm::StringRef getName() const { return name_; }
  const Type &getType() const { return type_; }
  size_t sizeInBytes() const { return type_.sizeInBytes(); }
};

class WeightVar : public IRValue {
  const Node *origin_; ///< the Placeholder or Constant it stands for

public:
  /// Never written by any instruction (a model input or a constant); set by the IR optimizer,
  /// so backends may treat it as read-only.
  bool readOnly = false;
  /// Bytes the memory plan keeps for a constant that the backend stores in a larger layout of
  /// its own (the CPU backend's Winograd filters); 0: its value's bytes. Set by
  /// Backend::reserveConstants.
  uint64_t reservedBytes = 0;

  WeightVar(const Node *origin)
      : IRValue(ValueKind::WeightVar, origin->getName(), origin->getType()), origin_(origin) {}
  const Node *getOrigin() const { return origin_; }
  bool isConstant() const { return origin_->getKind() == NodeKind::Constant; }
  MemRegion getRegion() const { return isConstant() ? MemRegion::Constant : MemRegion::Mutable; }
  static bool classof(const IRValue *v) { return v->getValueKind() == ValueKind::WeightVar; }
};

struct InstrOperand {
  IRValue *value;
  OperandMode mode;
};

class Instruction : public IRValue {
  InstrKind kind_;
  llvm::SmallVector<InstrOperand, 4> operands_;
  AttrList attrs_;
  unsigned numOutputs_;

public:
  /// TensorView only: where the view starts inside its base, in bytes.
  uint64_t viewOffset = 0;
  /// Working memory the backend's kernel needs while this instruction runs (a GEMM's packed
  /// panels, a padded copy of a conv's input): set by the driver from Backend::getScratchBytes,
  /// placed in the activations region by the memory planner, live for this instruction only.
  uint64_t scratchSize = 0, scratchOffset = kUnplanned;

  /// \p ty is meaningful only for AllocActivation (the buffer's type) and TensorView.
  Instruction(InstrKind kind, llvm::StringRef name, llvm::ArrayRef<InstrOperand> operands,
              AttrList attrs, unsigned numOutputs, const Type &ty = Type())
      : IRValue(ValueKind::Instruction, name, ty), kind_(kind),
        operands_(operands.begin(), operands.end()), attrs_(std::move(attrs)),
        numOutputs_(numOutputs) {}

  InstrKind getKind() const { return kind_; }
  llvm::StringRef getKindName() const { return instrKindName(kind_); }
  llvm::ArrayRef<InstrOperand> getOperands() const { return operands_; }
  IRValue *getOperand(unsigned i) const { return operands_[i].value; }
  void setOperand(unsigned i, IRValue *v) { operands_[i].value = v; }
  void setOperandMode(unsigned i, OperandMode m) { operands_[i].mode = m; }
  unsigned getNumOperands() const { return operands_.size(); }
  /// Node-derived instructions: result \p r of the node, and operand \p i of the node.
  IRValue *getOutput(unsigned r = 0) const { return operands_[r].value; }
  IRValue *getInput(unsigned i) const { return operands_[numOutputs_ + i].value; }
  unsigned getNumInputs() const { return operands_.size() - numOutputs_; }
  unsigned getNumOutputs() const { return numOutputs_; }
  const AttrList &getAttrs() const { return attrs_; }
  template <AttrKind K> const typename AttrTraits<K>::type &attr() const {
    return attrs_.template get<K>();
  }
  static bool classof(const IRValue *v) { return v->getValueKind() == ValueKind::Instruction; }
};

/// The region of an IR value: a WeightVar's, Activations for allocations, a view's base's.
MemRegion regionOf(const IRValue *v);

/// The storage a value lives in: a WeightVar or an AllocActivation, following TensorViews, and
/// the byte offset of the value inside it.
struct ValueRoot {
  IRValue *root;
  uint64_t offset;
};
ValueRoot rootOf(IRValue *v);
inline bool isAllocation(const IRValue *v) {
  auto *I = llvm::dyn_cast<Instruction>(v);
  return I && I->getKind() == InstrKind::AllocActivation;
}
inline bool isTensorView(const IRValue *v) {
  auto *I = llvm::dyn_cast<Instruction>(v);
  return I && I->getKind() == InstrKind::TensorView;
}
/// Instructions that only manage memory (allocation, deallocation, views) and compute nothing.
bool isMemoryMarker(InstrKind k);
/// IfBegin, IfElse, IfEnd, LoopBegin, LoopEnd: they move control, and compute nothing.
inline bool isControlMarker(InstrKind k) {
  return k == InstrKind::IfBegin || k == InstrKind::IfElse || k == InstrKind::IfEnd ||
         k == InstrKind::LoopBegin || k == InstrKind::LoopEnd;
}

/// Floating-point operations of \p I's multiply-adds, two each, for the kinds that are products
/// (Conv, FusedConv, ConvTranspose, MatMul, FusedMatMul, FullyConnected); 0 for the others.
/// What -profile divides by time for GFLOP/s, and what a backend weighs splitting work by.
int64_t productFlops(const Instruction &I);

/// Whether output 0 of \p I may share its buffer with input \p input (be written in place over
/// it): I is element-wise (element i of the result reads only element i of each input) and the
/// input has the result's type. The verifier and the buffer-sharing pass ask this one question.
bool canWriteInPlace(const Instruction &I, unsigned input);

class IRFunction {
  const Function *graph_;
  std::vector<std::unique_ptr<WeightVar>> weights_;
  std::list<std::unique_ptr<Instruction>> instrs_;
  llvm::DenseMap<const Node *, WeightVar *> weightOf_;

public:
  /// Region sizes, set by the memory planner.
  uint64_t constantSize = 0, mutableSize = 0, activationsSize = 0;
  /// Activations, set by the memory planner: the sum of all allocation sizes (no reuse at all)
  /// and the most bytes live at one instruction (what no placement can beat).
  uint64_t activationsSum = 0, activationsPeakLive = 0;
  /// Kernel scratch apart from values, set by the memory planner: the region the values alone
  /// would take (packed without any scratch), and the largest one instruction's scratch.
  uint64_t activationsValuesSize = 0, scratchLargest = 0;
  std::string scratchLargestAt;

  explicit IRFunction(const Function *graph) : graph_(graph) {}
  const Function *getGraph() const { return graph_; }

  WeightVar *createWeightVar(const Node *storage);
  WeightVar *getWeightVar(const Node *storage) const { return weightOf_.lookup(storage); }
  const std::vector<std::unique_ptr<WeightVar>> &getWeights() const { return weights_; }

  Instruction *append(std::unique_ptr<Instruction> instr);
  using InstrList = std::list<std::unique_ptr<Instruction>>;
  Instruction *insert(InstrList::iterator before, std::unique_ptr<Instruction> instr);
  /// Replaces \p from by \p to in every operand of every instruction but deallocations.
  void replaceAllUsesWith(IRValue *from, IRValue *to);
  InstrList &getInstrs() { return instrs_; }
  const InstrList &getInstrs() const { return instrs_; }
  /// Whether the instructions hold control-flow regions (IfBegin, LoopBegin). The IR passes
  /// that move lifetimes or writes assume straight-line code and skip such functions.
  bool hasControlFlow() const;

  /// Checks operand modes, types against the node kinds' shape rules, views against their bases,
  /// that every activation is allocated before use and deallocated once after its last use, that
  /// every byte read was written before, and that every @inout is a legal in-place write.
  llvm::Error verify() const;
  /// `declare { ... }` of WeightVars with sizes, then `N %name = kind @out %a, @in %b { attrs }`.
  void dump(llvm::raw_ostream &os) const;
  /// The three regions' sizes, and the activations' peak live bytes and sum against their region.
  void printMemorySummary(llvm::raw_ostream &os) const;
  /// The most bytes one graph node touches outside constants: its results and its non-constant
  /// operands (model inputs included). A yardstick for the activations region.
  uint64_t largestNodeFootprint() const;
};

} // namespace ember

#endif
