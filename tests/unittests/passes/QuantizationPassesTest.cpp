// fold-qdq and post-training quantization (Quantization.h). fold-qdq is checked against the
// graph it rewrites, which computes exactly the ONNX definition of QuantizeLinear, Conv and
// DequantizeLinear: the integer form may differ by one output step where the float sum rounds
// across a half step, never more. Quantizing is checked end to end: a profile recorded by the
// instrumented compile, the quantized compile, and its outputs against float32.
#include "PassTestUtils.h"

#include "ember/Quantization/Quantization.h"

#include <cmath>

using namespace ember;
using namespace ember::test;

namespace {

/// A QDQ model as onnxruntime's quantizer writes one: uint8 activations, int8 per-channel
/// weights, an int32 bias at scale x_scale * w_scale.
Model qdqConv(bool relu, int group = 1, int outputZero = 0) {
  Model m;
  const int64_t C = 4, O = 6;
  m.input("x", {1, C, 7, 7}).output("y", {1, O, 7, 7});
  std::vector<double> wq, ws, bq, bs;
  std::mt19937 rng(3);
  for (int64_t i = 0; i < O * (C / group) * 9; ++i)
    wq.push_back(double(int(rng() % 255) - 127));
  for (int64_t o = 0; o < O; ++o) {
    ws.push_back(0.002 + 0.001 * o);
    bq.push_back(double(int(rng() % 2001) - 1000));
    bs.push_back(float(float(4.0 / 255) * float(ws.back())));
  }
  m.values("xs", {}, {4.0 / 255}).values("xz", {}, {128}, kUInt8);
  m.values("wq", {O, C / group, 3, 3}, wq, kInt8).values("ws", {O}, ws);
  m.values("wz", {O}, std::vector<double>(O, 0), kInt8);
  m.values("bq", {O}, bq, kInt32).values("bs", {O}, bs);
  m.values("bz", {O}, std::vector<double>(O, 0), kInt32);
  m.values("ys", {}, {0.02}).values("yz", {}, {double(outputZero)}, kUInt8);
  m.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"});
  m.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"});
  m.node("DequantizeLinear", {"wq", "ws", "wz"}, {"wd"}, intAttr("axis", 0));
  m.node("DequantizeLinear", {"bq", "bs", "bz"}, {"bd"}, intAttr("axis", 0));
  m.node("Conv", {"xd", "wd", "bd"}, {relu ? "c" : "r"},
         intsAttr("pads", {1, 1, 1, 1}) + intAttr("group", group));
  if (relu)
    m.node("Relu", {"c"}, {"r"});
  m.node("QuantizeLinear", {"r", "ys", "yz"}, {"yq"});
  m.node("DequantizeLinear", {"yq", "ys", "yz"}, {"y"});
  return m;
}

/// Runs \p m unoptimized (DCE only) and with the default pipeline; expects every output within
/// \p steps of \p scale, and returns the optimized run.
PipelineRun expectWithinSteps(const Model &m, double scale, double steps = 1) {
  PipelineRun reference = llvm::cantFail(runPipeline(m.str(), {"dce"}));
  PipelineRun folded = llvm::cantFail(runPipeline(m.str(), {}));
  EXPECT_EQ(reference.outputs.size(), folded.outputs.size());
  for (size_t i = 0; i < reference.outputs.size(); ++i) {
    const Tensor &a = reference.outputs[i], &b = folded.outputs[i];
    double worst = 0;
    for (size_t k = 0; k < a.numElements(); ++k)
      worst = std::max(worst, std::fabs(a.elementAsDouble(k) - b.elementAsDouble(k)));
    EXPECT_LE(worst, steps * scale * (1 + 1e-6)) << "output " << i;
  }
  return folded;
}

TEST(FoldQDQ, ConvWithReluBecomesIntegerConvAndRequantize) {
  PipelineRun run = expectWithinSteps(qdqConv(true), 0.02);
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["IntegerConv"], 1);
  EXPECT_EQ(counts["Requantize"], 1);
  EXPECT_EQ(counts["Conv"], 0);
  // The output zero point is 0, so the ReLU is the saturation itself: no clamp.
  EXPECT_EQ(counts["Clip"], 0);
}

