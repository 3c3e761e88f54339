// The CPU backend's machine-code cache: see CodeCache.h.
#include "CodeCache.h"

#include <cstdlib>

namespace ember {
namespace cpu {

CodeCache &CodeCache::process() {
  static CodeCache cache([] {
    const char *mb = std::getenv("EMBER_CPU_CODE_CACHE_MB");
    return mb ? uint64_t(std::strtoull(mb, nullptr, 10)) << 20 : kDefaultBudget;
  }());
  return cache;
}

bool CodeCache::enabled() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return budget_ > 0;
}

std::shared_ptr<const std::string> CodeCache::find(const CodeKey &key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void CodeCache::insert(const CodeKey &key, std::shared_ptr<const std::string> object) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!object || object->size() > budget_ || index_.count(key))
    return;
  lru_.emplace_front(key, std::move(object));
  index_[key] = lru_.begin();
  bytes_ += lru_.front().second->size();
  evictLocked();
}

void CodeCache::evictLocked() {
  while (bytes_ > budget_ && !lru_.empty()) {
    bytes_ -= lru_.back().second->size();
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

CodeCacheStats CodeCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  CodeCacheStats s;
  s.hits = hits_;
  s.misses = misses_;
  s.entries = index_.size();
  s.bytes = bytes_;
  s.budget = budget_;
  return s;
}

void CodeCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  lru_.clear();
  index_.clear();
  bytes_ = hits_ = misses_ = 0;
}

void CodeCache::setBudget(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  budget_ = bytes;
  evictLocked();
}

} // namespace cpu
} // namespace ember
