#include "ember/IR/IRGen.h"
#include "ember/Graph/ControlFlow.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace ember {

namespace {

using ValueKey = std::pair<const Node *, unsigned>;

/// The order \p F's nodes are emitted in: a topological order, with each DequantizeLinear moved
/// to just before its first reader. A dequantized value is four times the bytes of its input,
/// and a QDQ model's exporter places it right after the QuantizeLinear it reads, which may be
/// far from its readers: a residual branch's was computed with the block's first Add and read by
/// the next block's, kept that long as float32. Right before its reader, it lives shorter, and
/// the CPU backend's element-wise fusion computes it inside the reader's loop without ever
/// storing it. A DequantizeLinear read inside an If's or Loop's body stays where it is (the body
/// is emitted with its node, which may come before the other readers).
std::vector<Node *> emissionOrder(const Function &F) {
  std::vector<Node *> order = F.topologicalOrder();
  DenseMap<const Node *, size_t> position;
  for (size_t i = 0; i < order.size(); ++i)
    position[order[i]] = i;
  std::vector<SmallVector<Node *, 2>> before(order.size());
  std::vector<bool> moved(order.size(), false);
  for (size_t i = 0; i < order.size(); ++i) {
    Node *n = order[i];
    if (n->getKind() != NodeKind::DequantizeLinear || !n->hasUsers())
      continue;
    size_t first = order.size();
    bool local = true;
    for (const NodeUse &u : n->getUsers()) {
      auto it = position.find(u.user);
      local &= it != position.end();
      if (it != position.end())
        first = std::min(first, it->second);
    }
    if (!local || first == i + 1)
      continue;
    before[first].push_back(n);
    moved[i] = true;
  }
  std::vector<Node *> result;
  result.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    result.insert(result.end(), before[i].begin(), before[i].end());
    if (!moved[i])
      result.push_back(order[i]);
  }
  return result;
}

/// Lowers one graph function's nodes into the IR, and the bodies of its If and Loop nodes
/// inline, between their control-flow markers (IR.h). A body's values are allocated and freed
/// inside its region; what crosses the region's boundary (the values a body reads from outside,
/// the If's results, a Loop's carried values) lives in buffers allocated outside it.
class IRGenerator {
  IRFunction &IR_;

  Instruction *alloc(const std::string &name, const Type &ty) {
    return IR_.append(std::make_unique<Instruction>(InstrKind::AllocActivation, name + ".alloc",
                                                    ArrayRef<InstrOperand>{}, AttrList(), 0, ty));
  }
  void dealloc(Instruction *a) {
    IR_.append(std::make_unique<Instruction>(InstrKind::DeallocActivation,
                                             a->getName().str() + ".dealloc",
                                             InstrOperand{a, OperandMode::Out}, AttrList(), 0));
  }
  void copy(const std::string &name, IRValue *dest, IRValue *src) {
    IR_.append(std::make_unique<Instruction>(
        InstrKind::Copy, name, ArrayRef<InstrOperand>{{dest, OperandMode::Out}, {src, OperandMode::In}},
        AttrList(), 1));
  }
  void marker(InstrKind k, const std::string &name, ArrayRef<InstrOperand> operands,
              unsigned numOutputs, AttrList attrs = {}) {
    IR_.append(std::make_unique<Instruction>(k, name, operands, std::move(attrs), numOutputs));
  }

  /// Where a body's outputs go, given in index order once the body has computed them all.
  using OutputSink = function_ref<Error(ArrayRef<IRValue *> outputs)>;

  Error emitIf(const Node &n, DenseMap<ValueKey, IRValue *> &valueOf);
  Error emitLoop(const Node &n, DenseMap<ValueKey, IRValue *> &valueOf);

public:
  explicit IRGenerator(IRFunction &IR) : IR_(IR) {}

