// Packing buffers of known sizes and live intervals into one region (offline dynamic storage
// allocation) is NP-hard, so this is a heuristic, chosen by measurement against the exhaustive
// optimum (tests/unittests/IntervalPackingTest.cpp). A greedy pass places the buffers one at a
// time, each in the smallest gap that fits among the already-placed buffers it is live with
// (best fit, which keeps large holes for large buffers; it measured at least as good as lowest
// fit); the order is what makes a pass good or bad on a given model: big buffers first leaves
// the small ones to fill holes, long-lived ones first keeps them out of the way of short-lived
// ones, program order is what an online allocator does, and the crowded positions first packs
// where the peak is decided. No order wins on every input, so we run them all and keep the
// lowest peak. Then a local search moves buffers live where the peak is reached to the front of
// the order, which finds most of what the greedy orders miss; it has a fixed work budget, so
// large models get only a few of its passes. A pass is O(n^2) at worst and much less when few
// buffers are live at once (see Conflicts), so 2000 buffers take a few tens of milliseconds.
// Everything is decided by sizes, intervals and indices, so the plan is deterministic.
#include "ember/IROptimizer/IntervalPacking.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <optional>

using namespace llvm;

namespace ember {

namespace {

constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

/// A buffer with its size in alignment units (at least one), the unit all packing works in.
struct Item {
  uint64_t begin, end, units;
  uint64_t length() const { return end - begin + 1; }
  bool liveWith(const Item &o) const { return begin <= o.end && o.begin <= end; }
};

SmallVector<Item, 0> toItems(ArrayRef<LiveBuffer> buffers, uint64_t alignment) {
  assert(alignment > 0 && "alignment must be positive");
  SmallVector<Item, 0> items;
  items.reserve(buffers.size());
  for (const LiveBuffer &b : buffers) {
    assert(b.begin <= b.end && "live interval ends before it begins");
    items.push_back({b.begin, b.end, b.size ? (b.size - 1) / alignment + 1 : 1});
  }
  return items;
}

/// The total size live at each distinct begin, in increasing position order. The live set only
/// grows at a begin, so its largest value is the peak of live bytes.
SmallVector<std::pair<uint64_t, uint64_t>, 0> breadthAtBegins(ArrayRef<Item> items) {
  SmallVector<std::pair<uint64_t, uint64_t>, 0> begins, ends; // (position, units)
  for (const Item &it : items) {
    begins.push_back({it.begin, it.units});
    ends.push_back({it.end, it.units});
  }
  llvm::sort(begins);
  llvm::sort(ends);
  // Live at p: begun at or before p, minus ended strictly before p (intervals are inclusive).
  SmallVector<std::pair<uint64_t, uint64_t>, 0> breadth; // (position, live units)
  uint64_t begun = 0, ended = 0;
  size_t e = 0;
  for (size_t b = 0; b < begins.size(); ++b) {
    begun += begins[b].second;
    uint64_t pos = begins[b].first;
    if (b + 1 < begins.size() && begins[b + 1].first == pos)
      continue;
    for (; e < ends.size() && ends[e].first < pos; ++e)
      ended += ends[e].second;
    breadth.push_back({pos, begun - ended});
  }
  return breadth;
}

/// For each buffer, the others live at the same time (compressed rows). Built only when that
/// relation is sparse, which it is in real models (a buffer is live with a few dozen others):
/// a pass then looks at those alone instead of scanning every placed buffer.
struct Conflicts {
  SmallVector<unsigned, 0> start; // Buffer i's are list[start[i], start[i + 1]).
  SmallVector<unsigned, 0> list;
  ArrayRef<unsigned> of(unsigned i) const {
    return ArrayRef<unsigned>(list).slice(start[i], start[i + 1] - start[i]);
  }
};

/// Buffer indices by begin (ties by index).
SmallVector<unsigned, 0> byBegin(ArrayRef<Item> items) {
  SmallVector<unsigned, 0> order(items.size());
  for (unsigned i = 0; i < items.size(); ++i)
    order[i] = i;
  llvm::sort(order, [&](unsigned a, unsigned b) {
    return items[a].begin != items[b].begin ? items[a].begin < items[b].begin : a < b;
  });
  return order;
}

/// The conflict lists if there are few enough pairs of buffers live at the same time that they
/// beat scanning (the pairs, each sorted at most once per placement, against n^2 / 2 records
/// looked at per pass), else nothing.
std::optional<Conflicts> sparseConflicts(ArrayRef<Item> items) {
  size_t n = items.size();
  SmallVector<unsigned, 0> order = byBegin(items);
  SmallVector<uint64_t, 0> ends;
  for (const Item &it : items)
    ends.push_back(it.end);
  llvm::sort(ends);
  // Counted first, in O(n log n): for buffer k in begin order, the k before it minus those that
  // ended before it began (which all come before it, since they began even earlier).
  uint64_t pairs = 0;
  for (size_t k = 0; k < n; ++k)
    pairs += k - (std::lower_bound(ends.begin(), ends.end(), items[order[k]].begin) - ends.begin());
  if (pairs * (2 + Log2_64_Ceil(n + 1)) > uint64_t(n) * n / 2)
    return std::nullopt;
  // A sweep in begin order over the buffers still live.
  SmallVector<std::pair<unsigned, unsigned>, 0> edges;
  edges.reserve(pairs);
  SmallVector<unsigned, 0> live;
  for (unsigned i : order) {
    llvm::erase_if(live, [&](unsigned j) { return items[j].end < items[i].begin; });
    for (unsigned j : live)
      edges.push_back({i, j});
    live.push_back(i);
  }
  Conflicts c;
  c.start.assign(n + 1, 0);
  for (auto [i, j] : edges) {
    ++c.start[i + 1];
    ++c.start[j + 1];
  }
  for (size_t i = 0; i < n; ++i)
    c.start[i + 1] += c.start[i];
  c.list.resize(2 * edges.size());
  SmallVector<unsigned, 0> fill(c.start.begin(), c.start.end() - 1);
  for (auto [i, j] : edges) {
    c.list[fill[i]++] = j;
    c.list[fill[j]++] = i;
  }
  return c;
}

/// Where a buffer of `units` goes, given the placed buffers live with it in increasing offset
/// order: the smallest gap between them that fits (the lowest of equal ones), else on top of
/// the highest.
class GapFinder {
  uint64_t units_, cursor_ = 0, chosen_ = kNone, gap_ = kNone;

public:
  explicit GapFinder(uint64_t units) : units_(units) {}
  /// Returns false once nothing later can change the choice.
  bool visit(uint64_t offset, uint64_t top) {
    if (offset >= cursor_ + units_ && offset - cursor_ < gap_) {
      chosen_ = cursor_;
      gap_ = offset - cursor_;
      if (gap_ == units_)
        return false; // A perfect fit: none is tighter, and later ones are higher.
    }
    cursor_ = std::max(cursor_, top);
    return true;
  }
  uint64_t offset() const { return chosen_ != kNone ? chosen_ : cursor_; }
};

/// Runs greedy passes over one set of buffers, reusing its scratch space.
class Placer {
  ArrayRef<Item> items_;
  std::optional<Conflicts> conflicts_;
  /// Scan mode: the placed buffers sorted by offset, as records so the hot loop walks one
  /// contiguous array. Keeping it sorted costs a memmove per buffer.
  struct Placed {
    uint64_t offset, top, begin, end;
  };
  SmallVector<Placed, 0> placed_;
  /// Conflict mode: the placed buffers live with the next one, to be sorted by offset.
  SmallVector<std::pair<uint64_t, uint64_t>, 0> near_;
  /// Buffers looked at so far: what the local search's budget is counted in.
  uint64_t work_ = 0;

public:
  explicit Placer(ArrayRef<Item> items) : items_(items), conflicts_(sparseConflicts(items)) {}
  uint64_t work() const { return work_; }

