// The OpenCL backend: one program per process (the kernel library, generic over shapes, so every
// model shares it), and per compiled function three device buffers mirroring the bundle ABI's
// regions, the parameter array, and one kernel object per launch with its arguments set once:
// a run is a write of the mutable region, the launches in order (the host following If and
// Loop between them: ControlFlow.cpp), and a read of it back. The
// device work is the C runtime's (runtime/Runtime.h), which OpenCL bundles carry too.
#include "BundleWriter.h"
#include "Launches.h"
#include "Program.h"
#include "runtime/Runtime.h"

#include "ember/Backends/Backend.h"
#include "ember/Support/Error.h"
#include "ember/Support/PhaseClock.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

/// An error of the runtime (runtime/Runtime.h) with its detail: the OpenCL status, the launch.
Error runtimeError(ember_ocl_status s, const ember_ocl_error &err, const LaunchPlan *plan) {
  if (s == EMBER_OCL_KERNEL_FAILED) {
    const Launch &l = plan->launches[err.launch];
    return makeError("instruction '" + l.instr->getName() + "' (" + l.instr->getKindName() +
                     "): " + l.failure);
  }
  std::string msg = ember_ocl_status_message(s);
  if (plan && (s == EMBER_OCL_KERNEL || s == EMBER_OCL_LAUNCH || s == EMBER_OCL_TRANSFER) &&
      err.launch < plan->launches.size()) {
    const Launch &l = plan->launches[err.launch];
    if (!l.control)
      msg += " (kernel '" + l.kernel + "' of instruction '" + l.instr->getName().str() + "')";
    else if (s != EMBER_OCL_KERNEL) // a control step's read, write or copy
      msg += " (instruction '" + l.instr->getName().str() + "')";
  }
  if (err.cl != CL_SUCCESS)
    msg += " (OpenCL error " + std::to_string(err.cl) + ")";
  return makeError(msg);
}

/// A device with the kernel library built, shared by every compiled function of the process.
struct Device {
  ember_ocl_device cl{};
  std::mutex lock; ///< one run at a time on the shared queue

  ~Device() { ember_ocl_close(&cl); }

  /// The device \p device of platform \p platform, opened once per process.
  static Expected<Device *> get(unsigned platform, unsigned device) {
    static std::mutex mutex;
    static std::map<std::pair<unsigned, unsigned>, std::unique_ptr<Device>> opened;
    static std::map<std::pair<unsigned, unsigned>, std::string> failures;
    std::lock_guard<std::mutex> guard(mutex);
    auto key = std::make_pair(platform, device);
    if (auto it = opened.find(key); it != opened.end())
      return it->second.get();
    if (auto it = failures.find(key); it != failures.end())
      return makeError(it->second);
    auto d = std::make_unique<Device>();
    if (Error e = d->open(platform, device)) {
      failures[key] = errorToString(std::move(e));
      return makeError(failures[key]);
    }
    return (opened[key] = std::move(d)).get();
  }

private:
  Error open(unsigned platform, unsigned device) {
    ember_ocl_error err;
    std::string source = programSource();
    ember_ocl_status s = ember_ocl_open(platform, device, source.c_str(), &cl, &err);
    if (s == EMBER_OCL_OK)
      return Error::success();
    if (s == EMBER_OCL_NO_SUCH_DEVICE)
      return makeError("-opencl-platform=" + Twine(platform) + " -opencl-device=" +
                       Twine(device) + ": no such OpenCL device (`clinfo -l` lists them)");
    if (s == EMBER_OCL_BUILD && cl.program) {
      size_t size = 0;
      clGetProgramBuildInfo(cl.program, cl.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(cl.program, cl.device, CL_PROGRAM_BUILD_LOG, size, log.data(),
                            nullptr);
      return makeError(std::string(ember_ocl_status_message(s)) + ":\n" + log);
    }
    return runtimeError(s, err, nullptr);
  }
};

class OpenCLFunction final : public CompiledFunction {
  Device &dev_;
  LaunchPlan plan_;
  bool profiling_;
  std::vector<InstructionTime> profile_; ///< per computing instruction, in order
  std::vector<uint64_t> nanos_;          ///< per step: the device time of a run's commands
  std::vector<long> profileRow_;         ///< per step: its instruction's row in profile_, or -1
  std::vector<ember_ocl_launch> launches_;
  ember_ocl_model model_{};
  ember_ocl_function fn_{};

public:
  OpenCLFunction(Device &dev, const IRFunction &IR, LaunchPlan plan, bool profiling)
      : dev_(dev), plan_(std::move(plan)), profiling_(profiling) {
    // Every computing instruction gets a row (a view has no launch and stays at 0 ms; the
    // control markers compute nothing and get none); a step adds its commands' time (all its
    // runs, in loops) to its instruction's row.
    std::map<const Instruction *, long> rowOf;
    for (const auto &I : IR.getInstrs())
      if (!isMemoryMarker(I->getKind()) && !isControlMarker(I->getKind())) {
        rowOf[I.get()] = long(profile_.size());
        profile_.push_back({I.get(), 0});
      }
    for (const Launch &l : plan_.launches) {
      auto row = rowOf.find(l.instr);
      profileRow_.push_back(row == rowOf.end() ? -1 : row->second);
      launches_.push_back({l.control ? nullptr : l.kernel.c_str(), l.count, l.paramOffset,
                           l.group, 0, l.control});
    }
    nanos_.resize(launches_.size());
    plan_.params.push_back(0); // never an empty buffer
    model_.params = plan_.params.data();
    model_.num_params = plan_.params.size();
    model_.launches = launches_.data();
    model_.num_launches = launches_.size();
    model_.region_sizes[0] = IR.constantSize;
    model_.region_sizes[1] = IR.mutableSize;
    model_.region_sizes[2] = IR.activationsSize;
  }