  /// Emits \p F's nodes. \p valueOf holds the storage values and, for a body, its BodyInputs'
  /// values; \p sink receives a body's outputs (null for the main function, whose outputs are
  /// Saves).
  Error emitFunction(const Function &F, DenseMap<ValueKey, IRValue *> valueOf,
                     function_ref<Error(ArrayRef<IRValue *>)> sink);
};

Error IRGenerator::emitFunction(const Function &F, DenseMap<ValueKey, IRValue *> valueOf,
                                function_ref<Error(ArrayRef<IRValue *>)> sink) {
  std::vector<Node *> order = emissionOrder(F);
  // Each activation is freed right after the position of its last reader. A body's outputs
  // are handed over after all of its nodes (a Loop overwrites its carried values with them,
  // which the body's other nodes may still read), so what they read lives to the end.
  DenseMap<ValueKey, size_t> lastUse;
  for (size_t i = 0; i < order.size(); ++i)
    for (const NodeValue &v : order[i]->getOperands())
      lastUse[{v.node, v.resNo}] =
          order[i]->getKind() == NodeKind::BodyOutput ? order.size() : i;
  std::vector<SmallVector<Instruction *, 2>> deallocAfter(order.size() + 1);
  SmallVector<IRValue *, 8> outputs;

  auto operandValue = [&](const Node *n, const NodeValue &v) -> Expected<IRValue *> {
    if (IRValue *src = valueOf.lookup({v.node, v.resNo}))
      return src;
    return makeError("node '" + n->getName() + "' (" + n->getKindName() + "): operand '" +
                     v.node->getName() + "' has no IR value");
  };

  for (size_t i = 0; i < order.size(); ++i) {
    Node *n = order[i];
    switch (n->getKind()) {
    case NodeKind::Save: {
      IRValue *dest = IR_.getWeightVar(n->getOperand(ops::Save::Output).node);
      EMBER_ASSIGN_OR_RETURN(IRValue * src, operandValue(n, n->getOperand(ops::Save::Input)));
      copy(n->getName().str(), dest, src);
      break;
    }
    case NodeKind::BodyInput:
      if (!valueOf.lookup({n, 0}))
        return makeError("node '" + n->getName() + "' (BodyInput): no value is handed to index " +
                         Twine(n->attr<AttrKind::Index>()));
      break;
    case NodeKind::BodyOutput: {
      size_t k = size_t(n->attr<AttrKind::Index>());
      if (outputs.size() <= k)
        outputs.resize(k + 1, nullptr);
      EMBER_ASSIGN_OR_RETURN(outputs[k], operandValue(n, n->getOperand(0)));
      break;
    }
    case NodeKind::If:
    case NodeKind::Loop: {
      // Results are allocated outside the region; both branches (every iteration) write them.
      for (unsigned r = 0; r < n->getNumResults(); ++r) {
        Instruction *a = alloc(n->getName().str() + ".res" + std::to_string(r), n->getType(r));
        valueOf[{n, r}] = a;
        auto last = lastUse.find({n, r});
        deallocAfter[last == lastUse.end() ? i : last->second].push_back(a);
      }
      EMBER_TRY(n->getKind() == NodeKind::If ? emitIf(*n, valueOf) : emitLoop(*n, valueOf));
      break;
    }
    default: {
      SmallVector<InstrOperand, 4> operands;
      for (unsigned r = 0; r < n->getNumResults(); ++r) {
        std::string name = n->getName().str();
        if (n->getNumResults() > 1)
          name += ".res" + std::to_string(r);
        Instruction *a = alloc(name, n->getType(r));
        valueOf[{n, r}] = a;
        auto last = lastUse.find({n, r});
        // A result nobody reads is freed right after it is written.
        deallocAfter[last == lastUse.end() ? i : last->second].push_back(a);
        operands.push_back({a, OperandMode::Out});
      }
      for (const NodeValue &v : n->getOperands()) {
        EMBER_ASSIGN_OR_RETURN(IRValue * src, operandValue(n, v));
        operands.push_back({src, OperandMode::In});
      }
      IR_.append(std::make_unique<Instruction>(instrKindFor(n->getKind()), n->getName(),
                                               operands, n->getAttrs(), n->getNumResults()));
      break;
    }
    }
    for (Instruction *a : deallocAfter[i])
      dealloc(a);
  }
  if (sink)
    EMBER_TRY(sink(outputs));
  else if (!outputs.empty())
    return makeError("function '" + F.getName() + "' has BodyOutputs but is not a body");
  for (Instruction *a : deallocAfter[order.size()])
    dealloc(a);
  return Error::success();
}

