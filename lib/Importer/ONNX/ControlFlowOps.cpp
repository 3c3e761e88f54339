// ONNX control flow resolved at import: an If whose condition is known at compile time (a
// constant, or a value folded from constants or -onnx-define-input) is imported by picking its
// branch; a Loop whose trip count and condition are known then, and short enough
// (ImportOptions::unrollLoopsUpTo), is unrolled, its body imported once per iteration. Others
// become If and Loop nodes decided at run time (ControlFlowOpsRuntime.cpp); a Loop that cannot
// (a carried value that changes type) is unrolled when its bounds are known at compile time.
// Scan is in ControlFlowOpsScan.cpp.
#include "ControlFlowOps.h"

#include "DataMovementOps.h"

#include "ember/Importer/CompileTimeInputs.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

Expected<std::vector<ONNXValue>> UnrollBudget::importIteration(const onnx::GraphProto &body,
                                                                ArrayRef<ONNXValue> inputs) {
  if (iterations_ >= kMaxUnrolledIterations)
    return ctx_.fail("ember unrolls at most " + Twine(kMaxUnrolledIterations) +
                     " iterations of a loop at compile time, and this one runs more");
  EMBER_ASSIGN_OR_RETURN(std::vector<ONNXValue> outputs,
                         ctx_.importSubgraph(body, inputs, "iter" + std::to_string(iterations_)));
  ++iterations_;
  if (ctx_.functionSize() - nodesBefore_ > kMaxUnrolledNodes)
    return ctx_.fail("unrolling this loop at compile time creates more than " +
                     Twine(kMaxUnrolledNodes) + " nodes (after " + Twine(iterations_) +
                     " iterations), the most ember unrolls");
  return outputs;
}

Expected<NodeValue> concatElements(OpContext &ctx, ArrayRef<NodeValue> elements, int64_t axis,
                                   bool newAxis, StringRef suffix) {
  if (elements.empty())
    return ctx.fail("there are no tensors to concatenate");
  unsigned rank = elements[0].getType().rank();
  auto normalized = normalizeAxis(axis, newAxis ? rank + 1 : rank);
  if (!normalized)
    return ctx.fail(errorToString(normalized.takeError()));
  std::vector<NodeValue> pieces;
  for (NodeValue e : elements) {
    if (e.getType().kind != elements[0].getType().kind || e.getType().rank() != rank)
      return ctx.fail("cannot concatenate " + e.getType().str() + " with " +
                      elements[0].getType().str());
    if (newAxis) {
      DimsVec dims(e.getType().dims.begin(), e.getType().dims.end());
      dims.insert(dims.begin() + *normalized, 1);
      EMBER_ASSIGN_OR_RETURN(e, ctx.reshape(e, dims));
    }
    pieces.push_back(e);
  }
  if (pieces.size() == 1)
    return pieces[0];
  return ctx.create(NodeKind::Concat, pieces, AttrList().set<AttrKind::Axis>(*normalized), suffix);
}

Expected<NodeValue> elementAt(OpContext &ctx, NodeValue v, unsigned axis, dim_t index,
                              StringRef suffix) {
  EMBER_ASSIGN_OR_RETURN(NodeValue slice, sliceAxis(ctx, v, axis, index, 1, suffix));
  DimsVec dims(v.getType().dims.begin(), v.getType().dims.end());
  dims.erase(dims.begin() + axis);
  return ctx.reshape(slice, dims);
}

Expected<NodeValue> tensorOf(OpContext &ctx, const ONNXValue &v, const Twine &what) {
  if (!v.isPlainTensor())
    return ctx.fail(what + " is " + v.describe() + ", where a tensor is expected");
  return v.tensor;
}

