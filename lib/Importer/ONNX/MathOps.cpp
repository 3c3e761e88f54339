// ONNX element-wise arithmetic, comparisons, logic and activations.
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

/// Binary element-wise op with numpy broadcasting: both operands are broadcast to the common
/// shape, so the ember node sees equal types.
template <NodeKind K> Error loadBinary(OpContext &ctx) {
  if (ctx.opset() < 7 && ctx.hasAttr("broadcast"))
    return ctx.fail("legacy 'broadcast' attribute (opset < 7) is not supported");
  EMBER_ASSIGN_OR_RETURN(NodeValue a, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue b, ctx.input(1));
  if (a.getType().kind != b.getType().kind)
    return ctx.fail("operand types differ: " + a.getType().str() + " and " + b.getType().str());
  EMBER_ASSIGN_OR_RETURN(DimsVec dims, broadcastShapes(a.getType().dims, b.getType().dims));
  EMBER_ASSIGN_OR_RETURN(a, ctx.broadcastTo(a, dims));
  EMBER_ASSIGN_OR_RETURN(b, ctx.broadcastTo(b, dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue r, ctx.create(K, {a, b}));
  return ctx.setOutput(0, r);
}

template <NodeKind K> Error loadUnary(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue r, ctx.create(K, {x}));
  return ctx.setOutput(0, r);
}

} // namespace

void registerMathOps(OpRegistry &r) {
  r.add("Add", 1, loadBinary<NodeKind::Add>);
  r.add("Sub", 1, loadBinary<NodeKind::Sub>);
  r.add("Mul", 1, loadBinary<NodeKind::Mul>);
  r.add("Div", 1, loadBinary<NodeKind::Div>);
  r.add("Relu", 1, loadUnary<NodeKind::Relu>);
  r.add("Sigmoid", 1, loadUnary<NodeKind::Sigmoid>);
  r.add("Tanh", 1, loadUnary<NodeKind::Tanh>);
}

} // namespace ember
