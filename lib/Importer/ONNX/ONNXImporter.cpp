// The ONNX importer: reads a binary or text ModelProto, checks it, and builds the graph through
// the operator loaders in OpRegistry.
#include "../ProtoFile.h"
#include "ONNXChecker.h"
#include "ONNXTensor.h"
#include "OpContext.h"

#include "ember/Importer/CompileTimeInputs.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Support/Error.h"
#include "ember/Support/MemoryBudget.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <climits>

using namespace llvm;

namespace ember {

namespace {

Expected<onnx::ModelProto> readModelProto(StringRef path) {
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<MemoryBuffer> buf, readProtoFile(path, "a model file"));
  StringRef bytes = buf->getBuffer();
  if (bytes.empty())
    return makeError("file is empty");
  onnx::ModelProto model;
  bool text =
      path.ends_with(".onnxtxt") || path.ends_with(".pbtxt") || path.ends_with(".prototxt");
  EMBER_TRY(parseProto(bytes, text, model, "not a valid ONNX text model",
                       "not a valid ONNX model (protobuf parse failed: truncated or corrupt?)"));
  if (!model.has_graph())
    return makeError("not a valid ONNX model: it has no graph");
  return model;
}

/// The default domain's opset; 0 when the model imports none (a model of training operators
/// only: a default-domain node in it is unsupported).
Expected<int64_t> defaultDomainOpset(const onnx::ModelProto &model) {
  int64_t opset = -1;
  for (const auto &o : model.opset_import()) {
    if (!isDefaultDomain(o.domain()))
      continue;
    // '' and 'ai.onnx' name the same domain: two opsets for it leave the nodes ambiguous.
    if (opset >= 0 && o.version() != opset)
      return makeError("the default domain is imported twice, at opsets " + Twine(opset) +
                       " and " + Twine(o.version()));
    opset = o.version();
  }
  if (opset < 0)
    return 0;
  if (opset > kMaxONNXOpset)
    return makeError("opset " + Twine(opset) + " is newer than the newest supported (" +
                     Twine(kMaxONNXOpset) + ")");
  if (opset < 1)
    return makeError("invalid opset version " + Twine(opset));
  return opset;
}

/// Whether \p n reads a value named in \p names, itself or in a subgraph (an If branch reads
/// the values of the graph around it).
bool readsAnyOf(const onnx::NodeProto &n, const StringSet<> &names) {
  for (const std::string &in : n.input())
    if (names.count(in))
      return true;
  for (const auto &a : n.attribute()) {
    auto readsIn = [&](const onnx::GraphProto &g) {
      return std::any_of(g.node().begin(), g.node().end(),
                         [&](const onnx::NodeProto &sub) { return readsAnyOf(sub, names); });
    };
    if (a.has_g() && readsIn(a.g()))
      return true;
    for (const auto &g : a.graphs())
      if (readsIn(g))
        return true;
  }
  return false;
}

class ONNXImporter {
  StringRef path_; ///< named in warnings
  const onnx::ModelProto &model_;
  const ImportOptions &opts_;
  int64_t opset_ = 0;
  std::unique_ptr<Module> module_ = std::make_unique<Module>();
  Function *fn_ = module_->createFunction(kMainFunctionName);
  ValueScope values_; ///< the main graph's names: tensors, sequences and optionals
  StringSet<> symbolsSeen_; ///< dim_params of the graph inputs
  StringSet<> bound_;       ///< graph inputs bound to constants
  std::vector<GraphValue> outputs_; ///< the graph's outputs, for ImportOptions::graphOutputs

