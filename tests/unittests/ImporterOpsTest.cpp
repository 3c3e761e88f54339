// Models the importer must refuse for the operators it lowers itself: the signal operators
// (DFT, STFT, the windows, MelWeightMatrix), TfIdfVectorizer, a Loop beyond the unroll limit and
// the operators composed of other node kinds (Col2Im, AffineGrid, CenterCropPad, DeformConv,
// GroupNormalization, the bitwise operators, Gelu). Each error must name the node, the
// operator and the reason. And the random draws (RandomUniform, RandomNormal, Bernoulli), whose
// values no other implementation can give: their distribution, range and determinism per seed.
// The models these operators accept, with numpy's expected outputs, are
// tests/models/{cf,signal,tfidf}_* (utils/models/make_import_test_models.py), run on every
// backend by ModelCasesTest. ImageDecoder decodes at compile time: PIL's pixels for a PNG and a
// JPEG, and the images it refuses with the reason. The ONNX-ML operators (ai.onnx.ml) refuse bad
// trees, string labels and keys, and what onnxruntime and the spec disagree on, with the reason.
#include "../ImageSamples.h"
#include "TestUtils.h"

#include "ember/Driver/CompiledModel.h"
#include "ember/Importer/ModelLoader.h"

#include <cmath>
#include <cstdio> // snprintf: the ImageDecoder models' raw_data escapes

#include <algorithm>
#include <string>
#include <vector>

using namespace ember;
using namespace ember::test;
using namespace imagesamples;