  std::vector<InstructionTime> getProfile() const override {
    return profiling_ ? profile_ : std::vector<InstructionTime>();
  }

  ~OpenCLFunction() override { ember_ocl_release(&fn_); }

  Error init() {
    ember_ocl_error err;
    ember_ocl_status s = ember_ocl_prepare(&dev_.cl, &model_, &fn_, &err);
    return s == EMBER_OCL_OK ? Error::success() : runtimeError(s, err, &plan_);
  }

  Error execute(uint8_t *constantWeights, uint8_t *mutableWeights, uint8_t *) override {
    std::lock_guard<std::mutex> guard(dev_.lock);
    std::fill(nanos_.begin(), nanos_.end(), 0);
    ember_ocl_error err;
    ember_ocl_status s = ember_ocl_run(&fn_, constantWeights, mutableWeights,
                                       profiling_ ? nanos_.data() : nullptr, &err);
    if (profiling_ && s == EMBER_OCL_OK)
      for (size_t i = 0; i < nanos_.size(); ++i)
        if (profileRow_[i] >= 0)
          profile_[profileRow_[i]].millis += double(nanos_[i]) * 1e-6;
    return s == EMBER_OCL_OK ? Error::success() : runtimeError(s, err, &plan_);
  }
};

class OpenCLBackend final : public Backend {
  Device &dev_;
  bool profiling_;

public:
  OpenCLBackend(Device &dev, bool profiling) : dev_(dev), profiling_(profiling) {}
  StringRef getName() const override { return "OpenCL"; }
  bool isOpSupported(const Node &n) const override { return hasKernel(n); }
  /// Whatever has a lowering and no kernel of its own is lowered: the library is small.
  bool shouldLower(const Node &n) const override { return !hasKernel(n); }
  uint64_t getScratchBytes(const Instruction &I) const override { return scratchBytes(I); }
  Expected<std::unique_ptr<CompiledFunction>> compile(const IRFunction &IR,
                                                      PhaseTimes *phases) const override {
    PhaseClock clock(phases);
    EMBER_ASSIGN_OR_RETURN(LaunchPlan plan, planLaunches(IR));
    auto fn = std::make_unique<OpenCLFunction>(dev_, IR, std::move(plan), profiling_);
    EMBER_TRY(fn->init());
    clock.lap("OpenCL setup");
    return std::move(fn);
  }
  Expected<ObjectInfo> emitObject(const IRFunction &IR, const ObjectOptions &opts,
                                  PhaseTimes *phases) const override {
    if (profiling_)
      return makeError("-profile times a model in this process; a bundle cannot be profiled");
    EMBER_ASSIGN_OR_RETURN(LaunchPlan plan, planLaunches(IR));
    return writeBundleObject(IR, plan, opts, phases);
  }
  Error emitConstantsObject(ArrayRef<uint8_t> region, const std::string &symbol,
                            const std::string &path) const override {
    return writeBundleConstants(region, symbol, path);
  }
};

} // namespace
} // namespace opencl

Expected<std::unique_ptr<Backend>> createOpenCLBackend(const BackendOptions &opts) {
  if (!opts.target.empty() || !opts.cpu.empty() || !opts.features.empty() ||
      !opts.codeModel.empty() || !opts.relocModel.empty() || opts.llvmOptLevel != 3 ||
      opts.dumpLLVMIR || opts.dumpLLVMAsm || opts.threads != 1 || opts.threadSanitizer)
    return makeError("the OpenCL backend takes no target, CPU, code generation, thread, "
                     "sanitizer or LLVM dump options (they are for -backend=CPU); -opencl-platform and "
                     "-opencl-device choose the device");
  EMBER_ASSIGN_OR_RETURN(opencl::Device * dev,
                         opencl::Device::get(opts.openclPlatform, opts.openclDevice));
  return std::make_unique<opencl::OpenCLBackend>(*dev, opts.profile);
}

} // namespace ember
