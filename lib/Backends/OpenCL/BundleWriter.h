// OpenCL bundles: an object whose entry has the CPU bundles' signature and runs the model on the
// first OpenCL device through the C runtime (runtime/Runtime.h), which it carries.
#ifndef EMBER_LIB_BACKENDS_OPENCL_BUNDLEWRITER_H
#define EMBER_LIB_BACKENDS_OPENCL_BUNDLEWRITER_H

#include "Launches.h"

#include "ember/Backends/Backend.h"

namespace ember {
namespace opencl {

/// Writes the object of \p IR (planned; \p plan its launches) into opts.path: the runtime's
/// bitcode with internal linkage, the kernel library's source, the launch table and parameter
/// array as constants, and the entry. Its run-time errors are the runtime's statuses, then the
/// launches' failures; it links with -lOpenCL -pthread.
llvm::Expected<ObjectInfo> writeBundleObject(const IRFunction &IR, const LaunchPlan &plan,
                                             const ObjectOptions &opts, PhaseTimes *phases);

/// The weights object (Backend::emitConstantsObject) for the machine writeBundleObject's
/// objects are for.
llvm::Error writeBundleConstants(llvm::ArrayRef<uint8_t> region, const std::string &symbol,
                                 const std::string &path);

} // namespace opencl
} // namespace ember

#endif