  Error checkOperatorsSupported();
  Error loadInitializers();
  Error loadInputs();
  Error loadNodes();
  Error loadOutputs();
  Expected<Type> inputType(const onnx::ValueInfoProto &vi, size_t position);
  Expected<Constant *> constantForInput(const onnx::ValueInfoProto &vi,
                                        const ImportOptions::ConstantInput &value);
  Expected<ONNXValue> structuredInput(const onnx::ValueInfoProto &vi, StringSet<> &known);
  Expected<NodeValue> inputTensor(const std::string &name, const Type &ty, StringSet<> &known);

public:
  ONNXImporter(StringRef path, const onnx::ModelProto &model, const ImportOptions &opts)
      : path_(path), model_(model), opts_(opts) {}

  Expected<std::unique_ptr<Module>> run() {
    EMBER_ASSIGN_OR_RETURN(opset_, defaultDomainOpset(model_));
    EMBER_TRY(checkOperatorsSupported());
    // Inputs and outputs keep their exact names: users bind and read them by name, so a
    // graph input passed straight through as an output cannot be told apart.
    StringSet<> inputNames;
    for (const auto &vi : model_.graph().input())
      inputNames.insert(vi.name());
    for (const auto &init : model_.graph().initializer())
      inputNames.erase(init.name());
    for (const auto &vi : model_.graph().output())
      if (inputNames.count(vi.name()))
        return makeError("graph output '" + vi.name() +
                         "' is also a graph input; passing an input straight through is not "
                         "supported");
    for (const auto &vi : model_.graph().output())
      if (!module_->reserveName(vi.name()))
        return makeError("graph output '" + vi.name() + "' is listed twice");
    std::vector<std::string> warnings;
    EMBER_TRY(checkONNXModel(model_, opset_, opts_.strictONNX, warnings));
    EMBER_TRY(loadInitializers());
    EMBER_TRY(loadInputs());
    EMBER_TRY(loadNodes());
    EMBER_TRY(loadOutputs());
    EMBER_TRY(fn_->verify());
    if (opts_.graphOutputs)
      opts_.graphOutputs(outputs_);
    // Only a model that loads is warned about: a refusal says what matters.
    if (opts_.warn)
      for (const std::string &w : warnings)
        opts_.warn(path_.str() + ": " + w);
    return std::move(module_);
  }
};

Error ONNXImporter::checkOperatorsSupported() {
  std::vector<std::string> missing;
  for (const auto &n : model_.graph().node()) {
    int64_t opset = nodeOpset(model_, opset_, n);
    if (findLoader(n, opset))
      continue;
    bool defaultDomain = isDefaultDomain(n.domain());
    std::string domain = defaultDomain ? "" : " in domain '" + n.domain() + "'";
    std::string imported = opset > 0 ? " at opset " + std::to_string(opset)
                           : defaultDomain ? " (the model imports no opset of the default domain)"
                                           : " (the model imports no opset of that domain)";
    std::string why = defaultDomain ? OpRegistry::get().whyNot(n.op_type(), opset) : "";
    missing.push_back(onnxNodeLabel(n) + domain + imported + (why.empty() ? "" : ": " + why));
  }
  if (missing.empty())
    return Error::success();
  std::string msg = "unsupported operators (" + std::to_string(missing.size()) + "):";
  for (const std::string &m : missing)
    msg += "\n  " + m;
  return makeError(msg);
}

Error ONNXImporter::loadInitializers() {
  for (const auto &init : model_.graph().initializer()) {
    auto t = tensorFromONNX(init);
    if (!t)
      return withContext(t.takeError(), "initializer '" + init.name() + "'");
    Constant *c = module_->createConstant(std::move(*t), init.name());
    if (!values_.bind(init.name(), ONNXValue::ofTensor(c->getResult())))
      return makeError("initializer '" + init.name() + "' is defined twice");
  }
  return Error::success();
}

Expected<Type> ONNXImporter::inputType(const onnx::ValueInfoProto &vi, size_t position) {
  if (!vi.type().has_tensor_type())
    return makeError("only tensor inputs are supported");
  const auto &tt = vi.type().tensor_type();
  EMBER_ASSIGN_OR_RETURN(ElemKind kind, elemKindFromONNX(tt.elem_type()));
  if (!tt.has_shape())
    return makeError("has no shape");
  auto given = opts_.inputShapes.find(vi.name());
  if (given == opts_.inputShapes.end() && model_.graph().input_size() -
                                                  model_.graph().initializer_size() <= 1)
    given = opts_.inputShapes.find("");
  const ImportOptions::InputShape *file =
      given == opts_.inputShapes.end() ? nullptr : &given->second;
  if (!file && position < opts_.positionalInputShapes.size())
    file = &opts_.positionalInputShapes[position];
  const std::vector<int64_t> *fileShape = file ? &file->dims : nullptr;
  auto modelShape = [&] {
    std::string s = "[";
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto &d = tt.shape().dim(i);
      s += (i ? "," : "") + (d.has_dim_value() ? std::to_string(d.dim_value())
                                               : d.has_dim_param() ? d.dim_param() : "?");
    }
    return s + "]";
  };
  auto fileShapeStr = [&] {
    std::string s = "[";
    for (size_t i = 0; i < fileShape->size(); ++i)
      s += (i ? "," : "") + std::to_string((*fileShape)[i]);
    return s + "]";
  };
  if (fileShape && fileShape->size() != size_t(tt.shape().dim_size()))
    return makeError(file->source + " has shape " + fileShapeStr() + ", the model expects " +
                     modelShape());
  SmallVector<int64_t, 6> dims;
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto &d = tt.shape().dim(i);
    if (d.has_dim_value()) {
      if (fileShape && (*fileShape)[i] != d.dim_value())
        return makeError(file->source + " has shape " + fileShapeStr() + ", the model expects " +
                         modelShape());
      dims.push_back(d.dim_value());
      continue;
    }
    if (d.has_dim_param()) {
      symbolsSeen_.insert(d.dim_param());
      auto sym = opts_.symbols.find(d.dim_param());
      if (sym != opts_.symbols.end()) {
        if (fileShape && (*fileShape)[i] != sym->second)
          return makeError(file->source + " has shape " + fileShapeStr() + ", but '" + d.dim_param() +
                           "' is defined as " + Twine(sym->second));
        dims.push_back(sym->second);
        continue;
      }
    }
    if (fileShape) {
      dims.push_back((*fileShape)[i]);
      continue;
    }
    return makeError("dim " + Twine(i) + " of shape " + modelShape() + " is symbolic" +
                     (d.has_dim_param() ? " ('" + d.dim_param() + "')" : std::string()) +
                     "; bind it with -onnx-define-symbol=" +
                     (d.has_dim_param() ? d.dim_param() : std::string("NAME")) +
                     ",VALUE or pass an input file");
  }
  return Type::checked(kind, dims);
}