  /// Places the buffers in `order`, writing `offsets` (in units); returns the peak.
  uint64_t place(ArrayRef<unsigned> order, MutableArrayRef<uint64_t> offsets) {
    std::fill(offsets.begin(), offsets.end(), kNone);
    placed_.clear();
    uint64_t peak = 0;
    for (unsigned i : order) {
      const Item &b = items_[i];
      GapFinder gaps(b.units);
      ++work_;
      if (conflicts_) {
        near_.clear();
        for (unsigned j : conflicts_->of(i))
          if (offsets[j] != kNone)
            near_.push_back({offsets[j], offsets[j] + items_[j].units});
        llvm::sort(near_); // Live together, so their offsets differ: the order is unique.
        work_ += conflicts_->of(i).size() + near_.size() * Log2_64_Ceil(near_.size() + 1);
        for (auto [offset, top] : near_)
          if (!gaps.visit(offset, top))
            break;
      } else {
        for (const Placed &p : placed_) {
          ++work_;
          if (b.begin <= p.end && p.begin <= b.end && !gaps.visit(p.offset, p.top))
            break;
        }
      }
      uint64_t offset = gaps.offset();
      offsets[i] = offset;
      peak = std::max(peak, offset + b.units);
      if (!conflicts_) {
        auto pos = std::upper_bound(placed_.begin(), placed_.end(), offset,
                                    [](uint64_t off, const Placed &p) { return off < p.offset; });
        placed_.insert(pos, Placed{offset, offset + b.units, b.begin, b.end});
      }
    }
    return peak;
  }
};

/// The orders the greedy passes try. Every comparator ends with the index, so each is a strict
/// total order and the result does not depend on the sort algorithm.
SmallVector<SmallVector<unsigned, 0>, 5> candidateOrders(ArrayRef<Item> items) {
  SmallVector<unsigned, 0> identity(items.size());
  for (unsigned i = 0; i < items.size(); ++i)
    identity[i] = i;
  auto sorted = [&](auto less) {
    SmallVector<unsigned, 0> order = identity;
    llvm::sort(order, [&](unsigned a, unsigned b) { return less(items[a], items[b], a, b); });
    return order;
  };
  // Size descending, then longer-lived first, then program order.
  auto bySize = [](const Item &x, const Item &y, unsigned a, unsigned b) {
    if (x.units != y.units)
      return x.units > y.units;
    if (x.length() != y.length())
      return x.length() > y.length();
    if (x.begin != y.begin)
      return x.begin < y.begin;
    return a < b;
  };
  SmallVector<SmallVector<unsigned, 0>, 5> orders;
  // Big buffers claim space, small ones fill holes.
  orders.push_back(sorted(bySize));
  // Long-lived buffers settle low, short-lived ones reuse the space above.
  orders.push_back(sorted([&](const Item &x, const Item &y, unsigned a, unsigned b) {
    if (x.length() != y.length())
      return x.length() > y.length();
    return bySize(x, y, a, b);
  }));
  // Area (size * length), a compromise between the two. Saturating, so that absurdly large
  // products tie and fall through to bySize, the same on every platform.
  orders.push_back(sorted([&](const Item &x, const Item &y, unsigned a, unsigned b) {
    uint64_t ax = SaturatingMultiply(x.units, x.length());
    uint64_t ay = SaturatingMultiply(y.units, y.length());
    if (ax != ay)
      return ax > ay;
    return bySize(x, y, a, b);
  }));
  // Program order, as an online allocator sees them (longer-lived first on equal begins).
  orders.push_back(sorted([&](const Item &x, const Item &y, unsigned a, unsigned b) {
    if (x.begin != y.begin)
      return x.begin < y.begin;
    if (x.end != y.end)
      return x.end > y.end;
    return bySize(x, y, a, b);
  }));
  // Greedy by breadth: positions by total live size descending and, at each, the buffers live
  // there not yet ordered, by size. That is, buffers by the best rank of a position in their
  // interval (a range minimum, from a sparse table over the begins), then by size.
  auto breadth = breadthAtBegins(items);
  SmallVector<unsigned, 0> byBreadth(breadth.size());
  for (unsigned k = 0; k < breadth.size(); ++k)
    byBreadth[k] = k;
  llvm::sort(byBreadth, [&](unsigned a, unsigned b) {
    return breadth[a].second != breadth[b].second ? breadth[a].second > breadth[b].second : a < b;
  });
  SmallVector<SmallVector<unsigned, 0>, 0> rankMin(1, SmallVector<unsigned, 0>(breadth.size()));
  for (unsigned r = 0; r < byBreadth.size(); ++r)
    rankMin[0][byBreadth[r]] = r;
  for (size_t w = 1; 2 * w <= breadth.size(); w *= 2) {
    const auto &prev = rankMin.back();
    SmallVector<unsigned, 0> next(breadth.size() - 2 * w + 1);
    for (size_t k = 0; k < next.size(); ++k)
      next[k] = std::min(prev[k], prev[k + w]);
    rankMin.push_back(std::move(next));
  }
  SmallVector<unsigned, 0> bestRank(items.size());
  for (unsigned i = 0; i < items.size(); ++i) {
    // The begins in the interval: [lo, hi), not empty since the buffer's own begin is one.
    auto first = [&](auto pred) {
      return size_t(llvm::partition_point(breadth, pred) - breadth.begin());
    };
    size_t lo = first([&](const auto &p) { return p.first < items[i].begin; });
    size_t hi = first([&](const auto &p) { return p.first <= items[i].end; });
    unsigned level = Log2_64(hi - lo);
    bestRank[i] = std::min(rankMin[level][lo], rankMin[level][hi - (size_t(1) << level)]);
  }
  orders.push_back(sorted([&](const Item &x, const Item &y, unsigned a, unsigned b) {
    if (bestRank[a] != bestRank[b])
      return bestRank[a] < bestRank[b];
    return bySize(x, y, a, b);
  }));
  return orders;
}

/// A greedy pass: its order and its result.
struct Attempt {
  SmallVector<unsigned, 0> order;
  SmallVector<uint64_t, 0> offsets;
  uint64_t peak = 0;
};

/// The local search's budget, in buffers looked at by its passes (Placer::work): about 10 ms,
/// enough for hundreds of passes on a model of a few hundred buffers and a few on thousands.
constexpr uint64_t kSearchWork = uint64_t(1) << 22;

/// Local search from `a`: the peak is set by the buffers live where it is reached, so moving
/// one of them to the front of the order (placing it before whatever pushed it up) is the move
/// most likely to lower it. Tries those buffers in order and keeps the first move that lowers
/// the peak, until none does or the placer's work reaches `workLimit`.
void improve(ArrayRef<Item> items, Placer &placer, Attempt &a, uint64_t workLimit) {
  SmallVector<uint64_t, 0> offsets(items.size());
  SmallVector<unsigned, 0> order;
  order.reserve(items.size());
  for (;;) {
    SmallVector<unsigned, 8> atPeak;
    for (unsigned i : a.order)
      if (a.offsets[i] + items[i].units == a.peak)
        atPeak.push_back(i);
    bool lowered = false;
    for (unsigned c : ArrayRef<unsigned>(a.order).drop_front()) { // The first is at the front.
      if (!llvm::any_of(atPeak, [&](unsigned p) { return items[c].liveWith(items[p]); }))
        continue;
      if (placer.work() >= workLimit)
        return;
      order.clear();
      order.push_back(c);
      for (unsigned i : a.order)
        if (i != c)
          order.push_back(i);
      uint64_t peak = placer.place(order, offsets);
      if (peak < a.peak) {
        std::swap(a.order, order);
        std::swap(a.offsets, offsets);
        a.peak = peak;
        lowered = true;
        break;
      }
    }
    if (!lowered)
      return;
  }
}

} // namespace

Packing packBuffers(ArrayRef<LiveBuffer> buffers, uint64_t alignment) {
  SmallVector<Item, 0> items = toItems(buffers, alignment);
  Packing packing;
  if (items.empty())
    return packing;
  Placer placer(items);
  SmallVector<Attempt, 5> attempts;
  for (auto &order : candidateOrders(items)) {
    Attempt &a = attempts.emplace_back();
    a.order = std::move(order);
    a.offsets.resize(items.size());
    a.peak = placer.place(a.order, a.offsets);
  }
  // The search starts from the best attempt, where large inputs spend the whole budget, and
  // goes on to the others while the budget lasts.
  SmallVector<unsigned, 5> ranked;
  for (unsigned k = 0; k < attempts.size(); ++k)
    ranked.push_back(k);
  llvm::stable_sort(ranked,
                    [&](unsigned x, unsigned y) { return attempts[x].peak < attempts[y].peak; });
  uint64_t workLimit = placer.work() + kSearchWork;
  for (unsigned k : ranked)
    improve(items, placer, attempts[k], workLimit);
  const Attempt *best = &attempts.front(); // The first of equal peaks.
  for (const Attempt &a : attempts)
    if (a.peak < best->peak)
      best = &a;
  packing.offsets.reserve(items.size());
  for (uint64_t units : best->offsets)
    packing.offsets.push_back(units * alignment);
  packing.peak = best->peak * alignment;
  return packing;
}

uint64_t peakLiveBytes(ArrayRef<LiveBuffer> buffers, uint64_t alignment) {
  uint64_t peak = 0;
  for (auto [pos, units] : breadthAtBegins(toItems(buffers, alignment)))
    peak = std::max(peak, units);
  return peak * alignment;
}

bool isValidPacking(ArrayRef<LiveBuffer> buffers, ArrayRef<uint64_t> offsets, uint64_t alignment,
                    std::string *why) {
  auto fail = [&](std::string reason) {
    if (why)
      *why = std::move(reason);
    return false;
  };
  if (alignment == 0)
    return fail("alignment must be positive");
  if (offsets.size() != buffers.size())
    return fail(std::to_string(offsets.size()) + " offsets for " + std::to_string(buffers.size()) +
                " buffers");
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].begin > buffers[i].end)
      return fail("buffer " + std::to_string(i) + " ends before it begins");
    if (offsets[i] > kNone - std::max<uint64_t>(buffers[i].size, 1))
      return fail("buffer " + std::to_string(i) + " ends past 2^64 bytes");
    if (offsets[i] % alignment)
      return fail("buffer " + std::to_string(i) + " at offset " + std::to_string(offsets[i]) +
                  " is not aligned to " + std::to_string(alignment));
  }
  // All pairs: this is the checker, so it stays obviously correct rather than fast. With aligned
  // offsets, the aligned extents overlap exactly when the extents of max(size, 1) bytes do.
  for (size_t i = 0; i < buffers.size(); ++i) {
    const LiveBuffer &a = buffers[i];
    uint64_t aEnd = offsets[i] + std::max<uint64_t>(a.size, 1);
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const LiveBuffer &b = buffers[j];
      uint64_t bEnd = offsets[j] + std::max<uint64_t>(b.size, 1);
      if (a.begin <= b.end && b.begin <= a.end && offsets[i] < bEnd && offsets[j] < aEnd)
        return fail("buffers " + std::to_string(i) + " and " + std::to_string(j) +
                    " are live at the same time and overlap at offsets " +
                    std::to_string(offsets[i]) + " and " + std::to_string(offsets[j]));
    }
  }
  return true;
}

} // namespace ember
