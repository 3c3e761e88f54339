// Control flow decided at run time: an If whose condition, or a Loop whose trip count or
// condition, is known only when the model runs becomes an If or Loop node whose bodies are
// functions of their own (Nodes/ControlFlow.def), instead of being resolved at import
// (ControlFlowOps.cpp). What a body reads from around it is passed in explicitly
// (BodyCaptures), because a function's nodes may only read its own values and the module's
// storage.
#include "ControlFlowOps.h"

#include "ember/Graph/ControlFlow.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Support/Error.h"

#include <limits>
#include <map>

using namespace llvm;

namespace ember {

namespace {

/// The values from around a control-flow node that its bodies read. Each becomes an operand of
/// the node, and a BodyInput (index firstIndex + its position) in each body that reads it; the
/// branches of an If share one list.
class BodyCaptures {
  OpContext &ctx_;
  unsigned firstIndex_;
  std::vector<NodeValue> outer_;
  std::map<std::tuple<const Function *, const Node *, unsigned>, NodeValue> inBody_;

  unsigned indexOf(NodeValue v) {
    for (unsigned i = 0; i < outer_.size(); ++i)
      if (outer_[i] == v)
        return i;
    outer_.push_back(v);
    return outer_.size() - 1;
  }

public:
  BodyCaptures(OpContext &ctx, unsigned firstIndex) : ctx_(ctx), firstIndex_(firstIndex) {}
  /// \p v passed in at a fixed position (before anything captured after).
  void pass(NodeValue v) { indexOf(v); }
  const std::vector<NodeValue> &operands() const { return outer_; }