Expected<Constant *> ONNXImporter::constantForInput(const onnx::ValueInfoProto &vi,
                                                    const ImportOptions::ConstantInput &value) {
  if (!vi.type().has_tensor_type())
    return makeError("only tensor inputs can be bound to constants");
  const auto &tt = vi.type().tensor_type();
  EMBER_ASSIGN_OR_RETURN(ElemKind kind, elemKindFromONNX(tt.elem_type()));
  if (!value.tensor) { // a number filling the declared (static) shape
    EMBER_ASSIGN_OR_RETURN(Type ty, inputType(vi, SIZE_MAX));
    EMBER_TRY(checkMemoryBudget(ty.sizeInBytes(), "the bound input " + ty.str()));
    Tensor t(ty);
    t.fill(value.scalar);
    return module_->createConstant(std::move(t), vi.name());
  }
  const Tensor &t = *value.tensor;
  if (t.getType().kind != kind)
    return makeError(value.source + " holds " + elemKindName(t.getType().kind) +
                     ", the model expects " + elemKindName(kind));
  if (tt.has_shape()) {
    bool compatible = tt.shape().dim_size() == int(t.getType().rank());
    for (int i = 0; compatible && i < tt.shape().dim_size(); ++i) {
      const auto &d = tt.shape().dim(i);
      if (d.has_dim_param())
        symbolsSeen_.insert(d.dim_param());
      compatible = !d.has_dim_value() || dim_t(d.dim_value()) == t.getType().dims[i];
    }
    if (!compatible)
      return makeError(value.source + " has shape " + t.getType().str() +
                       ", which does not fit the model's input shape");
  }
  return module_->createConstant(t.clone(), vi.name());
}

