// ONNX sequence and optional operators. ember knows a sequence's length and whether an optional
// holds a value at compile time: a sequence is the list of its elements' graph values, an
// optional what it holds, kept by the importer (ONNXValue), with no node kind of their own.
// Positions must be known at compile time; SequenceMap imports its body once per element.
#include "ControlFlowOps.h"

#include "DataMovementOps.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

/// Input \p i as a position in a sequence of \p length: negative ones count from the back;
/// \p insertion allows \p length itself (insert at the end).
Expected<size_t> sequencePosition(OpContext &ctx, unsigned i, size_t length, bool insertion) {
  EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> values, ctx.constantInts(i));
  if (values.size() != 1)
    return ctx.fail("position must have one element, got " + Twine(values.size()));
  int64_t n = int64_t(length), p = values[0];
  int64_t last = insertion ? n : n - 1;
  if (p < -n || p > last)
    return ctx.fail("position " + Twine(p) + " is outside [" + Twine(-n) + ", " + Twine(last) +
                    "] for a sequence of " + Twine(length) + " tensors");
  return size_t(p < 0 ? p + n : p);
}

/// The elements of a sequence share one element kind.
Error checkElementKind(OpContext &ctx, ArrayRef<NodeValue> elements, NodeValue added) {
  if (!elements.empty() && elements[0].getType().kind != added.getType().kind)
    return ctx.fail("a sequence of " + Twine(elemKindName(elements[0].getType().kind)) +
                    " tensors cannot hold a " + elemKindName(added.getType().kind) + " tensor");
  return Error::success();
}

Error loadSequenceEmpty(OpContext &ctx) { return ctx.setOutputSequence(0, {}); }

Error loadSequenceConstruct(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto inputs, ctx.inputs(ctx.numInputs()));
  if (inputs.empty())
    return ctx.fail("needs at least one input");
  std::vector<NodeValue> elements;
  for (NodeValue v : inputs) {
    EMBER_TRY(checkElementKind(ctx, elements, v));
    elements.push_back(v);
  }
  return ctx.setOutputSequence(0, std::move(elements));
}

