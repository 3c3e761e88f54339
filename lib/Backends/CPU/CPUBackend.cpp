// The CPU backend: the planned IR becomes an LLVM module over the embedded kernel library
// (CodeGen.h), optimized at O3 for the host CPU and JIT-compiled (JIT.h); execute() calls the
// generated entry function on the three regions.
//
// Until the driver grows flags for it, two environment variables help inspection:
// EMBER_CPU_DUMP_LLVM_IR=<file> writes the optimized module, EMBER_CPU_TIME_PHASES=1 prints the
// time of each compile phase to stderr, EMBER_CPU_PROFILE=1 times every instruction and prints
// the slowest when the compiled function is destroyed.
#include "CPUTarget.h"
#include "CodeGen.h"
#include "JIT.h"

#include "ember/Backends/Backend.h"
#include "ember/Support/Error.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

class PhaseClock {
  bool enabled_ = std::getenv("EMBER_CPU_TIME_PHASES") != nullptr;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();

public:
  void lap(const char *phase) {
    auto now = std::chrono::steady_clock::now();
    if (enabled_)
      errs() << "CPU backend: " << phase << ": "
             << std::chrono::duration<double, std::milli>(now - last_).count() << " ms\n";
    last_ = now;
  }
};

/// Per-instruction run time, gathered through the profiling hook codegen can emit. One
/// profiled function at a time (a debugging aid).
struct Profile {
  std::vector<double> millis;
  int32_t current = -1;
  std::chrono::steady_clock::time_point since;
};
Profile gProfile;

void profileHook(int32_t id) {
  auto now = std::chrono::steady_clock::now();
  if (gProfile.current >= 0) {
    if (gProfile.millis.size() <= size_t(gProfile.current))
      gProfile.millis.resize(size_t(gProfile.current) + 1);
    gProfile.millis[size_t(gProfile.current)] +=
        std::chrono::duration<double, std::milli>(now - gProfile.since).count();
  }
  gProfile.current = id;
  gProfile.since = std::chrono::steady_clock::now();
}

void printProfile(const IRFunction &IR) {
  std::vector<std::pair<double, const Instruction *>> rows;
  double total = 0;
  int32_t i = 0;
  for (const auto &I : IR.getInstrs()) {
    if (size_t(i) < gProfile.millis.size() && gProfile.millis[size_t(i)] > 0) {
      rows.push_back({gProfile.millis[size_t(i)], I.get()});
      total += gProfile.millis[size_t(i)];
    }
    ++i;
  }
  std::sort(rows.begin(), rows.end(), [](auto &a, auto &b) { return a.first > b.first; });
  errs() << "CPU profile: " << total << " ms in all\n";
  for (size_t r = 0; r < rows.size() && r < 400; ++r) {
    const Instruction *I = rows[r].second;
    errs() << format("%9.3f ms  %5.1f%%  ", rows[r].first, 100 * rows[r].first / total)
           << I->getKindName() << " " << I->getName() << " -> "
           << I->getOutput()->getType().str() << "\n";
  }
  gProfile = Profile();
}

class CPUFunction final : public CompiledFunction {
  std::unique_ptr<JITCode> code_;
  std::vector<std::string> runtimeErrors_;
  const IRFunction *profiled_;

public:
  CPUFunction(std::unique_ptr<JITCode> code, std::vector<std::string> runtimeErrors,
              const IRFunction *profiled)
      : code_(std::move(code)), runtimeErrors_(std::move(runtimeErrors)), profiled_(profiled) {}
  ~CPUFunction() override {
    if (profiled_)
      printProfile(*profiled_);
  }

  Error execute(uint8_t *constantWeights, uint8_t *mutableWeights,
                uint8_t *activations) override {
    int32_t status = code_->entry()(constantWeights, mutableWeights, activations);
    if (status == 0)
      return Error::success();
    if (status > 0 && size_t(status) <= runtimeErrors_.size())
      return makeError(runtimeErrors_[size_t(status) - 1]);
    return makeError("the compiled function failed with status " + Twine(status));
  }
};

class CPUBackend final : public Backend {
public:
  StringRef getName() const override { return "CPU"; }
  bool isOpSupported(const Node &n) const override { return isSupportedOnCPU(n); }
  uint64_t getScratchBytes(const Instruction &I) const override { return cpuScratchBytes(I); }

  Expected<std::unique_ptr<CompiledFunction>> compile(const IRFunction &IR) const override {
    PhaseClock clock;
    bool profiling = std::getenv("EMBER_CPU_PROFILE") != nullptr;
    CPUTargetOptions opts = CPUTargetOptions::host();
    opts.codeModel = CodeModel::Small;
    EMBER_ASSIGN_OR_RETURN(std::unique_ptr<TargetMachine> TM, createTargetMachine(opts));
    auto ctx = std::make_unique<LLVMContext>();
    const char *entryName = "ember_model";
    EMBER_ASSIGN_OR_RETURN(GeneratedModule G, generateModule(IR, *ctx, *TM, entryName, profiling ? profileHook : nullptr));
    clock.lap("codegen");
    optimizeModule(*G.module, *TM);
    clock.lap("O3");
    if (const char *path = std::getenv("EMBER_CPU_DUMP_LLVM_IR")) {
      std::error_code ec;
      raw_fd_ostream os(path, ec, sys::fs::OF_Text);
      if (ec)
        return makeError("cannot write '" + Twine(path) + "': " + ec.message());
      G.module->print(os, nullptr);
    }
    EMBER_ASSIGN_OR_RETURN(std::unique_ptr<JITCode> code,
                           jitCompile(std::move(G.module), std::move(ctx), opts, entryName));
    clock.lap("machine code");
    return std::make_unique<CPUFunction>(std::move(code), std::move(G.runtimeErrors),
                                         profiling ? &IR : nullptr);
  }
};

} // namespace
} // namespace cpu

std::unique_ptr<Backend> createCPUBackend() { return std::make_unique<cpu::CPUBackend>(); }

} // namespace ember