/// Binds a body's BodyInputs to the values \p inputOf gives for their indices.
static Expected<DenseMap<ValueKey, IRValue *>>
bodyScope(const Function &body, const DenseMap<ValueKey, IRValue *> &outer,
          function_ref<IRValue *(unsigned)> inputOf) {
  DenseMap<ValueKey, IRValue *> valueOf;
  // Storage (placeholders, constants) is shared by every function of the module.
  for (const auto &[key, v] : outer)
    if (key.first->isStorage())
      valueOf[key] = v;
  for (Node *in : bodyInputsOf(body))
    if (in) {
      IRValue *v = inputOf(unsigned(in->attr<AttrKind::Index>()));
      if (!v)
        return makeError("body '" + body.getName() + "' reads input " +
                         Twine(in->attr<AttrKind::Index>()) + ", which nothing hands it");
      valueOf[{in, 0}] = v;
    }
  return valueOf;
}

Error IRGenerator::emitIf(const Node &n, DenseMap<ValueKey, IRValue *> &valueOf) {
  SmallVector<Function *, 2> bodies = bodiesOf(n);
  if (bodies.size() != 2)
    return makeError("node '" + n.getName() + "' (If): a branch is missing");
  SmallVector<IRValue *, 8> inputs;
  for (const NodeValue &v : n.getOperands())
    inputs.push_back(valueOf.lookup({v.node, v.resNo}));
  if (is_contained(inputs, nullptr))
    return makeError("node '" + n.getName() + "' (If): an operand has no IR value");
  std::string name = n.getName().str();
  marker(InstrKind::IfBegin, name + ".if", {{inputs[ops::If::Condition], OperandMode::In}}, 0);
  for (unsigned b = 0; b < 2; ++b) {
    if (b == 1)
      marker(InstrKind::IfElse, name + ".else", {}, 0);
    EMBER_ASSIGN_OR_RETURN(auto scope, bodyScope(*bodies[b], valueOf, [&](unsigned k) {
                             return 1 + k < inputs.size() ? inputs[1 + k] : nullptr;
                           }));
    auto sink = [&](ArrayRef<IRValue *> outs) -> Error {
      for (unsigned r = 0; r < n.getNumResults(); ++r)
        copy(name + (b ? ".else" : ".then") + ".out" + std::to_string(r),
             valueOf.lookup({&n, r}), outs[r]);
      return Error::success();
    };
    EMBER_TRY(emitFunction(*bodies[b], std::move(scope), sink));
  }
  marker(InstrKind::IfEnd, name + ".endif", {}, 0);
  return Error::success();
}

