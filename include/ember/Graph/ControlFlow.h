// The contract between a control-flow node (If, Loop: Nodes/ControlFlow.def) and its bodies:
// which operand a body's BodyInput k stands for, which result its BodyOutput k gives, and the
// check that the types agree. Everything that walks bodies (the verifier, the optimizer, IRGen,
// the importer) asks here.
#ifndef EMBER_GRAPH_CONTROLFLOW_H
#define EMBER_GRAPH_CONTROLFLOW_H

#include "ember/Graph/Graph.h"

#include "llvm/ADT/SmallVector.h"

namespace ember {

/// A Loop body's first inputs and outputs (ONNX's Loop body signature): BodyInput 0 is the
/// iteration number (int64 scalar), 1 the running condition (bool scalar), 2 + k the Loop's
/// Inputs[k] (loop-carried values first, then values read from outside). BodyOutput 0 is the
/// next condition, 1 + k the next value of carried value k, then the scan outputs.
constexpr unsigned kLoopIterationInput = 0, kLoopConditionInput = 1, kLoopFirstInput = 2;
constexpr unsigned kLoopConditionOutput = 0, kLoopFirstCarriedOutput = 1;

/// If, Loop and the nodes connecting their bodies: no backend kernel runs them; they become
/// control-flow markers around the bodies' code, which backends support as such.
inline bool isControlFlowNode(NodeKind k) {
  return categoryOf(k) == NodeCategory::ControlFlow || k == NodeKind::BodyOutput;
}

/// The bodies \p n runs (If: then, else; Loop: its body); none for other kinds. A body named
/// but missing from the module is left out (verifyControlFlow reports it).
llvm::SmallVector<Function *, 2> bodiesOf(const Node &n);

/// A body's BodyInput and BodyOutput nodes by index; slots no node claims are null.
llvm::SmallVector<Node *, 8> bodyInputsOf(const Function &body);
llvm::SmallVector<Node *, 8> bodyOutputsOf(const Function &body);

/// The type BodyInput \p index of a body of \p n must have, or an error when \p n hands no
/// value at that index.
llvm::Expected<Type> bodyInputType(const Node &n, unsigned index);

/// Checks \p n (If or Loop) against its bodies: they exist, every BodyInput has the type of
/// what \p n hands it, every result has a BodyOutput of its type, and a Loop's condition and
/// carried values keep their types.
llvm::Error verifyControlFlow(const Node &n);

/// Whether \p F holds a control-flow node.
bool hasControlFlow(const Function &F);

/// The bodies \p F's control-flow nodes run, and theirs, each once, outermost first.
std::vector<Function *> nestedBodies(const Function &F);

} // namespace ember

#endif