TEST(FoldQDQ, ReluAboveTheZeroPointBecomesAClampAndNoneNothing) {
  // Output zero point 100: Q(Relu(v)) = max(Q(v), 100), a Clip in the integer domain.
  PipelineRun relu = expectWithinSteps(qdqConv(true, 1, 100), 0.02);
  EXPECT_EQ(kindCounts(relu.graph())["IntegerConv"], 1);
  EXPECT_EQ(kindCounts(relu.graph())["Clip"], 1);
  PipelineRun none = expectWithinSteps(qdqConv(false, 1, 100), 0.02);
  EXPECT_EQ(kindCounts(none.graph())["IntegerConv"], 1);
  EXPECT_EQ(kindCounts(none.graph())["Clip"], 0);
}

TEST(FoldQDQ, GroupedConvFolds) {
  PipelineRun run = expectWithinSteps(qdqConv(true, 2), 0.02);
  EXPECT_EQ(kindCounts(run.graph())["IntegerConv"], 1);
}

TEST(FoldQDQ, GemmWithTransposedWeightsAndBiasBecomesIntegerMatMul) {
  // Gemm(transB=1): the importer puts a Transpose between the weights' DequantizeLinear and the
  // MatMul, and adds the bias with a Broadcast.
  Model m;
  const int64_t K = 12, N = 5;
  m.input("x", {3, K}).output("y", {3, N});
  std::vector<double> wq, ws, bq, bs;
  std::mt19937 rng(5);
  for (int64_t i = 0; i < N * K; ++i)
    wq.push_back(double(int(rng() % 255) - 127));
  for (int64_t n = 0; n < N; ++n) {
    ws.push_back(0.01 * (n + 1));
    bq.push_back(double(int(rng() % 401) - 200));
    bs.push_back(float(float(4.0 / 255) * float(ws.back())));
  }
  m.values("xs", {}, {4.0 / 255}).values("xz", {}, {128}, kUInt8);
  m.values("wq", {N, K}, wq, kInt8).values("ws", {N}, ws);
  m.values("wz", {N}, std::vector<double>(N, 0), kInt8);
  m.values("bq", {N}, bq, kInt32).values("bs", {N}, bs);
  m.values("ys", {}, {0.05}).values("yz", {}, {120}, kUInt8);
  m.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"});
  m.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"});
  m.node("DequantizeLinear", {"wq", "ws", "wz"}, {"wd"}, intAttr("axis", 0));
  m.node("DequantizeLinear", {"bq", "bs"}, {"bd"}, intAttr("axis", 0));
  m.node("Gemm", {"xd", "wd", "bd"}, {"g"}, intAttr("transB", 1));
  m.node("QuantizeLinear", {"g", "ys", "yz"}, {"yq"});
  m.node("DequantizeLinear", {"yq", "ys", "yz"}, {"y"});
  PipelineRun run = expectWithinSteps(m, 0.05);
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["IntegerMatMul"], 1);
  EXPECT_EQ(counts["MatMul"], 0);
  EXPECT_EQ(counts["Requantize"], 1);
  // The weights' per-channel zero points are all 0: one per-tensor zero point (the integer
  // kernels have fast paths only for that).
  for (const auto &n : run.graph().getNodes())
    if (n->getKind() == NodeKind::IntegerMatMul) {
      EXPECT_EQ(n->getOperand(ops::IntegerMatMul::RHSZeroPoint).getType().numElements(), 1u);
    }
}

TEST(FoldQDQ, SelectionsBetweenEqualPairsRunOnTheQuantizedValues) {
  // Q(Reshape(MaxPool(DQ(x)))) with DQ's parameters: MaxPool and Reshape on uint8, exactly.
  Model m;
  m.input("x", {1, 2, 4, 4}).output("y", {1, 8});
  m.values("s", {}, {0.1}).values("z", {}, {7}, kUInt8).values("shape", {2}, {1, 8}, kInt64);
  m.node("QuantizeLinear", {"x", "s", "z"}, {"xq"});
  m.node("DequantizeLinear", {"xq", "s", "z"}, {"xd"});
  m.node("MaxPool", {"xd"}, {"p"}, intsAttr("kernel_shape", {2, 2}) + intsAttr("strides", {2, 2}));
  m.node("Reshape", {"p", "shape"}, {"r"});
  m.node("QuantizeLinear", {"r", "s", "z"}, {"rq"});
  m.node("DequantizeLinear", {"rq", "s", "z"}, {"y"});
  PipelineRun run = expectWithinSteps(m, 0.1, 0); // selections are exact
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["QuantizeLinear"], 1);
  EXPECT_EQ(counts["DequantizeLinear"], 1);
  const Node *pool = nullptr;
  for (const auto &n : run.graph().getNodes())
    if (n->getKind() == NodeKind::MaxPool)
      pool = n.get();
  ASSERT_TRUE(pool);
  EXPECT_EQ(pool->getType().kind, ElemKind::UInt8);
}

