// The CPU backend: the planned IR becomes an LLVM module over the embedded kernel library
// (CodeGen.h), optimized (O3 unless -llvm-opt-level says) for the target CPU (CPUTarget.h)
// and JIT-compiled (JIT.h); execute() calls the generated entry function on the three regions.
#include "CPUConstants.h"
#include "CPUTarget.h"
#include "CodeGen.h"
#include "KernelVariants.h"
#include "JIT.h"
#include "ObjectWriter.h"
#include "kernels/Scratch.h"
#include "kernels/TraceBuffer.h"
#include "Common/BundleObject.h"

#include "ember/Backends/Backend.h"
#include "ember/Support/Error.h"
#include "ember/Support/PhaseClock.h"

#include "llvm/IR/LLVMContext.h"

#include <chrono>
#include <mutex>

using namespace llvm;

// Whether this process runs under ThreadSanitizer (GCC defines the macro, clang has the feature).
#if defined(__SANITIZE_THREAD__)
#define EMBER_PROCESS_HAS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMBER_PROCESS_HAS_TSAN 1
#endif
#endif
#ifndef EMBER_PROCESS_HAS_TSAN
#define EMBER_PROCESS_HAS_TSAN 0
#endif

namespace ember {
namespace cpu {

namespace {

/// Per-instruction time, gathered through the hook codegen emits with -profile: the clock runs
/// from one hook call to the next, so each computing instruction is charged its own span.
struct ProfileState {
  std::vector<InstructionTime> times; ///< one per computing instruction, in order
  int32_t current = -1;
  std::chrono::steady_clock::time_point since;

  static void hook(void *ctx, int32_t slot) {
    auto now = std::chrono::steady_clock::now();
    auto *s = static_cast<ProfileState *>(ctx);
    if (s->current >= 0 && size_t(s->current) < s->times.size())
      s->times[size_t(s->current)].millis +=
          std::chrono::duration<double, std::milli>(now - s->since).count();
    s->current = slot;
    s->since = std::chrono::steady_clock::now();
  }
};

/// The buffer an instrumented function records into (kernels/TraceBuffer.h), its address baked
/// into the code; takeTrace empties it after each run.
struct TraceState {
  std::vector<const Instruction *> slots; ///< the instruction of each index events carry
  std::vector<tracebuf::Event> events;
  tracebuf::Buffer buffer{};

  TraceState(const IRFunction &IR, int64_t threads) {
    for (const auto &I : IR.getInstrs())
      if (hasProfileSlot(I->getKind()))
        slots.push_back(I.get());
    // Room for a run of straight-line code with every instruction split over every thread, a
    // few times over (a Loop's body repeats; what does not fit is counted as dropped).
    events.resize(std::max<size_t>(4096, 4 * slots.size() * size_t(1 + threads)));
    buffer.events = events.data();
    buffer.capacity = events.size();
  }

  std::vector<TraceSpan> take(uint64_t &dropped) {
    uint64_t count = __atomic_load_n(&buffer.count, __ATOMIC_ACQUIRE);
    uint64_t kept = std::min<uint64_t>(count, buffer.capacity);
    dropped = count - kept;
    std::vector<TraceSpan> spans;
    for (uint64_t i = 0; i < kept; ++i) {
      const tracebuf::Event &e = events[i];
      if (e.instruction >= 0 && size_t(e.instruction) < slots.size())
        spans.push_back({slots[size_t(e.instruction)], e.startNs, e.endNs, e.thread, e.part});
    }
    buffer.count = 0;
    return spans;
  }
};

class CPUFunction final : public CompiledFunction {
  std::unique_ptr<JITCode> code_;
  std::vector<std::string> runtimeErrors_;
  std::unique_ptr<ProfileState> profile_;
  std::unique_ptr<TraceState> trace_;
  /// The team the kernels split over (-threads above 1), started at the first run and kept to
  /// the function's end: its workers wait between runs instead of starting in each. A run that
  /// finds it busy (this function run by two threads at once) starts a team of its own.
  struct alignas(64) TeamStorage {
    uint8_t bytes[scratch::kTeamBytes];
  };
  std::unique_ptr<TeamStorage> teamStorage_ = std::make_unique<TeamStorage>();
  void *team_ = nullptr;
  std::mutex teamMutex_;

public:
  CPUFunction(std::unique_ptr<JITCode> code, std::vector<std::string> runtimeErrors,
              std::unique_ptr<ProfileState> profile, std::unique_ptr<TraceState> trace)
      : code_(std::move(code)), runtimeErrors_(std::move(runtimeErrors)),
        profile_(std::move(profile)), trace_(std::move(trace)) {}
  ~CPUFunction() override {
    if (team_)
      code_->entry().teamStop(team_);
  }

