#include "InputBinding.h"

#include "ember/Driver/ConstantEvaluator.h"
#include "ember/Importer/CompileTimeInputs.h"
#include "ember/Importer/TensorFiles.h"
#include "ember/Support/Error.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace ember {
namespace tools {

namespace {

/// The value given for graph input \p in: by name, else by position (a lone unnamed value
/// stands for the model's only input, whose position a Caffe2 net does not say).
const GivenInput *findGiven(ArrayRef<GivenInput> given, const CompileTimeInputsError::Input &in) {
  for (const GivenInput &g : given)
    if (!g.name.empty() && g.name == in.name)
      return &g;
  for (size_t i = 0; i < given.size(); ++i)
    if (given[i].name.empty() &&
        (i == in.position || (given.size() == 1 && in.position == SIZE_MAX)))
      return &given[i];
  return nullptr;
}

} // namespace

Error readInputValues(std::vector<InputFile> &files, ArrayRef<std::string> modelPaths,
                     bool storedNames) {
  std::optional<std::vector<GraphValue>> kinds; // the model's inputs, read when first needed
  for (size_t i = 0; i < files.size(); ++i) {
    InputFile &f = files[i];
    f.value = GraphValue();
    f.value.name = f.name;
    std::string stored;
    auto tensors = readValueFile(f.path, f.value, storedNames ? &stored : nullptr);
    if (!tensors && StringRef(f.path).ends_with(".pb")) {
      if (!kinds) {
        auto declared = readGraphInputKinds(modelPaths);
        if (!declared)
          return joinErrors(tensors.takeError(), declared.takeError());
        kinds = std::move(*declared);
      }
      // The input this file is for: by name, else by position.
      const GraphValue *input = nullptr;
      for (const GraphValue &k : *kinds)
        if (k.name == f.name)
          input = &k;
      if (!input && f.name.empty() && i < kinds->size())
        input = &(*kinds)[i];
      if (!input || input->isTensor())
        return tensors.takeError();
      consumeError(tensors.takeError());
      f.name = input->name;
      f.value = *input;
      tensors = readValueFile(f.path, f.value);
    }
    if (!tensors)
      return tensors.takeError();
    f.tensors = std::move(*tensors);
    if (f.name.empty())
      f.name = stored;
    f.value.name = f.name;
  }
  if (storedNames) {
    // A stored name the model does not have is a slip of the file's writer (ONNX 1.17's
    // test_cast_FLOAT_to_FLOAT8E4M3FN stores 'x' for the model's 'input'): ONNX's own runner
    // binds test data by position, so such a file is bound by position too.
    if (!kinds) {
      auto declared = readGraphInputKinds(modelPaths);
      if (!declared)
        return declared.takeError();
      kinds = std::move(*declared);
    }
    for (size_t i = 0; i < files.size() && i < kinds->size(); ++i) {
      bool known = false;
      for (const GraphValue &k : *kinds)
        known |= k.name == files[i].name;
      if (!known && files[i].value.isTensor())
        files[i].name = files[i].value.name = (*kinds)[i].name;
    }
  }
  if (kinds) // a sequence or an optional among them: name every file as the model does
    for (size_t i = 0; i < files.size() && i < kinds->size(); ++i)
      if (files[i].name.empty())
        files[i].name = files[i].value.name = (*kinds)[i].name;
  return Error::success();
}

void addStructuredInputs(ArrayRef<InputFile> files, ImportOptions &opts) {
  for (const InputFile &f : files)
    if (!f.value.isTensor())
      opts.structuredInputs[f.name] = f.value;
}

std::vector<GivenInput> givenTensors(ArrayRef<InputFile> files) {
  std::vector<GivenInput> given;
  for (const InputFile &f : files) {
    if (f.value.isTensor()) {
      given.push_back({f.name, f.path, &f.tensors[0]});
      continue;
    }
    std::vector<std::string> names = f.value.placeholderNames();
    for (size_t i = 0; i < f.tensors.size(); ++i)
      given.push_back({names[i],
                       f.value.sequence ? f.path + " (element " + std::to_string(i) + ")" : f.path,
                       &f.tensors[i]});
  }
  return given;
}

std::vector<GraphValue> graphOutputsOf(const CompiledModel &cm,
                                       std::vector<GraphValue> reported) {
  if (!reported.empty())
    return reported;
  for (Placeholder *p : cm.getOutputs()) {
    reported.emplace_back();
    reported.back().name = p->getName().str();
    reported.back().types = {p->getType()};
  }
  return reported;
}

Expected<std::unique_ptr<Module>> loadBindingCompileTimeInputs(ArrayRef<std::string> paths,
                                                               ImportOptions opts,
                                                               ArrayRef<GivenInput> given,
                                                               StringRef flag,
                                                               std::vector<BoundInput> &bound) {
  bound.clear();
  opts = withConstantEvaluation(std::move(opts));
  // Each round binds at least one more input, so this ends; a round finds the inputs needed
  // by the nodes that could load, so a model whose compile-time operands chain (a shape that
  // needs input a, computed by a node that needs input b) takes more than one.
  while (true) {
    auto M = loadModelFiles(paths, opts);
    if (M || !M.errorIsA<CompileTimeInputsError>())
      return M;
    Error err = M.takeError();
    std::string missing;
    bool progress = false;
    err = handleErrors(std::move(err), [&](const CompileTimeInputsError &e) -> Error {
      for (const CompileTimeInputsError::Input &in : e.inputs()) {
        const GivenInput *g = findGiven(given, in);
        if (!g || opts.constantInputs.count(in.name)) {
          // The first model file names the model; the uses need not repeat it.
          std::string model = paths.empty() ? std::string() : paths.front() + ": ";
          missing += (missing.empty() ? "" : "\n") + (model + "input '" + in.name +
                     "' must be known at compile time" +
                     (flag.empty() ? ", and no value is given for it"
                                   : ": give it with " + flag + "=" + in.name + "=FILE"))
                                                         .str();
          for (StringRef use : in.uses) {
            use.consume_front(model);
            missing += "\n  needed by " + use.str();
          }
          continue;
        }
        ImportOptions::ConstantInput c;
        c.tensor = std::make_shared<const Tensor>(g->tensor->clone());
        c.source = g->source;
        opts.constantInputs[in.name] = std::move(c);
        bound.push_back({in.name, g->source, in.position});
        progress = true;
      }
      return Error::success();
    });
    if (err)
      return std::move(err);
    if (!missing.empty() || !progress)
      return makeError(missing.empty() ? "cannot bind the inputs needed at compile time" : missing);
  }
}

Error setRunTimeInputs(CompiledModel &cm, ArrayRef<GivenInput> given, ArrayRef<BoundInput> bound) {
  std::vector<Placeholder *> inputs = cm.getInputs();
  for (size_t i = 0; i < given.size(); ++i) {
    const GivenInput &g = given[i];
    auto isBound = [&](const BoundInput &b) {
      return g.name.empty() ? b.position == i || (given.size() == 1 && b.position == SIZE_MAX)
                            : b.name == g.name;
    };
    if (std::any_of(bound.begin(), bound.end(), isBound))
      continue;
    std::string name = g.name;
    if (name.empty() && given.size() == 1) {
      if (inputs.size() != 1)
        return makeError(g.source + " names no input, but the model has " +
                         Twine(inputs.size()) + " inputs; give it as NAME=FILE");
      name = inputs[0]->getName().str();
    } else if (name.empty()) {
      // The inputs bound at compile time are no longer the model's inputs: skip their places.
      size_t index = i - size_t(std::count_if(bound.begin(), bound.end(),
                                               [&](const BoundInput &b) { return b.position < i; }));
      if (index >= inputs.size())
        return makeError(g.source + ": the model has only " + Twine(inputs.size()) +
                         " run-time inputs");
      name = inputs[index]->getName().str();
    }
    const Tensor *value = g.tensor;
    Tensor bits;
    for (Placeholder *p : inputs)
      if (p->getName() == name && p->getType().kind == ElemKind::BFloat16 &&
          value->getType().kind == ElemKind::UInt16) {
        bits = value->clone();
        reinterpretBFloat16Bits(bits, p->getType());
        value = &bits;
      }
    EMBER_TRY(withContext(cm.setInput(name, *value), g.source));
  }
  return Error::success();
}

void reinterpretBFloat16Bits(Tensor &t, const Type &expected) {
  if (t.getType().kind != ElemKind::UInt16 || expected.kind != ElemKind::BFloat16 ||
      t.getType().dims != expected.dims)
    return;
  Tensor bf(expected);
  std::memcpy(bf.data(), t.data(), t.sizeInBytes());
  t = std::move(bf);
}

} // namespace tools
} // namespace ember
