#include "OpContext.h"

#include "ONNXTensor.h"

#include "ember/Importer/ModelLoader.h"
#include "ember/Support/Error.h"

#include <algorithm>
#include <cassert>

#include <onnx/defs/schema.h>

using namespace llvm;

namespace ember {

/// Besides the default domain, ember loads the operators of ONNX's training domain: the
/// optimizers (TrainingOps.cpp).
static constexpr StringLiteral kTrainingDomain = "ai.onnx.preview.training";
static constexpr int64_t kMaxTrainingOpset = 1;
/// The ONNX-ML domain (MLOps*.cpp), up to the opset that added TreeEnsemble.
static constexpr StringLiteral kMLDomain = "ai.onnx.ml";
static constexpr int64_t kMaxMLOpset = 5;

/// The ONNX-ML loaders, apart from the default domain's: their op types are looked up only for
/// nodes of that domain.
static const OpRegistry &mlRegistry() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    registerMLOps(r);
    return r;
  }();
  return registry;
}

bool isDefaultDomain(StringRef domain) { return domain.empty() || domain == "ai.onnx"; }

/// The opset \p n's operator is looked up at: the model's import of the node's domain, 0 if it
/// imports none.
int64_t nodeOpset(const onnx::ModelProto &model, int64_t defaultOpset, const onnx::NodeProto &n) {
  if (isDefaultDomain(n.domain()))
    return defaultOpset;
  for (const auto &o : model.opset_import())
    if (o.domain() == n.domain())
      return o.version();
  return 0;
}

/// \p n's loader at \p opset, or null. The registry is keyed by op type alone, so a node of
/// the training domain must also be an operator ONNX defines there (one named Relu is not ONNX's
/// Relu); the training ops' names clash with no default-domain op.
OpLoader findLoader(const onnx::NodeProto &n, int64_t opset) {
  if (opset < 1)
    return nullptr;
  if (n.domain() == kMLDomain)
    return opset <= kMaxMLOpset ? mlRegistry().find(n.op_type(), opset) : nullptr;
  if (!isDefaultDomain(n.domain()) &&
      (n.domain() != kTrainingDomain || opset > kMaxTrainingOpset ||
       !onnx::OpSchemaRegistry::Schema(n.op_type(), int(opset), n.domain())))
    return nullptr;
  return OpRegistry::get().find(n.op_type(), opset);
}


void OpRegistry::add(StringRef opType, int64_t sinceOpset, OpLoader load) {
  auto &v = loaders_[opType];
  v.push_back({sinceOpset, load});
  std::sort(v.begin(), v.end(),
            [](const Entry &a, const Entry &b) { return a.sinceOpset < b.sinceOpset; });
}

namespace {
struct ONNXOpVersion {
  StringLiteral name;
  int64_t version;
  bool signature;
};
constexpr ONNXOpVersion kONNXOpVersions[] = {
#define EMBER_ONNX_OP_VERSION(NAME, VERSION, SIGNATURE) {#NAME, VERSION, SIGNATURE != 0},
#include "ONNXOpVersions.inc"
#undef EMBER_ONNX_OP_VERSION
};
} // namespace

int64_t newestONNXVersion(StringRef opType, int64_t opset) {
  int64_t newest = 0;
  for (const ONNXOpVersion &v : kONNXOpVersions)
    if (v.name == opType && v.version <= opset)
      newest = std::max(newest, v.version);
  return newest;
}

bool signatureChangedSince(StringRef opType, int64_t from, int64_t opset) {
  for (const ONNXOpVersion &v : kONNXOpVersions)
    if (v.name == opType && v.signature && v.version > from && v.version <= opset)
      return true;
  return false;
}

void OpRegistry::widen(StringRef opType, int64_t version) {
  OpLoader before = find(opType, version - 1);
  assert(before && "a widened version needs the loader of the version before");
  add(opType, version, before);
}

const OpRegistry::Entry *OpRegistry::latest(StringRef opType, int64_t opset) const {
  auto it = loaders_.find(opType);
  if (it == loaders_.end())
    return nullptr;
  const Entry *best = nullptr;
  for (const Entry &e : it->second) // sorted by first opset
    if (e.sinceOpset <= opset)
      best = &e;
  return best;
}

