// Checking a graph pass: the rewritten structure, and that the Interpreter computes the same
// outputs before and after it.
#ifndef EMBER_TESTS_PASSES_PASSTESTUTILS_H
#define EMBER_TESTS_PASSES_PASSTESTUTILS_H

#include "../TestUtils.h"

#include "ModelTestCase.h"

#include "ember/Driver/CompiledModel.h"
#include "ember/Driver/ConstantEvaluator.h"
#include "ember/Importer/ModelLoader.h"

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include <random>

namespace ember {
namespace test {

/// ONNX text attributes for hand-written test models. Floats print with 17 significant digits
/// so the parsed float is exactly the value meant.
inline std::string intsAttr(const std::string &name, const std::vector<int64_t> &values) {
  std::string s = "attribute { name: \"" + name + "\" type: INTS";
  for (int64_t v : values)
    s += " ints: " + std::to_string(v);
  return s + " }";
}
inline std::string intAttr(const std::string &name, int64_t v) {
  return "attribute { name: \"" + name + "\" type: INT i: " + std::to_string(v) + " }";
}
inline std::string floatAttr(const std::string &name, double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return "attribute { name: \"" + name + "\" type: FLOAT f: " + buf + " }";
}
inline std::string strAttr(const std::string &name, const std::string &v) {
  return "attribute { name: \"" + name + "\" type: STRING s: \"" + v + "\" }";
}

/// How many nodes of each kind \p F has ("Conv" -> 2).
inline std::map<std::string, int> kindCounts(const Function &F) {
  std::map<std::string, int> counts;
  for (const auto &n : F.getNodes())
    counts[n->getKindName().str()]++;
  return counts;
}

/// Fills every float input with seeded values in [-2, 2] (integers in [0, 3]); returns them in
/// the order of the model's inputs.
inline std::vector<Tensor> fillInputs(CompiledModel &cm, unsigned seed) {
  std::vector<Tensor> inputs;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-2.0, 2.0);
  for (Placeholder *p : cm.getInputs()) {
    Tensor t(p->getType());
    for (size_t i = 0; i < t.numElements(); ++i)
      t.setElementFromDouble(i, isFloatKind(t.getType().kind) ? dist(rng)
                                                              : double(rng() % 4));
    llvm::cantFail(cm.setInput(p->getName(), t));
    inputs.push_back(std::move(t));
  }
  return inputs;
}

/// The result of running a model through a pipeline.
struct PipelineRun {
  std::unique_ptr<CompiledModel> model;
  std::vector<Tensor> inputs, outputs;
  const Function &graph() const { return model->getFunction(); }
};

/// Loads ONNX text \p modelText, optimizes it with \p pipeline (the graph verifier runs after
/// every pass) and \p irPipeline (the default IR pipeline unless given; the IR verifier runs
/// after every IR pass), and runs it on the Interpreter on seeded inputs.
inline llvm::Expected<PipelineRun>
runPipeline(const std::string &modelText, std::vector<std::string> pipeline, unsigned seed = 1,
            std::optional<std::vector<std::string>> irPipeline = std::nullopt) {
  TempDir dir;
  std::string path = dir.write("m.onnxtxt", modelText);
  EMBER_ASSIGN_OR_RETURN(auto M, loadModel(path, withConstantEvaluation({})));
  CompileOptions co;
  co.verifyEach = true;
  co.pipeline = std::move(pipeline);
  co.irPipeline = std::move(irPipeline);
  PipelineRun run;
  EMBER_ASSIGN_OR_RETURN(run.model, CompiledModel::compile(std::move(M), co));
  run.inputs = fillInputs(*run.model, seed);
  EMBER_TRY(run.model->run());
  for (Placeholder *p : run.model->getOutputs()) {
    EMBER_ASSIGN_OR_RETURN(Tensor t, run.model->getOutput(p->getName()));
    run.outputs.push_back(std::move(t));
  }
  return std::move(run);
}

/// Runs \p modelText with only DCE and with \p pipeline, expects equal outputs (1e-5
/// relative), and returns the optimized run for structural checks.
inline llvm::Expected<PipelineRun> expectSameResults(const std::string &modelText,
                                                     std::vector<std::string> pipeline) {
  EMBER_ASSIGN_OR_RETURN(PipelineRun reference, runPipeline(modelText, {"dce"}));
  EMBER_ASSIGN_OR_RETURN(PipelineRun optimized, runPipeline(modelText, std::move(pipeline)));
  EXPECT_EQ(reference.outputs.size(), optimized.outputs.size());
  for (size_t i = 0; i < reference.outputs.size() && i < optimized.outputs.size(); ++i)
    EXPECT_EQ(tools::compareTensors(optimized.outputs[i], reference.outputs[i], {1e-6, 1e-5}),
              "")
        << "output " << i;
  return std::move(optimized);
}

enum OnnxType { kFloat = 1, kUInt8 = 2, kInt8 = 3, kInt32 = 6, kInt64 = 7, kFloat16 = 10, kDouble = 11 };

/// Builds an ONNX text model: inputs, outputs, initializers and nodes.
class Model {
  int opset_;
  std::string body_;