TEST(FoldQDQ, LeavesNearMisses) {
  // Different parameters on the two sides of a selection; a sigmoid between the Conv and its
  // QuantizeLinear; a Conv whose float result is also an output.
  Model m;
  m.input("x", {1, 2, 4, 4}).output("y", {1, 2, 2, 2}).output("c", {1, 1, 4, 4});
  m.output("sq", {1, 1, 4, 4});
  m.values("s", {}, {0.1}).values("z", {}, {7}, kUInt8).values("s2", {}, {0.2});
  m.values("wq", {1, 2, 1, 1}, {3, -5}, kInt8).values("ws", {}, {0.5});
  m.values("wz", {}, {0}, kInt8);
  m.node("QuantizeLinear", {"x", "s", "z"}, {"xq"});
  m.node("DequantizeLinear", {"xq", "s", "z"}, {"xd"});
  m.node("MaxPool", {"xd"}, {"p"}, intsAttr("kernel_shape", {2, 2}) + intsAttr("strides", {2, 2}));
  m.node("QuantizeLinear", {"p", "s2", "z"}, {"pq"});
  m.node("DequantizeLinear", {"pq", "s2", "z"}, {"y"});
  m.node("DequantizeLinear", {"wq", "ws", "wz"}, {"wd"});
  m.node("Conv", {"xd", "wd"}, {"c"});
  m.node("Sigmoid", {"c"}, {"sg"});
  m.node("QuantizeLinear", {"sg", "s", "z"}, {"sgq"});
  m.node("DequantizeLinear", {"sgq", "s", "z"}, {"sq"});
  PipelineRun run = expectWithinSteps(m, 0.2, 0);
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["IntegerConv"], 0);
  EXPECT_EQ(counts["Conv"], 1);
  EXPECT_EQ(counts["MaxPool"], 1);
}

// ---- Profiles and quantizing --------------------------------------------------------------

Model smallCnn() {
  Model m;
  m.input("x", {2, 3, 8, 8}).output("y", {2, 5});
  m.random("w1", {8, 3, 3, 3}, 1).random("b1", {8}, 2);
  m.random("w2", {8, 8, 1, 1}, 3).random("b2", {8}, 4);
  m.random("w3", {32, 5}, 5).random("b3", {5}, 6);
  m.values("shape", {2}, {2, 32}, kInt64);
  m.node("Conv", {"x", "w1", "b1"}, {"c1"}, intsAttr("pads", {1, 1, 1, 1}));
  m.node("Relu", {"c1"}, {"r1"});
  m.node("MaxPool", {"r1"}, {"p1"}, intsAttr("kernel_shape", {2, 2}) + intsAttr("strides", {2, 2}));
  m.node("Conv", {"p1", "w2", "b2"}, {"c2"});
  m.node("Relu", {"c2"}, {"r2"});
  m.node("MaxPool", {"r2"}, {"p2"}, intsAttr("kernel_shape", {2, 2}) + intsAttr("strides", {2, 2}));
  m.node("Reshape", {"p2", "shape"}, {"f"});
  m.node("MatMul", {"f", "w3"}, {"mm"});
  m.node("Add", {"mm", "b3"}, {"y"});
  return m;
}

/// Compiles \p text with \p co, runs it on seeded inputs \p seed and returns the model.
std::unique_ptr<CompiledModel> compileAndRun(const std::string &text, CompileOptions co,
                                             unsigned seed) {
  TempDir dir;
  std::string path = dir.write("m.onnxtxt", text);
  auto M = llvm::cantFail(loadModel(path, withConstantEvaluation({})));
  co.verifyEach = true;
  auto cm = llvm::cantFail(CompiledModel::compile(std::move(M), co));
  fillInputs(*cm, seed);
  llvm::cantFail(cm->run());
  return cm;
}