/// What an ONNX type holds beyond a tensor (a sequence, an optional and what it holds), or an
/// error for the types ember has no value for (maps, sparse tensors, nested sequences).
Expected<GraphValue> graphValueKind(const std::string &name, const onnx::TypeProto &type) {
  GraphValue v;
  v.name = name;
  const onnx::TypeProto *t = &type;
  if (t->has_optional_type()) {
    v.optional = true;
    t = &t->optional_type().elem_type();
  }
  if (t->has_sequence_type()) {
    v.sequence = true;
    t = &t->sequence_type().elem_type();
  }
  // An untyped value (an output without a type) is what its producer makes of it.
  if (t->has_tensor_type() || t->value_case() == onnx::TypeProto::VALUE_NOT_SET)
    return v;
  return makeError("'" + name + "' is typed " + (v.optional ? "an optional of " : "") +
                   (v.sequence ? "a sequence of " : "") +
                   "something other than tensors; ember holds tensors, sequences of tensors "
                   "and optionals of either");
}

/// The element type a sequence's (or an optional's) tensors are declared with.
const onnx::TypeProto::Tensor *declaredTensorType(const onnx::TypeProto &type) {
  const onnx::TypeProto *t = &type;
  if (t->has_optional_type())
    t = &t->optional_type().elem_type();
  if (t->has_sequence_type())
    t = &t->sequence_type().elem_type();
  return t->has_tensor_type() ? &t->tensor_type() : nullptr;
}

Expected<NodeValue> ONNXImporter::inputTensor(const std::string &name, const Type &ty,
                                              StringSet<> &known) {
  // A tensor of a sequence input can be needed at compile time like any input: bound by its
  // placeholder's name.
  auto bound = opts_.constantInputs.find(name);
  if (bound != opts_.constantInputs.end()) {
    if (!bound->second.tensor || bound->second.tensor->getType().kind != ty.kind ||
        bound->second.tensor->getType().dims != ty.dims)
      return makeError("'" + name + "' is bound at compile time to a value that is not " +
                       ty.str());
    bound_.insert(name);
    return module_->createConstant(bound->second.tensor->clone(), name)->getResult();
  }
  if (!module_->reserveName(name))
    return makeError("'" + name + "' is defined twice");
  known.insert(name);
  return module_->createPlaceholder(ty, name, /*reserved=*/true)->getResult();
}