namespace {

// TensorProto element types.
constexpr int kFloat = 1, kInt32 = 6, kInt64 = 7, kBool = 9, kDouble = 11;

/// A graph input or output ("input"/"output") of a tensor type, in protobuf text format.
std::string valueInfo(const std::string &field, const std::string &name, int elemType,
                      const std::vector<int64_t> &dims) {
  std::string shape;
  for (int64_t d : dims)
    shape += " dim { dim_value: " + std::to_string(d) + " }";
  return field + " { name: \"" + name + "\" type { tensor_type { elem_type: " +
         std::to_string(elemType) + " shape {" + shape + " } } } }\n";
}

std::string input(const std::string &name, int elemType, const std::vector<int64_t> &dims) {
  return valueInfo("input", name, elemType, dims);
}

/// An initializer of \p dims (none: a scalar) holding \p values.
std::string initI64(const std::string &name, const std::vector<int64_t> &values,
                    const std::vector<int64_t> &dims = {}) {
  std::string s = "initializer { name: \"" + name + "\" data_type: 7";
  for (int64_t d : dims)
    s += " dims: " + std::to_string(d);
  for (int64_t v : values)
    s += " int64_data: " + std::to_string(v);
  return s + " }\n";
}

std::string initF32(const std::string &name, float value) {
  return "initializer { name: \"" + name + "\" data_type: 1 float_data: " +
         std::to_string(value) + " }\n";
}

std::string attrInt(const std::string &name, int64_t v) {
  return " attribute { name: \"" + name + "\" i: " + std::to_string(v) + " type: INT }";
}

std::string attrInts(const std::string &name, const std::vector<int64_t> &vs) {
  std::string s = " attribute { name: \"" + name + "\"";
  for (int64_t v : vs)
    s += " ints: " + std::to_string(v);
  return s + " type: INTS }";
}

std::string attrFloats(const std::string &name, const std::vector<float> &vs) {
  std::string s = " attribute { name: \"" + name + "\"";
  for (float v : vs)
    s += " floats: " + std::to_string(v);
  return s + " type: FLOATS }";
}

std::string attrString(const std::string &name, const std::string &v) {
  return " attribute { name: \"" + name + "\" s: \"" + v + "\" type: STRING }";
}

/// Node \p name of operator \p op reading \p inputs ("" for an absent one) into "y".
std::string node(const std::string &name, const std::string &op,
                 const std::vector<std::string> &inputs, const std::string &attrs = "") {
  std::string s = "node { name: \"" + name + "\" op_type: \"" + op + "\"";
  for (const std::string &in : inputs)
    s += " input: \"" + in + "\"";
  return s + " output: \"y\"" + attrs + " }\n";
}

/// A model at \p opset: \p decls (graph inputs, initializers) and \p nodes computing "y", the
/// graph output, whose type is the value computed for it (a tolerated checker finding).
std::string model(int opset, const std::string &decls, const std::string &nodes) {
  return "ir_version: 8\nopset_import { domain: \"\" version: " + std::to_string(opset) +
         " }\ngraph {\n name: \"g\"\n" + nodes + decls + " output { name: \"y\" }\n}\n";
}

struct Refusal {
  std::string what, model;
  std::string node, op; ///< the error must say "node 'NODE' (OP): REASON"
  std::string reason;
};

/// Loading each model fails with "node 'NODE' (OP): REASON" in the error.
void expectRefused(const std::vector<Refusal> &refusals) {
  TempDir dir;
  for (const Refusal &r : refusals) {
    SCOPED_TRACE(r.what);
    std::string path = dir.write(r.what + ".onnxtxt", r.model);
    std::string err = errorOf(loadModel(path));
    EXPECT_NE(err.find("node '" + r.node + "' (" + r.op + "): " + r.reason), std::string::npos)
        << (err.empty() ? "the model loaded" : err);
  }
}

//===----------------------------------------------------------------------------------------===//
// Signal operators
//===----------------------------------------------------------------------------------------===//

std::string window(const std::string &decls, const std::string &attrs = "") {
  return model(17, decls, node("hann0", "HannWindow", {"size"}, attrs));
}

TEST(ImporterOps, RefusesBadWindows) {
  expectRefused({
      {"size0", window(initI64("size", {0})), "hann0", "HannWindow",
       "size must be at least 1, got 0"},
      {"size_vector", window(initI64("size", {3, 4}, {2})), "hann0", "HannWindow",
       "size must be a scalar, got int64<2>"},
      {"size_float", window(initF32("size", 4)), "hann0", "HannWindow",
       "size must be integer, got float32<scalar>"},
      {"size_huge", window(initI64("size", {int64_t(1) << 40})), "hann0", "HannWindow",
       "the window: shape 1099511627776 of float32 overflows the largest tensor size"},
      {"periodic2", window(initI64("size", {4}), attrInt("periodic", 2)), "hann0",
       "HannWindow", "attribute 'periodic' must be 0 or 1, got 2"},
      {"datatype_bool", window(initI64("size", {4}), attrInt("output_datatype", kBool)),
       "hann0", "HannWindow",
       "attribute 'output_datatype' must be an integer or floating-point type, got bool"},
      {"datatype_unknown", window(initI64("size", {4}), attrInt("output_datatype", 99)),
       "hann0", "HannWindow", "attribute 'output_datatype': unknown tensor data type 99"},
  });
}

/// DFT of input x (\p dims of \p elemType) with \p attrs and, when given, the initializer
/// declaration \p length of its dft_length.
std::string dft(const std::vector<int64_t> &dims, const std::string &attrs = "",
                const std::string &length = "", int elemType = kFloat) {
  std::vector<std::string> ins = {"x"};
  std::string decls = input("x", elemType, dims);
  if (!length.empty()) {
    ins.push_back("length");
    decls += length;
  }
  return model(17, decls, node("dft0", "DFT", ins, attrs));
}

/// DFT-20 of a float32 input x of \p dims whose axis is the declaration \p axis (named "axis").
std::string dft20(const std::vector<int64_t> &dims, const std::string &axis) {
  return model(20, input("x", kFloat, dims) + axis, node("dft0", "DFT", {"x", "", "axis"}));
}

TEST(ImporterOps, RefusesBadDFTs) {
  expectRefused({
      {"three_components", dft({1, 4, 3}), "dft0", "DFT",
       "input must end in an axis of 1 (real) or 2 (real, imaginary) components, after at "
       "least one signal axis; got float32<1 x 4 x 3>"},
      {"rank1", dft({4}, attrInt("axis", 0)), "dft0", "DFT",
       "input must end in an axis of 1 (real) or 2 (real, imaginary) components"},
      {"axis_components", dft({1, 4, 1}, attrInt("axis", 2)), "dft0", "DFT",
       "attribute 'axis' names the last axis of input float32<1 x 4 x 1>, which holds the "
       "real and imaginary components"},
      {"axis_out_of_range", dft({1, 4, 1}, attrInt("axis", 5)), "dft0", "DFT",
       "attribute 'axis': axis 5 is out of range for rank 3"},
      {"length0", dft({1, 4, 1}, "", initI64("length", {0})), "dft0", "DFT",
       "dft_length must be at least 1, got 0"},
      {"integer_input", dft({1, 4, 1}, "", "", kInt32), "dft0", "DFT",
       "input must be floating-point, got int32<1 x 4 x 1>"},
      {"inverse3", dft({1, 4, 1}, attrInt("inverse", 3)), "dft0", "DFT",
       "attribute 'inverse' must be 0 or 1, got 3"},
      {"empty_signal", dft({1, 0, 1}), "dft0", "DFT",
       "axis 1 of input float32<1 x 0 x 1> is empty: there is no signal to transform"},
      // DFT-20 reads the axis from an input, known at compile time.
      {"axis_input_components", dft20({1, 4, 1}, initI64("axis", {-1})), "dft0", "DFT",
       "input 'axis' names the last axis of input float32<1 x 4 x 1>, which holds the real and "
       "imaginary components"},
      {"axis_input_vector", dft20({1, 4, 1}, initI64("axis", {1, 1}, {2})), "dft0", "DFT",
       "axis must be a scalar, got int64<2>"},
      {"axis_input_out_of_range", dft20({1, 4, 1}, initI64("axis", {-4})), "dft0", "DFT",
       "input 'axis': axis -4 is out of range for rank 3"},
  });
}

/// DeformConv-19 of a float32 x of \p x dims by a filter of \p w dims at offsets of \p off dims.
std::string deformConv(const std::vector<int64_t> &x, const std::vector<int64_t> &w,
                       const std::vector<int64_t> &off, const std::string &attrs = "") {
  return model(19, input("x", kFloat, x) + input("w", kFloat, w) + input("off", kFloat, off),
               node("dc0", "DeformConv", {"x", "w", "off"}, attrs));
}

TEST(ImporterOps, RefusesBadDeformConvs) {
  expectRefused({
      {"volumetric", deformConv({1, 1, 3, 3, 3}, {1, 1, 2, 2, 2}, {1, 24, 2, 2, 2}), "dc0",
       "DeformConv",
       "input float32<1 x 1 x 3 x 3 x 3>: ember deforms 2-D convolutions only ([N, C, H, W])"},
      {"offset_dims", deformConv({1, 2, 4, 4}, {3, 2, 2, 2}, {1, 6, 3, 3}), "dc0", "DeformConv",
       "offset float32<1 x 6 x 3 x 3> must be [1, 8, 3, 3] (N, offset_group * kH * kW * 2, the "
       "output's dims)"},
      {"offset_group", deformConv({1, 3, 4, 4}, {3, 3, 2, 2}, {1, 16, 3, 3},
                                  attrInt("offset_group", 2)),
       "dc0", "DeformConv", "offset_group 2 must divide the input's 3 channels"},
      {"group", deformConv({1, 4, 4, 4}, {3, 2, 2, 2}, {1, 8, 3, 3}, attrInt("group", 2)), "dc0",
       "DeformConv",
       "filter float32<3 x 2 x 2 x 2> with group 2 does not fit input float32<1 x 4 x 4 x 4>"},
  });
}

/// STFT of a float32 signal of \p dims, frame_step \p step, optional window and frame_length.
std::string stft(const std::vector<int64_t> &dims, int64_t step, const std::string &windowDecl,
                 int64_t frameLength) {
  std::string decls = input("x", kFloat, dims) + initI64("step", {step}) + windowDecl;
  std::vector<std::string> ins = {"x", "step", windowDecl.empty() ? "" : "w"};
  if (frameLength) {
    decls += initI64("length", {frameLength});
    ins.push_back("length");
  }
  return model(17, decls, node("stft0", "STFT", ins));
}

TEST(ImporterOps, RefusesBadSTFTs) {
  expectRefused({
      {"no_frame_length", stft({1, 16, 1}, 4, "", 0), "stft0", "STFT",
       "the frame length is unknown: give a window or frame_length"},
      {"step0", stft({1, 16, 1}, 0, "", 4), "stft0", "STFT",
       "frame_step must be at least 1, got 0"},
      {"frame_too_long", stft({1, 16, 1}, 2, "", 17), "stft0", "STFT",
       "the frame length 17 must be between 1 and the signal's length 16"},
      {"window_length", stft({1, 16, 1}, 2, input("w", kFloat, {5}), 4), "stft0", "STFT",
       "frame_length 4 differs from the window's length 5"},
      {"window_type", stft({1, 16, 1}, 2, input("w", kDouble, {5}), 0), "stft0", "STFT",
       "window must be a vector of the signal's type float32, got float64<5>"},
      {"rank4", stft({1, 1, 16, 1}, 2, "", 4), "stft0", "STFT",
       "signal must be [batch, length, 1 or 2], got float32<1 x 1 x 16 x 1>"},
  });
}

/// MelWeightMatrix of 8 bins of a 16-point DFT with the given rate and band edges.
std::string mel(int64_t sampleRate, const std::string &lowerDecl, float upper) {
  std::string decls = initI64("bins", {8}) + initI64("length", {16}) +
                      initI64("rate", {sampleRate}) + lowerDecl + initF32("upper", upper);
  return model(17, decls,
               node("mel0", "MelWeightMatrix", {"bins", "length", "rate", "lower", "upper"}));
}

TEST(ImporterOps, RefusesBadMelWeightMatrices) {
  expectRefused({
      {"above_nyquist", mel(8192, initF32("lower", 0), 8000), "mel0", "MelWeightMatrix",
       "upper_edge_hertz 8000 puts the mel filters past the 9 spectrogram bins of dft_length "
       "16 at sample_rate 8192"},
      {"edges_reversed", mel(8192, initF32("lower", 300), 200), "mel0", "MelWeightMatrix",
       "the band edges must satisfy 0 <= lower_edge_hertz <= upper_edge_hertz, got 300 and "
       "200"},
      {"rate0", mel(0, initF32("lower", 0), 200), "mel0", "MelWeightMatrix",
       "sample_rate must be at least 1, got 0"},
      {"integer_edge", mel(8192, initI64("lower", {0}), 4096), "mel0", "MelWeightMatrix",
       "lower_edge_hertz must be a floating-point scalar, got int64<scalar>"},
  });
}

//===----------------------------------------------------------------------------------------===//
// TfIdfVectorizer
//===----------------------------------------------------------------------------------------===//

/// A TfIdfVectorizer of an int32 [2, 4] input (or \p elemType) with the valid attributes of
/// two unigrams and one bigram, except where \p attrs replaces one (the first of a name wins).
std::string tfidf(const std::string &attrs, int elemType = kInt32,
                  const std::vector<std::string> &drop = {},
                  const std::vector<int64_t> &dims = {2, 4}) {
  std::string all = attrs;
  auto add = [&](const std::string &name, const std::string &text) {
    if (attrs.find("\"" + name + "\"") == std::string::npos &&
        std::find(drop.begin(), drop.end(), name) == drop.end())
      all += text;
  };
  add("mode", attrString("mode", "TF"));
  add("min_gram_length", attrInt("min_gram_length", 1));
  add("max_gram_length", attrInt("max_gram_length", 2));
  add("max_skip_count", attrInt("max_skip_count", 0));
  add("ngram_counts", attrInts("ngram_counts", {0, 2}));
  add("ngram_indexes", attrInts("ngram_indexes", {0, 1, 2}));
  add("pool_int64s", attrInts("pool_int64s", {1, 2, 1, 2}));
  return model(9, input("x", elemType, dims), node("tfidf0", "TfIdfVectorizer", {"x"}, all));
}

TEST(ImporterOps, RefusesBadTfIdfVectorizers) {
  const char *op = "TfIdfVectorizer";
  expectRefused({
      {"strings",
       tfidf(" attribute { name: \"pool_strings\" strings: \"a\" strings: \"b\" strings: \"a\" "
             "strings: \"b\" type: STRINGS }",
             kInt32, {"pool_int64s"}),
       "tfidf0", op,
       "pool_strings is not supported: ember has no string tensors, so the pool must be "
       "integer token ids (pool_int64s)"},
      {"counts_descending", tfidf(attrInts("ngram_counts", {3, 2})), "tfidf0", op,
       "ngram_counts must be ascending starts within pool_int64s's 4 items, got [3, 2]"},
      {"partial_bigram", tfidf(attrInts("ngram_counts", {0, 1})), "tfidf0", op,
       "pool_int64s[1:4] holds 3 items, not whole 2-grams"},
      {"duplicate", tfidf(attrInts("pool_int64s", {1, 1, 1, 2})), "tfidf0", op,
       "pool_int64s holds the 1-gram [1] twice"},
      {"negative_index", tfidf(attrInts("ngram_indexes", {0, -1, 2})), "tfidf0", op,
       "ngram_indexes must not be negative, got [0, -1, 2]"},
      {"few_indexes", tfidf(attrInts("ngram_indexes", {0, 1})), "tfidf0", op,
       "ngram_indexes has 2 entries, fewer than the n-grams of the pool"},
      {"many_indexes", tfidf(attrInts("ngram_indexes", {0, 1, 2, 3})), "tfidf0", op,
       "ngram_indexes has 4 entries for the 3 n-grams of the pool"},
      {"weights", tfidf(attrString("mode", "TFIDF") + attrFloats("weights", {1, 2})), "tfidf0",
       op, "weights has 2 values but ngram_indexes has 3 entries: they must match"},
      {"min_above_max", tfidf(attrInt("min_gram_length", 2) + attrInt("max_gram_length", 1)),
       "tfidf0", op,
       "the n-gram lengths must satisfy 1 <= min_gram_length <= max_gram_length, got 2 and 1"},
      {"min0", tfidf(attrInt("min_gram_length", 0)), "tfidf0", op,
       "the n-gram lengths must satisfy 1 <= min_gram_length <= max_gram_length, got 0 and 2"},
      {"skip_negative", tfidf(attrInt("max_skip_count", -1)), "tfidf0", op,
       "max_skip_count must be at least 0, got -1"},
      {"mode", tfidf(attrString("mode", "BM25")), "tfidf0", op,
       "attribute 'mode' must be TF, IDF or TFIDF, got 'BM25'"},
      {"float_input", tfidf("", kFloat), "tfidf0", op,
       "input float32<2 x 4>: ember counts int32 or int64 token ids only"},
      {"scalar_input", tfidf("", kInt32, {}, {}), "tfidf0", op,
       "input int32<scalar> must be [C] or [N, C]"},
  });
}

//===----------------------------------------------------------------------------------------===//
// Random draws: compiled to values drawn once per compile. The spec fixes their distribution,
// not their values, so the tests check that: range, mean and spread of many draws (bounds of
// about five standard errors), and the same values again for the same seed.
//===----------------------------------------------------------------------------------------===//

std::string attrFloat(const std::string &name, float v) {
  return " attribute { name: \"" + name + "\" f: " + std::to_string(v) + " type: FLOAT }";
}

/// Runs a model with one graph output "y" on the Interpreter, its input \p name (if any) set
/// to \p value.
std::vector<double> runModel(const std::string &text, const std::string &name = "",
                             const Tensor *value = nullptr) {
  TempDir dir;
  auto module = loadModel(dir.write("m.onnxtxt", text));
  EXPECT_TRUE(bool(module)) << errorOf(std::move(module));
  if (!module)
    return {};
  auto cm = CompiledModel::compile(std::move(*module), CompileOptions());
  EXPECT_TRUE(bool(cm)) << errorOf(std::move(cm));
  if (!cm)
    return {};
  if (value) {
    EXPECT_EQ(errorOf((*cm)->setInput(name, *value)), "");
  }
  EXPECT_EQ(errorOf((*cm)->run()), "");
  auto y = (*cm)->getOutput("y");
  if (!y)
    return {};
  std::vector<double> values;
  for (size_t i = 0; i < y->numElements(); ++i)
    values.push_back(y->elementAsDouble(i));
  return values;
}

struct Moments {
  double mean = 0, stddev = 0, min = INFINITY, max = -INFINITY;
};
Moments momentsOf(const std::vector<double> &v) {
  Moments m;
  for (double x : v) {
    m.mean += x / double(v.size());
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  for (double x : v)
    m.stddev += (x - m.mean) * (x - m.mean) / double(v.size());
  m.stddev = std::sqrt(m.stddev);
  return m;
}

TEST(ImporterOps, RandomUniformDrawsUniformlyAndPerSeed) {
  // U[-2, 3): mean 0.5, standard deviation 5 / sqrt(12) = 1.443; 4000 draws.
  auto uniform = [](float seed) {
    return model(13, "", node("r", "RandomUniform", {},
                                attrInts("shape", {40, 100}) + attrFloat("low", -2) +
                                    attrFloat("high", 3) + attrFloat("seed", seed)));
  };
  std::vector<double> a = runModel(uniform(7)), b = runModel(uniform(7)), c = runModel(uniform(8));
  ASSERT_EQ(a.size(), 4000u);
  Moments m = momentsOf(a);
  EXPECT_GE(m.min, -2);
  EXPECT_LT(m.max, 3);
  EXPECT_NEAR(m.mean, 0.5, 5 * 1.443 / std::sqrt(4000.0));
  EXPECT_NEAR(m.stddev, 1.443, 0.05);
  EXPECT_EQ(a, b); // the same seed, the same draws
  EXPECT_NE(a, c);
}

TEST(ImporterOps, RandomNormalLikeDrawsNormallyInTheInputsKind) {
  // N(1, 2^2) in float64, the kind of the input it is like; 4000 draws.
  std::string text = model(13, input("x", kDouble, {4000}),
                           node("r", "RandomNormalLike", {"x"},
                                attrFloat("mean", 1) + attrFloat("scale", 2) +
                                    attrFloat("seed", 3)));
  Tensor x(Type(ElemKind::Float64, {4000}));
  std::vector<double> v = runModel(text, "x", &x);
  ASSERT_EQ(v.size(), 4000u);
  Moments m = momentsOf(v);
  EXPECT_NEAR(m.mean, 1, 5 * 2 / std::sqrt(4000.0));
  EXPECT_NEAR(m.stddev, 2, 0.1);
  size_t within = std::count_if(v.begin(), v.end(), [](double x) { return std::fabs(x - 1) < 2; });
  EXPECT_NEAR(double(within) / 4000, 0.6827, 0.03); // one standard deviation
}

TEST(ImporterOps, BernoulliFollowsItsRunTimeProbabilities) {
  // p = 0, 1 and 0.3 in thirds; the probabilities are a run-time input.
  std::string text = model(15, input("p", kFloat, {3000}),
                           node("b", "Bernoulli", {"p"}, attrInt("dtype", kInt32)));
  Tensor p(Type(ElemKind::Float32, {3000}));
  for (size_t i = 0; i < 3000; ++i)
    p.setElementFromDouble(i, i < 1000 ? 0.0 : i < 2000 ? 1.0 : 0.3);
  std::vector<double> v = runModel(text, "p", &p);
  ASSERT_EQ(v.size(), 3000u);
  double hits = 0;
  for (size_t i = 0; i < 3000; ++i) {
    ASSERT_TRUE(v[i] == 0 || v[i] == 1) << v[i];
    if (i < 1000)
      EXPECT_EQ(v[i], 0);
    else if (i < 2000)
      EXPECT_EQ(v[i], 1);
    else
      hits += v[i];
  }
  EXPECT_NEAR(hits / 1000, 0.3, 5 * std::sqrt(0.3 * 0.7 / 1000));
}

TEST(ImporterOps, RefusesBadRandomDraws) {
  expectRefused({
      {"negative_shape", model(13, "", node("r", "RandomNormal", {}, attrInts("shape", {2, -1}))),
       "r", "RandomNormal", "attribute 'shape' holds -1"},
      {"integer_draws",
       model(13, "", node("r", "RandomUniform", {}, attrInts("shape", {2}) + attrInt("dtype", kInt64))),
       "r", "RandomUniform", "draws floating-point values, not int64"},
      {"integer_probabilities", model(15, input("p", kInt32, {2}), node("b", "Bernoulli", {"p"})),
       "b", "Bernoulli", "the probabilities must be floating-point, got int32<2>"},
  });
}

//===----------------------------------------------------------------------------------------===//
// Loop
//===----------------------------------------------------------------------------------------===//

TEST(ImporterOps, TrainingDomainOperatorsLoadInsideABody) {
  // One Adagrad step (ai.onnx.preview.training, opset 1) inside a Loop body: the body's nodes
  // get their loaders by the model's opset imports, as the main graph's do. Adagrad's spec with
  // its defaults (no decay, regularization or epsilon): H' = H + G^2, X' = X - R G / sqrt(H').
  std::string body =
      " attribute { name: \"body\" type: GRAPH g { name: \"body\"\n"
      "  node { op_type: \"Identity\" input: \"c_in\" output: \"c_out\" }\n"
      "  node { op_type: \"Adagrad\" domain: \"ai.onnx.preview.training\" input: \"r\" "
      "input: \"t\" input: \"x_in\" input: \"g\" input: \"h\" output: \"x_out\" "
      "output: \"h_out\" }\n" +
      input("i", kInt64, {}) + input("c_in", kBool, {}) + input("x_in", kFloat, {2}) +
      valueInfo("output", "c_out", kBool, {}) + valueInfo("output", "x_out", kFloat, {2}) +
      " } }";
  std::string text =
      "ir_version: 8\nopset_import { domain: \"\" version: 13 }\n"
      "opset_import { domain: \"ai.onnx.preview.training\" version: 1 }\ngraph {\n name: \"g\"\n" +
      node("loop0", "Loop", {"M", "", "x0"}, body) + input("x0", kFloat, {2}) + initI64("M", {1}) +
      initF32("r", 0.1f) + initI64("t", {0}) +
      "initializer { name: \"g\" data_type: 1 dims: 2 float_data: 0.5 float_data: -1 }\n"
      "initializer { name: \"h\" data_type: 1 dims: 2 float_data: 0 float_data: 1 }\n"
      " output { name: \"y\" }\n}\n";
  Tensor x = Tensor::fromValues<float>({2}, {1, 2});
  std::vector<double> y = runModel(text, "x0", &x);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_NEAR(y[0], 1 - 0.1 * 0.5 / std::sqrt(0.25), 1e-6);
  EXPECT_NEAR(y[1], 2 + 0.1 * 1 / std::sqrt(2.0), 1e-6);
}

//===----------------------------------------------------------------------------------------===//
// Operators composed at import (DataMovementOpsComposed.cpp, GroupNormalization, the bitwise
// operators, Gelu)
//===----------------------------------------------------------------------------------------===//

/// Col2Im-18 of a float32 input (1, 6, \p positions) with image_shape \p image and
/// block_shape \p block (initializers) and \p attrs.
std::string col2im(const std::vector<int64_t> &image, const std::vector<int64_t> &block,
                   int64_t positions, const std::string &attrs = "") {
  return model(18,
               input("x", kFloat, {1, 6, positions}) + initI64("image", image, {2}) +
                   initI64("block", block, {2}),
               node("c2i", "Col2Im", {"x", "image", "block"}, attrs));
}

TEST(ImporterOps, RefusesBadComposedOperators) {
  std::string gnInputs = input("x", kFloat, {1, 4, 5}) + input("s", kFloat, {4}) +
                         input("b", kFloat, {4});
  expectRefused({
      {"col2im_positions", col2im({4, 4}, {1, 3}, 5), "c2i", "Col2Im",
       "input float32<1 x 6 x 5> must be (N, C * 3, 8) for image_shape [4, 4], block_shape "
       "[1, 3]"},
      {"col2im_block_too_big", col2im({4, 4}, {1, 9}, 5), "c2i", "Col2Im",
       "block [1, 9] (dilated) does not fit in the padded image on axis 1"},
      {"col2im_stride0", col2im({4, 4}, {1, 3}, 8, attrInts("strides", {0, 1})), "c2i",
       "Col2Im",
       "image_shape [4, 4], block_shape [1, 3], dilations, strides and pads must be positive "
       "(pads non-negative) and below 2^31"},
      {"col2im_huge", col2im({4, int64_t(1) << 62}, {1, 3}, 8), "c2i", "Col2Im",
       "image_shape [4, 4611686018427387904], block_shape [1, 3]"},
      {"col2im_many_offsets", col2im({200, 200}, {100, 100}, 1), "c2i", "Col2Im",
       "block_shape [100, 100] has 10000 kernel offsets; ember composes Col2Im of one copy per "
       "offset, at most 4096"},
      {"affine_grid_theta",
       model(20, input("theta", kFloat, {2, 3, 3}) + initI64("size", {2, 3, 4, 5}, {4}),
             node("ag", "AffineGrid", {"theta", "size"})),
       "ag", "AffineGrid", "theta must be (N, 2, 3) for size [2, 3, 4, 5], got float32<2 x 3 x 3>"},
      {"affine_grid_batch",
       model(20, input("theta", kFloat, {2, 2, 3}) + initI64("size", {3, 3, 4, 5}, {4}),
             node("ag", "AffineGrid", {"theta", "size"})),
       "ag", "AffineGrid", "size [3, 3, 4, 5] and theta float32<2 x 2 x 3> differ in the batch"},
      {"center_crop_pad_lengths",
       model(18, input("x", kFloat, {4, 5}) + initI64("shape", {2, 3}, {2}),
             node("ccp", "CenterCropPad", {"x", "shape"}, attrInts("axes", {0}))),
       "ccp", "CenterCropPad", "shape [2, 3] must have one length per axis of [0]"},
      {"group_norm_groups",
       model(21, gnInputs, node("gn", "GroupNormalization", {"x", "s", "b"},
                                attrInt("num_groups", 3))),
       "gn", "GroupNormalization",
       "num_groups 3 does not divide the 4 channels of float32<1 x 4 x 5>"},
      {"group_norm18_scale_per_group",
       model(18, gnInputs, node("gn", "GroupNormalization", {"x", "s", "b"},
                                attrInt("num_groups", 2))),
       "gn", "GroupNormalization", "scale must be float32<2> (one per group), got float32<4>"},
      {"bitwise_float",
       model(18, input("a", kFloat, {3}) + input("b", kFloat, {3}),
             node("and", "BitwiseAnd", {"a", "b"})),
       "and", "BitwiseAnd", "operands must be integers, got float32<3>"},
      {"logical_int",
       model(18, input("a", kInt32, {3}) + input("b", kInt32, {3}), node("or", "Or", {"a", "b"})),
       "or", "Or", "operands must be bool, got int32<3>"},
      {"gelu_approximate",
       model(20, input("x", kFloat, {3}),
             node("gelu", "Gelu", {"x"}, attrString("approximate", "fast"))),
       "gelu", "Gelu", "approximate must be \"none\" or \"tanh\", got \"fast\""},
  });
}

TEST(ImporterOps, RefusesBadScattersQuantizationsAndComposedActivations) {
  // ScatterElements/ScatterND-18's reductions, QuantizeLinear/DequantizeLinear-19 to 25 (blocks,
  // output kinds), CumProd-26 and Swish-24.
  constexpr int kInt8 = 3, kUInt8 = 2, kInt16 = 5, kBFloat16 = 16;
  std::string xs = input("x", kFloat, {3}) + input("u", kFloat, {2});
  expectRefused({
      {"scatter_max_opset16",
       model(16, xs + initI64("i", {0, 1}, {2}),
             node("se", "ScatterElements", {"x", "i", "u"}, attrString("reduction", "max"))),
       "se", "ScatterElements", "reduction 'max' needs opset 18, the model has 16"},
      {"scatter_unknown_reduction",
       model(18, xs + initI64("i", {0, 1}, {2, 1}),
             node("snd", "ScatterND", {"x", "i", "u"}, attrString("reduction", "avg"))),
       "snd", "ScatterND", "unknown scatter reduction 'avg' (none, add, mul, max or min)"},
      {"blocked_scale_dims",
       model(21, input("x", kFloat, {3, 4}) + input("s", kFloat, {3, 3}),
             node("q", "QuantizeLinear", {"x", "s"},
                  attrInt("axis", 1) + attrInt("block_size", 2))),
       "q", "QuantizeLinear",
       "scale float32<3 x 3> must have the dims of x float32<3 x 4> but 2 along axis 1 (blocks "
       "of 2)"},
      {"quantize_to_float",
       model(21, input("x", kFloat, {3}) + initF32("s", 0.5f),
             node("q", "QuantizeLinear", {"x", "s"}, attrInt("output_dtype", kFloat))),
       "q", "QuantizeLinear",
       "cannot quantize to float32: ember quantizes to int8, uint8, int16, uint16, int4, uint4, "
       "float8 and float4e2m1"},
      {"output_dtype_differs",
       model(21, input("x", kFloat, {3}) + initF32("s", 0.5f) + input("z", kInt8, {}),
             node("q", "QuantizeLinear", {"x", "s", "z"}, attrInt("output_dtype", kUInt8))),
       "q", "QuantizeLinear", "output_dtype uint8 differs from the zero point's kind int8"},
      {"int16_before_21",
       model(19, input("x", kFloat, {3}) + initF32("s", 0.5f) + input("z", kInt16, {}),
             node("q", "QuantizeLinear", {"x", "s", "z"})),
       "q", "QuantizeLinear", "quantizing to int16 needs opset 21"},
      {"dequantize_bfloat16_from_float32",
       model(23, input("x", kUInt8, {3}) + initF32("s", 0.5f),
             node("dq", "DequantizeLinear", {"x", "s"}, attrInt("output_dtype", kBFloat16))),
       "dq", "DequantizeLinear",
       "a bfloat16 result needs a bfloat16 scale and x of 8 bits or fewer"},
      {"cumprod_bool",
       model(26, input("x", kBool, {3}) + initI64("axis", {0}),
             node("cp", "CumProd", {"x", "axis"})),
       "cp", "CumProd", "x must be numeric, got bool<3>"},
      {"swish_int", model(24, input("x", kInt32, {3}), node("sw", "Swish", {"x"})), "sw", "Swish",
       "x must be floating point, got int32<3>"},
  });
}

// The operators of opsets 23 to 25 composed at import (Attention, RMSNormalization,
// RotaryEmbedding, TensorScatter); the models they accept are tests/models/{attention,rmsnorm,
// rotary,tensor_scatter}_* (utils/models/make_opset23_models.py).
TEST(ImporterOps, RefusesBadAttentionAndRotaryOperators) {
  auto qkv = [](std::vector<int64_t> q, std::vector<int64_t> kv) {
    return input("q", kFloat, q) + input("k", kFloat, kv) + input("v", kFloat, kv);
  };
  std::string qkv4 = qkv({1, 2, 2, 4}, {1, 2, 2, 4});
  std::string rotary = input("x", kFloat, {1, 2, 2, 8}) + input("c", kFloat, {4, 4}) +
                       input("s", kFloat, {4, 4});
  std::string cache = input("past", kFloat, {2, 5, 3}) + input("upd", kFloat, {2, 2, 3});
  expectRefused({
      {"attention_3d_no_heads",
       model(23, qkv({1, 2, 8}, {1, 2, 8}), node("att", "Attention", {"q", "k", "v"})), "att",
       "Attention", "3-D Q, K and V need positive q_num_heads and kv_num_heads, got 0 and 0"},
      {"attention_heads",
       model(23, qkv({1, 3, 2, 4}, {1, 2, 2, 4}), node("att", "Attention", {"q", "k", "v"})),
       "att", "Attention", "the 3 query heads must be a multiple of the 2 key/value heads"},
      {"attention_int_mask",
       model(23, qkv4 + input("m", kInt32, {2, 2}),
             node("att", "Attention", {"q", "k", "v", "m"})),
       "att", "Attention", "attn_mask must be bool or of Q's kind (float32), got int32<2 x 2>"},
      {"attention_past_key_alone",
       model(23, qkv4 + input("pk", kFloat, {1, 2, 1, 4}),
             node("att", "Attention", {"q", "k", "v", "", "pk"})),
       "att", "Attention", "past_key and past_value must be given together"},
      {"attention23_nonpad",
       model(23, qkv4 + input("n", kInt64, {1}),
             node("att", "Attention", {"q", "k", "v", "", "", "", "n"})),
       "att", "Attention", "input 6 (nonpad_kv_seqlen) needs Attention-24"},
      {"attention25_heads_of_4d",
       model(25, qkv4, node("att", "Attention", {"q", "k", "v"}, attrInt("q_num_heads", 2))),
       "att", "Attention", "q_num_heads and kv_num_heads must not be given with 4-D Q, K and V"},
      {"rms_scale_kind",
       model(23, input("x", kFloat, {2, 4}) + input("s", kDouble, {4}),
             node("rms", "RMSNormalization", {"x", "s"})),
       "rms", "RMSNormalization", "scale float64<4> must have X's kind (float32<2 x 4>)"},
      {"rms_scale_dims",
       model(23, input("x", kFloat, {2, 4}) + input("s", kFloat, {3}),
             node("rms", "RMSNormalization", {"x", "s"})),
       "rms", "RMSNormalization", "scale float32<3> does not broadcast to X float32<2 x 4>"},
      {"rotary_odd_dim",
       model(23, rotary, node("rope", "RotaryEmbedding", {"x", "c", "s"},
                              attrInt("rotary_embedding_dim", 3))),
       "rope", "RotaryEmbedding",
       "rotary_embedding_dim 3 must be even and at most the head size 8"},
      {"rotary_3d_no_heads",
       model(23, input("x", kFloat, {1, 2, 8}) + input("c", kFloat, {1, 2, 4}) +
                     input("s", kFloat, {1, 2, 4}),
             node("rope", "RotaryEmbedding", {"x", "c", "s"})),
       "rope", "RotaryEmbedding",
       "3-D X float32<1 x 2 x 8> needs num_heads dividing its hidden size, got 0"},
      {"rotary_cache_without_positions",
       model(23, rotary, node("rope", "RotaryEmbedding", {"x", "c", "s"})), "rope",
       "RotaryEmbedding", "cos and sin (cos_cache, sin_cache, gathered by position_ids when "
       "given) must be (1, 2, 4), got float32<4 x 4>"},
      {"tensor_scatter_axis0",
       model(24, cache, node("ts", "TensorScatter", {"past", "upd"}, attrInt("axis", 0))), "ts",
       "TensorScatter", "axis must not be 0, the batch axis"},
      {"tensor_scatter_mode",
       model(24, cache, node("ts", "TensorScatter", {"past", "upd"}, attrString("mode", "ring"))),
       "ts", "TensorScatter", "mode must be \"linear\" or \"circular\", got \"ring\""},
  });
}

TEST(ImporterOps, RefusesALongLoopThatCannotRunInTheIR) {
  // for i < 5000: v = concat(v, v). A loop in the IR keeps its carried values' types, so this
  // one could only be unrolled, and it is longer than ember unrolls: both reasons are given.
  std::string body = " attribute { name: \"body\" type: GRAPH g { name: \"body\"\n"
                     "  node { op_type: \"Identity\" input: \"c_in\" output: \"c_out\" }\n"
                     "  node { op_type: \"Concat\" input: \"v_in\" input: \"v_in\" "
                     "output: \"v_out\" attribute { name: \"axis\" type: INT i: 0 } }\n" +
                     input("i", kInt64, {}) + input("c_in", kBool, {}) +
                     input("v_in", kFloat, {2}) + valueInfo("output", "c_out", kBool, {}) +
                     valueInfo("output", "v_out", kFloat, {}) + " } }";
  expectRefused({{"loop_too_long",
                  model(13, input("v0", kFloat, {2}) + initI64("M", {5000}),
                        node("loop0", "Loop", {"M", "", "v0"}, body)),
                  "loop0", "Loop",
                  "trip count 5000: ember unrolls at most 1024 iterations of a loop at compile "
                  "time"},
                 {"loop_too_long_in_ir",
                  model(13, input("v0", kFloat, {2}) + initI64("M", {5000}),
                        node("loop0", "Loop", {"M", "", "v0"}, body)),
                  "loop0", "Loop",
                  "and it cannot be a loop in the IR: carried value 0 goes from float32<2> "
                  "to float32<4>"}});
}

//===----------------------------------------------------------------------------------------===//
// ImageDecoder: decoded at compile time by libpng and libjpeg-turbo. The images and their
// expected pixels come from PIL (what the ONNX reference decodes with; Debian's python3-pil on
// the same libjpeg-turbo): PIL's np.array(img), img.convert("RGB") for the RGBA and gray PNGs,
// img.convert("L") for Grayscale. Hex strings, two digits a byte.
//===----------------------------------------------------------------------------------------===//

// An 8x8 4:2:0 JPEG (quality 75: ImageSamples.h), a 3x2 RGBA PNG, a 2x2 gray PNG and a 2x2 BMP.
const char *const kJPEGGray =
    "2e303a3658525650383f4a4764636c6d4b57605b6e6e767a5a696f6c797e7f826173767b8a9894936f838189"
    "92a69e9c8198929797b0a9ad89a5a0a5a1bfc0cc";
const char *const kPNG =
    "89504e470d0a1a0a0000000d49484452000000030000000208060000009d74661a0000002349444154789c63"
    "f8e6cdbd37eb8aff9f437a85e10cfcd6a99fe77fe1b9c0e7cd2e0d009d550ad743fd1fa90000000049454e44"
    "ae426082";
const char *const kPNGRGB =
    "f64b0b6ad44fc22e710f3b659ff40c0e4b07";
const char *const kPNGGray =
    "77a56233c031";
const char *const kGrayPNG =
    "89504e470d0a1a0a0000000d494844520000000200000002080000000057dd52f80000000e49444154789c63"
    "60486138f11f000425022cc60fba210000000049454e44ae426082";
const char *const kBMP =
    "424d460000000000000036000000280000000200000002000000010018000000000010000000c40e0000c40e"
    "00000000000000000000f13917dc292e0000f71300f80f1d0000";

/// An ImageDecoder-20 model decoding the constant \p bytes with \p pixelFormat ("": default).
std::string imageDecoderModel(const std::vector<uint8_t> &bytes, const std::string &pixelFormat) {
  std::string raw;
  for (uint8_t b : bytes) {
    char esc[5];
    std::snprintf(esc, sizeof esc, "\\%03o", unsigned(b));
    raw += esc;
  }
  std::string init = "initializer { name: \"encoded\" data_type: 2 dims: " +
                     std::to_string(bytes.size()) + " raw_data: \"" + raw + "\" }\n";
  return model(20, init,
               node("decode", "ImageDecoder", {"encoded"},
                    pixelFormat.empty() ? "" : attrString("pixel_format", pixelFormat)));
}

std::vector<double> pixelsOf(const std::string &hex) {
  std::vector<double> v;
  for (uint8_t b : fromHex(hex))
    v.push_back(b);
  return v;
}

TEST(ImporterOps, ImageDecoderDecodesPNGAndJPEGAsPIL) {
  std::vector<uint8_t> jpeg = fromHex(kJPEG), png = fromHex(kPNG), grayPNG = fromHex(kGrayPNG);
  EXPECT_EQ(runModel(imageDecoderModel(jpeg, "")), pixelsOf(kJPEGRGB));
  EXPECT_EQ(runModel(imageDecoderModel(jpeg, "RGB")), pixelsOf(kJPEGRGB));
  std::vector<double> bgr = pixelsOf(kJPEGRGB);
  for (size_t i = 0; i + 2 < bgr.size(); i += 3)
    std::swap(bgr[i], bgr[i + 2]);
  EXPECT_EQ(runModel(imageDecoderModel(jpeg, "BGR")), bgr);
  EXPECT_EQ(runModel(imageDecoderModel(jpeg, "Grayscale")), pixelsOf(kJPEGGray));
  // RGBA: the alpha channel dropped; its luma from R, G and B alone.
  EXPECT_EQ(runModel(imageDecoderModel(png, "RGB")), pixelsOf(kPNGRGB));
  EXPECT_EQ(runModel(imageDecoderModel(png, "Grayscale")), pixelsOf(kPNGGray));
  // A gray PNG: as RGB, its value in every channel; as Grayscale, itself.
  EXPECT_EQ(runModel(imageDecoderModel(grayPNG, "RGB")),
            std::vector<double>({0, 0, 0, 100, 100, 100, 200, 200, 200, 255, 255, 255}));
  EXPECT_EQ(runModel(imageDecoderModel(grayPNG, "Grayscale")),
            std::vector<double>({0, 100, 200, 255}));
}

TEST(ImporterOps, RefusesBadImagesToDecode) {
  std::vector<uint8_t> jpeg = fromHex(kJPEG), png = fromHex(kPNG);
  std::vector<uint8_t> halfJPEG(jpeg.begin(), jpeg.begin() + jpeg.size() / 2);
  std::vector<uint8_t> halfPNG(png.begin(), png.begin() + png.size() / 2);
  std::vector<uint8_t> badCRC = png;
  badCRC[29] ^= 1; // IHDR's CRC
  expectRefused({
      {"bmp", imageDecoderModel(fromHex(kBMP), "RGB"), "decode", "ImageDecoder",
       "the encoded stream is a BMP image: ember decodes PNG and JPEG images "
       "only"},
      {"unknown", imageDecoderModel({1, 2, 3}, "RGB"), "decode", "ImageDecoder",
       "the encoded stream is data in no image format ember knows (it starts "
       "with 01 02 03)"},
      {"truncated_jpeg", imageDecoderModel(halfJPEG, "RGB"), "decode", "ImageDecoder",
       "cannot decode the JPEG image: Premature end of JPEG file"},
      {"truncated_png", imageDecoderModel(halfPNG, "Grayscale"), "decode", "ImageDecoder",
       "cannot decode the PNG image: the data ends early (truncated file)"},
      {"bad_crc_png", imageDecoderModel(badCRC, "RGB"), "decode", "ImageDecoder",
       "cannot decode the PNG image: IHDR: CRC error"},
      {"bad_pixel_format", imageDecoderModel(png, "HSV"), "decode", "ImageDecoder",
       "attribute 'pixel_format' must be RGB, BGR or Grayscale, got 'HSV'"},
  });
}

TEST(ImporterOps, ReduceMaxAndMinOfBoolOrderFalseBeforeTrue) {
  // ReduceMax-20/ReduceMin-20 on bool: any and all along axis 1, as a run-time input.
  Tensor x(Type(ElemKind::Bool, {3, 2}));
  const bool values[] = {false, false, false, true, true, true};
  for (size_t i = 0; i < 6; ++i)
    x.setElementFromDouble(i, values[i]);
  for (const char *op : {"ReduceMax", "ReduceMin"}) {
    SCOPED_TRACE(op);
    std::string text = model(20, input("x", kBool, {3, 2}) + initI64("axes", {1}, {1}),
                             node("r", op, {"x", "axes"}, attrInt("keepdims", 0)));
    EXPECT_EQ(runModel(text, "x", &x), std::string(op) == "ReduceMax"
                                           ? std::vector<double>({0, 1, 1})
                                           : std::vector<double>({0, 0, 1}));
  }
}

//===----------------------------------------------------------------------------------------===//
// ONNX-ML operators (ai.onnx.ml; their accepted models are tests/models/ml_*)
//===----------------------------------------------------------------------------------------===//

/// An ai.onnx.ml node "ml0" of operator \p op reading "x" into "y" (a classifier: and "z").
std::string mlNode(const std::string &op, const std::string &attrs) {
  bool classifier = op.find("Classifier") != std::string::npos;
  return "node { name: \"ml0\" op_type: \"" + op + "\" domain: \"ai.onnx.ml\" input: \"x\" "
         "output: \"y\"" + (classifier ? " output: \"z\"" : "") + attrs + " }\n";
}

/// A model importing ai.onnx.ml at \p mlOpset (and the default domain at 17), x float32 [2, 3].
std::string mlModel(int mlOpset, const std::string &nodes, int elemType = kFloat) {
  return "ir_version: 8\nopset_import { domain: \"\" version: 17 }\nopset_import { domain: "
         "\"ai.onnx.ml\" version: " + std::to_string(mlOpset) + " }\ngraph {\n name: \"g\"\n" +
         nodes + input("x", elemType, {2, 3}) + " output { name: \"y\" }\n}\n";
}

std::string attrStrings(const std::string &name, const std::vector<std::string> &vs) {
  std::string s = " attribute { name: \"" + name + "\"";
  for (const std::string &v : vs)
    s += " strings: \"" + v + "\"";
  return s + " type: STRINGS }";
}

/// A stump: node 0 tests feature \p feature (x <= 0), leaves 1 and 2 weigh \p weights, with
/// \p extra attributes; the weights' lists are named with \p prefix ("target", "class").
std::string stump(const std::string &prefix, int64_t feature, const std::string &extra,
                  const std::vector<int64_t> &trueIds = {1, 0, 0}) {
  return attrInts("nodes_treeids", {0, 0, 0}) + attrInts("nodes_nodeids", {0, 1, 2}) +
         attrInts("nodes_featureids", {feature, 0, 0}) + attrFloats("nodes_values", {0, 0, 0}) +
         attrStrings("nodes_modes", {"BRANCH_LEQ", "LEAF", "LEAF"}) +
         attrInts("nodes_truenodeids", trueIds) + attrInts("nodes_falsenodeids", {2, 0, 0}) +
         attrInts(prefix + "_treeids", {0, 0}) + attrInts(prefix + "_nodeids", {1, 2}) +
         attrInts(prefix + "_ids", {0, 0}) + attrFloats(prefix + "_weights", {1, 2}) + extra;
}

TEST(ImporterOps, RefusesBadONNXMLOperators) {
  const std::string reg = "TreeEnsembleRegressor", cls = "TreeEnsembleClassifier";
  expectRefused({
      {"tree_feature", mlModel(3, mlNode(reg, stump("target", 7, ""))), "ml0", reg,
       "a node tests feature 7 but X float32<2 x 3> has 3"},
      {"tree_cycle", mlModel(3, mlNode(reg, stump("target", 0, "", {0, 0, 0}))), "ml0", reg,
       "a tree is deeper than 1000 levels, or has a cycle"},
      {"tree_deprecated", mlModel(5, mlNode(reg, stump("target", 0, ""))), "ml0", reg,
       "TreeEnsembleRegressor is deprecated from ai.onnx.ml opset 5 on"},
      {"tree_aggregate", mlModel(3, mlNode(reg, stump("target", 0,
                                                      attrString("aggregate_function", "MEDIAN")))),
       "ml0", reg, "aggregate_function must be SUM, AVERAGE, MIN or MAX, got 'MEDIAN'"},
      {"tree_logistic", mlModel(3, mlNode(reg, stump("target", 0,
                                                     attrString("post_transform", "LOGISTIC")))),
       "ml0", reg, "post_transform on a single target: onnxruntime ignores it"},
      {"tree_two_classes",
       mlModel(3, mlNode(cls, stump("class", 0, attrInts("classlabels_int64s", {3, 4})))), "ml0",
       cls, "a classifier of 2 class(es) is not supported"},
      {"tree_string_labels",
       mlModel(3, mlNode(cls, stump("class", 0, attrStrings("classlabels_strings", {"a", "b"})))),
       "ml0", cls, "classlabels_strings is not supported: ember has no string tensors"},
      {"label_strings",
       mlModel(2, mlNode("LabelEncoder", attrStrings("keys_strings", {"a"}) +
                                             attrInts("values_int64s", {1}))),
       "ml0", "LabelEncoder", "string keys are not supported: ember has no string tensors"},
      {"label_kind",
       mlModel(2, mlNode("LabelEncoder", attrInts("keys_int64s", {1}) +
                                             attrFloats("values_floats", {1}))),
       "ml0", "LabelEncoder", "input X float32<2 x 3> does not have the keys' kind int64"},
      {"normalizer", mlModel(1, mlNode("Normalizer", attrString("norm", "L3"))), "ml0",
       "Normalizer", "norm must be MAX, L1 or L2, got 'L3'"},
      {"onehot_zeros",
       mlModel(1, mlNode("OneHotEncoder", attrInts("cats_int64s", {1}) + attrInt("zeros", 0)),
               kInt64),
       "ml0", "OneHotEncoder", "zeros=0 (an error on a category not in cats_int64s)"},
      {"scaler_count", mlModel(1, mlNode("Scaler", attrFloats("offset", {1, 2}))), "ml0",
       "Scaler", "'offset' has 2 values for 3 features: it needs 1 or one per feature"},
      {"linear_count",
       mlModel(1, mlNode("LinearRegressor", attrFloats("coefficients", {1, 2}) +
                                                attrFloats("intercepts", {0}))),
       "ml0", "LinearRegressor", "coefficients has 2 values; 1 outputs of 3 features need 3"},
      {"svm_kernel",
       mlModel(1, mlNode("SVMRegressor", attrFloats("coefficients", {1}) +
                                             attrFloats("support_vectors", {1, 2, 3}) +
                                             attrInt("n_supports", 1) + attrFloats("rho", {0}) +
                                             attrString("kernel_type", "RBF"))),
       "ml0", "SVMRegressor", "kernel RBF needs kernel_params [gamma, coef0, degree]"},
      {"svc_probabilities",
       mlModel(1, mlNode("SVMClassifier", attrFloats("coefficients", {1, 1}) +
                                              attrFloats("support_vectors", {1, 2, 3, 4, 5, 6}) +
                                              attrInts("vectors_per_class", {1, 1}) +
                                              attrInts("classlabels_ints", {0, 1}) +
                                              attrFloats("rho", {0}) + attrFloats("prob_a", {1}) +
                                              attrFloats("prob_b", {0}))),
       "ml0", "SVMClassifier", "probabilities (prob_a, prob_b) are not supported"},
  });
}

// ai.onnx.ml's operators are found for nodes of that domain only, and only up to its opset 5.
TEST(ImporterOps, ONNXMLOperatorsBelongToTheirDomain) {
  TempDir dir;
  std::string inDefault = "ir_version: 8\nopset_import { domain: \"\" version: 17 }\ngraph {\n"
                          " name: \"g\"\n node { op_type: \"Binarizer\" input: \"x\" output: \"y\" }\n" +
                          input("x", kFloat, {2, 3}) + " output { name: \"y\" }\n}\n";
  std::string err = errorOf(loadModel(dir.write("default.onnxtxt", inDefault)));
  EXPECT_NE(err.find("node 'y' (Binarizer)"), std::string::npos) << err;
  err = errorOf(loadModel(dir.write("ml6.onnxtxt", mlModel(6, mlNode("Binarizer", "")))));
  EXPECT_NE(err.find("node 'ml0' (Binarizer) in domain 'ai.onnx.ml' at opset 6"),
            std::string::npos)
      << err;
  EXPECT_EQ(errorOf(loadModel(dir.write("ml1.onnxtxt", mlModel(1, mlNode("Binarizer", ""))))),
            "");
}

} // namespace
