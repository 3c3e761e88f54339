#include "ember/Driver/CompiledModel.h"

#include "ember/Driver/ConstantEvaluator.h"
#include "ember/IR/IRGen.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/IROptimizer/MemoryPlan.h"
#include "ember/Support/Error.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace llvm;

namespace ember {

void CompiledModel::AlignedFree::operator()(uint8_t *p) const { std::free(p); }

CompiledModel::~CompiledModel() = default;

namespace {

class PhaseTimer {
  std::vector<std::pair<std::string, double>> &out_;
  std::string name_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();

public:
  PhaseTimer(std::vector<std::pair<std::string, double>> &out, StringRef name)
      : out_(out), name_(name.str()) {}
  ~PhaseTimer() {
    auto d = std::chrono::steady_clock::now() - start_;
    out_.push_back({name_, std::chrono::duration<double, std::milli>(d).count()});
  }
};

Expected<uint8_t *> allocateRegion(uint64_t bytes, StringRef what) {
  // Refuse up front what cannot fit: touching it would only get the process killed.
  uint64_t physical = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  if (bytes > physical)
    return makeError("the " + what + " region needs " + Twine(bytes) +
                     " bytes, more than this machine's memory (" + Twine(physical) + " bytes)");
  uint64_t rounded = (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  void *p = std::aligned_alloc(kTensorAlignment, rounded ? rounded : kTensorAlignment);
  if (!p)
    return makeError("cannot allocate " + Twine(bytes) + " bytes for the " + what + " region");
  std::memset(p, 0, rounded ? rounded : kTensorAlignment);
  return static_cast<uint8_t *>(p);
}

} // namespace

Expected<std::unique_ptr<CompiledModel>> CompiledModel::compile(std::unique_ptr<Module> M,
                                                                const CompileOptions &opts) {
  std::unique_ptr<CompiledModel> cm(new CompiledModel());
  cm->module_ = std::move(M);
  EMBER_TRY(cm->build(opts));
  return std::move(cm);
}

Error CompiledModel::build(const CompileOptions &opts) {
  fn_ = module_->getFunction(kMainFunctionName);
  if (!fn_ && module_->getFunctions().size() == 1)
    fn_ = module_->getFunctions().front().get();
  if (!fn_)
    return makeError("the module has no function to compile");
  EMBER_ASSIGN_OR_RETURN(backend_, createBackend(opts.backend, opts.backendOptions));
  auto &phases = summary_.phaseMillis;
  summary_.nodesBefore = fn_->size();
  {
    PhaseTimer t(phases, "graph optimization");
    OptimizerOptions oo;
    oo.verifyEach = opts.verifyEach;
    oo.stats = &summary_.passStats;
    oo.context.evaluateConstant = evaluateConstant;
    oo.context.shouldLower = [this](const Node &n) { return backend_->shouldLower(n); };
    oo.dumpAfter = opts.dumpGraphAfter;
    oo.dumpStream = &outs();
    EMBER_TRY(optimize(*fn_, opts.pipeline.empty() ? defaultPipeline() : opts.pipeline, oo));
    EMBER_TRY(withContext(fn_->verify(), "after graph optimization"));
  }
  summary_.nodesAfter = fn_->size();

  // Refuse with the full list of what the backend cannot run.
  std::string unsupported;
  unsigned count = 0;
  for (const auto &n : fn_->getNodes())
    if (!backend_->isOpSupported(*n)) {
      ++count;
      unsupported += "\n  node '" + n->getName().str() + "' (" + n->getKindName().str() + ") " +
                     (n->getNumResults() ? n->getType().str()
                                         : n->getOperand(0).getType().str());
    }
  if (count)
    return makeError("backend " + backend_->getName() + " does not support " + Twine(count) +
                     " node(s):" + unsupported);
  {
    PhaseTimer t(phases, "IRGen");
    EMBER_ASSIGN_OR_RETURN(ir_, generateIR(*fn_));
    if (opts.verifyEach)
      EMBER_TRY(withContext(ir_->verify(), "after IRGen"));
  }
  {
    PhaseTimer t(phases, "IR optimization");
    IROptimizerOptions io;
    io.verifyEach = opts.verifyEach;
    io.stats = &summary_.irPassStats;
    io.dumpAfter = opts.dumpIRAfter;
    io.dumpStream = &outs();
    EMBER_TRY(optimizeIR(*ir_, opts.irPipeline ? *opts.irPipeline : defaultIRPipeline(), io));
    EMBER_TRY(withContext(ir_->verify(), "after IR optimization"));
  }
  {
    // The plan is checked by the memory verifier every time: it is cheap next to compiling.
    PhaseTimer t(phases, "memory plan");
    for (const auto &I : ir_->getInstrs())
      I->scratchSize = backend_->getScratchBytes(*I);
    EMBER_TRY(planMemory(*ir_));
  }
  {
    PhaseTimes backendPhases;
    {
      PhaseTimer t(phases, "backend compile");
      EMBER_ASSIGN_OR_RETURN(compiled_, backend_->compile(*ir_, &backendPhases));
    }
    for (auto &[phase, ms] : backendPhases)
      phases.push_back({"  " + phase, ms});
  }
  EMBER_ASSIGN_OR_RETURN(uint8_t * c, allocateRegion(ir_->constantSize, "constant"));
  constantMem_.reset(c);
  EMBER_ASSIGN_OR_RETURN(uint8_t * m, allocateRegion(ir_->mutableSize, "mutable"));
  mutableMem_.reset(m);
  EMBER_ASSIGN_OR_RETURN(uint8_t * a, allocateRegion(ir_->activationsSize, "activations"));
  activationsMem_.reset(a);
  for (const auto &w : ir_->getWeights())
    if (w->isConstant()) {
      const Tensor &payload = static_cast<const Constant *>(w->getOrigin())->getPayload();
      std::memcpy(constantMem_.get() + w->offset, payload.data(), payload.sizeInBytes());
    }
  return Error::success();
}

Expected<const WeightVar *> CompiledModel::findPlaceholderVar(StringRef name) const {
  for (const auto &w : ir_->getWeights())
    if (!w->isConstant() && w->getName() == name)
      return w.get();
  std::string names;
  for (const auto &w : ir_->getWeights())
    if (!w->isConstant())
      names += (names.empty() ? "" : ", ") + w->getName().str();
  return makeError("the model has no input or output named '" + name + "' (it has: " + names +
                   ")");
}

Error CompiledModel::setInput(StringRef name, const Tensor &t) {
  EMBER_ASSIGN_OR_RETURN(const WeightVar *w, findPlaceholderVar(name));
  if (w->getType() != t.getType())
    return makeError("input '" + name + "': got " + t.getType().str() + ", the model expects " +
                     w->getType().str());
  std::memcpy(mutableMem_.get() + w->offset, t.data(), t.sizeInBytes());
  return Error::success();
}

Error CompiledModel::run() {
  return compiled_->execute(constantMem_.get(), mutableMem_.get(), activationsMem_.get());
}

Expected<Tensor> CompiledModel::getOutput(StringRef name) const {
  EMBER_ASSIGN_OR_RETURN(const WeightVar *w, findPlaceholderVar(name));
  Tensor t(w->getType());
  std::memcpy(t.data(), mutableMem_.get() + w->offset, t.sizeInBytes());
  return std::move(t);
}

} // namespace ember
