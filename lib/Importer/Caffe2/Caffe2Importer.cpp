// The Caffe2 importer: reads a predict_net and an init_net (binary or text NetDefs), runs the
// init_net's fill operators into Constants, makes Placeholders of the blobs the predict_net
// reads before anything writes them (typed by -model-input, a folder's value_info.json or the
// input files, since Caffe2 nets declare no types), and builds the graph through the operator
// loaders in c2::OpRegistry.
#include "../ProtoFile.h"
#include "OpContext.h"

#include "ember/Importer/Caffe2Folder.h"

#include "ember/Importer/ModelLoader.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace ember {

namespace {

using namespace c2;

bool isTextFormat(StringRef path) {
  return path.ends_with(".pbtxt") || path.ends_with(".prototxt") || path.ends_with(".txt");
}

/// An empty file is an empty NetDef: the init_net of a model without weights.
Expected<caffe2::NetDef> readNetDef(StringRef path) {
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<MemoryBuffer> buf, readProtoFile(path, "a NetDef file"));
  caffe2::NetDef net;
  EMBER_TRY(parseProto(buf->getBuffer(), isTextFormat(path), net,
                       "not a valid Caffe2 NetDef in text format",
                       "not a valid Caffe2 NetDef (protobuf parse failed: truncated, corrupt, "
                       "or a text file not named .pbtxt?)"));
  return net;
}

class Caffe2Importer {
  const caffe2::NetDef &predict_, &init_;
  StringRef predictPath_, initPath_;
  const ImportOptions &opts_;
  const StringMap<Type> &defaultTypes_; ///< value_info.json's, below -model-input
  StringRef defaultsFrom_;
  std::unique_ptr<Module> module_ = std::make_unique<Module>();
  Function *fn_ = module_->createFunction(kMainFunctionName);
  StringMap<NodeValue> blobs_;
  StringMap<QuantParams> quant_; ///< int8 blobs' scale and zero point

  Error checkNetRoles();
  Error checkOperatorsSupported();
  Error runNet(const caffe2::NetDef &net, StringRef path);
  Error loadInputs();
  Error loadOutputs();
  Expected<Type> inputType(StringRef name, size_t numInputs);

public:
  Caffe2Importer(const caffe2::NetDef &predict, StringRef predictPath,
                 const caffe2::NetDef &init, StringRef initPath, const ImportOptions &opts,
                 const StringMap<Type> &defaultTypes, StringRef defaultsFrom)
      : predict_(predict), init_(init), predictPath_(predictPath), initPath_(initPath),
        opts_(opts), defaultTypes_(defaultTypes), defaultsFrom_(defaultsFrom) {}

  Expected<std::unique_ptr<Module>> run() {
    EMBER_TRY(checkNetRoles());
    EMBER_TRY(checkOperatorsSupported());
    for (const std::string &name : predict_.external_output())
      if (!module_->reserveName(name))
        return withContext(makeError("external output '" + name + "' is listed twice"),
                           predictPath_);
    EMBER_TRY(runNet(init_, initPath_));
    EMBER_TRY(withContext(loadInputs(), predictPath_));
    EMBER_TRY(runNet(predict_, predictPath_));
    EMBER_TRY(withContext(loadOutputs(), predictPath_));
    EMBER_TRY(fn_->verify());
    return std::move(module_);
  }
};

/// An init_net only fills blobs: its operators read nothing. A net whose operators read blobs
/// is a predict_net (the two files given in the wrong order, or twice the same).
Error Caffe2Importer::checkNetRoles() {
  for (const auto &op : init_.op())
    if (op.input_size())
      return withContext(makeError(caffe2OpLabel(op) + " reads blob '" + op.input(0) +
                                   "': this is a predict_net, not an init_net (give the "
                                   "predict_net first, then the init_net)"),
                         initPath_);
  if (predict_.op_size() == 0 && init_.op_size() != 0)
    return withContext(makeError("the predict_net has no operators (are the predict_net and "
                                 "init_net swapped? give the predict_net first)"),
                       predictPath_);
  return Error::success();
}

Error Caffe2Importer::checkOperatorsSupported() {
  std::vector<std::string> missing;
  for (const auto *net : {&init_, &predict_})
    for (const auto &op : net->op())
      if (!OpRegistry::get().find(op.type()))
        missing.push_back(caffe2OpLabel(op) +
                          (net == &init_ ? " in the init_net" : std::string()));
  if (missing.empty())
    return Error::success();
  std::string msg = "unsupported operators (" + std::to_string(missing.size()) + "):";
  for (const std::string &m : missing)
    msg += "\n  " + m;
  return withContext(makeError(msg), predictPath_);
}

Error Caffe2Importer::runNet(const caffe2::NetDef &net, StringRef path) {
  for (const auto &op : net.op()) {
    OpContext ctx(op, opts_, *module_, *fn_, blobs_, quant_);
    Error err = OpRegistry::get().find(op.type())(ctx);
    err = joinErrors(std::move(err), ctx.takeArgError());
    for (int i = 0; !err && i < op.output_size(); ++i)
      if (!op.output(i).empty() && !blobs_.count(op.output(i)) && !ctx.isLeftUndefined(i))
        err = makeError("output " + Twine(i) + " ('" + op.output(i) + "') is not supported");
    if (err)
      return withContext(withContext(std::move(err), caffe2OpLabel(op)), path);
  }
  return Error::success();
}

