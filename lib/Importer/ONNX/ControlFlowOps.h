// Shared by the loaders that unroll a subgraph at import (ControlFlowOps.cpp: Loop;
// ControlFlowOpsScan.cpp: Scan; SequenceOps.cpp: SequenceMap) and by those that take tensors
// apart into pieces or put pieces together (Scan, Loop, the sequence operators).
#ifndef EMBER_LIB_IMPORTER_ONNX_CONTROLFLOWOPS_H
#define EMBER_LIB_IMPORTER_ONNX_CONTROLFLOWOPS_H

#include "OpContext.h"

namespace ember {

void registerControlFlowScanOps(OpRegistry &r);

/// At most this many iterations of a Loop, Scan or SequenceMap are unrolled, and one unrolled
/// node creates at most this many nodes: beyond, the model is refused rather than compiled into
/// a huge graph.
constexpr int64_t kMaxUnrolledIterations = 1024;
constexpr size_t kMaxUnrolledNodes = 100000;
/// A sequence is a compile-time list of graph values: one op may build at most this many
/// elements (SplitToSequence of a long axis), beyond which the model is refused.
constexpr size_t kMaxSequenceLength = 4096;

/// Imports a body once per iteration for one node, refusing beyond kMaxUnrolledIterations
/// iterations or kMaxUnrolledNodes nodes created, so a model cannot make the compiler build an
/// unbounded graph.
class UnrollBudget {
  OpContext &ctx_;
  size_t nodesBefore_;
  int64_t iterations_ = 0;

public:
  explicit UnrollBudget(OpContext &ctx) : ctx_(ctx), nodesBefore_(ctx.functionSize()) {}
  /// \p body imported once more, its inputs bound to \p inputs; its outputs' values.
  llvm::Expected<std::vector<ONNXValue>> importIteration(const onnx::GraphProto &body,
                                                         llvm::ArrayRef<ONNXValue> inputs);
  int64_t iterations() const { return iterations_; }
};

/// If with a condition \p cond known only at run time: both branches become bodies of an If
/// node (ControlFlowOpsRuntime.cpp); an error when a branch cannot (outputs of different types,
/// sequences).
llvm::Error loadIfAtRunTime(OpContext &ctx, NodeValue cond);

/// Loop as a loop in the IR: its body becomes the body of a Loop node, run while the trip count
/// and condition allow at run time. \p knownTrip is the trip count when known at compile time
/// (required for scan outputs). An error when the loop needs unrolling instead (a carried
/// value that changes type, sequences, scan outputs of a run-time length).
llvm::Error loadLoopInIR(OpContext &ctx, const onnx::GraphProto &body, unsigned numCarried,
                         unsigned numScanOutputs, std::optional<int64_t> knownTrip);

/// Scan (opset 9 on) as a loop in the IR of \p length iterations: iteration t runs \p body on
/// the states and element t (reversed: length-1-t) of each scan input along its axis; the scan
/// outputs stack along a new first axis, in iteration order.
llvm::Error loadScanInIR(OpContext &ctx, const onnx::GraphProto &body,
                         llvm::ArrayRef<NodeValue> states, llvm::ArrayRef<NodeValue> scanInputs,
                         llvm::ArrayRef<int64_t> inputAxes,
                         llvm::ArrayRef<int64_t> inputDirections, dim_t length);

/// \p elements (at least one) joined along \p axis or, when \p newAxis, stacked along a new
/// axis \p axis (ConcatFromSequence's new_axis; a Loop's or Scan's scan outputs). Negative axes
/// count from the end of the result.
llvm::Expected<NodeValue> concatElements(OpContext &ctx, llvm::ArrayRef<NodeValue> elements,
                                         int64_t axis, bool newAxis, llvm::StringRef suffix);

/// The sub-tensor of \p v at \p index along \p axis, that axis removed (T<axis>[index] in the
/// Scan spec's notation).
llvm::Expected<NodeValue> elementAt(OpContext &ctx, NodeValue v, unsigned axis, dim_t index,
                                    llvm::StringRef suffix);

/// \p v (a body's output, say) as a tensor; \p what names it in the error when it is a sequence
/// or an optional.
llvm::Expected<NodeValue> tensorOf(OpContext &ctx, const ONNXValue &v, const llvm::Twine &what);

} // namespace ember

#endif