OpLoader OpRegistry::find(StringRef opType, int64_t opset) const {
  const Entry *best = latest(opType, opset);
  if (!best || best->sinceOpset < newestONNXVersion(opType, opset))
    return nullptr;
  return best->load;
}

std::string OpRegistry::whyNot(StringRef opType, int64_t opset) const {
  const Entry *best = latest(opType, opset);
  if (!best || find(opType, opset))
    return "";
  int64_t read = best->sinceOpset;
  // The first version past the one ember reads: later ones build on it.
  int64_t unread = 0;
  for (const ONNXOpVersion &v : kONNXOpVersions)
    if (v.name == opType && v.version > read && v.version <= opset &&
        (!unread || v.version < unread))
      unread = v.version;
  return "ember reads " + opType.str() + " up to its version " + std::to_string(read) +
         "; ONNX changed it at opset " + std::to_string(unread);
}

std::vector<std::pair<std::string, std::vector<int64_t>>> OpRegistry::versions() const {
  std::vector<std::pair<std::string, std::vector<int64_t>>> all;
  for (const auto &op : loaders_) {
    std::vector<int64_t> v;
    for (const Entry &e : op.getValue())
      if (v.empty() || v.back() != e.sinceOpset)
        v.push_back(e.sinceOpset);
    all.push_back({op.getKey().str(), std::move(v)});
  }
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<std::string> onnxOperatorVersions() {
  std::vector<std::string> lines;
  auto list = [&](const OpRegistry &registry, auto domainOf) {
    for (const auto &[op, versions] : registry.versions()) {
      std::string line = domainOf(op) + " " + op;
      for (int64_t v : versions)
        line += " " + std::to_string(v);
      lines.push_back(std::move(line));
    }
  };
  list(OpRegistry::get(), [](const std::string &op) {
    bool training =
        onnx::OpSchemaRegistry::Schema(op, int(kMaxTrainingOpset), kTrainingDomain.str());
    return training ? kTrainingDomain.str() : std::string("ai.onnx");
  });
  list(mlRegistry(), [](const std::string &) { return kMLDomain.str(); });
  std::stable_sort(lines.begin(), lines.end(), [](const std::string &a, const std::string &b) {
    return a.substr(0, a.find(' ')) < b.substr(0, b.find(' '));
  });
  return lines;
}

const OpRegistry &OpRegistry::get() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    registerElementwiseOps(r);
    registerNNOps(r);
    registerDataMovementOps(r);
    registerReduceOps(r);
    registerNormalizationOps(r);
    registerQuantizedOps(r);
    registerRecurrentOps(r);
    registerControlFlowOps(r);
    registerSignalOps(r);
    registerSequenceOps(r);
    registerTrainingOps(r);
    registerTextOps(r);
    registerRandomOps(r);
    registerWidenedVersions(r);
    return r;
  }();
  return registry;
}

std::string onnxNodeLabel(const onnx::NodeProto &n) {
  std::string name = !n.name().empty() ? n.name() : n.output_size() ? n.output(0) : "";
  return "node '" + name + "' (" + n.op_type() + ")";
}

std::string ONNXValue::describe() const {
  return GraphValue::describeValue(isSequence, isOptional, present, elements.size());
}

std::optional<ONNXValue> ValueScope::lookup(StringRef name) const {
  auto t = tensors_.find(name);
  if (t != tensors_.end())
    return ONNXValue::ofTensor(t->second);
  auto q = structured_.find(name);
  if (q != structured_.end())
    return q->second;
  if (!outer_)
    return std::nullopt;
  // Recursive, so that a value crossing several body boundaries is captured by the outermost
  // body first, then by each one inside it.
  std::optional<ONNXValue> v = outer_->lookup(name);
  if (v && capture_) {
    if (v->tensor)
      v->tensor = capture_(v->tensor);
    for (NodeValue &e : v->elements)
      e = capture_(e);
  }
  return v;
}

bool ValueScope::bind(StringRef name, ONNXValue v) {
  if (tensors_.count(name) || structured_.count(name))
    return false;
  if (v.isPlainTensor())
    tensors_[name] = v.tensor;
  else
    structured_[name] = std::move(v);
  return true;
}

