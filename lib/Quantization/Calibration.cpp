// KL calibration (Quantization.h): the range an activation is quantized over, clipped where the
// histogram the profile recorded loses least information when reduced to the 8-bit levels.
//
// A min/max range spends the 255 steps of 8 bits on the rare extremes as much as on the bulk of
// the values; clipping the extremes makes the steps finer where the values are. TensorRT's
// criterion picks the clipping threshold: the clipped histogram P (bins up to the threshold,
// the counts beyond added to the last bin) against Q, the same bins merged into as many groups
// as there are levels and spread back, as quantizing does to the values of a group.
#include "ember/Quantization/Quantization.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace ember {

size_t klThresholdBins(ArrayRef<uint64_t> histogram, unsigned levels) {
  size_t bins = histogram.size();
  // Prefix sums over the bins of the counts, of the nonempty bins and of count * log(count):
  // each candidate threshold then costs one pass over the groups rather than over the bins.
  std::vector<double> counts(bins + 1, 0), countLogCounts(bins + 1, 0);
  std::vector<size_t> nonempty(bins + 1, 0);
  for (size_t k = 0; k < bins; ++k) {
    double c = double(histogram[k]);
    counts[k + 1] = counts[k] + c;
    nonempty[k + 1] = nonempty[k] + (c > 0);
    countLogCounts[k + 1] = countLogCounts[k] + (c > 0 ? c * std::log(c) : 0.0);
  }
  double total = counts[bins];
  if (levels == 0 || bins < levels || total == 0)
    return bins;

  // With P and Q normalized (p = P / total, q = Q / kept):
  //   KL(p || q) = sum p log p - sum p log q
  //             = (sum P log P - sum_groups P(group) log(q of the group's bins)) / total
  //               - log(total),
  // as Q is constant over a group's nonempty bins and 0 exactly where P is.
  // Thresholds below the median are not candidates: the divergence compares the shapes within
  // the threshold, and clipping the bulk of the counts into one bin leaves no shape to compare
  // (all counts in one bin: a divergence of 0, for a range that loses everything).
  size_t median = size_t(std::lower_bound(counts.begin(), counts.end(), total / 2) -
                         counts.begin());
  size_t best = bins;
  double bestDivergence = INFINITY;
  for (size_t i = std::max<size_t>(levels, median); i <= bins; ++i) {
    double kept = counts[i], clipped = total - kept;
    if (kept == 0)
      continue;
    double last = double(histogram[i - 1]) + clipped;
    double sumPLogP = countLogCounts[i - 1] + (last > 0 ? last * std::log(last) : 0.0);
    double sumPLogQ = 0;
    bool representable = true;
    for (unsigned g = 0; g < levels && representable; ++g) {
      size_t start = g * i / levels, stop = (g + 1) * i / levels;
      double groupQ = counts[stop] - counts[start], groupP = groupQ;
      size_t spread = nonempty[stop] - nonempty[start];
      if (stop == i && clipped > 0) {
        groupP += clipped;
        spread += histogram[i - 1] == 0; // the clipped counts make the last bin nonempty
      }
      if (groupP == 0)
        continue;
      // P has counts where Q has none: no threshold to take (an infinite divergence).
      representable = groupQ > 0;
      if (representable)
        sumPLogQ += groupP * std::log(groupQ / double(spread) / kept);
    }
    if (!representable)
      continue;
    double divergence = (sumPLogP - sumPLogQ) / total - std::log(total);
    if (divergence < bestDivergence) {
      bestDivergence = divergence;
      best = i;
    }
  }
  return best;
}

std::pair<float, float> calibratedRange(const TensorProfile &p, QuantizationSchema schema,
                                        QuantizationCalibration calibration) {
  std::pair<float, float> profiled{p.min, p.max};
  if (calibration == QuantizationCalibration::None || p.empty() || !(p.max > p.min) ||
      !std::isfinite(p.min) || !std::isfinite(p.max))
    return profiled;
  // The histogram of |value| over [0, m], as many bins as the profile's: each bin's count goes
  // to the bin of its centre's magnitude. A threshold t clips to [-t, t].
  size_t bins = p.histogram.size();
  double lo = p.min, hi = p.max, m = std::max(std::fabs(lo), std::fabs(hi));
  double width = (hi - lo) / double(bins);
  std::vector<uint64_t> magnitudes(bins, 0);
  for (size_t b = 0; b < bins; ++b) {
    double centre = lo + (double(b) + 0.5) * width;
    magnitudes[std::min(bins - 1, size_t(std::fabs(centre) / m * double(bins)))] +=
        p.histogram[b];
  }
  // Zeros (ReLU's, padding's) are exact in every range, and so many that, left in, the first
  // bin would decide the divergence: thresholds that keep it a group of its own would win.
  magnitudes[0] = 0;
  // The levels between 0 and m: int8 has 127; uint8 the 255 of a value without negatives;
  // asymmetric uint8 over [min(lo, 0), max(hi, 0)] the share of 255 on the side of m.
  unsigned levels = 127;
  if (schema == QuantizationSchema::Asymmetric)
    levels = unsigned(std::lround(255.0 * m / (std::max(hi, 0.0) - std::min(lo, 0.0))));
  else if (schema == QuantizationSchema::SymmetricWithUInt8 && lo >= 0)
    levels = 255;
  size_t threshold = klThresholdBins(magnitudes, levels);
  if (threshold == bins)
    return profiled;
  float t = float(m * double(threshold) / double(bins));
  return {std::max(p.min, -t), std::min(p.max, t)};
}

} // namespace ember
