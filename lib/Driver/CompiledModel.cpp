#include "ember/Driver/CompiledModel.h"

#include "CompilePipeline.h"

#include "ember/Support/Error.h"
#include "ember/Support/MemoryBudget.h"
#include "ember/Support/PhaseClock.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace ember {

void AlignedRegion::Free::operator()(uint8_t *p) const { std::free(p); }

CompiledModel::~CompiledModel() = default;

namespace {

Expected<AlignedRegion> allocateRegion(uint64_t bytes, StringRef what) {
  EMBER_TRY(checkMemoryBudget(bytes, "the " + what + " region"));
  uint64_t rounded = (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  void *p = std::aligned_alloc(kTensorAlignment, rounded ? rounded : kTensorAlignment);
  if (!p)
    return makeError("cannot allocate " + Twine(bytes) + " bytes for the " + what + " region");
  std::memset(p, 0, rounded ? rounded : kTensorAlignment);
  AlignedRegion r;
  r.memory.reset(static_cast<uint8_t *>(p));
  r.size = bytes;
  return std::move(r);
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
  EMBER_ASSIGN_OR_RETURN(ir_, compileToPlannedIR(*fn_, *backend_, opts, summary_));
  // Refuse up front what cannot fit: touching it would only get the process killed.
  EMBER_TRY(checkMemoryBudget(ir_->constantSize + ir_->mutableSize + ir_->activationsSize,
                              "the model's memory (constant " + Twine(ir_->constantSize) +
                                  ", mutable " + Twine(ir_->mutableSize) + ", activations " +
                                  Twine(ir_->activationsSize) + " bytes)"));
  PhaseClock clock(&summary_.phaseMillis);
  PhaseTimes backendPhases;
  EMBER_ASSIGN_OR_RETURN(compiled_, backend_->compile(*ir_, &backendPhases));
  clock.lap("backend compile", backendPhases);
  EMBER_ASSIGN_OR_RETURN(constant_, allocateRegion(ir_->constantSize, "constant"));
  EMBER_ASSIGN_OR_RETURN(context_, createContext());
  return backend_->writeConstants(*ir_, constant_.memory.get());
}

Expected<std::unique_ptr<ExecutionContext>> CompiledModel::createContext() {
  std::unique_ptr<ExecutionContext> c(new ExecutionContext(*this));
  EMBER_ASSIGN_OR_RETURN(c->mutable_, allocateRegion(ir_->mutableSize, "mutable"));
  EMBER_ASSIGN_OR_RETURN(c->activations_, allocateRegion(ir_->activationsSize, "activations"));
  return std::move(c);
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

Error ExecutionContext::setInput(StringRef name, const Tensor &t) {
  return setInput(name, t.getType(), t.data());
}

Error ExecutionContext::setInput(StringRef name, const Type &ty, const void *data) {
  EMBER_ASSIGN_OR_RETURN(const WeightVar *w, model_.findPlaceholderVar(name));
  if (w->getType() != ty)
    return makeError("input '" + name + "': got " + ty.str() + ", the model expects " +
                     w->getType().str());
  std::memcpy(mutable_.memory.get() + w->offset, data, ty.sizeInBytes());
  return Error::success();
}

Expected<uint8_t *> ExecutionContext::placeholderData(StringRef name) {
  EMBER_ASSIGN_OR_RETURN(const WeightVar *w, model_.findPlaceholderVar(name));
  return mutable_.memory.get() + w->offset;
}

Error ExecutionContext::run() {
  return model_.compiled_->execute(model_.constant_.memory.get(), mutable_.memory.get(),
                                   activations_.memory.get());
}

Expected<Tensor> ExecutionContext::getOutput(StringRef name) const {
  EMBER_ASSIGN_OR_RETURN(const WeightVar *w, model_.findPlaceholderVar(name));
  Tensor t(w->getType());
  std::memcpy(t.data(), mutable_.memory.get() + w->offset, t.sizeInBytes());
  return std::move(t);
}

} // namespace ember
