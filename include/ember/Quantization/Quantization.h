// Post-training quantization: record the range of every float value over sample inputs (a
// profile), then compile an int8 model from it.
//
// Both steps work on the graph at the same point of the pipeline: after the default graph
// optimization and before lowering (compileToPlannedIR). The profile's keys are the names of the
// values there (profileKeys), so a profile recorded by `model-runner -dump-profile` fits the
// compile that `-load-profile` makes of the same model, for any backend.
//
// Quantizing inserts QuantizeLinear/DequantizeLinear pairs around each Conv, MatMul and
// FullyConnected with constant weights, the weights stored as int8; the graph pass fold-qdq
// (lib/Optimizer/FoldQDQ.cpp) then makes them integer kernels, exactly as for a model that came
// in QDQ form.
#ifndef EMBER_QUANTIZATION_QUANTIZATION_H
#define EMBER_QUANTIZATION_QUANTIZATION_H

#include "ember/Graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ember {

/// What one value took over the profiled runs: its range, and a histogram of its values over
/// [min, max] (kProfileBins equal bins; it is rebinned when a later run widens the range).
/// A histogram read from a file may have any number of bins.
struct TensorProfile {
  float min = 0, max = 0;
  std::vector<uint64_t> histogram;
  bool empty() const { return histogram.empty(); }
};

/// TensorRT's count: 8 bins to a step of 255 levels over the whole range, fine enough for KL
/// calibration (calibratedRange) to see what merging bins into steps loses.
constexpr unsigned kProfileBins = 2048;

/// A profile: value name -> what it took, in the order values were first recorded.
class Profile {
  std::vector<std::pair<std::string, TensorProfile>> entries_;
  llvm::StringMap<size_t> index_;

public:
  /// Adds \p t's elements (float32) to \p key's record. NaNs are not counted; infinities widen
  /// the range as any value does.
  void record(llvm::StringRef key, const Tensor &t);
  /// Sets \p key's record (reading a file).
  void set(llvm::StringRef key, TensorProfile p);
  const TensorProfile *find(llvm::StringRef key) const;
  const std::vector<std::pair<std::string, TensorProfile>> &entries() const { return entries_; }
};

/// The profile as YAML: a sequence of {nodeOutputName, min, max, histogram}, Glow's keys.
llvm::Error writeProfile(const Profile &p, llvm::StringRef path);
llvm::Expected<Profile> readProfile(llvm::StringRef path);

/// The name each float32 value of \p F (node results and placeholders read by a node) has in a
/// profile: the node's name, then ":<result>" for results after the first, then "#<k>" for the
/// k-th repeat of a name. The same graph always gives the same names.
std::vector<std::pair<NodeValue, std::string>> profileKeys(const Function &F);

/// A value the profiling compile saves: its profile key and the output placeholder holding it.
struct ProfiledValue {
  std::string key;
  std::string placeholder;
};

/// Saves every value of profileKeys(F) to an output placeholder of its own (named
/// "ember_profile_<n>") so that each run exposes it.
std::vector<ProfiledValue> instrumentForProfiling(Function &F);

/// How ranges become scales and zero points.
enum class QuantizationSchema {
  Asymmetric,        ///< uint8, the range [min(min, 0), max(max, 0)] over 0..255
  Symmetric,         ///< int8, zero point 0, [-m, m] over -127..127 with m = max(|min|, |max|)
  SymmetricWithUInt8, ///< uint8 with zero point 0 for a range without negatives, else Symmetric
  SymmetricWithPower2Scale, ///< Symmetric with the scale rounded up to a power of 2
};

/// How an activation's profile becomes the range it is quantized over (weights always take
/// their exact range).
enum class QuantizationCalibration {
  None, ///< the profiled [min, max]
  KL,   ///< clipped where the 8-bit histogram loses least information (calibratedRange)
};

struct QuantizationOptions {
  QuantizationSchema schema = QuantizationSchema::Asymmetric;
  QuantizationCalibration calibration = QuantizationCalibration::None;
  /// Weights: a scale per output channel instead of one per tensor (the default: closer to
  /// float32 on every zoo CNN, docs/quantization.md).
  bool channelwise = true;
  /// Node kinds (as -dump-graph names them) left in float.
  std::vector<std::string> keepFloatKinds;
};

/// What quantizeFunction did, one line per node kind (and per reason a node stayed float).
struct QuantizationReport {
  unsigned quantized = 0, keptFloat = 0;
  std::vector<std::string> lines;
};

/// Parses -quantization-schema's value.
llvm::Expected<QuantizationSchema> parseQuantizationSchema(llvm::StringRef name);

/// Parses -quantization-calibration's value: none or KL.
llvm::Expected<QuantizationCalibration> parseQuantizationCalibration(llvm::StringRef name);

/// Checks -quantization-precision (Int8, Int16) and -quantization-precision-bias (Int8, Int32),
/// Glow's flags: the integer kernels (IntegerConv, IntegerMatMul) take 8-bit operands and add an
/// int32 bias to their int32 sums, so Int8 with an Int32 bias is the one combination that runs;
/// any other is refused, naming the flag and why, rather than ignored.
llvm::Error checkQuantizationPrecision(llvm::StringRef precision, llvm::StringRef biasPrecision);

/// KL calibration (TensorRT's): of the thresholds i (in bins) from \p levels, and from the
/// first that keeps half of the counts, to histogram.size(), the one where the histogram
/// clipped at i (the counts beyond added to bin i - 1) is best approximated by its first i bins
/// merged into \p levels equal groups, each group's count spread over its nonempty bins: least
/// Kullback-Leibler divergence, the smallest i on a tie, and no i whose approximation is empty
/// where the clipped histogram is not. Returns histogram.size() (no clipping) for fewer bins
/// than levels, or no counts.
size_t klThresholdBins(llvm::ArrayRef<uint64_t> histogram, unsigned levels);

/// The range an activation profiled as \p p is quantized over: [min, max] with
/// QuantizationCalibration::None or without a histogram; with KL, the histogram of |value| is
/// clipped at klThresholdBins, with the levels \p schema gives it between 0 and its largest
/// magnitude (127 in int8; in uint8 255 for a value without negatives, and for an asymmetric
/// range the share of 255 on that side of 0), and [min, max] narrowed to [-t, t]: a bound on
/// the near side of 0 stays (a value without negatives keeps min 0). The first bin is left
/// out of the histogram: the zeros of ReLU and padding are exact in any range.
std::pair<float, float> calibratedRange(const TensorProfile &p, QuantizationSchema schema,
                                        QuantizationCalibration calibration);

/// Quantizes the Conv, FusedConv, MatMul and FullyConnected nodes of \p F whose input and result
/// \p profile covers (see the file comment). Fails on a profile that does not fit the model at
/// all (none of its values is in it).
llvm::Expected<QuantizationReport> quantizeFunction(Function &F, const Profile &profile,
                                                    const QuantizationOptions &opts);

} // namespace ember

#endif