/// The type -model-input declares, else value_info.json's, else the input file's kind and dims.
Expected<Type> Caffe2Importer::inputType(StringRef name, size_t numInputs) {
  auto file = opts_.inputShapes.find(name);
  if (file == opts_.inputShapes.end() && numInputs == 1)
    file = opts_.inputShapes.find("");
  const Type *declared = nullptr;
  std::string declaredBy = "-model-input";
  if (auto it = opts_.declaredInputs.find(name); it != opts_.declaredInputs.end()) {
    declared = &it->second;
  } else if (auto d = defaultTypes_.find(name); d != defaultTypes_.end()) {
    declared = &d->second;
    declaredBy = defaultsFrom_.str();
  }
  if (declared) {
    const Type &t = *declared;
    if (file != opts_.inputShapes.end() &&
        ArrayRef<int64_t>(file->second.dims) !=
            ArrayRef<int64_t>(std::vector<int64_t>(t.dims.begin(), t.dims.end())))
      return makeError(file->second.source + " has shape " + intsToString(file->second.dims) +
                       ", " + declaredBy + " declares " + t.str());
    return t;
  }
  if (file != opts_.inputShapes.end()) {
    if (!file->second.kind)
      return makeError("the type of " + file->second.source + " is not known");
    return Type::checked(*file->second.kind, file->second.dims);
  }
  return makeError("Caffe2 nets do not declare input types: give -model-input=" + name +
                   ",float,[d0,d1,...] (or an -input file for it)");
}

Error Caffe2Importer::loadInputs() {
  // The inputs: the blobs an operator reads before any operator writes them and the init_net
  // does not fill, whether or not external_input lists them (Caffe2 runs such a net once the
  // blob is fed), and the listed external inputs that are read. Listed ones come first, in
  // their order, then the others as first read. External inputs no operator reads are
  // leftovers (zoo nets carry some) and ignored.
  StringSet<> read, written, readFirst;
  std::vector<std::string> unlisted;
  for (const auto &op : predict_.op()) {
    for (const std::string &in : op.input()) {
      if (in.empty())
        continue;
      read.insert(in);
      if (!blobs_.count(in) && !written.count(in) && readFirst.insert(in).second)
        unlisted.push_back(in);
    }
    for (const std::string &out : op.output())
      written.insert(out);
  }
  std::vector<std::string> inputs;
  StringSet<> seen;
  for (const std::string &name : predict_.external_input())
    if (!blobs_.count(name) && read.count(name) && seen.insert(name).second)
      inputs.push_back(name);
  for (const std::string &name : unlisted)
    if (seen.insert(name).second)
      inputs.push_back(name);
  for (const std::string &name : inputs) {
    auto ty = inputType(name, inputs.size());
    if (!ty)
      return withContext(ty.takeError(), "input '" + name + "'");
    if (!module_->reserveName(name))
      return makeError("input '" + name + "' is also an external output; passing an input "
                       "straight through is not supported");
    blobs_[name] = module_->createPlaceholder(*ty, name, /*reserved=*/true)->getResult();
  }
  auto known = [&](StringRef name) { return seen.count(name) != 0; };
  auto names = [&] {
    std::string s;
    for (const std::string &n : inputs)
      s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? std::string("none") : s;
  };
  for (const auto &entry : opts_.declaredInputs)
    if (!known(entry.getKey()))
      return makeError("-model-input: the net has no input named '" + entry.getKey() +
                       "' (its inputs: " + names() + ")");
  for (const auto &entry : opts_.inputShapes)
    if (!entry.getKey().empty() && !known(entry.getKey()))
      return makeError("the net has no input named '" + entry.getKey() + "' (its inputs: " +
                       names() + ")");
  if (!opts_.symbols.empty())
    return makeError("-onnx-define-symbol does not apply to Caffe2 nets (their inputs have "
                     "fixed shapes; use -model-input)");
  if (!opts_.constantInputs.empty())
    return makeError("-onnx-define-input does not apply to Caffe2 nets");
  return Error::success();
}

Error Caffe2Importer::loadOutputs() {
  if (predict_.external_output_size() == 0)
    return makeError("the predict_net lists no external_output");
  for (const std::string &name : predict_.external_output()) {
    auto it = blobs_.find(name);
    if (it == blobs_.end())
      return makeError("external output '" + name + "' is not produced by any operator");
    NodeValue v = it->second;
    Placeholder *out = module_->createPlaceholder(v.getType(), name, /*reserved=*/true);
    EMBER_TRY(fn_->createNode(NodeKind::Save, "save_" + name, {v, out->getResult()})
                  .takeError());
  }
  return Error::success();
}

} // namespace

Expected<std::unique_ptr<Module>> loadCaffe2Model(StringRef predictPath, StringRef initPath,
                                                  const ImportOptions &opts) {
  return loadCaffe2ModelWithDefaults(predictPath, initPath, opts, {}, "");
}

Expected<std::unique_ptr<Module>>
loadCaffe2ModelWithDefaults(StringRef predictPath, StringRef initPath, const ImportOptions &opts,
                            const StringMap<Type> &defaults, StringRef defaultsFrom) {
  auto predict = readNetDef(predictPath);
  if (!predict)
    return withContext(predict.takeError(), predictPath);
  auto init = readNetDef(initPath);
  if (!init)
    return withContext(init.takeError(), initPath);
  return Caffe2Importer(*predict, predictPath, *init, initPath, opts, defaults, defaultsFrom)
      .run();
}

std::vector<std::string> caffe2OperatorNames() { return c2::OpRegistry::get().names(); }

} // namespace ember