  static std::string typeStr(int type, const std::vector<int64_t> &dims) {
    std::string s = "type { tensor_type { elem_type: " + std::to_string(type) + " shape {";
    for (int64_t d : dims)
      s += " dim { dim_value: " + std::to_string(d) + " }";
    return s + " } } }";
  }

public:
  explicit Model(int opset = 13) : opset_(opset) {}

  Model &input(const std::string &name, const std::vector<int64_t> &dims, int type = kFloat) {
    body_ += "  input { name: \"" + name + "\" " + typeStr(type, dims) + " }\n";
    return *this;
  }
  Model &output(const std::string &name, const std::vector<int64_t> &dims, int type = kFloat) {
    body_ += "  output { name: \"" + name + "\" " + typeStr(type, dims) + " }\n";
    return *this;
  }
  /// An initializer with the given values (float, double, 8- and 32-bit integers or int64).
  Model &values(const std::string &name, const std::vector<int64_t> &dims,
                const std::vector<double> &vals, int type = kFloat) {
    const char *field = type == kDouble  ? "double_data"
                        : type == kInt64 ? "int64_data"
                        : type == kInt32 || type == kInt8 || type == kUInt8 ? "int32_data"
                                                                           : "float_data";
    body_ += "  initializer { name: \"" + name + "\" data_type: " + std::to_string(type);
    for (int64_t d : dims)
      body_ += " dims: " + std::to_string(d);
    for (double v : vals) {
      char buf[32];
      std::snprintf(buf, sizeof buf, type == kFloat || type == kDouble ? "%.9g" : "%.0f", v);
      body_ += std::string(" ") + field + ": " + buf;
    }
    body_ += " }\n";
    return *this;
  }
  /// An initializer of seeded pseudo-random values in [lo, hi].
  Model &random(const std::string &name, const std::vector<int64_t> &dims, unsigned seed,
                double lo = -1, double hi = 1, int type = kFloat) {
    size_t n = 1;
    for (int64_t d : dims)
      n *= size_t(d);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    std::vector<double> vals(n);
    for (double &v : vals)
      v = dist(rng);
    return values(name, dims, vals, type);
  }
  /// A node; \p attrs is ONNX text for its attributes ("attribute { ... } ...").
  Model &node(const std::string &op, const std::vector<std::string> &inputs,
              const std::vector<std::string> &outputs, const std::string &attrs = "") {
    body_ += "  node { op_type: \"" + op + "\"";
    for (const auto &i : inputs)
      body_ += " input: \"" + i + "\"";
    for (const auto &o : outputs)
      body_ += " output: \"" + o + "\"";
    body_ += " " + attrs + " }\n";
    return *this;
  }
  std::string str() const {
    return "ir_version: 8\nopset_import { domain: \"\" version: " + std::to_string(opset_) +
           " }\ngraph {\n  name: \"g\"\n" + body_ + "}\n";
  }
};


} // namespace test
} // namespace ember

#endif