Profile profileOf(const std::string &text, std::initializer_list<unsigned> seeds) {
  CompileOptions co;
  co.instrumentForProfiling = true;
  Profile p;
  for (unsigned seed : seeds) {
    auto cm = compileAndRun(text, co, seed);
    for (const ProfiledValue &v : cm->getSummary().profiledValues)
      p.record(v.key, llvm::cantFail(cm->getOutput(v.placeholder)));
  }
  return p;
}

/// The largest difference of \p got from \p want, as a share of \p want's largest magnitude.
double worstErrorOverRange(const Tensor &want, const Tensor &got) {
  double range = 0, worst = 0;
  for (size_t i = 0; i < want.numElements(); ++i) {
    range = std::max(range, std::fabs(want.elementAsDouble(i)));
    worst = std::max(worst, std::fabs(want.elementAsDouble(i) - got.elementAsDouble(i)));
  }
  return worst / range;
}

TEST(Quantization, ProfileThenQuantizeRunsIntegerKernelsCloseToFloat) {
  std::string text = smallCnn().str();
  Profile profile = profileOf(text, {11, 12, 13});
  ASSERT_TRUE(profile.find("x"));
  for (QuantizationSchema schema :
       {QuantizationSchema::Asymmetric, QuantizationSchema::Symmetric,
        QuantizationSchema::SymmetricWithUInt8, QuantizationSchema::SymmetricWithPower2Scale}) {
    CompileOptions co;
    co.quantizationProfile = std::make_shared<const Profile>(profile);
    co.quantization.schema = schema;
    co.quantization.channelwise = true;
    // Inputs the profile did not see (seed 14), within the profiled ranges' kind.
    auto q = compileAndRun(text, co, 14);
    auto f = compileAndRun(text, CompileOptions(), 14);
    auto counts = kindCounts(q->getFunction());
    EXPECT_EQ(counts["IntegerConv"], 2);
    EXPECT_EQ(counts["IntegerMatMul"], 1);
    EXPECT_EQ(q->getSummary().quantization.quantized, 3u);
    Tensor got = llvm::cantFail(q->getOutput("y")), want = llvm::cantFail(q->getOutput("y"));
    want = llvm::cantFail(f->getOutput("y"));
    // Three 8-bit layers: a few percent of the output's range.
    EXPECT_LT(worstErrorOverRange(want, got), 0.05) << "schema " << int(schema);
  }
}

TEST(Quantization, KeepsWhatItCannotOrIsToldNotToQuantize) {
  std::string text = smallCnn().str();
  Profile profile = profileOf(text, {11});
  CompileOptions co;
  co.quantizationProfile = std::make_shared<const Profile>(profile);
  co.quantization.keepFloatKinds = {"FullyConnected"};
  auto q = compileAndRun(text, co, 14);
  auto counts = kindCounts(q->getFunction());
  EXPECT_EQ(counts["IntegerConv"], 2);
  EXPECT_EQ(counts["IntegerMatMul"], 0);
  const QuantizationReport &r = q->getSummary().quantization;
  EXPECT_EQ(r.keptFloat, 1u);
  bool named = false;
  for (const std::string &line : r.lines)
    named |= line.find("FullyConnected: -keep-original-precision-for-nodes") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(Quantization, KeepsAProductWhoseValuesLieFarFromZero) {
  std::string text = smallCnn().str();
  Profile profile = profileOf(text, {11});
  // The input as if it took values in [5, 6]: 8 bits must reach down to 0, leaving it under
  // half of the 255 steps.
  TensorProfile x = *profile.find("x");
  x.min = 5;
  x.max = 6;
  profile.set("x", x);
  CompileOptions co;
  co.quantizationProfile = std::make_shared<const Profile>(profile);
  auto q = compileAndRun(text, co, 14);
  const QuantizationReport &r = q->getSummary().quantization;
  EXPECT_EQ(r.quantized, 2u);
  EXPECT_EQ(r.keptFloat, 1u);
  bool named = false;
  for (const std::string &line : r.lines)
    named |= line.find("the values of 'x' (5.000000 to 6.000000) lie far from 0") !=
             std::string::npos;
  EXPECT_TRUE(named);
}

TEST(Quantization, RefusesAProfileOfAnotherModel) {
  Profile other;
  Tensor t(Type(ElemKind::Float32, {2}));
  other.record("not_a_value", t);
  CompileOptions co;
  co.quantizationProfile = std::make_shared<const Profile>(other);
  TempDir dir;
  auto M = llvm::cantFail(loadModel(dir.write("m.onnxtxt", smallCnn().str()),
                                    withConstantEvaluation({})));
  auto cm = CompiledModel::compile(std::move(M), co);
  ASSERT_FALSE(bool(cm));
  EXPECT_NE(llvm::toString(cm.takeError()).find("the profile names none of this model's values"),
            std::string::npos);
}

TEST(Quantization, ProfileFileRoundTripsAndRejectsBadFiles) {
  Profile p;
  Tensor a = Tensor::fromValues<float>({4}, {-1.5f, 0.f, 2.f, 3.f});
  Tensor b = Tensor::fromValues<float>({2}, {5.f, -4.f});
  p.record("a", a);
  p.record("a", b); // widens the range: the histogram is rebinned
  p.record("b:1", b);
  TempDir dir;
  std::string path = dir.path() + "/p.yaml";
  ASSERT_FALSE(bool(writeProfile(p, path)));
  Profile back = llvm::cantFail(readProfile(path));
  ASSERT_TRUE(back.find("a") && back.find("b:1"));
  EXPECT_EQ(back.find("a")->min, -4.f);
  EXPECT_EQ(back.find("a")->max, 5.f);
  uint64_t total = 0;
  for (uint64_t c : back.find("a")->histogram)
    total += c;
  EXPECT_EQ(total, 6u);
  EXPECT_EQ(back.find("a")->histogram, p.find("a")->histogram);

  std::string bad = dir.write("bad.yaml", "- nodeOutputName: a\n  min: x\n");
  auto r = readProfile(bad);
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("not a profile"), std::string::npos);
  std::string inverted = dir.write("inv.yaml", "- nodeOutputName: a\n  min: 2\n  max: 1\n");
  auto r2 = readProfile(inverted);
  ASSERT_FALSE(bool(r2));
  EXPECT_NE(llvm::toString(r2.takeError()).find("not a range"), std::string::npos);
}

