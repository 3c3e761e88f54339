// The process's cache of machine code for the CPU backend's JIT: relocatable objects, each the
// compiled form of one part of a generated module (a kernel function, or the model's own
// functions: CachedCompile.h), keyed by a digest of that part's final IR and of the target
// machine it was compiled for. A compile finds there the kernels an earlier one compiled, so
// instruction selection runs once per (kernel as optimized, target) in a process: repeated
// compiles (a service loading models, the compile_cpu fuzzer) do not pay for it again.
//
// Thread-safe; bounded: past its budget in bytes, the least recently used objects go. An object
// handed out stays alive with its holder (shared_ptr) whatever the cache drops.
#ifndef EMBER_LIB_BACKENDS_CPU_CODECACHE_H
#define EMBER_LIB_BACKENDS_CPU_CODECACHE_H

#include <array>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace ember {
namespace cpu {

/// SHA-256 of everything the object depends on (CachedCompile.cpp: the part's bitcode, the
/// triple, CPU, features, optimization level, code and relocation models).
using CodeKey = std::array<uint8_t, 32>;

struct CodeCacheStats {
  uint64_t hits = 0, misses = 0; ///< lookups since the last clear()
  uint64_t entries = 0, bytes = 0, budget = 0;
};

class CodeCache {
public:
  /// 64 MiB: room for the kernels of several targets and opt levels beside many models' parts
  /// (a model's objects are its share of the machine code the JIT loads for it anyway).
  static constexpr uint64_t kDefaultBudget = uint64_t(64) << 20;

  explicit CodeCache(uint64_t budget = kDefaultBudget) : budget_(budget) {}
  /// The one cache every CPU backend of this process shares: kDefaultBudget, or as many MiB
  /// as the environment's EMBER_CPU_CODE_CACHE_MB says (0: no cache, and the JIT compiles the
  /// module whole, as it did before there was one).
  static CodeCache &process();
  /// Whether the budget is above 0.
  bool enabled() const;

  /// The object cached under \p key (now the most recently used), or null (a miss).
  std::shared_ptr<const std::string> find(const CodeKey &key);
  /// Caches \p object under \p key, dropping the least recently used objects past the budget
  /// (an object larger than the whole budget is not kept). A key already present keeps its
  /// object: two threads that missed together compiled the same bytes.
  void insert(const CodeKey &key, std::shared_ptr<const std::string> object);

  CodeCacheStats stats() const;
  /// Drops every object and zeroes the counters.
  void clear();
  /// A new budget in bytes (0: cache nothing), applied at once.
  void setBudget(uint64_t bytes);

private:
  using Entry = std::pair<CodeKey, std::shared_ptr<const std::string>>;
  void evictLocked();

  mutable std::mutex mutex_;
  std::list<Entry> lru_; ///< most recently used first
  std::map<CodeKey, std::list<Entry>::iterator> index_;
  uint64_t budget_, bytes_ = 0, hits_ = 0, misses_ = 0;
};

} // namespace cpu
} // namespace ember

#endif