Error IRGenerator::emitLoop(const Node &n, DenseMap<ValueKey, IRValue *> &valueOf) {
  SmallVector<Function *, 2> bodies = bodiesOf(n);
  if (bodies.size() != 1)
    return makeError("node '" + n.getName() + "' (Loop): its body is missing");
  auto operand = [&](unsigned i) { return valueOf.lookup({n.getOperand(i).node, n.getOperand(i).resNo}); };
  unsigned numCarried = unsigned(n.attr<AttrKind::NumCarried>());
  std::string name = n.getName().str();
  // The loop's state: its iteration number, running condition and carried values (which are
  // the Loop's first results, so the last iteration leaves them in place).
  Instruction *iter = alloc(name + ".iter", Type(ElemKind::Int64, {}));
  Instruction *cond = alloc(name + ".cond", Type(ElemKind::Bool, {}));
  SmallVector<IRValue *, 8> state{iter, cond};
  copy(name + ".cond.init", cond, operand(ops::Loop::Condition));
  for (unsigned k = 0; k < numCarried; ++k) {
    IRValue *carried = valueOf.lookup({&n, k});
    copy(name + ".carried" + std::to_string(k) + ".init", carried, operand(ops::Loop::Inputs + k));
    state.push_back(carried);
  }
  marker(InstrKind::LoopBegin, name + ".loop",
         {{iter, OperandMode::Out}, {operand(ops::Loop::TripCount), OperandMode::In}, {cond, OperandMode::In}},
         1, AttrList().set<AttrKind::MaxTripCount>(n.attr<AttrKind::MaxTripCount>()));
  EMBER_ASSIGN_OR_RETURN(auto scope, bodyScope(*bodies[0], valueOf, [&](unsigned k) -> IRValue * {
                           if (k < state.size())
                             return state[k];
                           unsigned op = ops::Loop::Inputs + (k - kLoopFirstInput);
                           return op < n.getNumOperands() ? operand(op) : nullptr;
                         }));
  auto sink = [&](ArrayRef<IRValue *> outs) -> Error {
    // Scan outputs first: one may be a state value, which the next ones overwrite.
    for (unsigned s = 1 + numCarried; s < outs.size(); ++s)
      marker(InstrKind::StoreIteration, name + ".scan" + std::to_string(s - 1 - numCarried),
             {{valueOf.lookup({&n, s - 1}), OperandMode::InOut},
              {outs[s], OperandMode::In},
              {iter, OperandMode::In}},
             1);
    // The next condition and carried values overwrite the state all at once: one that is
    // itself a state value (a body passing a carried value through, or swapping two) is
    // copied aside first.
    SmallVector<IRValue *, 8> next(outs.begin(), outs.begin() + 1 + numCarried);
    SmallVector<Instruction *, 4> temps;
    for (unsigned k = 0; k < next.size(); ++k) {
      if (next[k] == state[1 + k] || !is_contained(state, next[k]))
        continue;
      Instruction *t = alloc(name + ".next" + std::to_string(k), next[k]->getType());
      copy(name + ".next" + std::to_string(k) + ".save", t, next[k]);
      next[k] = t;
      temps.push_back(t);
    }
    for (unsigned k = 0; k < next.size(); ++k)
      if (next[k] != state[1 + k])
        copy(name + (k ? ".carried" + std::to_string(k - 1) : std::string(".cond")) + ".next",
             state[1 + k], next[k]);
    for (Instruction *t : temps)
      dealloc(t);
    return Error::success();
  };
  EMBER_TRY(emitFunction(*bodies[0], std::move(scope), sink));
  marker(InstrKind::LoopEnd, name + ".endloop", {{iter, OperandMode::InOut}}, 1);
  dealloc(cond);
  dealloc(iter);
  return Error::success();
}

} // namespace

Expected<std::unique_ptr<IRFunction>> generateIR(const Function &F) {
  auto IR = std::make_unique<IRFunction>(&F);
  const Module &M = *F.getParent();
  DenseMap<ValueKey, IRValue *> valueOf;
  for (const auto &p : M.getPlaceholders())
    valueOf[{p.get(), 0}] = IR->createWeightVar(p.get());
  for (const auto &c : M.getConstants())
    if (c->hasUsers())
      valueOf[{c.get(), 0}] = IR->createWeightVar(c.get());
  IRGenerator gen(*IR);
  EMBER_TRY(gen.emitFunction(F, std::move(valueOf), nullptr));
  return std::move(IR);
}

} // namespace ember