// ---- KL calibration ------------------------------------------------------------------------
//
// The expected thresholds are numpy's, computed independently of Calibration.cpp by the plain
// definition (each candidate's P and Q built bin by bin; run with /usr/bin/python3):
//
//   import numpy as np
//   def kl_threshold(h, levels):
//       h = np.asarray(h, dtype=np.float64); T = h.sum()
//       median = int(np.searchsorted(np.concatenate([[0], np.cumsum(h)]), T / 2))
//       ds = {}
//       for i in range(max(levels, median), len(h) + 1):
//           P = h[:i].copy(); P[-1] += h[i:].sum()
//           Q = np.zeros(i)
//           for g in range(levels):
//               s, e = g * i // levels, (g + 1) * i // levels
//               nz = P[s:e] != 0
//               if nz.any(): Q[s:e][nz] = h[s:e].sum() / nz.sum()
//           p = P / P.sum(); q = Q / Q.sum(); m = p > 0
//           if (q[m] == 0).any(): continue
//           ds[i] = np.sum(p[m] * np.log(p[m] / q[m]))
//       return min(ds, key=lambda i: (ds[i], i))
//   def magnitudes(lo, hi, hist):   # |value| over [0, m], the first bin left out
//       bins = len(hist); m = max(abs(lo), abs(hi)); w = (hi - lo) / bins
//       mag = np.zeros(bins, dtype=np.int64)
//       for b in range(bins):
//           mag[min(bins - 1, int(abs(lo + (b + 0.5) * w) / m * bins))] += hist[b]
//       mag[0] = 0
//       return mag, m
//   h = np.array([4000000 // (k + 20) ** 2 if k < 400 else 0 for k in range(512)])
//   h[450] = 3; h[511] = 1
//   kl_threshold(h, 64)                                         # 399
//   h2 = np.array([max(0, 10000 - (k - 400) ** 2) if k >= 300 else 0 for k in range(512)])
//   kl_threshold(h2, 64)                                        # 498
//   relu = np.array([10**6 if k == 0 else 10**13 // (k + 60) ** 4 for k in range(2048)])
//   relu[1500] = 1; relu[2047] = 2
//   mag, m = magnitudes(0.0, 8.0, relu)
//   m * kl_threshold(mag, 255) / 2048                           # 4.0390625 (bin 1034)
//   m * kl_threshold(mag, 127) / 2048                           # 2.7265625 (bin 698)
//   signed = np.array([10**13 // (abs(k - 768) + 60) ** 4 for k in range(2048)])
//   signed[0] = 1; signed[2047] = 1
//   mag, m = magnitudes(-3.0, 5.0, signed)
//   m * kl_threshold(mag, 127) / 2048                           # 2.9443359375 (bin 1206)
//   m * kl_threshold(mag, round(255 * 5 / 8)) / 2048            # 2.99072265625 (bin 1225)