/// A sequence or optional graph input: its length, element types and presence fixed from the
/// value given for it (ImportOptions::structuredInputs), its tensors placeholders.
Expected<ONNXValue> ONNXImporter::structuredInput(const onnx::ValueInfoProto &vi,
                                                  StringSet<> &known) {
  EMBER_ASSIGN_OR_RETURN(GraphValue declared, graphValueKind(vi.name(), vi.type()));
  std::string what = declared.optional ? declared.sequence ? "an optional sequence"
                                                           : "an optional tensor"
                                       : "a sequence";
  auto given = opts_.structuredInputs.find(vi.name());
  auto tensorGiven = opts_.inputShapes.find(vi.name());
  if (given == opts_.structuredInputs.end() && tensorGiven != opts_.inputShapes.end())
    return makeError(tensorGiven->second.source + " holds a tensor, the model expects " + what);
  if (given == opts_.structuredInputs.end())
    return makeError("no value is given for this input, " + what + ": ember fixes " +
                     (declared.optional ? "whether an optional holds a value" : "a sequence's length") +
                     " at compile time, from the value given for it (" +
                     (declared.optional ? "an OptionalProto" : "a SequenceProto") + " .pb file)");
  GraphValue value = given->second;
  value.name = vi.name(); // its placeholders are named after the input
  bool kindsMatch = value.optional == declared.optional &&
                    (value.sequence == declared.sequence || (value.optional && !value.present));
  if (!kindsMatch)
    return makeError(value.source + " holds " + value.describe() + ", the model expects " +
                     what);
  if (value.optional && !value.present)
    return ONNXValue::absentOptional(declared.sequence);
  // The tensors' declared element kind and static dims hold for each one given.
  if (const onnx::TypeProto::Tensor *tt = declaredTensorType(vi.type())) {
    for (const Type &ty : value.types) {
      if (tt->elem_type() != 0) {
        EMBER_ASSIGN_OR_RETURN(ElemKind kind, elemKindFromONNX(tt->elem_type()));
        if (ty.kind != kind)
          return makeError(value.source + " holds " + ty.str() + ", the model expects " +
                           elemKindName(kind) + " tensors");
      }
      if (!tt->has_shape())
        continue;
      bool fits = tt->shape().dim_size() == int(ty.rank());
      for (int i = 0; fits && i < tt->shape().dim_size(); ++i)
        fits = !tt->shape().dim(i).has_dim_value() ||
               dim_t(tt->shape().dim(i).dim_value()) == ty.dims[i];
      if (!fits)
        return makeError(value.source + " holds " + ty.str() +
                         ", which does not fit the model's element shape");
    }
  }
  std::vector<std::string> names = value.placeholderNames();
  if (names.size() != value.types.size())
    return makeError(value.source + " gives " + Twine(value.types.size()) +
                     " tensors for " + value.describe());
  std::vector<NodeValue> tensors;
  for (size_t i = 0; i < names.size(); ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue t, inputTensor(names[i], value.types[i], known));
    tensors.push_back(t);
  }
  ONNXValue v = value.sequence ? ONNXValue::ofSequence(std::move(tensors))
                               : ONNXValue::ofTensor(tensors.at(0));
  return value.optional ? ONNXValue::optionalOf(std::move(v)) : v;
}

Error ONNXImporter::loadInputs() {
  StringSet<> known;
  size_t position = 0; // among the inputs that are not initializers, bound or not
  for (const auto &vi : model_.graph().input()) {
    if (values_.defines(vi.name())) // older IR versions list initializers as inputs too
      continue;
    ++position;
    bool structured = vi.type().has_sequence_type() || vi.type().has_optional_type();
    if (structured) {
      auto v = structuredInput(vi, known);
      if (!v)
        return withContext(v.takeError(), "input '" + vi.name() + "'");
      values_.bind(vi.name(), std::move(*v));
      continue;
    }
    auto given = opts_.structuredInputs.find(vi.name());
    if (given != opts_.structuredInputs.end())
      return makeError("input '" + vi.name() + "': " + given->second.source + " holds " +
                       given->second.describe() + ", the model expects a tensor");
    auto bound = opts_.constantInputs.find(vi.name());
    if (bound != opts_.constantInputs.end()) {
      auto c = constantForInput(vi, bound->second);
      if (!c)
        return withContext(c.takeError(), "input '" + vi.name() + "'");
      values_.bind(vi.name(), ONNXValue::ofTensor((*c)->getResult()));
      bound_.insert(vi.name());
      continue;
    }
    auto ty = inputType(vi, position - 1);
    if (!ty)
      return withContext(ty.takeError(), "input '" + vi.name() + "'");
    if (!module_->reserveName(vi.name()))
      return makeError("input '" + vi.name() + "' is defined twice");
    Placeholder *p = module_->createPlaceholder(*ty, vi.name(), /*reserved=*/true);
    values_.bind(vi.name(), ONNXValue::ofTensor(p->getResult()));
    known.insert(vi.name());
  }
  for (const auto &entry : opts_.constantInputs)
    if (!bound_.count(entry.getKey()))
      return makeError("-onnx-define-input: the model has no input named '" + entry.getKey() +
                       "'");
  for (const auto &sym : opts_.symbols)
    if (!symbolsSeen_.count(sym.getKey()))
      return makeError("no input of the model has a symbolic dim named '" + sym.getKey() + "'");
  for (const auto &entry : opts_.structuredInputs)
    if (!values_.defines(entry.getKey()))
      return makeError("the model has no input named '" + entry.getKey() + "'");
  for (const auto &entry : opts_.inputShapes)
    if (!entry.getKey().empty() && !known.count(entry.getKey()) && !bound_.count(entry.getKey())) {
      std::string names;
      for (const auto &k : known)
        names += (names.empty() ? "" : ", ") + k.getKey().str();
      return makeError("the model has no input named '" + entry.getKey() + "' (its inputs: " +
                       (names.empty() ? "none" : names) + ")");
    }
  return Error::success();
}

