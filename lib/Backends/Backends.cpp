// The backend registry: name -> factory.
#include "ember/Backends/Backend.h"
#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

Expected<std::unique_ptr<Backend>> createInterpreterBackend(const BackendOptions &opts);
Expected<std::unique_ptr<Backend>> createCPUBackend(const BackendOptions &opts);

namespace {
struct BackendEntry {
  const char *name;
  Expected<std::unique_ptr<Backend>> (*create)(const BackendOptions &);
};
const BackendEntry kBackends[] = {
    {"Interpreter", createInterpreterBackend},
    {"CPU", createCPUBackend},
};
} // namespace

Expected<ObjectInfo> Backend::emitObject(const IRFunction &, const ObjectOptions &,
                                         PhaseTimes *) const {
  return makeError("the " + getName() + " backend cannot write bundles (use -backend=CPU)");
}

std::vector<std::string> getBackendNames() {
  std::vector<std::string> names;
  for (const BackendEntry &e : kBackends)
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