TEST(KLCalibration, ThresholdOfAHeavyTailWithOutliers) {
  std::vector<uint64_t> h(512, 0);
  for (uint64_t k = 0; k < 400; ++k)
    h[k] = 4000000 / ((k + 20) * (k + 20));
  h[450] = 3;
  h[511] = 1;
  EXPECT_EQ(klThresholdBins(h, 64), 399u);
}

TEST(KLCalibration, ThresholdKeepsAtLeastHalfTheCounts) {
  // All counts far from 0: a threshold clipping them all into one bin would have a divergence
  // of 0 and lose everything.
  std::vector<uint64_t> h(512, 0);
  for (int64_t k = 300; k < 512; ++k)
    h[k] = uint64_t(std::max<int64_t>(0, 10000 - (k - 400) * (k - 400)));
  EXPECT_EQ(klThresholdBins(h, 64), 498u);
}

TEST(KLCalibration, NothingToChooseFromKeepsTheWholeRange) {
  EXPECT_EQ(klThresholdBins(std::vector<uint64_t>(100, 5), 255), 100u); // fewer bins than levels
  EXPECT_EQ(klThresholdBins(std::vector<uint64_t>(512, 0), 64), 512u);  // no counts
}

TensorProfile histogramOf(float lo, float hi, std::vector<uint64_t> counts) {
  return {lo, hi, std::move(counts)};
}

TEST(KLCalibration, NonNegativeValueKeepsMinZeroAndClipsItsTail) {
  std::vector<uint64_t> relu(2048);
  for (uint64_t k = 0; k < 2048; ++k)
    relu[k] = k == 0 ? 1000000 : 10000000000000ull / ((k + 60) * (k + 60) * (k + 60) * (k + 60));
  relu[1500] = 1;
  relu[2047] = 2;
  TensorProfile p = histogramOf(0, 8, relu);
  // uint8: 255 levels over [0, t].
  auto asym = calibratedRange(p, QuantizationSchema::Asymmetric, QuantizationCalibration::KL);
  EXPECT_EQ(asym.first, 0.0f);
  EXPECT_EQ(asym.second, 4.0390625f);
  auto u8 = calibratedRange(p, QuantizationSchema::SymmetricWithUInt8,
                            QuantizationCalibration::KL);
  EXPECT_EQ(u8.second, 4.0390625f);
  // int8: 127 levels between 0 and t.
  auto sym = calibratedRange(p, QuantizationSchema::Symmetric, QuantizationCalibration::KL);
  EXPECT_EQ(sym.first, 0.0f);
  EXPECT_EQ(sym.second, 2.7265625f);
  // No calibration, or no histogram: the profiled range.
  auto none = calibratedRange(p, QuantizationSchema::Asymmetric, QuantizationCalibration::None);
  EXPECT_EQ(none, std::make_pair(0.0f, 8.0f));
  auto bare = calibratedRange(histogramOf(0, 8, {}), QuantizationSchema::Asymmetric,
                              QuantizationCalibration::KL);
  EXPECT_EQ(bare, std::make_pair(0.0f, 8.0f));
}

TEST(KLCalibration, SignedValueClipsBothSidesToTheThreshold) {
  std::vector<uint64_t> h(2048);
  for (int64_t k = 0; k < 2048; ++k) {
    uint64_t d = uint64_t(std::abs(k - 768) + 60);
    h[k] = 10000000000000ull / (d * d * d * d);
  }
  h[0] = 1;
  h[2047] = 1;
  // int8: 127 levels on each side of 0.
  auto sym = calibratedRange(histogramOf(-3, 5, h), QuantizationSchema::Symmetric,
                             QuantizationCalibration::KL);
  EXPECT_EQ(sym.first, -2.9443359375f);
  EXPECT_EQ(sym.second, 2.9443359375f);
  // uint8 over [-3, 5]: the 5/8 of 255 levels between 0 and 5.
  auto asym = calibratedRange(histogramOf(-3, 5, h), QuantizationSchema::Asymmetric,
                              QuantizationCalibration::KL);
  EXPECT_EQ(asym.first, -2.99072265625f);
  EXPECT_EQ(asym.second, 2.99072265625f);
}