  Error execute(uint8_t *constantWeights, uint8_t *mutableWeights,
                uint8_t *activations) override {
    const EntryPoints &entry = code_->entry();
    int32_t status;
    std::unique_lock<std::mutex> lock(teamMutex_, std::try_to_lock);
    if (lock.owns_lock()) {
      if (!team_)
        team_ = entry.teamStart(teamStorage_->bytes);
      status = entry.onTeam(team_, constantWeights, mutableWeights, activations);
    } else {
      status = entry.entry(constantWeights, mutableWeights, activations);
    }
    if (profile_ && status != 0)
      ProfileState::hook(profile_.get(), -1); // a failed run returns before its closing hook
    if (status == 0)
      return Error::success();
    if (status > 0 && size_t(status) <= runtimeErrors_.size())
      return makeError(runtimeErrors_[size_t(status) - 1]);
    return makeError("the compiled function failed with status " + Twine(status));
  }

  std::vector<InstructionTime> getProfile() const override {
    return profile_ ? profile_->times : std::vector<InstructionTime>();
  }

  std::vector<TraceSpan> takeTrace(uint64_t &dropped) override {
    dropped = 0;
    return trace_ ? trace_->take(dropped) : std::vector<TraceSpan>();
  }
};

/// The nodes the CPU backend gets from the graph optimizer's lowerings (Lowerings.def) rather
/// than from a kernel of its own: those whose kernel would be a generic one (computing in
/// double, one element at a time) while the lowered form runs on vectorized float kernels.
///  - InstanceNorm, float32 throughout: its kernel is ember_instancenorm (NormalizationGeneric);
///    lowered, it is the vectorized LayerNorm kernel over each plane and a per-channel Mul and Add
///    that codegen fuses into one loop. model-runner -iterations=200, median per run: [1, 64, 56,
///    56] 0.455 ms before, 0.111 ms lowered; [4, 64, 28, 28] 0.457 -> 0.123 ms; [1, 64, 7, 7]
///    0.008 -> 0.002 ms. Float32 only: LayerNorm's fast kernel is float32's, and other kinds'
///    lowering would still run generic kernels, in more passes over memory.
bool lowersOnCPU(const Node &n) {
  switch (n.getKind()) {
  case NodeKind::InstanceNorm:
    return llvm::all_of(n.getOperands(),
                        [](NodeValue v) { return v.getType().kind == ElemKind::Float32; });
  default: return false;
  }
}

class CPUBackend final : public Backend {
  CPUTargetOptions target_;
  BackendOptions opts_;

public:
  CPUBackend(CPUTargetOptions target, BackendOptions opts)
      : target_(std::move(target)), opts_(std::move(opts)) {}

  StringRef getName() const override { return "CPU"; }
  bool isOpSupported(const Node &n) const override { return isSupportedOnCPU(n); }
  bool shouldLower(const Node &n) const override { return lowersOnCPU(n); }
  uint64_t getScratchBytes(const Instruction &I) const override {
    return cpuScratchBytes(I, opts_.threads);
  }

