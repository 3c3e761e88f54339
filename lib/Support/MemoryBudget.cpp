// See MemoryBudget.h.
#include "ember/Support/MemoryBudget.h"

#include "ember/Support/Error.h"

#include <atomic>
#include <unistd.h>

namespace ember {

namespace {

std::atomic<uint64_t> budget{0};

uint64_t defaultBudget() {
  return uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE)) / 2;
}

} // namespace

uint64_t memoryBudget() {
  uint64_t b = budget.load(std::memory_order_relaxed);
  return b ? b : defaultBudget();
}

void setMemoryBudget(uint64_t bytes) { budget.store(bytes, std::memory_order_relaxed); }

llvm::Error checkMemoryBudget(uint64_t bytes, const llvm::Twine &what) {
  if (bytes <= memoryBudget())
    return llvm::Error::success();
  return makeError(what + " needs " + llvm::Twine(bytes) + " bytes, more than the memory budget of " +
                   llvm::Twine(memoryBudget()) + " bytes (-max-memory)");
}

} // namespace ember
