// The OpenCL backend: one program per process (the kernel library, generic over shapes, so every
// model shares it), and per compiled function three device buffers mirroring the bundle ABI's
// regions, the parameter array, and one kernel object per launch with its arguments set once:
// a run is a write of the mutable region, the launches in order, and a read of it back.
#include "Launches.h"

#include "ember/Backends/Backend.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/StringExtras.h"

#include <CL/cl.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

#include "OpenCLSources.inc"

Error clError(cl_int status, const Twine &what) {
  return makeError("OpenCL: " + what + " failed (error " + Twine(status) + ")");
}

/// The program source: the formulas for float and double, the element-wise switch, the
/// library.
std::string programSource() {
  std::string s = "#pragma OPENCL FP_CONTRACT OFF\n"
                  "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                  "#define fm_exp exp\n#define fm_expm1 expm1\n#define fm_log1p log1p\n"
                  "#define fm_tanh tanh\n#define fm_erf erf\n#define fm_fabs fabs\n"
                  "#define EMBER_FORMULA static inline __attribute__((overloadable))\n"
                  "#define EMBER_NO_FMA\n#define EMBER_C float\n";
  s += kFormulasSource;
  // And for double, so float64 kernels compute as the Interpreter does (overloads pick it).
  s += "\n#undef EMBER_C\n#define EMBER_C double\n";
  s += kFormulasSource;
  s += "\n#undef EMBER_C\n";
  s += elementwiseSwitchSource();
  for (const char *family : kKernelSources)
    s += family;
  return s;
}

/// The first device of the first platform, a context, an in-order queue and the built program,
/// shared by every compiled function of the process.
struct Device {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  std::string name;
  std::mutex lock; ///< one run at a time on the shared queue

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
  Error open(unsigned platformIndex, unsigned deviceIndex) {
    cl_uint platforms = 0;
    if (clGetPlatformIDs(0, nullptr, &platforms) != CL_SUCCESS || platforms == 0)
      return makeError("no OpenCL platform found (install pocl-opencl-icd, or a GPU's ICD)");
    if (platformIndex >= platforms)
      return makeError("-opencl-platform " + Twine(platformIndex) + ": there are " +
                       Twine(platforms) + " OpenCL platform(s)");
    std::vector<cl_platform_id> ids(platforms);
    clGetPlatformIDs(platforms, ids.data(), nullptr);
    cl_uint devices = 0;
    if (clGetDeviceIDs(ids[platformIndex], CL_DEVICE_TYPE_ALL, 0, nullptr, &devices) !=
            CL_SUCCESS ||
        devices == 0)
      return makeError("OpenCL platform " + Twine(platformIndex) + " has no device");
    if (deviceIndex >= devices)
      return makeError("-opencl-device " + Twine(deviceIndex) + ": platform " +
                       Twine(platformIndex) + " has " + Twine(devices) + " device(s)");
    std::vector<cl_device_id> devs(devices);
    clGetDeviceIDs(ids[platformIndex], CL_DEVICE_TYPE_ALL, devices, devs.data(), nullptr);
    device = devs[deviceIndex];
    char buf[256] = {0};
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(buf) - 1, buf, nullptr);
    name = buf;
    cl_int status;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
    if (status != CL_SUCCESS)
      return clError(status, "creating a context on '" + name + "'");
    // Profiling costs nothing until a run asks its launches for events (-profile).
    queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &status);
    if (status != CL_SUCCESS)
      return clError(status, "creating a command queue");
    std::string source = programSource();
    const char *text = source.c_str();
    program = clCreateProgramWithSource(context, 1, &text, nullptr, &status);
    if (status != CL_SUCCESS)
      return clError(status, "creating the program");
    status = clBuildProgram(program, 1, &device, "-cl-std=CL1.2", nullptr, nullptr);
    if (status != CL_SUCCESS) {
      size_t size = 0;
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      return makeError("OpenCL: building the kernel library for '" + name + "' failed:\n" + log);
    }
    return Error::success();
  }
};