Error ONNXImporter::loadNodes() {
  // A node that needs graph inputs at compile time does not stop the load: the nodes that do
  // not depend on it load on, so that one error names every such input a tool must bind (the
  // nodes after it can only be checked once it is bound). Any other error stops the load.
  std::unique_ptr<CompileTimeInputsError> needed;
  StringSet<> unloaded; // outputs of the nodes skipped so far
  for (const auto &n : model_.graph().node()) {
    bool skip = needed && readsAnyOf(n, unloaded);
    int64_t opset = nodeOpset(model_, opset_, n);
    OpContext ctx(n, opts_, opset, *module_, *fn_, values_);
    ctx.setModel(&model_);
    Error err = skip ? Error::success() : findLoader(n, opset)(ctx);
    err = joinErrors(std::move(err), ctx.takeAttrError());
    err = handleErrors(std::move(err), [&](std::unique_ptr<CompileTimeInputsError> e) {
      e->addContext(onnxNodeLabel(n));
      if (needed)
        needed->merge(*e);
      else
        needed = std::move(e);
      skip = true;
    });
    if (err)
      return withContext(std::move(err), onnxNodeLabel(n));
    if (skip) {
      for (const std::string &out : n.output())
        unloaded.insert(out);
      continue;
    }
    for (int i = 0; i < n.output_size(); ++i)
      if (!n.output(i).empty() && !values_.defines(n.output(i)))
        return makeError(onnxNodeLabel(n) + ": output " + Twine(i) + " ('" + n.output(i) +
                         "') is not supported");
  }
  if (!needed)
    return Error::success();
  std::vector<std::string> graphInputs;
  for (const auto &vi : model_.graph().input())
    if (!std::any_of(model_.graph().initializer().begin(), model_.graph().initializer().end(),
                     [&](const onnx::TensorProto &t) { return t.name() == vi.name(); }))
      graphInputs.push_back(vi.name());
  needed->setPositions(graphInputs);
  return Error(std::move(needed));
}

