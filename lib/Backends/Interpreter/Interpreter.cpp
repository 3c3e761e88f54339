// The Interpreter backend: walks the planned IR and calls one reference kernel per instruction.
#include "Kernels.h"

#include "ember/Backends/Backend.h"
#include "ember/Support/Error.h"

#include <chrono>
#include <cstring>

using namespace llvm;

namespace ember {
namespace interp {

Error KernelContext::unsupported(const Twine &why) const {
  return makeError("instruction '" + instr_.getName() + "' (" + instr_.getKindName() +
                   "): " + why);
}

Error runCopy(const KernelContext &ctx) {
  TensorArg dst = ctx.out(), src = ctx.in(0);
  if (dst.data != src.data)
    std::memmove(dst.data, src.data, src.sizeInBytes());
  return Error::success();
}

Error runSave(const KernelContext &ctx) {
  return ctx.unsupported("Save is generated as a Copy instruction");
}

bool supportsSave(const Node &) { return true; }

bool hasKernel(const Node &n) {
  switch (n.getKind()) {
  case NodeKind::Placeholder:
  case NodeKind::Constant:
    return true;
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC)                                                  \
  case NodeKind::K:                                                                                \
    return supports##K(n);
#include "ember/Graph/Nodes.def"
  }
  return false;
}

namespace {

Error dispatch(const KernelContext &ctx) {
  switch (ctx.instr().getKind()) {
  case InstrKind::AllocActivation:
  case InstrKind::DeallocActivation:
  case InstrKind::TensorView:
    return Error::success(); // memory is planned statically; a view is only an address
  case InstrKind::Copy:
    return runCopy(ctx);
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC)                                                  \
  case InstrKind::K:                                                                               \
    return run##K(ctx);
#include "ember/Graph/Nodes.def"
  }
  return ctx.unsupported("no kernel");
}

class InterpreterFunction final : public CompiledFunction {
  const IRFunction &IR_;
  bool profiling_;
  std::vector<InstructionTime> profile_; ///< one per computing instruction, in order

public:
  InterpreterFunction(const IRFunction &IR, bool profiling) : IR_(IR), profiling_(profiling) {
    if (profiling)
      for (const auto &I : IR.getInstrs())
        if (!isMemoryMarker(I->getKind()))
          profile_.push_back({I.get(), 0});
  }

  Error execute(uint8_t *constantWeights, uint8_t *mutableWeights,
                uint8_t *activations) override {
    uint8_t *regions[3];
    regions[unsigned(MemRegion::Constant)] = constantWeights;
    regions[unsigned(MemRegion::Mutable)] = mutableWeights;
    regions[unsigned(MemRegion::Activations)] = activations;
    size_t computed = 0;
    for (const auto &I : IR_.getInstrs()) {
      if (!profiling_ || isMemoryMarker(I->getKind())) {
        EMBER_TRY(dispatch(KernelContext(*I, regions)));
        continue;
      }
      auto start = std::chrono::steady_clock::now();
      EMBER_TRY(dispatch(KernelContext(*I, regions)));
      profile_[computed++].millis += std::chrono::duration<double, std::milli>(
                                         std::chrono::steady_clock::now() - start)
                                         .count();
    }
    return Error::success();
  }

  std::vector<InstructionTime> getProfile() const override { return profile_; }
};

class InterpreterBackend final : public Backend {
  bool profiling_;

public:
  explicit InterpreterBackend(bool profiling) : profiling_(profiling) {}
  StringRef getName() const override { return "Interpreter"; }
  bool isOpSupported(const Node &n) const override { return hasKernel(n); }
  Expected<std::unique_ptr<CompiledFunction>> compile(const IRFunction &IR,
                                                      PhaseTimes *) const override {
    for (const auto &w : IR.getWeights())
      if (w->offset == kUnplanned)
        return makeError("IR has no memory plan");
    return std::make_unique<InterpreterFunction>(IR, profiling_);
  }
};

} // namespace
} // namespace interp

Expected<std::unique_ptr<Backend>> createInterpreterBackend(const BackendOptions &opts) {
  // It walks the IR in this process: there is no code to target, dump or cross-compile.
  if (!opts.target.empty() || !opts.cpu.empty() || !opts.features.empty() ||
      !opts.codeModel.empty() || !opts.relocModel.empty() || opts.dumpLLVMIR ||
      opts.dumpLLVMAsm || opts.threads != 1 || opts.openclPlatform || opts.openclDevice)
    return makeError("the Interpreter backend takes no target, CPU, code generation, thread, "
                     "LLVM dump or OpenCL device options (they are for -backend=CPU or OpenCL)");
  return std::make_unique<interp::InterpreterBackend>(opts.profile);
}

} // namespace ember
