#include "ModelTestCase.h"

#include "InputBinding.h"
#include "ModelLoading.h"

#include "ember/Driver/CompiledModel.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Importer/TensorFiles.h"
#include "ember/Support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstring>
#include <cmath>
#include <cstdio>

using namespace llvm;

namespace ember {
namespace tools {

std::string compareTensors(const Tensor &got, const Tensor &want, const Tolerance &tol,
                           double *maxAbsErr) {
  if (maxAbsErr)
    *maxAbsErr = 0;
  if (got.getType().kind != want.getType().kind || got.getType().dims != want.getType().dims)
    return "type " + got.getType().str() + ", expected " + want.getType().str();
  bool exact = !isFloatKind(want.getType().kind);
  // Scans everything so a mismatch reports how many elements differ and by how much at most
  // (a near miss from accumulated rounding looks different from a wrong kernel).
  std::string first;
  size_t bad = 0, e = want.numElements();
  double maxErr = 0;
  for (size_t i = 0; i < e; ++i) {
    double g = got.elementAsDouble(i), w = want.elementAsDouble(i);
    if (std::isnan(w) && std::isnan(g))
      continue;
    if (std::isinf(w) && g == w)
      continue;
    double diff = std::fabs(g - w);
    if (!std::isnan(diff))
      maxErr = std::max(maxErr, diff);
    bool ok = exact ? g == w : diff <= tol.atol + tol.rtol * std::fabs(w);
    if (ok && !std::isnan(diff))
      continue;
    if (bad++ == 0) {
      char buf[96];
      // 9 digits round-trip a float; integers print whole.
      snprintf(buf, sizeof(buf),
               exact ? "element %zu is %.17g, expected %.17g" : "element %zu is %.9g, expected %.9g",
               i, g, w);
      first = buf;
    }
  }
  if (maxAbsErr)
    *maxAbsErr = maxErr;
  if (!bad)
    return "";
  char buf[96];
  snprintf(buf, sizeof(buf), " (%zu of %zu elements differ, max abs err %.3g)", bad, e, maxErr);
  return first + buf;
}

namespace {

/// input_0.pb, input_1.pb, ... in numeric order.
std::vector<std::string> numberedFiles(StringRef dir, StringRef prefix) {
  std::vector<std::string> files;
  for (unsigned i = 0;; ++i) {
    SmallString<256> p(dir);
    sys::path::append(p, prefix + Twine(i) + ".pb");
    if (!sys::fs::exists(p))
      break;
    files.push_back(p.str().str());
  }
  return files;
}

Expected<std::string> findModel(StringRef dir) {
  for (const char *name : {"model.onnx", "model.onnxtxt"}) {
    SmallString<256> p(dir);
    sys::path::append(p, name);
    if (sys::fs::exists(p))
      return p.str().str();
  }
  // A Caffe2 case: the folder itself, holding predict_net.pb(txt) and init_net.pb(txt).
  for (const char *name : {"predict_net.pb", "predict_net.pbtxt"}) {
    SmallString<256> p(dir);
    sys::path::append(p, name);
    if (sys::fs::exists(p))
      return dir.str();
  }
  return makeError(dir + ": no model.onnx, model.onnxtxt or predict_net.pb(txt)");
}

} // namespace

CaseResult runModelTestCase(StringRef dir, StringRef backend, const Tolerance &tol,
                            bool strictONNX) {
  auto refuse = [](Error e) { return CaseResult{CaseResult::Refused, errorToString(std::move(e))}; };
  auto modelPath = findModel(dir);
  if (!modelPath)
    return refuse(modelPath.takeError());

  std::vector<std::string> dataSets;
  for (unsigned i = 0;; ++i) {
    SmallString<256> p(dir);
    sys::path::append(p, "test_data_set_" + Twine(i));
    if (!sys::fs::is_directory(p))
      break;
    dataSets.push_back(p.str().str());
  }
  if (dataSets.empty())
    return refuse(makeError(dir + ": no test_data_set_0"));

  CaseResult result{CaseResult::Pass, ""};
  for (const std::string &set : dataSets) {
    // Inputs are matched by the name the file stores, else by position; a sequence or an
    // optional is read as the model declares its input (InputBinding.h).
    std::vector<InputFile> inputs;
    for (const std::string &f : numberedFiles(set, "input_"))
      inputs.push_back({"", f, {}, {}, {}});
    if (Error e = readInputValues(inputs, {*modelPath}, /*storedNames=*/true))
      return refuse(std::move(e));
    ImportOptions opts;
    applyImportFlags(opts); // the control-flow limits (-unroll-loops-up-to)
    opts.strictONNX = strictONNX;
    // Symbolic dims are bound from the data: by the tensor's stored name, else by position.
    for (const InputFile &in : inputs) {
      if (!in.value.isTensor())
        continue;
      const Type &ty = in.value.types[0];
      ImportOptions::InputShape shape{std::vector<int64_t>(ty.dims.begin(), ty.dims.end()),
                                      "input data", ty.kind};
      if (in.name.empty())
        opts.positionalInputShapes.push_back(shape);
      else
        opts.inputShapes[in.name] = shape;
    }
    addStructuredInputs(inputs, opts);
    std::vector<GraphValue> outputs;
    opts.graphOutputs = [&outputs](const std::vector<GraphValue> &values) { outputs = values; };
    // Operands the compiler needs at compile time (a Reshape's shape, a Slice's starts) are
    // graph inputs in many suite tests: exactly those are bound to their test data, as
    // model-runner does; the rest stay run-time inputs, so the backend runs the test.
    std::vector<GivenInput> given = givenTensors(inputs);
    std::vector<BoundInput> bound;
    auto module = loadBindingCompileTimeInputs({*modelPath}, opts, given, "", bound);
    if (!module)
      return refuse(module.takeError());
    result.compileTimeInputs = std::max(result.compileTimeInputs, unsigned(bound.size()));
    CompileOptions co;
    co.backend = backend.str();
    co.verifyEach = true;
    auto cm = CompiledModel::compile(std::move(*module), co);
    if (!cm)
      return refuse(cm.takeError());
    if (Error e = setRunTimeInputs(**cm, given, bound))
      return refuse(std::move(e));
    if (Error e = (*cm)->run())
      return refuse(std::move(e));
    std::vector<std::string> outFiles = numberedFiles(set, "output_");
    outputs = graphOutputsOf(**cm, std::move(outputs));
    if (outFiles.size() != outputs.size())
      return CaseResult{CaseResult::Wrong, "model has " + std::to_string(outputs.size()) +
                                               " outputs, test data " +
                                               std::to_string(outFiles.size())};
    for (size_t i = 0; i < outFiles.size(); ++i) {
      const GraphValue &out = outputs[i];
      GraphValue expected = out; // read as what the model gives: a tensor, a sequence, ...
      auto want = readValueFile(outFiles[i], expected);
      if (!want)
        return refuse(want.takeError());
      std::string label = "output '" + out.name + "'";
      if (expected.present != out.present || want->size() != out.types.size())
        return CaseResult{CaseResult::Wrong,
                          label + " is " + out.describe() + ", expected " + expected.describe()};
      std::vector<std::string> names = out.placeholderNames();
      for (size_t k = 0; k < names.size(); ++k) {
        auto got = (*cm)->getOutput(names[k]);
        if (!got)
          return refuse(got.takeError());
        reinterpretBFloat16Bits((*want)[k], got->getType());
        double err = 0;
        std::string diff = compareTensors(*got, (*want)[k], tol, &err);
        result.maxAbsErr = std::max(result.maxAbsErr, err);
        if (!diff.empty())
          return CaseResult{CaseResult::Wrong,
                            (out.sequence ? "output '" + names[k] + "'" : label) + ": " + diff,
                            err};
      }
    }
  }
  return result;
}

} // namespace tools
} // namespace ember
