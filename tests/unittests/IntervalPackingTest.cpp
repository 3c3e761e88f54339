// The offline allocator of activation buffers (IntervalPacking.h): hand cases, the exhaustive
// optimum on small random instances, the packing checker, and large random instances against the
// live-bytes lower bound.
#include "ember/IROptimizer/IntervalPacking.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <random>
#include <vector>

using namespace ember;

namespace {

constexpr uint64_t kAlign = 64;

/// Packs `buffers` and checks the result is legal and consistent with its offsets.
Packing packChecked(const std::vector<LiveBuffer> &buffers, uint64_t alignment = kAlign) {
  Packing p = packBuffers(buffers, alignment);
  std::string why;
  EXPECT_TRUE(isValidPacking(buffers, p.offsets, alignment, &why)) << why;
  uint64_t top = 0;
  for (size_t i = 0; i < buffers.size() && i < p.offsets.size(); ++i) {
    uint64_t size = std::max<uint64_t>(buffers[i].size, 1);
    top = std::max(top, p.offsets[i] + (size + alignment - 1) / alignment * alignment);
  }
  EXPECT_EQ(p.peak, top) << "the peak is not the top of the highest buffer";
  return p;
}

// --- The exhaustive optimum, written independently of the implementation. ---
//
// Lowest fit in a given order: each buffer goes at the lowest aligned offset where it overlaps
// no previously placed buffer it is live with. The minimum over all n! orders is the optimum:
// take an optimal packing and place its buffers by lowest fit in increasing order of their
// optimal offsets. By induction each lands at or below its optimal offset o_b: every buffer p
// placed before b that is live with b has o_p <= o_b, so (being disjoint from b in the optimal
// packing) o_p + size_p <= o_b, and p now sits at or below o_p, so it ends at or below o_b;
// hence o_b is free and lowest fit picks it or something lower. So that order's peak is at most
// the optimal one.

uint64_t units(const LiveBuffer &b) { return b.size ? (b.size + kAlign - 1) / kAlign : 1; }

bool liveTogether(const LiveBuffer &a, const LiveBuffer &b) {
  return a.begin <= b.end && b.begin <= a.end;
}

/// The peak in bytes of lowest fit in `order`.
uint64_t lowestFitPeak(const std::vector<LiveBuffer> &bs, const std::vector<unsigned> &order) {
  std::vector<uint64_t> offset(bs.size()); // In units.
  std::vector<unsigned> placed;
  uint64_t peak = 0;
  for (unsigned i : order) {
    // Try offset 0, then the top of each placed live-with buffer: the lowest free offset is one
    // of those.
    std::vector<uint64_t> candidates = {0};
    for (unsigned j : placed)
      if (liveTogether(bs[i], bs[j]))
        candidates.push_back(offset[j] + units(bs[j]));
    std::sort(candidates.begin(), candidates.end());
    for (uint64_t c : candidates) {
      bool free = true;
      for (unsigned j : placed)
        if (liveTogether(bs[i], bs[j]) && c < offset[j] + units(bs[j]) &&
            offset[j] < c + units(bs[i]))
          free = false;
      if (free) {
        offset[i] = c;
        break;
      }
    }
    peak = std::max(peak, offset[i] + units(bs[i]));
    placed.push_back(i);
  }
  return peak * kAlign;
}

uint64_t optimalPeak(const std::vector<LiveBuffer> &bs) {
  std::vector<unsigned> order(bs.size());
  std::iota(order.begin(), order.end(), 0);
  uint64_t best = UINT64_MAX;
  do
    best = std::min(best, lowestFitPeak(bs, order));
  while (std::next_permutation(order.begin(), order.end()));
  return best;
}

/// A number in [0, n) straight from the engine: std::mt19937's sequence is fixed by the
/// standard, unlike the distributions', so the instances are the same with every library.
uint64_t below(std::mt19937 &rng, uint64_t n) { return rng() % n; }

// --- Hand cases. ---

TEST(IntervalPacking, Empty) {
  Packing p = packBuffers({}, kAlign);
  EXPECT_TRUE(p.offsets.empty());
  EXPECT_EQ(p.peak, 0u);
  EXPECT_EQ(peakLiveBytes({}, kAlign), 0u);
}

TEST(IntervalPacking, DisjointLifetimesShareOffsetZero) {
  std::vector<LiveBuffer> bs = {{0, 1, 100}, {2, 3, 200}, {4, 4, 64}, {5, 9, 1}};
  Packing p = packChecked(bs);
  EXPECT_EQ(p.offsets, (std::vector<uint64_t>{0, 0, 0, 0}));
  EXPECT_EQ(p.peak, 256u); // 200 bytes rounded up.
  EXPECT_EQ(peakLiveBytes(bs, kAlign), 256u);
}

TEST(IntervalPacking, IntervalsIncludeBothEnds) {
  // Ending at 2 and beginning at 2: live together at 2.
  std::vector<LiveBuffer> bs = {{0, 2, 64}, {2, 4, 64}};
  EXPECT_EQ(peakLiveBytes(bs, kAlign), 128u);
  EXPECT_EQ(packChecked(bs).peak, 128u);
  EXPECT_FALSE(isValidPacking(bs, {0, 0}, kAlign));
}

TEST(IntervalPacking, AllOverlappingPeakIsTheSum) {
  std::vector<LiveBuffer> bs = {{0, 5, 64}, {1, 5, 128}, {0, 4, 192}, {2, 3, 256}, {3, 3, 640}};
  EXPECT_EQ(peakLiveBytes(bs, kAlign), 1280u);
  EXPECT_EQ(packChecked(bs).peak, 1280u);
}

TEST(IntervalPacking, AlignmentAndZeroByteBuffers) {
  // 1, 0, 65 and 64 bytes, all live at once: 1 + 1 + 2 + 1 units.
  std::vector<LiveBuffer> bs = {{0, 3, 1}, {0, 3, 0}, {1, 2, 65}, {2, 2, 64}};
  EXPECT_EQ(peakLiveBytes(bs, kAlign), 5 * kAlign);
  Packing p = packChecked(bs);
  EXPECT_EQ(p.peak, 5 * kAlign);
  for (uint64_t offset : p.offsets)
    EXPECT_EQ(offset % kAlign, 0u);
  // The same with 16-byte alignment: 1 + 1 + 5 + 4 units of 16.
  EXPECT_EQ(peakLiveBytes(bs, 16), 11u * 16);
  EXPECT_EQ(packChecked(bs, 16).peak, 11u * 16);
}

TEST(IntervalPacking, FindsWhatSizeDescendingGreedyMisses) {
  // Sizes in units: a=3 live at 0, b=2 at 0..1, c=2 at 1..2, d=3 at 2. Biggest first puts a and d
  // at 0 (they are never live together), so b goes on a (3..5) and c on b (5..7): 7 units. The
  // optimum is 5, the live bytes at 0 and at 2: b at 0..2 with a above it, d at 0..3 with c above.
  std::vector<LiveBuffer> bs = {
      {0, 0, 3 * kAlign}, {0, 1, 2 * kAlign}, {1, 2, 2 * kAlign}, {2, 2, 3 * kAlign}};
  EXPECT_EQ(lowestFitPeak(bs, {0, 3, 1, 2}), 7 * kAlign); // Size descending.
  EXPECT_EQ(optimalPeak(bs), 5 * kAlign);
  EXPECT_EQ(packChecked(bs).peak, 5 * kAlign);
}

TEST(IntervalPacking, Deterministic) {
  std::mt19937 rng(7);
  std::vector<LiveBuffer> bs;
  for (int i = 0; i < 300; ++i) {
    uint64_t begin = below(rng, 200);
    bs.push_back({begin, begin + below(rng, 20), 1 + below(rng, 10000)});
  }
  EXPECT_EQ(packBuffers(bs, kAlign).offsets, packBuffers(bs, kAlign).offsets);
}

// --- The checker. ---

TEST(IntervalPacking, CheckerRejectsOverlapAndMisalignment) {
  std::vector<LiveBuffer> bs = {{0, 2, 100}, {1, 3, 64}, {3, 4, 64}};
  std::string why;
  EXPECT_TRUE(isValidPacking(bs, {0, 128, 0}, kAlign, &why)) << why;
  // Live together at 1..2, and 100 bytes at 0 reach into the second buffer's 64..128.
  EXPECT_FALSE(isValidPacking(bs, {0, 64, 0}, kAlign, &why));
  EXPECT_NE(why.find("buffers 0 and 1"), std::string::npos) << why;
  // Live together at 3.
  EXPECT_FALSE(isValidPacking(bs, {0, 128, 128}, kAlign, &why));
  EXPECT_NE(why.find("buffers 1 and 2"), std::string::npos) << why;
  EXPECT_FALSE(isValidPacking(bs, {0, 160, 0}, kAlign, &why));
  EXPECT_NE(why.find("not aligned"), std::string::npos) << why;
  EXPECT_FALSE(isValidPacking(bs, {0, 128}, kAlign, &why));
  EXPECT_NE(why.find("2 offsets for 3 buffers"), std::string::npos) << why;
  EXPECT_FALSE(isValidPacking({{0, 0, 64}}, {UINT64_MAX - 63}, kAlign, &why));
  EXPECT_NE(why.find("past 2^64"), std::string::npos) << why;
  // A 0-byte buffer still takes a byte.
  EXPECT_FALSE(isValidPacking({{0, 0, 0}, {0, 0, 64}}, {0, 0}, kAlign));
}

// --- Against the optimum. ---

TEST(IntervalPacking, NearOptimalOnSmallInstances) {
  std::mt19937 rng(2024);
  constexpr int kInstances = 300;
  int optimal = 0;
  for (int t = 0; t < kInstances; ++t) {
    std::vector<LiveBuffer> bs;
    size_t n = 2 + below(rng, 6);
    for (size_t i = 0; i < n; ++i) {
      uint64_t begin = below(rng, 13), end = begin + below(rng, 13 - begin);
      // One in four an odd byte size (0 to 10 units), the others whole units.
      uint64_t size =
          below(rng, 4) == 0 ? below(rng, 10 * kAlign + 1) : kAlign * (1 + below(rng, 10));
      bs.push_back({begin, end, size});
    }
    SCOPED_TRACE("instance " + std::to_string(t));
    Packing p = packChecked(bs);
    uint64_t best = optimalPeak(bs);
    EXPECT_GE(p.peak, best);
    EXPECT_GE(best, peakLiveBytes(bs, kAlign));
    EXPECT_LE(p.peak * 100, best * 115) << "more than 15% above the optimum";
    optimal += p.peak == best;
  }
  double fraction = double(optimal) / kInstances;
  std::cout << "optimal on " << optimal << " of " << kInstances << " instances (" << 100 * fraction
            << "%)\n";
  RecordProperty("optimal_fraction", std::to_string(fraction));
  EXPECT_GE(fraction, 0.97); // Measured: all 300 (and 5998 of 6000 with other seeds).
}

// --- Large instances against the live-bytes lower bound. ---

/// `n` buffers shaped like a network's activations: one result per instruction, most freed within
/// a few instructions, one in ten held much longer (a skip connection), sizes from 1 byte to 4 MiB
/// spread evenly over the powers of two.
std::vector<LiveBuffer> networkLike(std::mt19937 &rng, size_t n) {
  std::vector<LiveBuffer> bs;
  for (size_t i = 0; i < n; ++i) {
    uint64_t length = below(rng, 10) == 0 ? 2 + below(rng, 199) : 1 + below(rng, 3);
    bs.push_back({i, i + length, 1 + below(rng, uint64_t(1) << (6 + below(rng, 17)))});
  }
  return bs;
}

/// `n` buffers at random on 0..4000, each live for up to 400 positions (about 100 live at once),
/// of 1 to 100 units: a dense, unstructured case.
std::vector<LiveBuffer> denseRandom(std::mt19937 &rng, size_t n) {
  std::vector<LiveBuffer> bs;
  for (size_t i = 0; i < n; ++i) {
    uint64_t begin = below(rng, 4001);
    bs.push_back({begin, std::min<uint64_t>(4000, begin + below(rng, 401)),
                  kAlign * (1 + below(rng, 100)) - below(rng, kAlign)});
  }
  return bs;
}

void checkLarge(const std::vector<LiveBuffer> &bs, double bound) {
  auto start = std::chrono::steady_clock::now();
  Packing p = packBuffers(bs, kAlign);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::string why;
  EXPECT_TRUE(isValidPacking(bs, p.offsets, kAlign, &why)) << why;
  uint64_t lower = peakLiveBytes(bs, kAlign);
  double ratio = double(p.peak) / lower;
  std::cout << bs.size() << " buffers: peak " << p.peak << " = " << std::fixed
            << std::setprecision(4) << ratio << " x the live-bytes bound, packed in " << ms
            << " ms\n";
  ::testing::Test::RecordProperty("peak_over_live_bytes", std::to_string(ratio));
  ::testing::Test::RecordProperty("milliseconds", std::to_string(ms));
  EXPECT_GE(p.peak, lower);
  EXPECT_LE(ratio, bound);
}

TEST(IntervalPacking, LargeNetworkLike) {
  std::mt19937 rng(11);
  checkLarge(networkLike(rng, 2000), 1.05); // Measured: 1.0000.
}

TEST(IntervalPacking, LargeDenseRandom) {
  std::mt19937 rng(12);
  checkLarge(denseRandom(rng, 2000), 1.15); // Measured: 1.0775.
}

} // namespace
