#include "ember/Driver/CompiledModel.h"

#include "Lowering.h"

#include "ember/Support/Error.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace llvm;

namespace ember {

void CompiledModel::AlignedFree::operator()(uint8_t *p) const { std::free(p); }

CompiledModel::~CompiledModel() = default;

namespace {

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
  EMBER_ASSIGN_OR_RETURN(fn_, mainFunction(*module_));
  EMBER_ASSIGN_OR_RETURN(backend_, createBackend(opts.backend, opts.backendOptions));
  EMBER_ASSIGN_OR_RETURN(ir_, lowerToPlannedIR(*fn_, *backend_, opts, summary_));
  {
    PhaseTimes backendPhases;
    {
      PhaseTimer t(summary_.phaseMillis, "backend compile");
      EMBER_ASSIGN_OR_RETURN(compiled_, backend_->compile(*ir_, &backendPhases));
    }
    appendBackendPhases(summary_, backendPhases);
  }
  EMBER_ASSIGN_OR_RETURN(uint8_t * c, allocateRegion(ir_->constantSize, "constant"));
  constantMem_.reset(c);
  EMBER_ASSIGN_OR_RETURN(uint8_t * m, allocateRegion(ir_->mutableSize, "mutable"));
  mutableMem_.reset(m);
  EMBER_ASSIGN_OR_RETURN(uint8_t * a, allocateRegion(ir_->activationsSize, "activations"));
  activationsMem_.reset(a);
  return backend_->writeConstants(*ir_, constantMem_.get());
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