Expected<std::vector<ONNXValue>> OpContext::importSubgraph(const onnx::GraphProto &graph,
                                                           ArrayRef<ONNXValue> inputs,
                                                           StringRef instance, Function *body,
                                                           ValueScope::Capture capture) {
  Function &into = body ? *body : fn_;
  // Unnamed subgraphs load too (the checker's finding is tolerated), so name them somehow.
  std::string label =
      graph.name().empty() ? "unnamed subgraph" : "subgraph '" + graph.name() + "'";
  if (size_t(graph.input_size()) != inputs.size())
    return makeError(label + " has " + Twine(graph.input_size()) + " inputs, " +
                     onnxNodeLabel(node_) + " gives it " + Twine(inputs.size()));
  ValueScope scope(&scope_, baseName() + (instance.empty() ? "" : "." + instance.str()) + ".",
                   std::move(capture));
  for (int i = 0; i < graph.input_size(); ++i)
    if (!scope.bind(graph.input(i).name(), inputs[i]))
      return makeError(label + ": input '" + graph.input(i).name() + "' is listed twice");
  for (const auto &init : graph.initializer()) {
    auto t = tensorFromONNX(init);
    if (!t)
      return withContext(t.takeError(), label + ": initializer '" + init.name() + "'");
    Constant *c = module_.createConstant(std::move(*t), scope.namePrefix() + init.name());
    if (!scope.bind(init.name(), ONNXValue::ofTensor(c->getResult())))
      return makeError(label + ": initializer '" + init.name() + "' is defined twice");
  }
  for (const auto &n : graph.node()) {
    // The loader the model's main graph would use: its domain's opset (the training domain's
    // operators load in a body too).
    int64_t opset = model_ ? nodeOpset(*model_, opset_, n) : isDefaultDomain(n.domain()) ? opset_ : 0;
    OpLoader load = findLoader(n, opset);
    if (!load)
      return makeError(label + ": unsupported operator " + onnxNodeLabel(n) +
                       (isDefaultDomain(n.domain()) ? "" : " in domain '" + n.domain() + "'") +
                       " at opset " + Twine(opset));
    OpContext sub(n, opts_, opset, module_, into, scope);
    sub.setModel(model_);
    Error err = load(sub);
    err = joinErrors(std::move(err), sub.takeAttrError());
    if (err)
      return withContext(std::move(err), label + ": " + onnxNodeLabel(n));
  }
  std::vector<ONNXValue> outputs;
  for (const auto &out : graph.output()) {
    std::optional<ONNXValue> v = scope.lookup(out.name());
    if (!v)
      return makeError(label + ": output '" + out.name() + "' is not produced by any node");
    outputs.push_back(std::move(*v));
  }
  return outputs;
}

Expected<const Tensor *> OpContext::constantValue(NodeValue v, StringRef what) {
  if (v.node->getKind() == NodeKind::Constant)
    return &static_cast<Constant *>(v.node)->getPayload();
  // constantInput is the one place values fold (and name the graph inputs they need): ask it
  // on behalf of a node reading v under the name \p what.
  ValueScope probeScope(&scope_);
  probeScope.bind(what, ONNXValue::ofTensor(v));
  onnx::NodeProto probe;
  probe.set_name(baseName());
  probe.set_op_type(node_.op_type());
  probe.add_input(what.str());
  OpContext reader(probe, opts_, opset_, module_, fn_, probeScope);
  return reader.constantInput(0);
}

std::string OpContext::baseName() const {
  if (!node_.name().empty())
    return scope_.namePrefix() + node_.name();
  if (node_.output_size() && !node_.output(0).empty())
    return scope_.namePrefix() + node_.output(0);
  return scope_.namePrefix() + node_.op_type();
}

Error OpContext::fail(const Twine &why) const { return makeError(why); }

Expected<ONNXValue> OpContext::inputValue(unsigned i) {
  if (!hasInput(i))
    return makeError("input " + Twine(i) + " is missing");
  std::optional<ONNXValue> v = scope_.lookup(node_.input(i));
  if (!v)
    return makeError("input '" + node_.input(i) +
                     "' is not produced by any earlier node, initializer or graph input");
  return std::move(*v);
}

