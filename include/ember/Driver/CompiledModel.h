// The compile pipeline in one place: graph optimization, backend support check, IRGen, memory
// plan, backend compile; and running the result on the three memory regions.
#ifndef EMBER_DRIVER_COMPILEDMODEL_H
#define EMBER_DRIVER_COMPILEDMODEL_H

#include "ember/Backends/Backend.h"
#include "ember/Graph/Graph.h"
#include "ember/IR/IR.h"
#include "ember/IROptimizer/IROptimizer.h"
#include "ember/Optimizer/GraphOptimizer.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ember {

struct CompileOptions {
  std::string backend = "Interpreter";
  /// Target, dump and profiling options for the backend.
  BackendOptions backendOptions;
  /// Verify the graph after every pass and the IR after every IR step.
  bool verifyEach = false;
  /// Graph passes to run; the default pipeline when empty.
  std::vector<std::string> pipeline;
  /// Print the graph after these passes ("all" for every one) to stdout.
  std::vector<std::string> dumpGraphAfter;
  /// IR passes to run; the default IR pipeline unless set (an empty list runs none).
  std::optional<std::vector<std::string>> irPipeline;
  /// Print the IR after these IR passes ("all" for every one) to stdout.
  std::vector<std::string> dumpIRAfter;
};

struct CompileSummary {
  size_t nodesBefore = 0, nodesAfter = 0;
  std::vector<PassStats> passStats;
  std::vector<IRPassStats> irPassStats;
  /// (phase, milliseconds) in pipeline order. The backend's own phases follow "backend
  /// compile", their names indented by two spaces: they are part of it, not added to it.
  std::vector<std::pair<std::string, double>> phaseMillis;
};

class CompiledModel {
  std::unique_ptr<Module> module_;
  Function *fn_ = nullptr;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<IRFunction> ir_;
  std::unique_ptr<CompiledFunction> compiled_;
  CompileSummary summary_;
  struct AlignedFree {
    void operator()(uint8_t *p) const;
  };
  std::unique_ptr<uint8_t, AlignedFree> constantMem_, mutableMem_, activationsMem_;

  CompiledModel() = default;
  llvm::Error build(const CompileOptions &opts);
  llvm::Expected<const WeightVar *> findPlaceholderVar(llvm::StringRef name) const;

public:
  /// Compiles the module's "main" function (or its only one) for opts.backend.
  static llvm::Expected<std::unique_ptr<CompiledModel>> compile(std::unique_ptr<Module> M,
                                                                const CompileOptions &opts);
  ~CompiledModel();

  Module &getModule() { return *module_; }
  const Function &getFunction() const { return *fn_; }
  const IRFunction &getIR() const { return *ir_; }
  const CompileSummary &getSummary() const { return summary_; }
  std::vector<Placeholder *> getInputs() const { return module_->getInputPlaceholders(); }
  std::vector<Placeholder *> getOutputs() const { return module_->getOutputPlaceholders(); }

  /// Copies \p t into input \p name; its type must match the placeholder's exactly.
  llvm::Error setInput(llvm::StringRef name, const Tensor &t);
  llvm::Error run();
  /// With BackendOptions::profile: time per computing instruction over every run() so far.
  std::vector<InstructionTime> getProfile() const { return compiled_->getProfile(); }
  /// A copy of output (or input) placeholder \p name's current contents.
  llvm::Expected<Tensor> getOutput(llvm::StringRef name) const;
};

} // namespace ember

#endif
