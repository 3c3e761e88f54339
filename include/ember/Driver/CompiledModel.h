// The compile pipeline in one place: graph optimization, backend support check, IRGen, memory
// plan, backend compile; and running the result on the three memory regions.
#ifndef EMBER_DRIVER_COMPILEDMODEL_H
#define EMBER_DRIVER_COMPILEDMODEL_H

#include "ember/Backends/Backend.h"
#include "ember/Graph/Graph.h"
#include "ember/IR/IR.h"
#include "ember/IROptimizer/IROptimizer.h"
#include "ember/Optimizer/GraphOptimizer.h"
#include "ember/Quantization/Quantization.h"

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
  /// Post-training quantization (Quantization.h): both steps act on the main function after
  /// the graph optimization and before lowering. Save every float value for a profile
  /// (CompileSummary::profiledValues names the placeholders)...
  bool instrumentForProfiling = false;
  /// ... or quantize from a profile.
  std::shared_ptr<const Profile> quantizationProfile;
  QuantizationOptions quantization;
};

struct CompileSummary {
  size_t nodesBefore = 0, nodesAfter = 0;
  std::vector<PassStats> passStats;
  std::vector<IRPassStats> irPassStats;
  /// (phase, milliseconds) in pipeline order (-time-phases); the backend's own phases follow
  /// "backend compile", indented (PhaseTimes).
  PhaseTimes phaseMillis;
  /// With CompileOptions::instrumentForProfiling: each profiled value and its placeholder.
  std::vector<ProfiledValue> profiledValues;
  /// With CompileOptions::quantizationProfile: what was quantized, and the integer kernels the
  /// optimized graph has.
  QuantizationReport quantization;
};

class CompiledModel;

/// Memory the compile pipeline allocates for a model's regions.
struct AlignedRegion {
  struct Free {
    void operator()(uint8_t *p) const;
  };
  std::unique_ptr<uint8_t, Free> memory;
  uint64_t size = 0;
};

/// One caller's run state: mutable and activations regions of its own over a compiled model's
/// code and constant weights. Several threads may each run their own context of one model at
/// once (a backend's compiled function touches only the regions it is given; the OpenCL
/// backend's runs take turns on its device); a context is for one thread at a time. With
/// BackendOptions::profile, runs must not overlap (the profile is one set of counters).
class ExecutionContext {
  CompiledModel &model_;
  AlignedRegion mutable_, activations_;
  friend class CompiledModel;
  explicit ExecutionContext(CompiledModel &model) : model_(model) {}

public:
  /// Copies \p t into input \p name; its type must match the placeholder's exactly.
  llvm::Error setInput(llvm::StringRef name, const Tensor &t);
  /// The same from a caller's memory: \p ty's bytes at \p data (a Python array, uncopied).
  llvm::Error setInput(llvm::StringRef name, const Type &ty, const void *data);
  llvm::Error run();
  /// A copy of output (or input) placeholder \p name's current contents.
  llvm::Expected<Tensor> getOutput(llvm::StringRef name) const;
  /// Where placeholder \p name lives in this context's mutable region, which run() reads its
  /// inputs from and writes its outputs to: valid as long as the context.
  llvm::Expected<uint8_t *> placeholderData(llvm::StringRef name);
  /// The whole mutable region: every input's and output's memory.
  llvm::MutableArrayRef<uint8_t> mutableRegion() {
    return {mutable_.memory.get(), size_t(mutable_.size)};
  }
};

class CompiledModel {
  std::unique_ptr<Module> module_;
  Function *fn_ = nullptr;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<IRFunction> ir_;
  std::unique_ptr<CompiledFunction> compiled_;
  CompileSummary summary_;
  AlignedRegion constant_;
  std::unique_ptr<ExecutionContext> context_; ///< setInput/run/getOutput's
  friend class ExecutionContext;

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

  /// A new context with zeroed regions, for a thread of its own; it must not outlive the model.
  llvm::Expected<std::unique_ptr<ExecutionContext>> createContext();

  /// The model's own context: for one thread.
  llvm::Error setInput(llvm::StringRef name, const Tensor &t) {
    return context_->setInput(name, t);
  }
  llvm::Error run() { return context_->run(); }
  llvm::Expected<Tensor> getOutput(llvm::StringRef name) const {
    return context_->getOutput(name);
  }
  /// With BackendOptions::profile: time per computing instruction over every run() so far.
  std::vector<InstructionTime> getProfile() const { return compiled_->getProfile(); }
  /// With BackendOptions::instrument: the spans recorded since the last call (takeTrace).
  std::vector<TraceSpan> takeTrace(uint64_t &dropped) { return compiled_->takeTrace(dropped); }
};

} // namespace ember

#endif