  /// \p body's own value for the outer value \p v: the module's storage as it is, a value
  /// that folds to a constant as that Constant (so that what reads it in the body folds too),
  /// else a BodyInput.
  NodeValue capture(Function &body, NodeValue v) {
    if (v.node->isStorage())
      return v;
    auto key = std::make_tuple(&body, v.node, v.resNo);
    auto it = inBody_.find(key);
    if (it != inBody_.end())
      return it->second;
    NodeValue mine;
    if (ctx_.options().evaluateConstant) {
      Expected<Tensor> folded = ctx_.options().evaluateConstant(v);
      if (folded)
        mine = ctx_.module().createConstant(std::move(*folded), v.node->getName())->getResult();
      else
        consumeError(folded.takeError());
    }
    if (!mine) {
      unsigned index = firstIndex_ + indexOf(v);
      mine = body.createNodeWithTypes(NodeKind::BodyInput, v.node->getName().str() + ".in",
                                      {}, {v.getType()},
                                      AttrList().set<AttrKind::Index>(int64_t(index)))
                 ->getResult();
    }
    inBody_[key] = mine;
    return mine;
  }
  ValueScope::Capture forBody(Function &body) {
    return [this, &body](NodeValue v) { return capture(body, v); };
  }
};

Node *bodyInput(Function &body, const std::string &name, const Type &ty, unsigned index) {
  return body.createNodeWithTypes(NodeKind::BodyInput, name, {}, {ty},
                                  AttrList().set<AttrKind::Index>(int64_t(index)));
}

Error bodyOutput(Function &body, NodeValue v, unsigned index) {
  return body
      .createNode(NodeKind::BodyOutput, body.getName().str() + ".out" + std::to_string(index),
                  {v}, AttrList().set<AttrKind::Index>(int64_t(index)))
      .takeError();
}

/// A one-element value as a scalar of its own function (a Reshape there when needed).
Expected<NodeValue> asScalar(Function &fn, NodeValue v) {
  if (v.getType().rank() == 0)
    return v;
  return fn.createNode(NodeKind::Reshape, v.node->getName().str() + ".scalar", {v},
                       AttrList().set<AttrKind::Dims>(std::vector<int64_t>{}));
}

/// The bodies created for one node; erased again unless the import succeeds.
class NewBodies {
  Module &M_;
  std::vector<Function *> bodies_;
  bool keep_ = false;

public:
  explicit NewBodies(Module &M) : M_(M) {}
  ~NewBodies() {
    if (!keep_)
      for (Function *f : bodies_)
        M_.eraseFunction(f);
  }
  Function *create(const std::string &name) {
    bodies_.push_back(M_.createFunction(M_.uniqueName(name)));
    return bodies_.back();
  }
  void keep() { keep_ = true; }
};

} // namespace

Error loadIfAtRunTime(OpContext &ctx, NodeValue cond) {
  const Type &condType = cond.getType();
  if (condType.kind != ElemKind::Bool || condType.numElements() != 1)
    return ctx.fail("the condition must be one bool, got " + condType.str());
  std::string base = ctx.baseName();
  NewBodies bodies(ctx.module());
  BodyCaptures captures(ctx, 0);
  Function *fns[2];
  std::vector<ONNXValue> outs[2];
  const char *names[2] = {"then_branch", "else_branch"};
  for (unsigned b = 0; b < 2; ++b) {
    EMBER_ASSIGN_OR_RETURN(const onnx::GraphProto *branch, ctx.getGraphAttr(names[b]));
    if (branch->output_size() != int(ctx.numOutputs()))
      return ctx.fail(Twine(names[b]) + " has " + Twine(branch->output_size()) +
                      " outputs, the node " + Twine(ctx.numOutputs()));
    fns[b] = bodies.create(base + (b ? ".else" : ".then"));
    EMBER_ASSIGN_OR_RETURN(outs[b], ctx.importSubgraph(*branch, {}, b ? "else" : "then", fns[b],
                                                       captures.forBody(*fns[b])));
  }
  std::vector<Type> types;
  for (unsigned i = 0; i < ctx.numOutputs(); ++i) {
    NodeValue v[2];
    for (unsigned b = 0; b < 2; ++b) {
      EMBER_ASSIGN_OR_RETURN(v[b], tensorOf(ctx, outs[b][i], Twine(names[b]) + "'s output " +
                                                                 Twine(i)));
    }
    if (v[0].getType() != v[1].getType())
      return ctx.fail("output " + Twine(i) + " is " + v[0].getType().str() +
                      " in then_branch and " + v[1].getType().str() +
                      " in else_branch: ember's values have one type, known at compile time");
    types.push_back(v[0].getType());
    for (unsigned b = 0; b < 2; ++b)
      EMBER_TRY(bodyOutput(*fns[b], v[b], i));
  }
  std::vector<NodeValue> operands{cond};
  operands.insert(operands.end(), captures.operands().begin(), captures.operands().end());
  Node *n = ctx.function().createNodeWithTypes(
      NodeKind::If, base, operands, types,
      AttrList()
          .set<AttrKind::ThenBody>(fns[0]->getName().str())
          .set<AttrKind::ElseBody>(fns[1]->getName().str()));
  bodies.keep();
  for (unsigned i = 0; i < ctx.numOutputs(); ++i)
    EMBER_TRY(ctx.setOutput(i, n->getResult(i)));
  return Error::success();
}

namespace {

/// A Loop body being built: its function, the values it reads from outside, and its inputs.
struct LoopBody {
  Function *fn;
  BodyCaptures captures;
  NodeValue iter, condIn;
  std::vector<ONNXValue> carriedIn;
};

/// A new Loop body for \p initial carried values, whose inputs from outside start after them.
LoopBody startLoopBody(OpContext &ctx, NewBodies &bodies, ArrayRef<NodeValue> initial) {
  std::string base = ctx.baseName();
  Function *fn = bodies.create(base + ".body");
  LoopBody b{fn, BodyCaptures(ctx, kLoopFirstInput + unsigned(initial.size())), {}, {}, {}};
  b.iter = bodyInput(*fn, base + ".iter", Type(ElemKind::Int64, {}), kLoopIterationInput)
               ->getResult();
  b.condIn = bodyInput(*fn, base + ".cond", Type(ElemKind::Bool, {}), kLoopConditionInput)
                 ->getResult();
  for (unsigned k = 0; k < initial.size(); ++k)
    b.carriedIn.push_back(ONNXValue::ofTensor(
        bodyInput(*fn, base + ".carried" + std::to_string(k), initial[k].getType(),
                  kLoopFirstInput + k)
            ->getResult()));
  return b;
}

/// Gives \p b its outputs (the next condition, the carried values' next values, the scan
/// outputs' slices) and creates the Loop node running it; binds the node's outputs.
Error finishLoop(OpContext &ctx, NewBodies &bodies, LoopBody &b, NodeValue trip, NodeValue cond,
                 ArrayRef<NodeValue> initial, NodeValue condOut, ArrayRef<ONNXValue> next,
                 ArrayRef<ONNXValue> scans, std::optional<int64_t> knownTrip) {
  EMBER_TRY(bodyOutput(*b.fn, condOut, kLoopConditionOutput));
  std::vector<Type> types;
  for (unsigned k = 0; k < initial.size(); ++k) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v,
                           tensorOf(ctx, next[k], "carried value " + Twine(k) + "'s next value"));
    if (v.getType() != initial[k].getType())
      return ctx.fail("carried value " + Twine(k) + " goes from " + initial[k].getType().str() +
                      " to " + v.getType().str() + ": a loop in the IR keeps each value's type");
    types.push_back(v.getType());
    EMBER_TRY(bodyOutput(*b.fn, v, kLoopFirstCarriedOutput + k));
  }
  for (unsigned s = 0; s < scans.size(); ++s) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, tensorOf(ctx, scans[s], "scan output " + Twine(s)));
    DimsVec dims{dim_t(*knownTrip)};
    dims.append(v.getType().dims.begin(), v.getType().dims.end());
    types.push_back(v.getType().withDims(dims));
    EMBER_TRY(bodyOutput(*b.fn, v, kLoopFirstCarriedOutput + unsigned(initial.size()) + s));
  }
  int64_t bound = knownTrip ? std::max<int64_t>(*knownTrip, 0) : ctx.options().maxLoopIterations;
  std::vector<NodeValue> operands{trip, cond};
  operands.insert(operands.end(), initial.begin(), initial.end());
  operands.insert(operands.end(), b.captures.operands().begin(), b.captures.operands().end());
  Node *n = ctx.function().createNodeWithTypes(
      NodeKind::Loop, ctx.baseName(), operands, types,
      AttrList()
          .set<AttrKind::Body>(b.fn->getName().str())
          .set<AttrKind::NumCarried>(int64_t(initial.size()))
          .set<AttrKind::MaxTripCount>(bound));
  bodies.keep();
  for (unsigned i = 0; i < ctx.numOutputs() && i < types.size(); ++i)
    if (ctx.hasOutput(i))
      EMBER_TRY(ctx.setOutput(i, n->getResult(i)));
  return Error::success();
}