  Expected<std::unique_ptr<CompiledFunction>> compile(const IRFunction &IR,
                                                      PhaseTimes *phases) const override {
    if (opts_.threadSanitizer && !EMBER_PROCESS_HAS_TSAN)
      return makeError("ThreadSanitizer instruments bundles (model-compiler "
                       "-sanitize-bundle=thread); the JIT is instrumented when ember is built "
                       "with TSan (utils/test.sh --sanitize=thread)");
    if (!target_.runsOnHost())
      return makeError("code for target '" + target_.triple +
                       "' cannot run on this machine; cross-compile a bundle with "
                       "model-compiler -emit-bundle instead");
    PhaseClock clock(phases);
    CPUTargetOptions opts = target_;
    if (!opts.codeModel)
      opts.codeModel = CodeModel::Small; // JIT code and data live close together
    EMBER_ASSIGN_OR_RETURN(std::unique_ptr<TargetMachine> TM, createTargetMachine(opts));
    auto ctx = std::make_unique<LLVMContext>();
    const char *entryName = "ember_model";
    std::unique_ptr<ProfileState> profile;
    ProfileHook hook{};
    if (opts_.profile) {
      profile = std::make_unique<ProfileState>();
      for (const auto &I : IR.getInstrs())
        if (hasProfileSlot(I->getKind()))
          profile->times.push_back({I.get(), 0});
      hook = ProfileHook{ProfileState::hook, profile.get()};
    }
    std::unique_ptr<TraceState> trace;
    Instrumentation instrument;
    if (opts_.instrument) {
      trace = std::make_unique<TraceState>(IR, opts_.threads);
      instrument.jitBuffer = &trace->buffer;
    }
    EMBER_ASSIGN_OR_RETURN(GeneratedModule G,
                           generateModule(IR, *ctx, *TM, entryName, opts_.threads,
                                          profile ? &hook : nullptr,
                                          trace ? &instrument : nullptr));
    clock.lap("LLVM IR generation");
    optimizeModule(*G.module, *TM);
    // Under TSan the JIT's code is instrumented too: the team's hand-over between its threads
    // is then seen, and so is any race in the kernels.
    if (EMBER_PROCESS_HAS_TSAN)
      EMBER_TRY(instrumentForThreadSanitizer(*G.module));
    clock.lap("LLVM optimization");
    EMBER_TRY(dumpModule(*G.module, *TM, opts_));
    EMBER_ASSIGN_OR_RETURN(std::unique_ptr<JITCode> code,
                           jitCompile(std::move(G.module), std::move(ctx), opts, entryName));
    clock.lap("machine code");
    return std::make_unique<CPUFunction>(std::move(code), std::move(G.runtimeErrors),
                                         std::move(profile), std::move(trace));
  }

  /// The float and integer kernel rows codegen calls for this backend's target.
  struct KernelRows {
    const KernelVariant *floats;
    const IntegerKernelVariant *integers;
  };
  Expected<KernelRows> kernelRows() const {
    EMBER_ASSIGN_OR_RETURN(std::unique_ptr<TargetMachine> TM, createTargetMachine(target_));
    EMBER_ASSIGN_OR_RETURN(const KernelVariant *floats, selectKernelVariant(*TM));
    EMBER_ASSIGN_OR_RETURN(const IntegerKernelVariant *integers, selectIntegerKernelVariant(*TM));
    return KernelRows{floats, integers};
  }

  /// Keeps room for the filters stored larger than they are (CPUConstants.h).
  Error reserveConstants(IRFunction &IR) const override {
    EMBER_ASSIGN_OR_RETURN(KernelRows rows, kernelRows());
    cpu::reserveConstants(IR, rows.integers->name);
    return Error::success();
  }

  /// Packs the filters codegen reads packed for the register tile of the variant it calls.
  Error writeConstants(const IRFunction &IR, uint8_t *region) const override {
    EMBER_ASSIGN_OR_RETURN(KernelRows rows, kernelRows());
    EMBER_TRY(Backend::writeConstants(IR, region));
    packFilters(IR, rows.floats->MR, rows.floats->NR(), rows.integers->name, region);
    return Error::success();
  }

  Expected<ObjectInfo> emitObject(const IRFunction &IR, const ObjectOptions &opts,
                                  PhaseTimes *phases) const override {
    return writeObject(IR, opts, target_, opts_, phases);
  }

  /// For the bundle's target machine: the triple, CPU and features its code is compiled for.
  Error emitConstantsObject(ArrayRef<uint8_t> region, const std::string &symbol,
                            const std::string &path) const override {
    EMBER_ASSIGN_OR_RETURN(std::unique_ptr<TargetMachine> TM, createTargetMachine(target_));
    return writeConstantsObject(*TM, region, symbol, path);
  }
};

} // namespace
} // namespace cpu

Expected<std::unique_ptr<Backend>> createCPUBackend(const BackendOptions &opts) {
  if (opts.threads < 1 || opts.threads > 64)
    return makeError("-threads must be from 1 to 64, not " + Twine(opts.threads));
  if (opts.openclPlatform || opts.openclDevice)
    return makeError("-opencl-platform and -opencl-device are for -backend=OpenCL");
  EMBER_ASSIGN_OR_RETURN(cpu::CPUTargetOptions target, cpu::CPUTargetOptions::fromOptions(opts));
  // Resolve the triple, CPU and features now, so a mistake is reported before any work.
  EMBER_TRY(cpu::createTargetMachine(target).takeError());
  return std::make_unique<cpu::CPUBackend>(std::move(target), opts);
}

} // namespace ember
