// A set of byte ranges [begin, end), kept merged: which bytes of a buffer (or of a memory region)
// hold written data. The IR verifier tracks writes through views with it; the memory verifier
// tracks them in the planned regions.
#ifndef EMBER_IR_BYTERANGES_H
#define EMBER_IR_BYTERANGES_H

#include <cstdint>
#include <iterator>
#include <map>

namespace ember {

class ByteRanges {
  std::map<uint64_t, uint64_t> ranges_; // begin -> end, disjoint and not touching

public:
  void add(uint64_t begin, uint64_t end) {
    if (begin >= end)
      return;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin() && std::prev(it)->second >= begin)
      --it;
    while (it != ranges_.end() && it->first <= end) {
      begin = std::min(begin, it->first);
      end = std::max(end, it->second);
      it = ranges_.erase(it);
    }
    ranges_[begin] = end;
  }

  void remove(uint64_t begin, uint64_t end) {
    if (begin >= end)
      return;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin())
      --it;
    while (it != ranges_.end() && it->first < end) {
      uint64_t b = it->first, e = it->second;
      if (e <= begin) {
        ++it;
        continue;
      }
      it = ranges_.erase(it);
      if (b < begin)
        ranges_[b] = begin;
      if (e > end)
        ranges_[end] = e;
    }
  }

  /// Whether every byte of [begin, end) is in the set (true for an empty range).
  bool contains(uint64_t begin, uint64_t end) const {
    if (begin >= end)
      return true;
    auto it = ranges_.upper_bound(begin);
    if (it == ranges_.begin())
      return false;
    --it;
    return it->first <= begin && it->second >= end;
  }

  bool empty() const { return ranges_.empty(); }
};

} // namespace ember

#endif