namespace {

/// A one-element boolean or integer tensor's truth (If's and a Loop's condition).
Expected<bool> truthOf(OpContext &ctx, const Tensor &t, const Twine &what) {
  if (t.numElements() != 1)
    return ctx.fail(what + " must have one element, got " + t.getType().str());
  return t.elementAsDouble(0) != 0;
}

/// Why a control-flow node can be resolved neither at compile time (\p compileTime) nor at
/// run time (\p runTime). When graph inputs would let it resolve at compile time, only that
/// error: the tools act on it (binding the inputs and loading again).
Error compileTimeOr(Error compileTime, Error runTime, const Twine &why) {
  bool onlyInputs = true; // every error of the list asks for graph inputs
  Error all = Error::success();
  handleAllErrors(std::move(compileTime), [&](std::unique_ptr<ErrorInfoBase> e) {
    onlyInputs &= e->isA<CompileTimeInputsError>();
    all = joinErrors(std::move(all), Error(std::move(e)));
  });
  if (onlyInputs) {
    consumeError(std::move(runTime));
    return all;
  }
  return joinErrors(std::move(all), withContext(std::move(runTime), why));
}

/// If with a condition known at compile time: the chosen branch is imported inline. Else both
/// branches become bodies of an If node, decided at run time; when they cannot (they give values
/// of different types), the condition's graph inputs are asked for at compile time.
Error loadIf(OpContext &ctx) {
  auto cond = ctx.constantInput(0);
  if (!cond) {
    Error notConstant = cond.takeError();
    EMBER_ASSIGN_OR_RETURN(NodeValue condValue, ctx.input(0));
    Error atRunTime = loadIfAtRunTime(ctx, condValue);
    if (!atRunTime) {
      consumeError(std::move(notConstant));
      return Error::success();
    }
    return compileTimeOr(std::move(notConstant), std::move(atRunTime),
                         "and the If cannot be decided at run time");
  }
  EMBER_ASSIGN_OR_RETURN(bool taken, truthOf(ctx, **cond, "condition"));
  StringRef branchName = taken ? "then_branch" : "else_branch";
  EMBER_ASSIGN_OR_RETURN(const onnx::GraphProto *branch, ctx.getGraphAttr(branchName));
  if (branch->output_size() != int(ctx.numOutputs()))
    return ctx.fail(branchName + " has " + Twine(branch->output_size()) + " outputs, the node " +
                    Twine(ctx.numOutputs()));
  EMBER_ASSIGN_OR_RETURN(std::vector<ONNXValue> outputs,
                         ctx.importSubgraph(*branch, {}, branchName));
  for (unsigned i = 0; i < ctx.numOutputs(); ++i)
    EMBER_TRY(ctx.setOutputValue(i, std::move(outputs[i])));
  return Error::success();
}

/// Loop's operands M (the trip count) and cond, either omitted (nullopt), needed at compile
/// time: one error names every graph input they need.
Error loopBounds(OpContext &ctx, std::optional<int64_t> &tripCount, std::optional<bool> &cond) {
  SmallVector<unsigned, 2> present;
  for (unsigned i : {0u, 1u})
    if (ctx.hasInput(i))
      present.push_back(i);
  auto values = ctx.constantInputs(present, "a Loop unrolled at compile time needs its trip "
                                            "count and condition then (a constant, or a graph "
                                            "input fixed at compile time)");
  if (!values)
    return values.takeError();
  for (size_t k = 0; k < present.size(); ++k) {
    const Tensor &t = *(*values)[k];
    if (present[k] == 0) {
      EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> m, tensorInts(t, "trip count M"));
      if (m.size() != 1)
        return ctx.fail("trip count M must have one element, got " + Twine(m.size()));
      tripCount = m[0];
    } else {
      EMBER_ASSIGN_OR_RETURN(cond, truthOf(ctx, t, "condition"));
    }
  }
  return Error::success();
}

Error unrollLoop(OpContext &ctx, const onnx::GraphProto &loopBody, unsigned numCarried,
                 unsigned numScanOutputs, std::optional<int64_t> tripCount,
                 std::optional<bool> cond);

/// Loop(M, cond, v_initial...) with body(iteration_num, cond_in, v_in...) -> (cond_out,
/// v_out..., scan_out...): runs while i < M and cond (an omitted one holds); the outputs are
/// the last v_out and each scan_out of every iteration stacked on a new first axis.
Error loadLoop(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(const onnx::GraphProto *body, ctx.getGraphAttr("body"));
  if (ctx.numInputs() < 2)
    return ctx.fail("needs inputs M and cond (either may be empty), got " +
                    Twine(ctx.numInputs()) + " inputs");
  unsigned numCarried = ctx.numInputs() - 2;
  if (body->input_size() != int(2 + numCarried) || body->output_size() < int(1 + numCarried))
    return ctx.fail("the body has " + Twine(body->input_size()) + " inputs and " +
                    Twine(body->output_size()) + " outputs; with " + Twine(numCarried) +
                    " loop-carried values it needs " + Twine(2 + numCarried) +
                    " inputs and at least " + Twine(1 + numCarried) + " outputs");
  unsigned numScanOutputs = body->output_size() - 1 - numCarried;
  if (ctx.numOutputs() > numCarried + numScanOutputs)
    return ctx.fail("has " + Twine(ctx.numOutputs()) + " outputs, its body gives " +
                    Twine(numCarried + numScanOutputs));

  // A short loop known at compile time is unrolled, so that it folds and fuses; any other
  // becomes a loop in the IR. One the IR cannot hold (a carried value that changes type, a scan
  // output of run-time length) is unrolled, its bounds then needed at compile time.
  std::optional<int64_t> tripCount;
  std::optional<bool> cond;
  Error bounds = loopBounds(ctx, tripCount, cond);
  bool known = !bounds && (tripCount || cond);
  bool shortLoop = known && ((tripCount && *tripCount <= ctx.options().unrollLoopsUpTo) ||
                             (cond && !*cond));
  if (shortLoop)
    return unrollLoop(ctx, *body, numCarried, numScanOutputs, tripCount, cond);
  Error inIR = loadLoopInIR(ctx, *body, numCarried, numScanOutputs,
                            bounds ? std::nullopt : tripCount);
  if (!inIR) {
    consumeError(std::move(bounds));
    return Error::success();
  }
  if (bounds)
    return compileTimeOr(std::move(bounds), std::move(inIR), "and it cannot be a loop in the IR");
  Error unrolled = unrollLoop(ctx, *body, numCarried, numScanOutputs, tripCount, cond);
  if (!unrolled) {
    consumeError(std::move(inIR));
    return Error::success();
  }
  return joinErrors(std::move(unrolled),
                    withContext(std::move(inIR), "and it cannot be a loop in the IR"));
}