class OpenCLFunction final : public CompiledFunction {
  Device &dev_;
  const IRFunction &IR_;
  LaunchPlan plan_;
  bool profiling_;
  std::vector<InstructionTime> profile_; ///< per computing instruction, in order
  std::vector<size_t> profileRow_;       ///< per launch: its instruction's row in profile_
  cl_mem regions_[3] = {nullptr, nullptr, nullptr}, params_ = nullptr, error_ = nullptr;
  std::vector<cl_kernel> kernels_;
  const uint8_t *uploadedConstants_ = nullptr;

public:
  OpenCLFunction(Device &dev, const IRFunction &IR, LaunchPlan plan, bool profiling)
      : dev_(dev), IR_(IR), plan_(std::move(plan)), profiling_(profiling) {
    // Every computing instruction gets a row (a view has no launch and stays at 0 ms); a
    // launch adds its event's time to its instruction's row.
    std::map<const Instruction *, size_t> rowOf;
    for (const auto &I : IR.getInstrs())
      if (!isMemoryMarker(I->getKind())) {
        rowOf[I.get()] = profile_.size();
        profile_.push_back({I.get(), 0});
      }
    for (const Launch &l : plan_.launches)
      profileRow_.push_back(rowOf[l.instr]);
  }

  std::vector<InstructionTime> getProfile() const override {
    return profiling_ ? profile_ : std::vector<InstructionTime>();
  }

  ~OpenCLFunction() override {
    for (cl_kernel k : kernels_)
      clReleaseKernel(k);
    for (cl_mem m : regions_)
      if (m)
        clReleaseMemObject(m);
    if (params_)
      clReleaseMemObject(params_);
    if (error_)
      clReleaseMemObject(error_);
  }

  Error init() {
    uint64_t sizes[3] = {IR_.constantSize, IR_.mutableSize, IR_.activationsSize};
    cl_int status;
    for (unsigned r = 0; r < 3; ++r) {
      // Empty regions still get a buffer: kernels take all three.
      regions_[r] = clCreateBuffer(dev_.context, CL_MEM_READ_WRITE,
                                   std::max<uint64_t>(sizes[r], 64), nullptr, &status);
      if (status != CL_SUCCESS)
        return clError(status, "allocating a region of " + Twine(sizes[r]) + " bytes");
    }
    std::vector<int64_t> params = plan_.params;
    params.push_back(0);
    params_ = clCreateBuffer(dev_.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             params.size() * sizeof(int64_t), params.data(), &status);
    if (status != CL_SUCCESS)
      return clError(status, "allocating the parameters");
    error_ = clCreateBuffer(dev_.context, CL_MEM_READ_WRITE, sizeof(cl_int), nullptr, &status);
    if (status != CL_SUCCESS)
      return clError(status, "allocating the error word");
    for (const Launch &l : plan_.launches) {
      cl_kernel k = clCreateKernel(dev_.program, l.kernel.c_str(), &status);
      if (status != CL_SUCCESS)
        return clError(status, "creating kernel '" + l.kernel + "'");
      kernels_.push_back(k);
      cl_long p0 = cl_long(l.paramOffset);
      for (unsigned r = 0; r < 3; ++r)
        clSetKernelArg(k, r, sizeof(cl_mem), &regions_[r]);
      clSetKernelArg(k, 3, sizeof(cl_mem), &params_);
      clSetKernelArg(k, 5, sizeof(cl_mem), &error_);
      if ((status = clSetKernelArg(k, 4, sizeof(cl_long), &p0)) != CL_SUCCESS)
        return clError(status, "setting the arguments of '" + l.kernel + "'");
    }
    return Error::success();
  }