Error ONNXImporter::loadOutputs() {
  size_t saved = 0;
  for (const auto &vi : model_.graph().output()) {
    std::optional<ONNXValue> value = values_.lookup(vi.name());
    if (!value)
      return makeError("graph output '" + vi.name() + "' is not produced by any node");
    // A sequence's elements (an optional's tensor) become placeholders of their own
    // (GraphValue::placeholderNames); an output typed optional stays one even when its value
    // is plainly there.
    GraphValue out;
    out.name = vi.name();
    out.sequence = value->isSequence;
    out.optional = value->isOptional || vi.type().has_optional_type();
    out.present = !value->isOptional || value->present;
    std::vector<NodeValue> tensors;
    if (out.present)
      tensors = value->isSequence ? value->elements : std::vector<NodeValue>{value->tensor};
    for (NodeValue v : tensors)
      out.types.push_back(v.getType());
    std::vector<std::string> names = out.placeholderNames();
    for (size_t i = 0; i < tensors.size(); ++i) {
      // The output's own name is reserved already; its elements' names must be free.
      if (out.sequence && !module_->reserveName(names[i]))
        return makeError("graph output '" + vi.name() + "': its element's name '" + names[i] +
                         "' is taken by another value");
      Placeholder *p = module_->createPlaceholder(tensors[i].getType(), names[i],
                                                  /*reserved=*/true);
      EMBER_TRY(fn_->createNode(NodeKind::Save, "save_" + names[i], {tensors[i], p->getResult()})
                    .takeError());
      ++saved;
    }
    outputs_.push_back(std::move(out));
  }
  if (model_.graph().output_size() == 0)
    return makeError("the graph has no outputs");
  if (saved == 0)
    return makeError("the graph's outputs hold no tensor (empty sequences or optionals), so "
                     "there is nothing to compute");
  return Error::success();
}

} // namespace

namespace {

/// Calls \p each on every graph input of the ONNX model \p paths that is not an initializer,
/// in order; on none for a model that is not ONNX (only an ONNX model is one file, as
/// loadModelFiles tells the formats apart: a Caffe2 model is two files or a directory).
Error forEachGraphInput(ArrayRef<std::string> paths,
                        function_ref<Error(const onnx::ValueInfoProto &)> each) {
  if (paths.size() != 1 || sys::fs::is_directory(paths[0]))
    return Error::success();
  auto model = readModelProto(paths[0]);
  if (!model)
    return withContext(model.takeError(), paths[0]);
  StringSet<> initializers;
  for (const auto &init : model->graph().initializer())
    initializers.insert(init.name());
  for (const auto &vi : model->graph().input())
    if (!initializers.count(vi.name()))
      if (Error err = each(vi))
        return withContext(std::move(err), paths[0] + ": input '" + vi.name() + "'");
  return Error::success();
}

} // namespace

Expected<std::vector<GraphValue>> readGraphInputKinds(ArrayRef<std::string> paths) {
  std::vector<GraphValue> inputs;
  EMBER_TRY(forEachGraphInput(paths, [&](const onnx::ValueInfoProto &vi) -> Error {
    EMBER_ASSIGN_OR_RETURN(GraphValue kind, graphValueKind(vi.name(), vi.type()));
    inputs.push_back(std::move(kind));
    return Error::success();
  }));
  return inputs;
}

Expected<std::vector<DeclaredTensorInput>> readDeclaredTensorInputs(ArrayRef<std::string> paths) {
  std::vector<DeclaredTensorInput> inputs;
  EMBER_TRY(forEachGraphInput(paths, [&](const onnx::ValueInfoProto &vi) -> Error {
    if (!vi.type().has_tensor_type())
      return Error::success();
    const auto &tt = vi.type().tensor_type();
    DeclaredTensorInput in;
    in.name = vi.name();
    if (tt.elem_type() != 0) {
      EMBER_ASSIGN_OR_RETURN(ElemKind kind, elemKindFromONNX(tt.elem_type()));
      in.kind = kind;
    }
    if (tt.has_shape()) {
      in.dims.emplace();
      for (const auto &d : tt.shape().dim())
        in.dims->push_back(d.has_dim_value() ? d.dim_value() : -1);
    }
    inputs.push_back(std::move(in));
    return Error::success();
  }));
  return inputs;
}

Expected<std::unique_ptr<Module>> loadONNXModel(StringRef path, const ImportOptions &opts) {
  auto model = readModelProto(path);
  if (!model)
    return withContext(model.takeError(), path);
  auto module = ONNXImporter(path, *model, opts).run();
  if (!module)
    return withContext(module.takeError(), path);
  return module;
}

} // namespace ember
