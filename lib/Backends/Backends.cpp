// The backend registry: name -> factory.
#include "ember/Backends/Backend.h"
#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

std::unique_ptr<Backend> createInterpreterBackend();
std::unique_ptr<Backend> createCPUBackend();

namespace {
struct BackendEntry {
  const char *name;
  std::unique_ptr<Backend> (*create)();
};
const BackendEntry kBackends[] = {
    {"Interpreter", createInterpreterBackend},
    {"CPU", createCPUBackend},
};
} // namespace

std::vector<std::string> getBackendNames() {
  std::vector<std::string> names;
  for (const BackendEntry &e : kBackends)
    names.push_back(e.name);
  return names;
}

Expected<std::unique_ptr<Backend>> createBackend(StringRef name) {
  for (const BackendEntry &e : kBackends)
    if (name.equals_insensitive(e.name))
      return e.create();
  std::string known;
  for (const BackendEntry &e : kBackends)
    known += std::string(known.empty() ? "" : ", ") + e.name;
  return makeError("unknown backend '" + name + "' (available: " + known + ")");
}

} // namespace ember