/// Loop unrolled at import, its body imported once per iteration: the trip count and
/// condition are known at compile time, and so must be the condition each iteration computes.
Error unrollLoop(OpContext &ctx, const onnx::GraphProto &loopBody, unsigned numCarried,
                 unsigned numScanOutputs, std::optional<int64_t> tripCount,
                 std::optional<bool> cond) {
  const onnx::GraphProto *body = &loopBody;
  if (!tripCount && !cond)
    return ctx.fail("has neither a trip count nor a condition, so it never ends");
  if (tripCount && !cond && *tripCount > kMaxUnrolledIterations) // said before unrolling any
    return ctx.fail("trip count " + Twine(*tripCount) + ": ember unrolls at most " +
                    Twine(kMaxUnrolledIterations) + " iterations of a loop at compile time");

  std::vector<ONNXValue> carried;
  for (unsigned i = 0; i < numCarried; ++i) {
    EMBER_ASSIGN_OR_RETURN(ONNXValue v, ctx.inputValue(2 + i));
    carried.push_back(std::move(v));
  }
  std::vector<std::vector<NodeValue>> scanned(numScanOutputs);
  UnrollBudget budget(ctx);
  bool keepGoing = cond.value_or(true);
  for (int64_t i = 0; keepGoing && (!tripCount || i < *tripCount); ++i) {
    std::string iteration = "iteration " + std::to_string(i);
    std::vector<ONNXValue> inputs = {
        ONNXValue::ofTensor(
            ctx.createConstant(Tensor::fromValues<int64_t>({}, {i}), "iter" + std::to_string(i))
                ->getResult()),
        ONNXValue::ofTensor(
            ctx.createConstant(Tensor::fromValues<bool>({}, {keepGoing}), "cond" + std::to_string(i))
                ->getResult())};
    inputs.insert(inputs.end(), carried.begin(), carried.end());
    EMBER_ASSIGN_OR_RETURN(std::vector<ONNXValue> outputs, budget.importIteration(*body, inputs));
    if (cond) { // without a cond input the body's condition is ignored (a for loop)
      std::string what = iteration + "'s condition '" + body->output(0).name() + "'";
      EMBER_ASSIGN_OR_RETURN(NodeValue condOut, tensorOf(ctx, outputs[0], what));
      auto value = ctx.constantValue(condOut, body->output(0).name());
      if (!value)
        return withContext(value.takeError(),
                           "Loop is unrolled at compile time, so the condition its body computes "
                           "must be known then (" + what + ")");
      EMBER_ASSIGN_OR_RETURN(keepGoing, truthOf(ctx, **value, what));
    }
    std::move(outputs.begin() + 1, outputs.begin() + 1 + numCarried, carried.begin());
    for (unsigned k = 0; k < numScanOutputs; ++k) {
      EMBER_ASSIGN_OR_RETURN(NodeValue v, tensorOf(ctx, outputs[1 + numCarried + k],
                                                   iteration + "'s scan output " + Twine(k)));
      scanned[k].push_back(v);
    }
  }
  for (unsigned i = 0; i < numCarried; ++i)
    EMBER_TRY(ctx.setOutputValue(i, std::move(carried[i])));
  for (unsigned k = 0; k < numScanOutputs; ++k) {
    if (!ctx.hasOutput(numCarried + k))
      continue;
    if (scanned[k].empty())
      return ctx.fail("the loop runs no iteration, so its scan output " + Twine(k) +
                      " is empty, which ember does not support");
    EMBER_ASSIGN_OR_RETURN(NodeValue stacked,
                           concatElements(ctx, scanned[k], 0, /*newAxis=*/true,
                                          "scan_output" + std::to_string(k)));
    EMBER_TRY(ctx.setOutput(numCarried + k, stacked));
  }
  return Error::success();
}

} // namespace

void registerControlFlowOps(OpRegistry &r) {
  r.add("If", 1, loadIf);
  r.add("Loop", 1, loadLoop);
  registerControlFlowScanOps(r);
}

} // namespace ember
