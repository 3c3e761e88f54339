#include "OpContext.h"

#include "ONNXTensor.h"

#include "ember/Importer/ModelLoader.h"
#include "ember/Support/Error.h"

#include <algorithm>

using namespace llvm;

namespace ember {

void OpRegistry::add(StringRef opType, int64_t sinceOpset, OpLoader load) {
  auto &v = loaders_[opType];
  v.push_back({sinceOpset, load});
  std::sort(v.begin(), v.end(),
            [](const Entry &a, const Entry &b) { return a.sinceOpset < b.sinceOpset; });
}

OpLoader OpRegistry::find(StringRef opType, int64_t opset) const {
  auto it = loaders_.find(opType);
  if (it == loaders_.end())
    return nullptr;
  OpLoader best = nullptr;
  for (const Entry &e : it->second)
    if (e.sinceOpset <= opset)
      best = e.load;
  return best;
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
    return r;
  }();
  return registry;
}

std::string onnxNodeLabel(const onnx::NodeProto &n) {
  std::string name = !n.name().empty() ? n.name() : n.output_size() ? n.output(0) : "";
  return "node '" + name + "' (" + n.op_type() + ")";
}

Error OpContext::importSubgraph(const onnx::GraphProto &graph) {
  for (const auto &init : graph.initializer()) {
    auto t = tensorFromONNX(init);
    if (!t)
      return withContext(t.takeError(), "initializer '" + init.name() + "'");
    values_[init.name()] = module_.createConstant(std::move(*t), init.name())->getResult();
  }
  // Unnamed subgraphs load too (the checker's finding is tolerated), so name them somehow.
  std::string label =
      graph.name().empty() ? "unnamed subgraph" : "subgraph '" + graph.name() + "'";
  for (const auto &n : graph.node()) {
    bool defaultDomain = n.domain().empty() || n.domain() == "ai.onnx";
    OpLoader load = defaultDomain ? OpRegistry::get().find(n.op_type(), opset_) : nullptr;
    if (!load)
      return makeError(label + ": unsupported operator " + onnxNodeLabel(n) + " at opset " +
                       Twine(opset_));
    OpContext sub(n, opts_, opset_, module_, fn_, values_);
    Error err = load(sub);
    err = joinErrors(std::move(err), sub.takeAttrError());
    if (err)
      return withContext(std::move(err), label + ": " + onnxNodeLabel(n));
  }
  return Error::success();
}

Expected<NodeValue> OpContext::value(StringRef name) const {
  auto it = values_.find(name);
  if (it == values_.end())
    return makeError("value '" + name + "' is not defined");
  return it->second;
}

std::string OpContext::baseName() const {
  if (!node_.name().empty())
    return node_.name();
  if (node_.output_size() && !node_.output(0).empty())
    return node_.output(0);
  return node_.op_type();
}

Error OpContext::fail(const Twine &why) const { return makeError(why); }

Expected<NodeValue> OpContext::input(unsigned i) {
  if (!hasInput(i))
    return makeError("input " + Twine(i) + " is missing");
  auto it = values_.find(node_.input(i));
  if (it == values_.end())
    return makeError("input '" + node_.input(i) +
                     "' is not produced by any earlier node, initializer or graph input");
  return it->second;
}

Error OpContext::setOutput(unsigned i, NodeValue v) {
  if (!hasOutput(i))
    return Error::success();
  if (!values_.try_emplace(node_.output(i), v).second)
    return makeError("output '" + node_.output(i) + "' is already defined");
  return Error::success();
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

const onnx::TensorProto *OpContext::getTensorAttr(StringRef name) {
  const auto *a = findAttr(name, onnx::AttributeProto::TENSOR);
  return a ? &a->t() : nullptr;
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