Expected<NodeValue> OpContext::input(unsigned i) {
  EMBER_ASSIGN_OR_RETURN(ONNXValue v, inputValue(i));
  if (!v.isPlainTensor())
    return makeError("input " + Twine(i) + " ('" + node_.input(i) + "') is " + v.describe() +
                     ", where a tensor is expected");
  return v.tensor;
}

Expected<std::vector<NodeValue>> OpContext::inputSequence(unsigned i) {
  EMBER_ASSIGN_OR_RETURN(ONNXValue v, inputValue(i));
  if (!v.isSequence || v.isOptional)
    return makeError("input " + Twine(i) + " ('" + node_.input(i) + "') is " + v.describe() +
                     ", where a sequence is expected");
  return std::move(v.elements);
}

Error OpContext::setOutputValue(unsigned i, ONNXValue v) {
  if (!hasOutput(i))
    return Error::success();
  if (!scope_.bind(node_.output(i), std::move(v)))
    return makeError("output '" + node_.output(i) + "' is already defined");
  return Error::success();
}

Error OpContext::setOutput(unsigned i, NodeValue v) {
  return setOutputValue(i, ONNXValue::ofTensor(v));
}

Error OpContext::setOutputSequence(unsigned i, std::vector<NodeValue> elements) {
  return setOutputValue(i, ONNXValue::ofSequence(std::move(elements)));
}

bool OpContext::hasAttr(StringRef name) const {
  for (const auto &a : node_.attribute())
    if (a.name() == name)
      return true;
  return false;
}

const onnx::AttributeProto *OpContext::findAttr(StringRef name,
                                                onnx::AttributeProto::AttributeType type) {
  for (const auto &a : node_.attribute()) {
    if (a.name() != name)
      continue;
    if (a.type() != type && a.type() != onnx::AttributeProto::UNDEFINED) {
      attrError_ = joinErrors(std::move(attrError_),
                              makeError("attribute '" + name + "' has type " +
                                        onnx::AttributeProto::AttributeType_Name(a.type()) +
                                        ", expected " +
                                        onnx::AttributeProto::AttributeType_Name(type)));
      return nullptr;
    }
    return &a;
  }
  return nullptr;
}

int64_t OpContext::getInt(StringRef name, int64_t def) {
  const auto *a = findAttr(name, onnx::AttributeProto::INT);
  return a ? a->i() : def;
}

float OpContext::getFloat(StringRef name, float def) {
  const auto *a = findAttr(name, onnx::AttributeProto::FLOAT);
  return a ? a->f() : def;
}

std::string OpContext::getString(StringRef name, StringRef def) {
  const auto *a = findAttr(name, onnx::AttributeProto::STRING);
  return a ? a->s() : def.str();
}

std::vector<int64_t> OpContext::getInts(StringRef name, std::vector<int64_t> def) {
  const auto *a = findAttr(name, onnx::AttributeProto::INTS);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : def;
}

std::vector<float> OpContext::getFloats(StringRef name, std::vector<float> def) {
  const auto *a = findAttr(name, onnx::AttributeProto::FLOATS);
  return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : def;
}

const onnx::TensorProto *OpContext::getTensorAttr(StringRef name) {
  const auto *a = findAttr(name, onnx::AttributeProto::TENSOR);
  return a ? &a->t() : nullptr;
}

Expected<const onnx::GraphProto *> OpContext::getGraphAttr(StringRef name) {
  const auto *a = findAttr(name, onnx::AttributeProto::GRAPH);
  if (!a)
    return makeError("attribute '" + name + "' (a graph) is missing");
  return &a->g();
}

Expected<int64_t> normalizeAxis(int64_t axis, unsigned rank) {
  int64_t r = rank;
  if (axis < -r || axis >= r)
    return makeError("axis " + Twine(axis) + " is out of range for rank " + Twine(rank));
  return axis < 0 ? axis + r : axis;
}

Expected<DimsVec> broadcastShapes(ArrayRef<dim_t> a, ArrayRef<dim_t> b) {
  size_t rank = std::max(a.size(), b.size());
  DimsVec out(rank);
  for (size_t i = 0; i < rank; ++i) {
    dim_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    dim_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return makeError("shapes [" + dimsToString(a) + "] and [" + dimsToString(b) +
                       "] cannot be broadcast together");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

} // namespace ember