NodeValue scalarConstant(OpContext &ctx, Tensor t, StringRef suffix) {
  return ctx.createConstant(std::move(t), suffix)->getResult();
}

} // namespace

Error loadLoopInIR(OpContext &ctx, const onnx::GraphProto &body, unsigned numCarried,
                   unsigned numScanOutputs, std::optional<int64_t> knownTrip) {
  std::vector<NodeValue> initial;
  for (unsigned k = 0; k < numCarried; ++k) {
    EMBER_ASSIGN_OR_RETURN(ONNXValue v, ctx.inputValue(2 + k));
    EMBER_ASSIGN_OR_RETURN(NodeValue t, tensorOf(ctx, v, "loop-carried value " + Twine(k)));
    initial.push_back(t);
  }
  bool hasCond = ctx.hasInput(1);
  // Scan outputs stack one slice per iteration, so their type needs the iteration count:
  // known at compile time, and no condition that could end the loop early.
  if (numScanOutputs && (!knownTrip || *knownTrip <= 0))
    return ctx.fail("a loop with scan outputs runs in the IR only when its trip count is known "
                    "at compile time");

  NewBodies bodies(ctx.module());
  LoopBody b = startLoopBody(ctx, bodies, initial);
  std::vector<ONNXValue> inputs{ONNXValue::ofTensor(b.iter), ONNXValue::ofTensor(b.condIn)};
  inputs.insert(inputs.end(), b.carriedIn.begin(), b.carriedIn.end());
  EMBER_ASSIGN_OR_RETURN(std::vector<ONNXValue> outs,
                         ctx.importSubgraph(body, inputs, "body", b.fn, b.captures.forBody(*b.fn)));

  // Without a cond input the body's condition is ignored (a for loop).
  NodeValue condOut;
  if (hasCond) {
    EMBER_ASSIGN_OR_RETURN(condOut, tensorOf(ctx, outs[0], "the body's condition"));
    if (condOut.getType().kind != ElemKind::Bool || condOut.getType().numElements() != 1)
      return ctx.fail("the body's condition must be one bool, got " + condOut.getType().str());
    EMBER_ASSIGN_OR_RETURN(condOut, asScalar(*b.fn, condOut));
  } else {
    condOut = scalarConstant(ctx, Tensor::fromValues<bool>({}, {true}), "always");
  }
  if (numScanOutputs && hasCond) {
    auto *c = condOut.node->getKind() == NodeKind::Constant
                  ? static_cast<const Constant *>(condOut.node)
                  : nullptr;
    bool alwaysTrue = condOut == b.condIn || (c && c->getPayload().elementAsDouble(0) != 0);
    if (!alwaysTrue)
      return ctx.fail("the body's condition may end the loop early, so the length of its scan "
                      "outputs is known only at run time");
  }

  // The trip count and condition as the scalars the loop's state holds.
  NodeValue trip, cond;
  if (ctx.hasInput(0)) {
    EMBER_ASSIGN_OR_RETURN(trip, ctx.input(0));
    if (trip.getType().kind != ElemKind::Int64 || trip.getType().numElements() != 1)
      return ctx.fail("trip count M must be one int64, got " + trip.getType().str());
    EMBER_ASSIGN_OR_RETURN(trip, asScalar(ctx.function(), trip));
  } else {
    trip = scalarConstant(
        ctx, Tensor::fromValues<int64_t>({}, {std::numeric_limits<int64_t>::max()}), "no_trip_count");
  }
  if (hasCond) {
    EMBER_ASSIGN_OR_RETURN(cond, ctx.input(1));
    if (cond.getType().kind != ElemKind::Bool || cond.getType().numElements() != 1)
      return ctx.fail("condition must be one bool, got " + cond.getType().str());
    EMBER_ASSIGN_OR_RETURN(cond, asScalar(ctx.function(), cond));
  } else {
    cond = scalarConstant(ctx, Tensor::fromValues<bool>({}, {true}), "no_cond");
  }
  return finishLoop(ctx, bodies, b, trip, cond, initial, condOut,
                    ArrayRef<ONNXValue>(outs).slice(1, numCarried),
                    ArrayRef<ONNXValue>(outs).drop_front(1 + numCarried), knownTrip);
}