  Error execute(uint8_t *constantWeights, uint8_t *mutableWeights, uint8_t *) override {
    std::lock_guard<std::mutex> guard(dev_.lock);
    cl_int status;
    if (constantWeights != uploadedConstants_ && IR_.constantSize) {
      status = clEnqueueWriteBuffer(dev_.queue, regions_[0], CL_FALSE, 0, IR_.constantSize,
                                    constantWeights, 0, nullptr, nullptr);
      if (status != CL_SUCCESS)
        return clError(status, "uploading the constant weights");
      uploadedConstants_ = constantWeights;
    }
    if (IR_.mutableSize) {
      status = clEnqueueWriteBuffer(dev_.queue, regions_[1], CL_FALSE, 0, IR_.mutableSize,
                                    mutableWeights, 0, nullptr, nullptr);
      if (status != CL_SUCCESS)
        return clError(status, "uploading the inputs");
    }
    cl_int noError = 0, failed = 0;
    status = clEnqueueWriteBuffer(dev_.queue, error_, CL_FALSE, 0, sizeof(cl_int), &noError, 0,
                                  nullptr, nullptr);
    if (status != CL_SUCCESS)
      return clError(status, "clearing the error word");
    std::vector<cl_event> events(profiling_ ? kernels_.size() : 0);
    for (size_t i = 0; i < kernels_.size(); ++i) {
      size_t local = plan_.launches[i].group;
      size_t global = (plan_.launches[i].count + local - 1) / local * local;
      status = clEnqueueNDRangeKernel(dev_.queue, kernels_[i], 1, nullptr, &global, &local, 0,
                                      nullptr, profiling_ ? &events[i] : nullptr);
      if (status != CL_SUCCESS)
        return clError(status, "launching '" + plan_.launches[i].kernel + "' for '" +
                                   plan_.launches[i].instr->getName() + "'");
    }
    status = clEnqueueReadBuffer(dev_.queue, error_, CL_TRUE, 0, sizeof(cl_int), &failed, 0,
                                 nullptr, nullptr);
    if (status != CL_SUCCESS)
      return clError(status, "reading the error word");
    for (size_t i = 0; i < events.size(); ++i) {
      cl_ulong start = 0, end = 0;
      clGetEventProfilingInfo(events[i], CL_PROFILING_COMMAND_START, sizeof(start), &start,
                              nullptr);
      clGetEventProfilingInfo(events[i], CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
      profile_[profileRow_[i]].millis += double(end - start) * 1e-6;
      clReleaseEvent(events[i]);
    }
    if (failed)
      for (const Launch &l : plan_.launches)
        if (l.paramOffset + 1 == size_t(failed))
          return makeError("instruction '" + l.instr->getName() + "' (" +
                           l.instr->getKindName() + "): " + l.failure);
    if (IR_.mutableSize) {
      status = clEnqueueReadBuffer(dev_.queue, regions_[1], CL_TRUE, 0, IR_.mutableSize,
                                   mutableWeights, 0, nullptr, nullptr);
      if (status != CL_SUCCESS)
        return clError(status, "reading the outputs back");
    }
    return Error::success();
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
    auto start = std::chrono::steady_clock::now();
    EMBER_ASSIGN_OR_RETURN(LaunchPlan plan, planLaunches(IR));
    auto fn = std::make_unique<OpenCLFunction>(dev_, IR, std::move(plan), profiling_);
    EMBER_TRY(fn->init());
    if (phases)
      phases->push_back({"OpenCL setup", std::chrono::duration<double, std::milli>(
                                             std::chrono::steady_clock::now() - start)
                                             .count()});
    return std::move(fn);
  }
};

} // namespace
} // namespace opencl

Expected<std::unique_ptr<Backend>> createOpenCLBackend(const BackendOptions &opts) {
  if (!opts.target.empty() || !opts.cpu.empty() || !opts.features.empty() ||
      !opts.codeModel.empty() || !opts.relocModel.empty() || opts.dumpLLVMIR ||
      opts.dumpLLVMAsm || opts.threads != 1)
    return makeError("the OpenCL backend takes no target, CPU, code generation, thread or LLVM "
                     "dump options (they are for -backend=CPU); -opencl-platform and "
                     "-opencl-device choose the device");
  EMBER_ASSIGN_OR_RETURN(opencl::Device * dev,
                         opencl::Device::get(opts.openclPlatform, opts.openclDevice));
  return std::make_unique<opencl::OpenCLBackend>(*dev, opts.profile);
}

} // namespace ember
