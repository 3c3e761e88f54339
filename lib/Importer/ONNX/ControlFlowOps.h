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
