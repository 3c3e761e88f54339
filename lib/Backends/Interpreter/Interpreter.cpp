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
  case InstrKind::StoreIteration:
    return runStoreIteration(ctx);
  case InstrKind::IfBegin:
  case InstrKind::IfElse:
  case InstrKind::IfEnd:
  case InstrKind::LoopBegin:
  case InstrKind::LoopEnd:
    return ctx.unsupported("control flow is run by the walk, not dispatched");
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC)                                                  \
  case InstrKind::K:                                                                               \
    return run##K(ctx);
#include "ember/Graph/Nodes.def"
  }
  return ctx.unsupported("no kernel");
}

class InterpreterFunction final : public CompiledFunction {
  std::vector<const Instruction *> instrs_;
  /// For each control marker, the position of its partner: IfBegin -> its IfElse, IfElse ->
  /// its IfEnd, LoopBegin -> its LoopEnd, LoopEnd -> its LoopBegin.
  std::vector<size_t> partner_;
  bool profiling_;
  std::vector<InstructionTime> profile_; ///< one per computing instruction, in order
  std::vector<int> slot_;                ///< each instruction's entry in profile_, or -1

public:
  InterpreterFunction(const IRFunction &IR, bool profiling) : profiling_(profiling) {
    SmallVector<size_t, 8> open;
    for (const auto &I : IR.getInstrs()) {
      size_t pos = instrs_.size();
      instrs_.push_back(I.get());
      partner_.push_back(pos);
      bool computes = !isMemoryMarker(I->getKind()) && !isControlMarker(I->getKind());
      slot_.push_back(profiling && computes ? int(profile_.size()) : -1);
      if (profiling && computes)
        profile_.push_back({I.get(), 0});
      // The IR verifier has checked the nesting.
      switch (I->getKind()) {
      case InstrKind::IfBegin:
      case InstrKind::LoopBegin:
        open.push_back(pos);
        break;
      case InstrKind::IfElse:
        partner_[open.back()] = pos;
        open.back() = pos;
        break;
      case InstrKind::IfEnd:
        partner_[open.pop_back_val()] = pos;
        break;
      case InstrKind::LoopEnd:
        partner_[open.back()] = pos;
        partner_[pos] = open.pop_back_val();
        break;
      default:
        break;
      }
    }
  }

  Error execute(uint8_t *constantWeights, uint8_t *mutableWeights,
                uint8_t *activations) override {
    uint8_t *regions[3];
    regions[unsigned(MemRegion::Constant)] = constantWeights;
    regions[unsigned(MemRegion::Mutable)] = mutableWeights;
    regions[unsigned(MemRegion::Activations)] = activations;
    auto addr = [&](const IRValue *v) { return regions[unsigned(regionOf(v))] + v->offset; };
    // A loop's test, before each iteration: where to go next.
    auto loopTest = [&](size_t begin) -> Expected<size_t> {
      const Instruction &L = *instrs_[begin];
      int64_t iter = *reinterpret_cast<const int64_t *>(addr(L.getOperand(0)));
      int64_t trip = *reinterpret_cast<const int64_t *>(addr(L.getOperand(1)));
      bool cond = *addr(L.getOperand(2)) != 0;
      if (!(iter < trip && cond))
        return partner_[begin] + 1;
      if (iter >= L.attr<AttrKind::MaxTripCount>())
        return KernelContext(L, regions)
            .unsupported("the loop would run more than its bound of " +
                         Twine(L.attr<AttrKind::MaxTripCount>()) +
                         " iterations (-max-loop-iterations)");
      return begin + 1;
    };
    for (size_t pc = 0; pc < instrs_.size();) {
      const Instruction &I = *instrs_[pc];
      switch (I.getKind()) {
      case InstrKind::IfBegin:
        pc = *addr(I.getOperand(0)) ? pc + 1 : partner_[pc] + 1;
        continue;
      case InstrKind::IfElse: // the then-branch ran: skip the else-branch
        pc = partner_[pc] + 1;
        continue;
      case InstrKind::IfEnd:
        ++pc;
        continue;
      case InstrKind::LoopBegin: {
        *reinterpret_cast<int64_t *>(addr(I.getOperand(0))) = 0;
        EMBER_ASSIGN_OR_RETURN(pc, loopTest(pc));
        continue;
      }
      case InstrKind::LoopEnd: {
        ++*reinterpret_cast<int64_t *>(addr(I.getOperand(0)));
        EMBER_ASSIGN_OR_RETURN(pc, loopTest(partner_[pc]));
        continue;
      }
      default:
        break;
      }
      if (slot_[pc] < 0) {
        EMBER_TRY(dispatch(KernelContext(I, regions)));
      } else {
        auto start = std::chrono::steady_clock::now();
        EMBER_TRY(dispatch(KernelContext(I, regions)));
        profile_[slot_[pc]].millis += std::chrono::duration<double, std::milli>(
                                          std::chrono::steady_clock::now() - start)
                                          .count();
      }
      ++pc;
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
      !opts.codeModel.empty() || !opts.relocModel.empty() || opts.llvmOptLevel != 3 ||
      opts.dumpLLVMIR || opts.dumpLLVMAsm || opts.threads != 1 || opts.openclPlatform ||
      opts.openclDevice || opts.threadSanitizer)
    return makeError("the Interpreter backend takes no target, CPU, code generation, thread, "
                     "sanitizer, LLVM dump or OpenCL device options (they are for -backend=CPU or OpenCL)");
  return std::make_unique<interp::InterpreterBackend>(opts.profile);
}

} // namespace ember