/// SequenceInsert(sequence, tensor, position = the end): the tensor inserted before position.
Error loadSequenceInsert(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(std::vector<NodeValue> elements, ctx.inputSequence(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.input(1));
  EMBER_TRY(checkElementKind(ctx, elements, v));
  size_t position = elements.size();
  if (ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(position, sequencePosition(ctx, 2, elements.size(), true));
  }
  elements.insert(elements.begin() + position, v);
  return ctx.setOutputSequence(0, std::move(elements));
}

/// SequenceErase(sequence, position = the last).
Error loadSequenceErase(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(std::vector<NodeValue> elements, ctx.inputSequence(0));
  if (elements.empty())
    return ctx.fail("cannot erase from an empty sequence");
  size_t position = elements.size() - 1;
  if (ctx.hasInput(1)) {
    EMBER_ASSIGN_OR_RETURN(position, sequencePosition(ctx, 1, elements.size(), false));
  }
  elements.erase(elements.begin() + position);
  return ctx.setOutputSequence(0, std::move(elements));
}

Error loadSequenceAt(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(std::vector<NodeValue> elements, ctx.inputSequence(0));
  EMBER_ASSIGN_OR_RETURN(size_t position, sequencePosition(ctx, 1, elements.size(), false));
  return ctx.setOutput(0, elements[position]);
}

Error loadSequenceLength(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(std::vector<NodeValue> elements, ctx.inputSequence(0));
  int64_t length = int64_t(elements.size());
  return ctx.setOutput(0, ctx.createConstant(Tensor::fromValues<int64_t>({}, {length}), "length")
                              ->getResult());
}

/// SplitToSequence(input, split; axis, keepdims): without split, pieces of 1 along axis (the
/// axis removed unless keepdims); a scalar split is the pieces' size (the last may be
/// shorter); a 1-D split lists the sizes.
Error loadSplitToSequence(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  auto axis = normalizeAxis(ctx.getInt("axis", 0), x.getType().rank());
  if (!axis)
    return ctx.fail(errorToString(axis.takeError()));
  dim_t extent = x.getType().dims[*axis];
  std::vector<NodeValue> elements;
  auto tooMany = [&](uint64_t pieces) {
    return ctx.fail("splits axis " + Twine(*axis) + " into " + Twine(pieces) +
                    " tensors; a sequence may hold at most " + Twine(kMaxSequenceLength));
  };
  if (!ctx.hasInput(1)) {
    if (extent > kMaxSequenceLength)
      return tooMany(extent);
    bool keepDims = ctx.getInt("keepdims", 1) != 0;
    for (dim_t i = 0; i < extent; ++i) {
      std::string suffix = "split" + std::to_string(i);
      EMBER_ASSIGN_OR_RETURN(NodeValue piece,
                             keepDims ? sliceAxis(ctx, x, unsigned(*axis), i, 1, suffix)
                                      : elementAt(ctx, x, unsigned(*axis), i, suffix));
      elements.push_back(piece);
    }
    return ctx.setOutputSequence(0, std::move(elements));
  }
  EMBER_ASSIGN_OR_RETURN(const Tensor *split, ctx.constantInput(1));
  EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, tensorInts(*split, "split"));
  if (split->getType().rank() == 0) { // one size for every piece
    if (sizes[0] <= 0)
      return ctx.fail("split size " + Twine(sizes[0]) + " must be positive");
    dim_t size = dim_t(sizes[0]);
    if ((extent + size - 1) / size > kMaxSequenceLength)
      return tooMany((extent + size - 1) / size);
    sizes.clear();
    for (dim_t start = 0; start < extent; start += size)
      sizes.push_back(int64_t(std::min(size, extent - start)));
  } else if (split->getType().rank() != 1) {
    return ctx.fail("split must be a scalar or 1-D, got " + split->getType().str());
  } else if (sizes.size() > kMaxSequenceLength) {
    return tooMany(sizes.size());
  }
  dim_t start = 0;
  for (int64_t size : sizes) {
    if (size < 0)
      return ctx.fail("split " + intsToString(sizes) + " has a negative size");
    if (dim_t(size) > extent - start)
      return ctx.fail("split " + intsToString(sizes) + " needs more than the " + Twine(extent) +
                      " elements along axis " + Twine(*axis));
    EMBER_ASSIGN_OR_RETURN(NodeValue piece, sliceAxis(ctx, x, unsigned(*axis), start, dim_t(size),
                                                      "split" + std::to_string(elements.size())));
    elements.push_back(piece);
    start += dim_t(size);
  }
  if (start != extent)
    return ctx.fail("split " + intsToString(sizes) + " sums to " + Twine(start) + ", but axis " +
                    Twine(*axis) + " has " + Twine(extent) + " elements");
  return ctx.setOutputSequence(0, std::move(elements));
}

/// ConcatFromSequence(sequence; axis, new_axis): the elements joined along axis, or stacked
/// along a new axis when new_axis is 1.
Error loadConcatFromSequence(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(std::vector<NodeValue> elements, ctx.inputSequence(0));
  if (!ctx.hasAttr("axis"))
    return ctx.fail("attribute 'axis' is required");
  if (elements.empty())
    return ctx.fail("the sequence is empty; ember cannot concatenate no tensors");
  EMBER_ASSIGN_OR_RETURN(NodeValue v, concatElements(ctx, elements, ctx.getInt("axis", 0),
                                                     ctx.getInt("new_axis", 0) != 0, ""));
  return ctx.setOutput(0, v);
}