/// The scale at which \p F's output comes back to float: the DequantizeLinear nearest before
/// the Save, through what moves or selects values.
double outputScale(const Function &F) {
  for (const auto &n : F.getNodes()) {
    if (n->getKind() != NodeKind::Save)
      continue;
    const Node *v = n->getOperand(0).node;
    while (v->getKind() != NodeKind::DequantizeLinear && v->getNumOperands())
      v = v->getOperand(0).node;
    if (v->getKind() == NodeKind::DequantizeLinear && v->getOperand(1).node->isStorage())
      return static_cast<const Constant *>(v->getOperand(1).node)->getPayload().elementAsDouble(0);
  }
  return 0;
}

TEST(Quantization, KLCalibratedModelRunsCloseToFloatAndKeepsTheOutputsRange) {
  std::string text = smallCnn().str();
  Profile profile = profileOf(text, {11, 12, 13});
  // The output (the last value) as if its values were mostly near 0 with a thin tail: a range
  // KL clips.
  auto [outputKey, output] = profile.entries().back();
  double zeroBin = -output.min / (output.max - output.min) * kProfileBins;
  for (unsigned k = 0; k < kProfileBins; ++k) {
    uint64_t d = uint64_t(std::fabs(k - zeroBin)) + 60;
    output.histogram[k] = 10000000000000ull / (d * d * d * d) + 1;
  }
  profile.set(outputKey, output);
  ASSERT_LT(calibratedRange(output, QuantizationSchema::Asymmetric, QuantizationCalibration::KL)
                .second,
            0.5 * output.max);
  CompileOptions co;
  co.quantizationProfile = std::make_shared<const Profile>(profile);
  co.quantization.channelwise = true;
  auto minMax = compileAndRun(text, co, 14);
  co.quantization.calibration = QuantizationCalibration::KL;
  auto q = compileAndRun(text, co, 14);
  auto f = compileAndRun(text, CompileOptions(), 14);
  EXPECT_EQ(q->getSummary().quantization.quantized, 3u);
  Tensor got = llvm::cantFail(q->getOutput("y")), want = llvm::cantFail(f->getOutput("y"));
  EXPECT_LT(worstErrorOverRange(want, got), 0.05);
  // The last product's result is the output: its largest values (the top score) are the
  // answer, so its range is the profiled one, not clipped.
  double scale = outputScale(q->getFunction());
  EXPECT_GT(scale, 0.0);
  EXPECT_EQ(scale, outputScale(minMax->getFunction()));
}

TEST(Quantization, PrecisionFlagsAcceptInt8WithInt32BiasAndRefuseTheRest) {
  EXPECT_FALSE(bool(checkQuantizationPrecision("Int8", "Int32")));
  auto message = [](llvm::Error e) { return llvm::toString(std::move(e)); };
  std::string int16 = message(checkQuantizationPrecision("Int16", "Int32"));
  EXPECT_NE(int16.find("-quantization-precision=Int16"), std::string::npos) << int16;
  EXPECT_NE(int16.find("int8 and uint8 operands only"), std::string::npos) << int16;
  std::string bias8 = message(checkQuantizationPrecision("Int8", "Int8"));
  EXPECT_NE(bias8.find("-quantization-precision-bias=Int8"), std::string::npos) << bias8;
  EXPECT_NE(bias8.find("int32 sums"), std::string::npos) << bias8;
  EXPECT_NE(message(checkQuantizationPrecision("Int4", "Int32")).find("unknown (Int8, Int16)"),
            std::string::npos);
  EXPECT_NE(message(checkQuantizationPrecision("Int8", "Int64")).find("unknown (Int8, Int32)"),
            std::string::npos);
  EXPECT_EQ(llvm::cantFail(parseQuantizationCalibration("KL")), QuantizationCalibration::KL);
  EXPECT_EQ(llvm::cantFail(parseQuantizationCalibration("none")),
            QuantizationCalibration::None);
  auto bad = parseQuantizationCalibration("minmax");
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(message(bad.takeError()).find("(none, KL)"), std::string::npos);
}

} // namespace
