// What the harnesses share: an input's bytes as a file (the loaders read files, as the tools
// do, so the harnesses fuzz the path users take), quiet protobuf logging, the memory budget.
#ifndef EMBER_TESTS_FUZZ_FUZZINPUT_H
#define EMBER_TESTS_FUZZ_FUZZINPUT_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace ember {
namespace fuzz {

/// Writes \p bytes to \p fileName in this process's scratch directory (made at the first call,
/// removed at exit) and returns its path. The same name is overwritten by the next input.
std::string writeInput(llvm::StringRef fileName, llvm::StringRef bytes);

/// Once per process: protobuf's parse errors would flood the fuzzer's output, and the memory
/// budget (ember/Support/MemoryBudget.h) comes down to kMemoryBudget, well under libFuzzer's
/// RSS limit, so a model asking for more is refused as the tools refuse it, not an OOM.
void setUpProcess();
constexpr uint64_t kMemoryBudget = 512ull << 20;

/// Inputs above this size are skipped: a model file's structure, not its bulk, is what the
/// loaders get wrong, and big inputs only slow the campaign down.
constexpr size_t kMaxInputBytes = 1 << 20;

inline llvm::StringRef bytesOf(const uint8_t *data, size_t size) {
  return llvm::StringRef(reinterpret_cast<const char *>(data), size);
}

} // namespace fuzz
} // namespace ember

#endif
