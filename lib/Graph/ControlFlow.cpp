#include "ember/Graph/ControlFlow.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace llvm;

namespace ember {

SmallVector<Function *, 2> bodiesOf(const Node &n) {
  SmallVector<Function *, 2> bodies;
  auto add = [&](const std::string &name) {
    if (Function *f = n.getParent() ? n.getParent()->getParent()->getFunction(name) : nullptr)
      bodies.push_back(f);
  };
  if (n.getKind() == NodeKind::If) {
    add(n.attr<AttrKind::ThenBody>());
    add(n.attr<AttrKind::ElseBody>());
  } else if (n.getKind() == NodeKind::Loop) {
    add(n.attr<AttrKind::Body>());
  }
  return bodies;
}

static SmallVector<Node *, 8> byIndex(const Function &body, NodeKind kind) {
  SmallVector<Node *, 8> nodes;
  for (const auto &n : body.getNodes()) {
    if (n->getKind() != kind)
      continue;
    int64_t i = n->attr<AttrKind::Index>();
    if (i < 0 || i > 100000)
      continue; // verifyControlFlow reports it
    if (nodes.size() <= size_t(i))
      nodes.resize(i + 1, nullptr);
    nodes[i] = n.get();
  }
  return nodes;
}

SmallVector<Node *, 8> bodyInputsOf(const Function &body) {
  return byIndex(body, NodeKind::BodyInput);
}
SmallVector<Node *, 8> bodyOutputsOf(const Function &body) {
  return byIndex(body, NodeKind::BodyOutput);
}

Expected<Type> bodyInputType(const Node &n, unsigned index) {
  if (n.getKind() == NodeKind::If) {
    if (1 + index < n.getNumOperands())
      return n.getOperand(1 + index).getType();
  } else if (n.getKind() == NodeKind::Loop) {
    if (index == kLoopIterationInput)
      return Type(ElemKind::Int64, {});
    if (index == kLoopConditionInput)
      return Type(ElemKind::Bool, {});
    unsigned operand = ops::Loop::Inputs + (index - kLoopFirstInput);
    if (operand < n.getNumOperands())
      return n.getOperand(operand).getType();
  }
  return makeError("hands its bodies no value at index " + Twine(index));
}

/// The type a body's BodyOutput \p index must have: for an If result \p index; for a Loop the
/// condition, a carried value or (null type) a scan output, whose result stacks it.
static Expected<Type> bodyOutputType(const Node &n, unsigned index) {
  if (n.getKind() == NodeKind::If) {
    if (index < n.getNumResults())
      return n.getType(index);
    return makeError("has no result " + Twine(index));
  }
  int64_t carried = n.attr<AttrKind::NumCarried>();
  if (index == kLoopConditionOutput)
    return Type(ElemKind::Bool, {});
  if (index < kLoopFirstCarriedOutput + carried)
    return n.getOperand(ops::Loop::Inputs + index - kLoopFirstCarriedOutput).getType();
  unsigned result = index - kLoopFirstCarriedOutput;
  if (result < n.getNumResults()) {
    const Type &stacked = n.getType(result);
    if (stacked.rank() == 0)
      return makeError("scan output " + Twine(result) + " has no axis to stack along");
    return Type(stacked.kind, ArrayRef<dim_t>(stacked.dims).drop_front(), stacked.scale,
                stacked.offset);
  }
  return makeError("has no result for body output " + Twine(index));
}

Error verifyControlFlow(const Node &n) {
  SmallVector<Function *, 2> bodies = bodiesOf(n);
  unsigned wanted = n.getKind() == NodeKind::If ? 2 : 1;
  if (bodies.size() != wanted)
    return makeError("a body it names is not a function of the module");
  if (n.getKind() == NodeKind::If) {
    const Type &cond = n.getOperand(ops::If::Condition).getType();
    if (cond.kind != ElemKind::Bool || cond.numElements() != 1)
      return makeError("the condition must be one bool, got " + cond.str());
  } else {
    int64_t carried = n.attr<AttrKind::NumCarried>();
    if (carried < 0 || ops::Loop::Inputs + carried > n.getNumOperands() ||
        carried > int64_t(n.getNumResults()))
      return makeError("NumCarried " + Twine(carried) + " does not fit its inputs and results");
    for (unsigned i = 0; i < carried; ++i)
      if (n.getType(i) != n.getOperand(ops::Loop::Inputs + i).getType())
        return makeError("carried value " + Twine(i) + " changes type");
    // Scalars, so that the running condition and the iteration number copy in and out of them.
    if (n.getOperand(ops::Loop::TripCount).getType() != Type(ElemKind::Int64, {}))
      return makeError("the trip count must be an int64 scalar");
    if (n.getOperand(ops::Loop::Condition).getType() != Type(ElemKind::Bool, {}))
      return makeError("the condition must be a bool scalar");
    if (n.attr<AttrKind::MaxTripCount>() < 0)
      return makeError("MaxTripCount is negative");
    for (unsigned r = carried; r < n.getNumResults(); ++r)
      if (n.getType(r).rank() == 0 || int64_t(n.getType(r).dims[0]) > n.attr<AttrKind::MaxTripCount>())
        return makeError("scan output " + Twine(r - carried) + " of type " + n.getType(r).str() +
                         " does not stack at most MaxTripCount iterations");
  }
  for (Function *body : bodies) {
    auto fail = [&](const Twine &why) {
      return makeError("body '" + body->getName() + "': " + why);
    };
    for (Node *in : bodyInputsOf(*body)) {
      if (!in)
        continue;
      EMBER_ASSIGN_OR_RETURN(Type want, bodyInputType(n, in->attr<AttrKind::Index>()));
      if (in->getNumResults() != 1 || in->getType() != want)
        return fail("input " + Twine(in->attr<AttrKind::Index>()) + " should be " + want.str());
    }
    SmallVector<Node *, 8> outs = bodyOutputsOf(*body);
    unsigned needed = n.getKind() == NodeKind::If
                          ? n.getNumResults()
                          : kLoopFirstCarriedOutput + n.getNumResults();
    if (outs.size() != needed || llvm::is_contained(outs, nullptr))
      return fail("gives " + Twine(outs.size()) + " outputs (some may be missing), needs " +
                  Twine(needed));
    for (unsigned k = 0; k < outs.size(); ++k) {
      auto want = bodyOutputType(n, k);
      if (!want)
        return fail(errorToString(want.takeError()));
      const Type &got = outs[k]->getOperand(0).getType();
      if (got != *want)
        return fail("output " + Twine(k) + " is " + got.str() + ", should be " + want->str());
    }
  }
  return Error::success();
}

bool hasControlFlow(const Function &F) {
  for (const auto &n : F.getNodes())
    if (n->getKind() == NodeKind::If || n->getKind() == NodeKind::Loop)
      return true;
  return false;
}

std::vector<Function *> nestedBodies(const Function &F) {
  std::vector<Function *> bodies;
  std::vector<const Function *> work{&F};
  llvm::SmallPtrSet<const Function *, 8> seen{&F};
  while (!work.empty()) {
    const Function *f = work.back();
    work.pop_back();
    for (const auto &n : f->getNodes())
      for (Function *b : bodiesOf(*n))
        if (seen.insert(b).second) {
          bodies.push_back(b);
          work.push_back(b);
        }
  }
  return bodies;
}

} // namespace ember
