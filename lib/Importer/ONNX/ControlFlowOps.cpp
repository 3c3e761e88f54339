// ONNX control flow. ember compiles static graphs: If is imported by picking its branch, so its
// condition must be known at compile time (a constant, or a value folded from constants or
// -onnx-define-input); Loop and Scan are refused with the reason.
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

/// If with a condition known at compile time: the chosen branch is imported inline.
Error loadIf(OpContext &ctx) {
  auto cond = ctx.constantInput(0);
  if (!cond)
    return withContext(cond.takeError(),
                       "If is compiled by picking a branch, so its condition must be known at "
                       "compile time; data-dependent control flow is not supported");
  if ((*cond)->numElements() != 1)
    return ctx.fail("condition must have one element, got " + (*cond)->getType().str());
  StringRef branchName = (*cond)->elementAsDouble(0) != 0 ? "then_branch" : "else_branch";
  const onnx::GraphProto *branch = nullptr;
  for (const auto &a : ctx.proto().attribute())
    if (a.name() == branchName && a.type() == onnx::AttributeProto::GRAPH)
      branch = &a.g();
  if (!branch)
    return ctx.fail("attribute '" + branchName + "' (a graph) is missing");
  if (branch->output_size() != int(ctx.numOutputs()))
    return ctx.fail(branchName + " has " + Twine(branch->output_size()) + " outputs, the node " +
                    Twine(ctx.numOutputs()));
  EMBER_TRY(ctx.importSubgraph(*branch));
  for (unsigned i = 0; i < ctx.numOutputs(); ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.value(branch->output(i).name()));
    EMBER_TRY(ctx.setOutput(i, v));
  }
  return Error::success();
}

Error refuseLoop(OpContext &ctx) {
  return ctx.fail("Loop is not supported: its iteration count and condition are computed at run "
                  "time, and ember compiles static graphs");
}

Error refuseScan(OpContext &ctx) {
  return ctx.fail("Scan is not supported: ember compiles static graphs and does not unroll "
                  "scan bodies");
}

} // namespace

void registerControlFlowOps(OpRegistry &r) {
  r.add("If", 1, loadIf);
  r.add("Loop", 1, refuseLoop);
  r.add("Scan", 8, refuseScan);
}

} // namespace ember
