// The backend registry: name -> factory.
#include "ember/Backends/Backend.h"
#include "ember/Graph/Node.h"
#include "ember/Support/Error.h"

#include <cstring>

using namespace llvm;

namespace ember {

Expected<std::unique_ptr<Backend>> createInterpreterBackend(const BackendOptions &opts);
Expected<std::unique_ptr<Backend>> createCPUBackend(const BackendOptions &opts);
Expected<std::unique_ptr<Backend>> createOpenCLBackend(const BackendOptions &opts);

namespace {
struct BackendEntry {
  const char *name;
  Expected<std::unique_ptr<Backend>> (*create)(const BackendOptions &);
  /// Whether the backend can run here (OpenCL: a device is found); getBackendNames lists only
  /// those, and createBackend explains why another cannot.
  bool (*available)();
};
bool always() { return true; }
bool openCLDeviceFound() {
  auto backend = createOpenCLBackend(BackendOptions()); // opens the device once per process
  if (backend)
    return true;
  consumeError(backend.takeError());
  return false;
}
const BackendEntry kBackends[] = {
    {"Interpreter", createInterpreterBackend, always},
    {"CPU", createCPUBackend, always},
    {"OpenCL", createOpenCLBackend, openCLDeviceFound},
};
} // namespace

Error Backend::writeConstants(const IRFunction &IR, uint8_t *region) const {
  for (const auto &w : IR.getWeights())
    if (w->isConstant()) {
      const Tensor &payload = static_cast<const Constant *>(w->getOrigin())->getPayload();
      std::memcpy(region + w->offset, payload.data(), payload.sizeInBytes());
    }
  return Error::success();
}

Expected<ObjectInfo> Backend::emitObject(const IRFunction &, const ObjectOptions &,
                                         PhaseTimes *) const {
  return makeError("the " + getName() + " backend cannot write bundles (use -backend=CPU or OpenCL)");
}

Error Backend::emitConstantsObject(ArrayRef<uint8_t>, const std::string &,
                                   const std::string &) const {
  return makeError("the " + getName() + " backend cannot write a weights object");
}

std::vector<std::string> getBackendNames() {
  std::vector<std::string> names;
  for (const BackendEntry &e : kBackends)
    if (e.available())
      names.push_back(e.name);
  return names;
}

Expected<std::unique_ptr<Backend>> createBackend(StringRef name, const BackendOptions &opts) {
  for (const BackendEntry &e : kBackends)
    if (name.equals_insensitive(e.name))
      return e.create(opts);
  std::string known;
  for (const BackendEntry &e : kBackends)
    known += std::string(known.empty() ? "" : ", ") + e.name;
  return makeError("unknown backend '" + name + "' (available: " + known + ")");
}

} // namespace ember
