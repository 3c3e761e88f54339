// ONNX Scan. The number of iterations is the scan inputs' length along their scan axis, which
// their static shapes give. A long scan becomes a loop in the IR (ControlFlowOpsRuntime.cpp);
// a short one, or one whose outputs stack other than the loop's way, is unrolled at import:
// the body is imported once per iteration with the state values carried from one to the next,
// the scan inputs sliced and the scan outputs stacked along their axis. Scan-8 has a batch axis 0 on every input and output and
// optional per-batch lengths: each batch element is scanned on its own.
#include "ControlFlowOps.h"

#include "ember/Importer/ModelLoader.h"
#include "ember/Support/Error.h"

#include <algorithm>

using namespace llvm;

namespace ember {

namespace {

/// How the body runs over the scan inputs (after Scan-8's batch axis is taken apart).
struct ScanSpec {
  const onnx::GraphProto *body;
  unsigned numStates;
  std::vector<int64_t> inputAxes;        ///< normalized for the scan inputs' ranks
  std::vector<int64_t> inputDirections;  ///< 1: from the last element to the first
  std::vector<int64_t> outputAxes;       ///< may be negative (counted in the output's rank)
  std::vector<int64_t> outputDirections; ///< 1: each iteration's element goes first
};

struct ScanResult {
  std::vector<NodeValue> states;
  std::vector<NodeValue> scanOutputs;
};

/// \p length iterations of \p spec's body over \p scanInputs, from the states \p states.
Expected<ScanResult> unrollScan(OpContext &ctx, const ScanSpec &spec,
                                std::vector<NodeValue> states, ArrayRef<NodeValue> scanInputs,
                                dim_t length, UnrollBudget &budget) {
  unsigned numScanOutputs = spec.body->output_size() - spec.numStates;
  std::vector<std::vector<NodeValue>> elements(numScanOutputs);
  for (dim_t t = 0; t < length; ++t) {
    std::string iteration = "iteration " + std::to_string(t);
    std::vector<ONNXValue> inputs;
    for (NodeValue s : states)
      inputs.push_back(ONNXValue::ofTensor(s));
    for (size_t j = 0; j < scanInputs.size(); ++j) {
      dim_t index = spec.inputDirections[j] ? length - 1 - t : t;
      EMBER_ASSIGN_OR_RETURN(NodeValue element,
                             elementAt(ctx, scanInputs[j], unsigned(spec.inputAxes[j]), index,
                                       "scan_input" + std::to_string(j)));
      inputs.push_back(ONNXValue::ofTensor(element));
    }
    EMBER_ASSIGN_OR_RETURN(std::vector<ONNXValue> outputs, budget.importIteration(*spec.body, inputs));
    for (unsigned i = 0; i < spec.numStates; ++i) {
      EMBER_ASSIGN_OR_RETURN(states[i],
                             tensorOf(ctx, outputs[i], iteration + "'s state " + Twine(i)));
    }
    for (unsigned k = 0; k < numScanOutputs; ++k) {
      EMBER_ASSIGN_OR_RETURN(NodeValue v, tensorOf(ctx, outputs[spec.numStates + k],
                                                   iteration + "'s scan output " + Twine(k)));
      elements[k].push_back(v);
    }
  }
  ScanResult result{std::move(states), {}};
  for (unsigned k = 0; k < numScanOutputs; ++k) {
    if (elements[k].empty())
      return ctx.fail("the scan runs no iteration, so its scan output " + Twine(k) +
                      " is empty, which ember does not support");
    if (spec.outputDirections[k])
      std::reverse(elements[k].begin(), elements[k].end());
    EMBER_ASSIGN_OR_RETURN(NodeValue stacked,
                           concatElements(ctx, elements[k], spec.outputAxes[k], /*newAxis=*/true,
                                          "scan_output" + std::to_string(k)));
    result.scanOutputs.push_back(stacked);
  }
  return result;
}

/// An attribute of \p count flags (directions) or axes, \p count zeros when absent.
Expected<std::vector<int64_t>> perInputAttr(OpContext &ctx, StringRef name, size_t count,
                                            bool flags) {
  std::vector<int64_t> values = ctx.getInts(name, std::vector<int64_t>(count, 0));
  if (values.size() != count)
    return ctx.fail("attribute '" + name + "' has " + Twine(values.size()) + " values, expected " +
                    Twine(count));
  if (flags)
    for (int64_t v : values)
      if (v != 0 && v != 1)
        return ctx.fail("attribute '" + name + "' holds " + Twine(v) + "; directions are 0 or 1");
  return values;
}

/// The scan inputs' common length along their axes.
Expected<dim_t> scanLength(OpContext &ctx, ArrayRef<NodeValue> scanInputs,
                           ArrayRef<int64_t> axes) {
  dim_t length = scanInputs[0].getType().dims[axes[0]];
  for (size_t j = 1; j < scanInputs.size(); ++j)
    if (scanInputs[j].getType().dims[axes[j]] != length)
      return ctx.fail("scan input " + Twine(j) + " has " +
                      Twine(scanInputs[j].getType().dims[axes[j]]) +
                      " elements along its scan axis, scan input 0 has " + Twine(length));
  return length;
}

/// Scan-8: every input and output has the batch axis 0, the scan inputs the sequence axis 1;
/// batch element b is scanned for sequence_lens[b] iterations (all of them when omitted), and
/// its scan outputs padded with zeros to the longest.
Error loadBatchedScan(OpContext &ctx, ScanSpec &spec, ArrayRef<NodeValue> states,
                      ArrayRef<NodeValue> scanInputs) {
  for (NodeValue v : scanInputs)
    if (v.getType().rank() < 2)
      return ctx.fail("scan input " + v.getType().str() +
                      " needs a batch axis and a sequence axis");
  for (NodeValue v : states)
    if (v.getType().rank() < 1)
      return ctx.fail("state " + v.getType().str() + " needs a batch axis");
  dim_t batch = scanInputs[0].getType().dims[0];
  std::vector<NodeValue> all(states.begin(), states.end());
  all.insert(all.end(), scanInputs.begin(), scanInputs.end());
  for (NodeValue v : all)
    if (v.getType().dims[0] != batch)
      return ctx.fail("input " + v.getType().str() + " has batch size " +
                      Twine(v.getType().dims[0]) + ", the first scan input " + Twine(batch));
  std::vector<int64_t> sequenceAxes(scanInputs.size(), 1);
  EMBER_ASSIGN_OR_RETURN(dim_t maxLength, scanLength(ctx, scanInputs, sequenceAxes));
  std::vector<int64_t> lengths(batch, int64_t(maxLength));
  if (ctx.hasInput(0)) {
    auto given = ctx.constantInts(0);
    if (!given)
      return withContext(given.takeError(),
                         "Scan is unrolled at compile time, so its sequence_lens must be known "
                         "then");
    if (given->size() != batch)
      return ctx.fail("sequence_lens has " + Twine(given->size()) + " values for batch size " +
                      Twine(batch));
    for (int64_t len : *given)
      if (len < 0 || len > int64_t(maxLength))
        return ctx.fail("sequence_lens holds " + Twine(len) + ", outside [0, " +
                        Twine(maxLength) + "]");
    lengths = *given;
  }
  spec.inputAxes.assign(scanInputs.size(), 0); // the sequence axis, once the batch one is gone
  UnrollBudget budget(ctx);
  std::vector<std::vector<NodeValue>> stateRows(states.size()), scanRows;
  for (dim_t b = 0; b < batch; ++b) {
    std::string row = "batch" + std::to_string(b);
    std::vector<NodeValue> rowStates, rowInputs;
    for (NodeValue s : states) {
      EMBER_ASSIGN_OR_RETURN(NodeValue v, elementAt(ctx, s, 0, b, row));
      rowStates.push_back(v);
    }
    for (NodeValue in : scanInputs) {
      EMBER_ASSIGN_OR_RETURN(NodeValue v, elementAt(ctx, in, 0, b, row));
      rowInputs.push_back(v);
    }
    EMBER_ASSIGN_OR_RETURN(ScanResult r, unrollScan(ctx, spec, std::move(rowStates), rowInputs,
                                                    dim_t(lengths[b]), budget));
    for (size_t i = 0; i < states.size(); ++i)
      stateRows[i].push_back(r.states[i]);
    scanRows.resize(r.scanOutputs.size());
    for (size_t k = 0; k < r.scanOutputs.size(); ++k) {
      NodeValue out = r.scanOutputs[k];
      if (dim_t(lengths[b]) < maxLength) {
        DimsVec padDims(out.getType().dims.begin(), out.getType().dims.end());
        padDims[0] = maxLength - dim_t(lengths[b]);
        EMBER_ASSIGN_OR_RETURN(NodeValue pad,
                               ctx.createFilled(out.getType().kind, padDims, 0, row + ".pad"));
        EMBER_ASSIGN_OR_RETURN(out, concatElements(ctx, {out, pad}, 0, /*newAxis=*/false,
                                                   row + ".padded"));
      }
      scanRows[k].push_back(out);
    }
  }
  std::vector<std::vector<NodeValue>> rows = std::move(stateRows);
  rows.insert(rows.end(), scanRows.begin(), scanRows.end());
  for (unsigned i = 0; i < rows.size() && i < ctx.numOutputs(); ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, concatElements(ctx, rows[i], 0, /*newAxis=*/true,
                                                       "output" + std::to_string(i)));
    EMBER_TRY(ctx.setOutput(i, v));
  }
  return Error::success();
}

/// Scan(states..., scan inputs...) with body(states..., scan input elements...) -> (states...,
/// scan output elements...); Scan-8 adds an optional sequence_lens first and a batch axis.
Error loadScan(OpContext &ctx) {
  bool batched = ctx.opset() < 9;
  unsigned first = batched ? 1 : 0; // Scan-8's sequence_lens
  EMBER_ASSIGN_OR_RETURN(const onnx::GraphProto *body, ctx.getGraphAttr("body"));
  int64_t numScanInputs = ctx.getInt("num_scan_inputs", 0);
  unsigned numOperands = ctx.numInputs() > first ? ctx.numInputs() - first : 0;
  if (numScanInputs < 1 || numScanInputs > int64_t(numOperands))
    return ctx.fail("num_scan_inputs is " + Twine(numScanInputs) + ", it must be between 1 and " +
                    Twine(numOperands) + " (the states and scan inputs)");
  unsigned numStates = numOperands - unsigned(numScanInputs);
  if (body->input_size() != int(numOperands) || body->output_size() < int(numStates))
    return ctx.fail("the body has " + Twine(body->input_size()) + " inputs and " +
                    Twine(body->output_size()) + " outputs; with " + Twine(numStates) +
                    " states and " + Twine(numScanInputs) + " scan inputs it needs " +
                    Twine(numOperands) + " inputs and at least " + Twine(numStates) + " outputs");
  unsigned numScanOutputs = body->output_size() - numStates;
  if (ctx.numOutputs() > unsigned(body->output_size()))
    return ctx.fail("has " + Twine(ctx.numOutputs()) + " outputs, its body gives " +
                    Twine(body->output_size()));

  ScanSpec spec{body, numStates, {}, {}, {}, {}};
  EMBER_ASSIGN_OR_RETURN(spec.inputDirections,
                         perInputAttr(ctx, batched ? "directions" : "scan_input_directions",
                                      numScanInputs, /*flags=*/true));
  EMBER_ASSIGN_OR_RETURN(spec.outputDirections,
                         perInputAttr(ctx, "scan_output_directions", numScanOutputs, true));
  EMBER_ASSIGN_OR_RETURN(spec.outputAxes,
                         perInputAttr(ctx, "scan_output_axes", numScanOutputs, false));
  EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> inputAxes,
                         perInputAttr(ctx, "scan_input_axes", numScanInputs, false));
  std::vector<NodeValue> states, scanInputs;
  for (unsigned i = 0; i < numOperands; ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.input(first + i));
    (i < numStates ? states : scanInputs).push_back(v);
  }
  if (batched)
    return loadBatchedScan(ctx, spec, states, scanInputs);

  for (size_t j = 0; j < scanInputs.size(); ++j) {
    auto axis = normalizeAxis(inputAxes[j], scanInputs[j].getType().rank());
    if (!axis)
      return ctx.fail("scan_input_axes: " + errorToString(axis.takeError()));
    spec.inputAxes.push_back(*axis);
  }
  EMBER_ASSIGN_OR_RETURN(dim_t length, scanLength(ctx, scanInputs, spec.inputAxes));
  // A long scan whose outputs stack in iteration order along axis 0 runs as a loop in the IR;
  // others are unrolled (the loop's scan outputs only stack that way).
  bool stacksAsLoop = llvm::all_of(spec.outputAxes, [&](int64_t a) { return a == 0; }) &&
                      llvm::all_of(spec.outputDirections, [](int64_t d) { return d == 0; });
  // Signed, as for a Loop: a negative -unroll-loops-up-to unrolls nothing here either.
  if (static_cast<int64_t>(length) > ctx.options().unrollLoopsUpTo && stacksAsLoop) {
    Error inIR = loadScanInIR(ctx, *body, states, scanInputs, spec.inputAxes,
                              spec.inputDirections, length);
    if (!inIR)
      return Error::success();
    consumeError(std::move(inIR)); // unrolled instead, within the unrolling limits
  }
  UnrollBudget budget(ctx);
  EMBER_ASSIGN_OR_RETURN(ScanResult r, unrollScan(ctx, spec, states, scanInputs, length, budget));
  for (unsigned i = 0; i < numStates; ++i)
    EMBER_TRY(ctx.setOutput(i, r.states[i]));
  for (unsigned k = 0; k < numScanOutputs; ++k)
    EMBER_TRY(ctx.setOutput(numStates + k, r.scanOutputs[k]));
  return Error::success();
}

} // namespace

void registerControlFlowScanOps(OpRegistry &r) { r.add("Scan", 8, loadScan); }

} // namespace ember