/// SequenceMap(sequence, more inputs...; body): the body imported once per element of the
/// first input, seeing that element of every sequence input and every tensor input whole;
/// each body output collects one element per iteration into an output sequence.
Error loadSequenceMap(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(const onnx::GraphProto *body, ctx.getGraphAttr("body"));
  EMBER_ASSIGN_OR_RETURN(std::vector<NodeValue> first, ctx.inputSequence(0));
  if (ctx.numOutputs() > unsigned(body->output_size()))
    return ctx.fail("has " + Twine(ctx.numOutputs()) + " outputs, its body gives " +
                    Twine(body->output_size()));
  std::vector<ONNXValue> inputs;
  for (unsigned i = 0; i < ctx.numInputs(); ++i) {
    EMBER_ASSIGN_OR_RETURN(ONNXValue v, ctx.inputValue(i));
    bool sequence = v.isSequence && !v.isOptional;
    if (sequence && v.elements.size() != first.size())
      return ctx.fail("input " + Twine(i) + " is a sequence of " + Twine(v.elements.size()) +
                      " tensors, input 0 of " + Twine(first.size()));
    inputs.push_back(std::move(v));
  }
  auto elementOf = [](const ONNXValue &v, size_t e) {
    return v.isSequence && !v.isOptional ? ONNXValue::ofTensor(v.elements[e]) : v;
  };
  std::vector<std::vector<NodeValue>> outputs(body->output_size());
  UnrollBudget budget(ctx);
  for (size_t e = 0; e < first.size(); ++e) {
    std::vector<ONNXValue> bodyInputs;
    for (const ONNXValue &v : inputs)
      bodyInputs.push_back(elementOf(v, e));
    EMBER_ASSIGN_OR_RETURN(std::vector<ONNXValue> results,
                           budget.importIteration(*body, bodyInputs));
    for (size_t k = 0; k < results.size(); ++k) {
      EMBER_ASSIGN_OR_RETURN(NodeValue v, tensorOf(ctx, results[k],
                                                   "output " + Twine(k) + " of the body"));
      outputs[k].push_back(v);
    }
  }
  for (unsigned k = 0; k < ctx.numOutputs() && k < outputs.size(); ++k)
    EMBER_TRY(ctx.setOutputSequence(k, std::move(outputs[k])));
  return Error::success();
}

/// Optional(input; type): an optional holding the input, or, without one, an empty optional of
/// the type the attribute gives.
Error loadOptional(OpContext &ctx) {
  if (ctx.hasInput(0)) {
    EMBER_ASSIGN_OR_RETURN(ONNXValue v, ctx.inputValue(0));
    if (v.isOptional)
      return ctx.fail("input 0 is " + v.describe() + "; an optional cannot hold an optional");
    return ctx.setOutputValue(0, ONNXValue::optionalOf(std::move(v)));
  }
  for (const auto &a : ctx.proto().attribute()) {
    if (a.name() != "type")
      continue;
    if (!a.has_tp() || (!a.tp().has_tensor_type() && !a.tp().has_sequence_type()))
      return ctx.fail("attribute 'type' must be a tensor or a sequence type");
    return ctx.setOutputValue(0, ONNXValue::absentOptional(a.tp().has_sequence_type()));
  }
  return ctx.fail("needs an input, or the attribute 'type' for an empty optional");
}

/// OptionalHasElement(input): whether the optional holds a value, known at compile time. A
/// tensor or a sequence holds itself and an omitted input nothing (as opset 18 extends it).
Error loadOptionalHasElement(OpContext &ctx) {
  bool present = false;
  if (ctx.hasInput(0)) {
    EMBER_ASSIGN_OR_RETURN(ONNXValue v, ctx.inputValue(0));
    present = !v.isOptional || v.present;
  }
  return ctx.setOutput(
      0, ctx.createConstant(Tensor::fromValues<bool>({}, {present}), "has_element")->getResult());
}

/// OptionalGetElement(input): the value an optional holds; an empty one is an error (ember
/// knows it at compile time). A tensor or a sequence is itself (as opset 18 extends it).
Error loadOptionalGetElement(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(ONNXValue v, ctx.inputValue(0));
  if (v.isOptional && !v.present)
    return ctx.fail("input 0 ('" + ctx.proto().input(0) +
                    "') is an empty optional, which has no element to get");
  v.isOptional = false;
  return ctx.setOutputValue(0, std::move(v));
}

} // namespace

void registerSequenceOps(OpRegistry &r) {
  r.add("SequenceEmpty", 11, loadSequenceEmpty);
  r.add("SequenceConstruct", 11, loadSequenceConstruct);
  r.add("SequenceInsert", 11, loadSequenceInsert);
  r.add("SequenceErase", 11, loadSequenceErase);
  r.add("SequenceAt", 11, loadSequenceAt);
  r.add("SequenceLength", 11, loadSequenceLength);
  r.add("SplitToSequence", 11, loadSplitToSequence);
  r.add("ConcatFromSequence", 11, loadConcatFromSequence);
  r.add("SequenceMap", 17, loadSequenceMap);
  r.add("Optional", 15, loadOptional);
  r.add("OptionalHasElement", 15, loadOptionalHasElement);
  r.add("OptionalHasElement", 18, loadOptionalHasElement); // the input may be omitted
  r.add("OptionalGetElement", 15, loadOptionalGetElement);
}

} // namespace ember
