#include "ModelLoading.h"
#include "ImageInputs.h"
#include "ToolFlags.h"

#include "ember/Driver/Bundle.h"
#include "ember/Importer/Caffe2Folder.h"
#include "ember/Importer/TensorFiles.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <utility>

using namespace llvm;

namespace ember {
namespace tools {

void applyImportFlags(ImportOptions &opts) {
  opts.strictONNX = FLAGS_strict_onnx;
  opts.unrollLoopsUpTo = FLAGS_unroll_loops_up_to;
  opts.maxLoopIterations = FLAGS_max_loop_iterations;
}

std::vector<std::string> modelPaths() {
  SmallVector<StringRef, 2> parts;
  StringRef(FLAGS_model).split(parts, '\n', -1, false);
  return std::vector<std::string>(parts.begin(), parts.end());
}

std::string defaultNetworkName() {
  std::vector<std::string> paths = modelPaths();
  if (paths.empty())
    return "";
  StringRef first = paths.front();
  if (sys::fs::is_directory(first))
    return sys::path::filename(sys::path::remove_leading_dotslash(first).rtrim('/')).str();
  StringRef stem = sys::path::stem(first);
  StringRef parent = sys::path::filename(sys::path::parent_path(first));
  // A Caffe2 predict_net is named after its role; its folder names the model.
  if (paths.size() == 2 && stem.contains("predict_net") && !parent.empty() && parent != ".")
    return parent.str();
  return stem.str();
}

Expected<std::string> bundleNetworkName(const std::string &given, StringRef what) {
  std::string name = given.empty() ? legalizeCIdentifier(defaultNetworkName()) : given;
  if (legalizeCIdentifier(name) != name)
    return makeError(what + " '" + name + "' is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)");
  return std::move(name);
}

Expected<std::vector<InputFile>> readInputFiles() {
  std::vector<InputFile> files;
  if (FLAGS_input.empty())
    return files;
  SmallVector<StringRef, 4> items;
  StringRef(FLAGS_input).split(items, ',', -1, false);
  for (StringRef item : items) {
    InputFile f;
    auto [name, path] = item.split('=');
    if (item.contains('=')) {
      f.name = name.str();
      f.path = path.str();
    } else {
      f.path = item.str();
      if (items.size() > 1)
        return makeError("-input: '" + item +
                         "' needs a NAME=FILE form when several inputs are given");
    }
    if (f.path.empty())
      return makeError("-input: empty file name in '" + item + "'");
    bool image = isImageFile(f.path);
    if (image)
      f.images = {f.path};
    auto other = std::find_if(files.begin(), files.end(),
                              [&](const InputFile &o) { return o.name == f.name; });
    if (other != files.end() && image && !other->images.empty()) {
      other->images.push_back(f.path); // one more image of a batch
      continue;
    }
    if (other != files.end())
      return makeError("-input: input '" + f.name + "' is given twice" +
                       (image || !other->images.empty()
                            ? " (only images, NAME=a.png,NAME=b.png, make a batch)"
                            : ""));
    files.push_back(std::move(f));
  }
  // Images become their input's tensor here; the other files are read as their kinds say.
  std::vector<InputFile> others;
  for (InputFile &f : files) {
    if (f.images.empty()) {
      others.push_back(std::move(f));
      continue;
    }
    EMBER_ASSIGN_OR_RETURN(Tensor t, readImageInput(f.name, f.images, modelPaths()));
    f.path = join(f.images, ", ");
    f.value.name = f.name;
    f.value.types = {t.getType()};
    f.tensors.push_back(std::move(t));
  }
  EMBER_TRY(readInputValues(others, modelPaths(), /*storedNames=*/false));
  for (InputFile &f : files)
    if (f.images.empty()) {
      f = std::move(others.front());
      others.erase(others.begin());
    }
  return std::move(files);
}

namespace {

/// One -model-input: the declared input's name and type.
Expected<std::pair<std::string, Type>> parseModelInput(StringRef spec) {
  auto bad = [&](const Twine &why) {
    return makeError("-model-input: '" + spec + "': " + why +
                     " (expected NAME,TYPE,[D0,D1,...] or NAME,int8q|uint8q,SCALE,OFFSET,[DIMS])");
  };
  size_t bracket = spec.find('[');
  if (bracket == StringRef::npos || !spec.ends_with("]"))
    return bad("no [dims] at the end");
  SmallVector<StringRef, 4> head;
  spec.take_front(bracket).split(head, ',');
  if (head.empty() || !head.back().empty())
    return bad("no comma before the dims");
  head.pop_back();
  if (head.size() != 2 && head.size() != 4)
    return bad("wrong number of fields");
  StringRef name = head[0].trim(), type = head[1].trim();
  if (name.empty())
    return bad("empty name");
  std::vector<int64_t> dims;
  SmallVector<StringRef, 6> dimText;
  spec.drop_front(bracket + 1).drop_back().split(dimText, ',', -1, false);
  for (StringRef d : dimText) {
    int64_t v;
    if (d.trim().getAsInteger(10, v) || v < 0)
      return bad("dim '" + d.trim() + "' is not a number >= 0");
    dims.push_back(v);
  }
  static const std::pair<const char *, ElemKind> kinds[] = {
      {"float", ElemKind::Float32},   {"float32", ElemKind::Float32},
      {"float16", ElemKind::Float16}, {"bfloat16", ElemKind::BFloat16},
      {"int32", ElemKind::Int32},     {"int64", ElemKind::Int64},
      {"bool", ElemKind::Bool},       {"int8q", ElemKind::QInt8},
      {"uint8q", ElemKind::QUInt8}};
  const ElemKind *kind = nullptr;
  for (const auto &k : kinds)
    if (type == k.first)
      kind = &k.second;
  if (!kind)
    return bad("unknown type '" + type + "'");
  bool quantized = isQuantizedKind(*kind);
  if (quantized != (head.size() == 4))
    return bad(quantized ? "a quantized type needs ,SCALE,OFFSET"
                         : "only int8q and uint8q take a scale and offset");
  EMBER_ASSIGN_OR_RETURN(Type ty, Type::checked(*kind, dims));
  if (quantized) {
    double scale;
    int64_t offset;
    if (head[2].trim().getAsDouble(scale) || !(scale > 0) ||
        head[3].trim().getAsInteger(10, offset) || offset < -128 || offset > 255)
      return bad("scale must be > 0 and offset an integer in range");
    ty.scale = float(scale);
    ty.offset = int32_t(offset);
  }
  return std::make_pair(name.str(), ty);
}

} // namespace

Expected<std::unique_ptr<Module>> loadModelFromFlags(const std::vector<InputFile> &inputs,
                                                    double &loadMillis,
                                                    std::vector<BoundInput> *bound,
                                                    std::vector<GraphValue> *outputs) {
  if (FLAGS_model.empty())
    return makeError("no model given (-model=FILE)");
  ImportOptions opts;
  SmallVector<StringRef, 4> defs;
  StringRef(FLAGS_onnx_define_symbol).split(defs, ';', -1, false);
  for (StringRef def : defs) {
    auto [name, value] = def.split(',');
    int64_t v;
    if (name.empty() || value.trim().getAsInteger(10, v) || v < 0)
      return makeError("-onnx-define-symbol: expected NAME,VALUE with VALUE >= 0, got '" + def +
                       "'");
    auto [it, inserted] = opts.symbols.try_emplace(name.trim(), v);
    if (!inserted && it->second != v)
      return makeError("-onnx-define-symbol: '" + name.trim() + "' is defined as both " +
                       Twine(it->second) + " and " + Twine(v));
  }
  SmallVector<StringRef, 4> bindings;
  StringRef(FLAGS_onnx_define_input).split(bindings, ';', -1, false);
  for (StringRef binding : bindings) {
    auto [name, value] = binding.split('=');
    if (name.empty() || value.empty())
      return makeError("-onnx-define-input: expected NAME=VALUE or NAME=FILE, got '" + binding +
                       "'");
    ImportOptions::ConstantInput c;
    c.source = value.str();
    if (value.ends_with(".npy") || value.ends_with(".pb")) {
      EMBER_ASSIGN_OR_RETURN(Tensor t, readTensorFile(value));
      c.tensor = std::make_shared<const Tensor>(std::move(t));
    } else if (value.trim().getAsDouble(c.scalar)) {
      return makeError("-onnx-define-input: '" + value +
                       "' is neither a number nor a .npy/.pb file");
    }
    if (!opts.constantInputs.try_emplace(name, std::move(c)).second)
      return makeError("-onnx-define-input: '" + name + "' is bound twice");
  }
  SmallVector<StringRef, 4> declared;
  StringRef(FLAGS_model_input).split(declared, ';', -1, false);
  for (StringRef spec : declared) {
    EMBER_ASSIGN_OR_RETURN(auto input, parseModelInput(spec));
    if (!opts.declaredInputs.try_emplace(input.first, input.second).second)
      return makeError("-model-input: '" + input.first + "' is declared twice");
  }
  for (const InputFile &f : inputs) {
    if (!f.value.isTensor())
      continue;
    const Type &ty = f.value.types[0];
    opts.inputShapes[f.name] = {std::vector<int64_t>(ty.dims.begin(), ty.dims.end()), f.path,
                                ty.kind};
  }
  addStructuredInputs(inputs, opts);
  if (outputs)
    opts.graphOutputs = [outputs](const std::vector<GraphValue> &values) { *outputs = values; };
  applyImportFlags(opts);
  opts.warn = [](const std::string &msg) { errs() << "warning: " << msg << "\n"; };
  // A Caffe2 folder: which of its files are read (binary or text, value_info.json), said once
  // it loads (an error comes first on stderr, alone); a folder that does not read is reported
  // by the load itself.
  std::string folderNote;
  if (modelPaths().size() == 1 && sys::fs::is_directory(modelPaths()[0])) {
    if (auto folder = readCaffe2Folder(modelPaths()[0]))
      folderNote = caffe2FolderNote(modelPaths()[0], *folder);
    else
      consumeError(folder.takeError());
  }
  // model-runner binds the inputs needed at compile time to their -input files; for
  // model-compiler they can only come from -onnx-define-input.
  std::vector<GivenInput> given;
  if (bound)
    given = givenTensors(inputs);
  std::vector<BoundInput> boundInputs;
  auto loadStart = std::chrono::steady_clock::now();
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<Module> M,
                         loadBindingCompileTimeInputs(modelPaths(), std::move(opts), given,
                                                      bound ? "-input" : "-onnx-define-input",
                                                      boundInputs));
  if (!folderNote.empty())
    errs() << "note: " << folderNote << "\n";
  if (bound) {
    for (const BoundInput &b : boundInputs)
      errs() << "note: input '" << b.name << "' fixed at compile time to its given value\n";
    *bound = std::move(boundInputs);
  }
  // What a sequence's or an optional's file fixed at compile time.
  for (const InputFile &f : inputs) {
    if (f.value.isTensor())
      continue;
    errs() << "note: input '" << f.name << "' is " << f.value.describe() << ": ";
    std::vector<std::string> names = f.value.placeholderNames();
    if (f.value.optional && !f.value.present)
      errs() << "it is compiled as absent\n";
    else if (!f.value.sequence)
      errs() << "it is compiled as present\n";
    else if (names.empty())
      errs() << "it is compiled as empty\n";
    else
      errs() << "its length is compiled in, its elements are the inputs " << names.front()
             << (names.size() > 1 ? ".." + names.back() : "") << "\n";
  }
  loadMillis = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - loadStart)
                          .count();
  return std::move(M);
}

} // namespace tools
} // namespace ember