Error loadScanInIR(OpContext &ctx, const onnx::GraphProto &body, ArrayRef<NodeValue> states,
                   ArrayRef<NodeValue> scanInputs, ArrayRef<int64_t> inputAxes,
                   ArrayRef<int64_t> inputDirections, dim_t length) {
  if (length == 0)
    return ctx.fail("the scan runs no iteration");
  NewBodies bodies(ctx.module());
  LoopBody b = startLoopBody(ctx, bodies, states);
  std::vector<ONNXValue> inputs = b.carriedIn;
  // Iteration t reads element t of each scan input along its axis (length-1-t when reversed):
  // the scan inputs are the loop's first inputs from outside, gathered at the iteration number.
  NodeValue reversedIndex;
  for (size_t j = 0; j < scanInputs.size(); ++j) {
    b.captures.pass(scanInputs[j]);
    unsigned index = kLoopFirstInput + unsigned(states.size() + j);
    NodeValue whole = bodyInput(*b.fn, ctx.baseName() + ".scan_input" + std::to_string(j),
                                scanInputs[j].getType(), index)
                          ->getResult();
    NodeValue at = b.iter;
    if (inputDirections[j]) {
      if (!reversedIndex) {
        NodeValue last = scalarConstant(ctx, Tensor::fromValues<int64_t>({}, {int64_t(length) - 1}),
                                        "last_index");
        EMBER_ASSIGN_OR_RETURN(Node * sub, b.fn->createNode(NodeKind::Sub,
                                                            ctx.baseName() + ".reversed_index",
                                                            {last, b.iter}));
        reversedIndex = sub->getResult();
      }
      at = reversedIndex;
    }
    EMBER_ASSIGN_OR_RETURN(Node * element,
                           b.fn->createNode(NodeKind::Gather,
                                            ctx.baseName() + ".scan_input" + std::to_string(j) +
                                                ".element",
                                            {whole, at},
                                            AttrList().set<AttrKind::Axis>(inputAxes[j])));
    inputs.push_back(ONNXValue::ofTensor(element->getResult()));
  }
  EMBER_ASSIGN_OR_RETURN(std::vector<ONNXValue> outs,
                         ctx.importSubgraph(body, inputs, "body", b.fn, b.captures.forBody(*b.fn)));
  NodeValue always = scalarConstant(ctx, Tensor::fromValues<bool>({}, {true}), "always");
  NodeValue trip = scalarConstant(ctx, Tensor::fromValues<int64_t>({}, {int64_t(length)}), "length");
  return finishLoop(ctx, bodies, b, trip, always, states, always,
                    ArrayRef<ONNXValue>(outs).take_front(states.size()),
                    ArrayRef<ONNXValue>(outs).drop_front(states.size()), int64_t(length));
}

} // namespace ember
