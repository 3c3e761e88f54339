#include "NodeBuilder.h"

#include "ember/Importer/CompileTimeInputs.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Support/Error.h"
#include "ember/Support/MemoryBudget.h"

#include "llvm/ADT/DenseSet.h"

using namespace llvm;

namespace ember {

namespace {

/// The graph inputs (Placeholders) \p v is computed from, each once, in the order met.
std::vector<std::string> graphInputsOf(NodeValue v) {
  std::vector<std::string> names;
  DenseSet<const Node *> seen{v.node};
  SmallVector<const Node *, 32> stack{v.node}; // iterative: shape chains can be long
  while (!stack.empty()) {
    const Node *n = stack.pop_back_val();
    if (n->getKind() == NodeKind::Placeholder)
      names.push_back(n->getName().str());
    for (const NodeValue &op : n->getOperands())
      if (seen.insert(op.node).second)
        stack.push_back(op.node);
  }
  return names;
}

} // namespace

Expected<SmallVector<NodeValue, 4>> NodeBuilder::inputs(unsigned count) {
  SmallVector<NodeValue, 4> values;
  for (unsigned i = 0; i < count; ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, input(i));
    values.push_back(v);
  }
  return values;
}

Expected<const Tensor *> NodeBuilder::constantInput(unsigned i) {
  EMBER_ASSIGN_OR_RETURN(NodeValue v, input(i));
  if (v.node->getKind() == NodeKind::Constant)
    return &static_cast<Constant *>(v.node)->getPayload();
  std::string name = inputName(i);
  std::string operand = "input " + std::to_string(i) + " ('" + name + "')";
  // Computed from graph inputs: no evaluator can help, but binding those inputs to values
  // (ImportOptions::constantInputs) can; the error names them so a tool can.
  std::vector<std::string> graphInputs = graphInputsOf(v);
  if (!graphInputs.empty())
    return make_error<CompileTimeInputsError>(operand, graphInputs);
  std::string why = operand + " must be a constant known at compile time";
  if (!opts_.evaluateConstant)
    return makeError(why);
  auto value = opts_.evaluateConstant(v);
  if (!value)
    return withContext(value.takeError(), why);
  // Later readers of the same value see the folded constant directly.
  Constant *c = module_.createConstant(std::move(*value), name);
  values()[name] = c->getResult();
  return &c->getPayload();
}

Expected<SmallVector<const Tensor *, 5>> NodeBuilder::constantInputs(ArrayRef<unsigned> indices,
                                                                      const Twine &why) {
  SmallVector<const Tensor *, 5> values;
  Error missing = Error::success();
  for (unsigned i : indices) {
    auto value = constantInput(i);
    if (value) {
      values.push_back(*value);
      continue;
    }
    Error e = value.takeError();
    missing = joinErrors(std::move(missing), why.isTriviallyEmpty() ? std::move(e)
                                                                    : withContext(std::move(e), why));
    values.push_back(nullptr);
  }
  if (missing)
    return std::move(missing);
  return values;
}

Expected<std::vector<int64_t>> NodeBuilder::constantInts(unsigned i) {
  EMBER_ASSIGN_OR_RETURN(const Tensor *t, constantInput(i));
  return tensorInts(*t, "input " + Twine(i) + " ('" + inputName(i) + "')");
}

Expected<std::vector<int64_t>> tensorInts(const Tensor &t, const Twine &what) {
  if (!isIntegerKind(t.getType().kind))
    return makeError(what + " must be integer, got " + t.getType().str());
  if (t.getType().kind == ElemKind::Int64) // exact, no round trip through double
    return std::vector<int64_t>(t.dataAs<int64_t>(), t.dataAs<int64_t>() + t.numElements());
  std::vector<int64_t> out;
  for (size_t k = 0; k < t.numElements(); ++k) {
    double v = t.elementAsDouble(k);
    // A uint64 above int64's range (found by the onnx_binary fuzzer): an error, not a cast
    // whose result is undefined.
    if (!(v >= -0x1p63 && v < 0x1p63))
      return makeError(what + " holds " + Twine(uint64_t(t.dataAs<uint64_t>()[k])) +
                       ", beyond the int64 range");
    out.push_back(int64_t(v));
  }
  return out;
}

Expected<NodeValue> NodeBuilder::create(NodeKind kind, ArrayRef<NodeValue> operands,
                                        AttrList attrs, StringRef suffix) {
  std::string name = baseName();
  if (!suffix.empty())
    name += "." + suffix.str();
  EMBER_ASSIGN_OR_RETURN(Node * n, fn_.createNode(kind, name, operands, std::move(attrs)));
  return n->getResult(0);
}

Constant *NodeBuilder::createConstant(Tensor t, StringRef suffix) {
  return module_.createConstant(std::move(t), baseName() + "." + suffix.str());
}

Expected<Tensor> NodeBuilder::newTensor(const Type &t, const Twine &what) {
  EMBER_TRY(checkMemoryBudget(t.sizeInBytes(), what + " " + t.str()));
  return Tensor(t);
}

Expected<NodeValue> NodeBuilder::createFilled(ElemKind kind, ArrayRef<dim_t> dims, double value,
                                             StringRef suffix) {
  EMBER_ASSIGN_OR_RETURN(Type t, Type::checkedDims(kind, dims));
  EMBER_ASSIGN_OR_RETURN(Tensor filled, newTensor(t, "the filled constant '" + suffix + "'"));
  filled.fill(value);
  return createConstant(std::move(filled), suffix)->getResult();
}

Expected<NodeValue> NodeBuilder::reshape(NodeValue v, ArrayRef<dim_t> dims) {
  if (ArrayRef<dim_t>(v.getType().dims) == dims)
    return v;
  return create(NodeKind::Reshape, {v},
                AttrList().set<AttrKind::Dims>(std::vector<int64_t>(dims.begin(), dims.end())),
                "reshape");
}

Expected<NodeValue> NodeBuilder::castTo(NodeValue v, ElemKind kind, StringRef suffix) {
  if (v.getType().kind == kind)
    return v;
  return create(NodeKind::Cast, {v},
                AttrList().set<AttrKind::ResultKind>(elemKindName(kind).str()), suffix);
}

Expected<NodeValue> NodeBuilder::broadcastTo(NodeValue v, ArrayRef<dim_t> dims) {
  if (ArrayRef<dim_t>(v.getType().dims) == dims)
    return v;
  return create(NodeKind::Broadcast, {v},
                AttrList().set<AttrKind::Dims>(std::vector<int64_t>(dims.begin(), dims.end())),
                "broadcast");
}

Expected<NodeValue> NodeBuilder::transpose(NodeValue v, ArrayRef<int64_t> perm,
                                           StringRef suffix) {
  return create(NodeKind::Transpose, {v},
                AttrList().set<AttrKind::Shuffle>(std::vector<int64_t>(perm.begin(), perm.end())),
                suffix);
}

} // namespace ember
