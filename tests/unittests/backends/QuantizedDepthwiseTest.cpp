// Depthwise IntegerConv (one input channel a group) on every backend against the Interpreter,
// bit for bit: the CPU backend's depthwise kernel (kernels/QuantizedDepthwise.cpp) with uint8
// and int8 inputs and filters, per-tensor and per-channel filter zero points, a nonzero input
// zero point under padding, strides 1 and 2, dilations, channel multipliers, 1-D, odd widths,
// channel counts off the vector width, two images; values at the 8-bit extremes so that every
// tap is as large as it can be and the bias wraps the sum around 32 bits, or is as large as the
// kernel adds in float32; in each float32 kernel variant this machine runs and split over
// threads. Windows it does not take (stride 3) check the fallback still agrees. With the Requantize after it, which the kernel then does as
// it stores the sums: per-tensor and per-channel scales and zero points, to uint8 and int8 (on
// the channel-lanes kernel when each input channel has one output channel, else the phase-plane
// one).
#include "BackendTestUtils.h"

#include <random>

using namespace ember;
using namespace ember::test;

namespace {

struct DepthwiseCase {
  std::vector<dim_t> x; // [N, C, spatial...]
  int64_t multiplier;   // output channels per input channel
  std::vector<int64_t> kernel, strides, pads, dilations;
  ElemKind xKind, wKind;
  bool perChannel; // filter zero point per output channel
  std::vector<double> zx, zw;
};

/// \p n values of 8-bit kind \p k: its extremes first, then pseudo-random over its range.
std::vector<double> byteValues(ElemKind k, size_t n, unsigned seed) {
  double lo = k == ElemKind::Int8 ? -128 : 0;
  std::vector<double> v{lo, lo + 255, lo + 255, lo, 0};
  std::mt19937 gen(seed);
  while (v.size() < n)
    v.push_back(lo + double(gen() % 256));
  v.resize(n);
  return v;
}

/// The case's graph, and inputs over the kinds' whole ranges with biases at int32's extremes.
std::pair<GraphBuilder, RunOptions> depthwise(const DepthwiseCase &p) {
  dim_t C = p.x[1], cout = C * dim_t(p.multiplier);
  std::vector<dim_t> wd{cout, 1};
  wd.insert(wd.end(), p.kernel.begin(), p.kernel.end());
  GraphBuilder build = [p, wd, C, cout](Module &M, Function *F) -> std::vector<NodeValue> {
    Placeholder *x = input(M, p.x, p.xKind, "x");
    Placeholder *w = input(M, wd, p.wKind, "w");
    Placeholder *b = input(M, {cout}, ElemKind::Int32, "b");
    std::vector<dim_t> ones(p.x.size(), 1), zwDims = ones;
    if (p.perChannel)
      zwDims[0] = cout;
    Constant *zx = M.createConstant(tensorOf(p.xKind, ones, p.zx), "zx");
    Constant *zw = M.createConstant(tensorOf(p.wKind, zwDims, p.zw), "zw");
    return {node(F, NodeKind::IntegerConv, {x, w, b, zx, zw},
                 convAttrs(p.kernel, p.strides, p.pads, p.dilations, int64_t(C)))};
  };
  RunOptions o = dceOnly();
  o.inputs.emplace("x", tensorOf(p.xKind, p.x, byteValues(p.xKind, dimsProduct(p.x), 1)));
  o.inputs.emplace("w", tensorOf(p.wKind, wd, byteValues(p.wKind, dimsProduct(wd), 2)));
  // Then biases that start the kernel's float sums (at most 2^24 - 49 * 255 * 255 in
  // magnitude), the first at that bound, and one just past it.
  std::vector<double> bias{2147483647.0, -2147483648.0, 0,       -2147483000.0,
                           2147480000.0, 13590991.0,    -70000.0, -13590992.0};
  std::mt19937 gen(3);
  while (bias.size() < cout)
    bias.push_back(double(int32_t(gen())));
  bias.resize(cout);
  o.inputs.emplace("b", tensorOf(ElemKind::Int32, {cout}, bias));
  return {build, std::move(o)};
}

class QuantizedDepthwise : public ::testing::TestWithParam<DepthwiseCase> {};

TEST_P(QuantizedDepthwise, MatchesInterpreter) {
  auto [build, opts] = depthwise(GetParam());
  // The variants of kernels/Variants.def: the host's best row, AVX2 and the x86-64 baseline.
  for (const char *cpu : {"", "haswell", "x86-64"}) {
    SCOPED_TRACE(std::string("cpu '") + cpu + "'");
#if !defined(__x86_64__)
    if (*cpu)
      continue;
#endif
    RunOptions o = dceOnly();
    for (const auto &[name, t] : opts.inputs)
      o.inputs.emplace(name, t.clone());
    o.backend.cpu = cpu;
    expectBackendsAgree(build, o);
  }
}

const ElemKind u8 = ElemKind::UInt8, i8 = ElemKind::Int8;

INSTANTIATE_TEST_SUITE_P(
    Shapes, QuantizedDepthwise,
    ::testing::Values(
        // 3x3 stride 1 pad 1, uint8 input with a zero point far from 0 under the padding, int8
        // filters with per-channel zero points up to 255 away from the values.
        DepthwiseCase{{1, 19, 9, 11}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, u8, i8, true,
                      {200}, {127, -128, 0, 5, -7}},
        // 3x3 stride 2 (odd sizes), int8 both, per-tensor filter zero point, two images.
        DepthwiseCase{{2, 21, 13, 15}, 1, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, i8, i8, false,
                      {-128}, {127}},
        // Dilation 2, uint8 filters; mobilenet's 7x7 planes with many channels.
        DepthwiseCase{{1, 17, 10, 9}, 1, {3, 3}, {1, 1}, {2, 2, 2, 2}, {2, 2}, u8, u8, true,
                      {0}, {255, 0, 128}},
        DepthwiseCase{{1, 40, 7, 7}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, u8, i8, true,
                      {3}, {0, -1, 1}},
        // 5x5 stride 2 and 7x7 (49 taps at 255 * 255 each: the largest exact sums).
        DepthwiseCase{{1, 18, 15, 17}, 1, {5, 5}, {2, 2}, {2, 2, 2, 2}, {1, 1}, i8, u8, false,
                      {127}, {255}},
        DepthwiseCase{{1, 5, 12, 11}, 1, {7, 7}, {1, 1}, {3, 3, 3, 3}, {1, 1}, u8, i8, true,
                      {0}, {127, -128}},
        // Channel multiplier 3, uneven window, strides and pads per dim.
        DepthwiseCase{{2, 6, 8, 9}, 3, {3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 2}, u8, i8, true,
                      {128}, {1, -1, 0, 127, -128, 2}},
        // 1-D: stride 2, and dilation 3 with a multiplier of 2.
        DepthwiseCase{{2, 20, 37}, 1, {5}, {2}, {2, 2}, {1}, u8, i8, true, {7}, {-128, 127, 1}},
        DepthwiseCase{{1, 9, 30}, 2, {3}, {1}, {3, 1}, {3}, i8, u8, false, {-5}, {200}},
        // Tall planes, in several strips: rows shorter than a vector (computed flat) and
        // longer (straight to the output).
        DepthwiseCase{{1, 3, 300, 10}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, u8, i8, true,
                      {9}, {-2, 7, 127}},
        DepthwiseCase{{1, 5, 150, 33}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, i8, i8, false,
                      {100}, {-100}},
        // Stride 3: the generic kernel.
        DepthwiseCase{{1, 7, 11, 11}, 1, {3, 3}, {3, 3}, {1, 1, 1, 1}, {1, 1}, u8, i8, true,
                      {100}, {3, 4}}));

TEST(QuantizedDepthwiseThreads, SplitOverThreadsAgrees) {
  // Big enough that -threads=2 splits the output planes (scratch::kMinFlopsPerPart a part):
  // stride 1, and stride 2 with a channel multiplier (parts that begin mid-channel).
  for (DepthwiseCase c : {DepthwiseCase{{2, 48, 40, 41}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1},
                                        {1, 1}, u8, i8, true, {128}, {3, -4, 127}},
                          DepthwiseCase{{1, 35, 81, 79}, 2, {3, 3}, {2, 2}, {1, 1, 1, 1},
                                        {1, 1}, i8, i8, false, {-3}, {-128}}}) {
    auto [build, opts] = depthwise(c);
    opts.backend.threads = 2;
    expectBackendsAgree(build, opts);
  }
}

TEST(QuantizedDepthwiseRequantized, MatchesInterpreter) {
  // The CPU backend requantizes a depthwise IntegerConv's sums as it stores them when the
  // Requantize right after it is its only reader. Each case another path of the kernel: small
  // rows (computed into a strip, then copied; also in the x86-64 baseline variant, which has no
  // vector rounding instruction), stride 2 and two images, a plane in several strips, 1-D with
  // any taps, and rows of a vector or more (stored straight) split over threads. The
  // biases stay small enough that most results fall inside the 8-bit range (the scales, powers
  // of two among them, make ties to round to even); the first two wrap the sum and saturate.
  // The result is a model output, or read by a DequantizeLinear (the memory plan then may place
  // it over what the convolution reads, and the kernel writes it to its scratch first).
  struct Requantized {
    DepthwiseCase c;
    bool toInt8, dequantized;
    int threads;
    const char *cpu = "";
  };
  const DepthwiseCase small{{1, 19, 9, 11}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, u8, i8,
                            true, {200}, {127, -128, 0, 5, -7}};
  for (const Requantized &r : {
           Requantized{small, false, false, 1},
#if defined(__x86_64__)
           Requantized{small, false, false, 1, "x86-64"},
#endif
           Requantized{{{2, 21, 13, 15}, 1, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, i8, i8, false,
                        {-128}, {127}},
                       true, true, 1},
           Requantized{{{1, 3, 300, 10}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, u8, i8, true,
                        {9}, {-2, 7, 127}},
                       false, true, 1},
           Requantized{{{1, 9, 30}, 2, {3}, {1}, {3, 1}, {3}, i8, u8, false, {-5}, {200}}, true,
                       false, 1},
           Requantized{{{2, 48, 40, 41}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, u8, i8, true,
                        {128}, {3, -4, 127}},
                       true, true, 2},
           // The channel-lanes kernel's other windows: 16 channels a vector, the last block
           // partly full; mobilenet's 7 x 7 planes; 5 x 5 with stride 2 and dilation 2 and
           // 7 x 7 (weights past 16 taps, transposed 16 at a time); 1-D; int8 in and out.
           Requantized{{{1, 40, 7, 7}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, u8, i8, true,
                        {3}, {0, -1, 1}},
                       false, true, 1},
           Requantized{{{2, 18, 15, 17}, 1, {5, 5}, {2, 2}, {4, 4, 3, 3}, {2, 2}, i8, u8, false,
                        {127}, {255}},
                       true, false, 1},
           Requantized{{{1, 33, 12, 11}, 1, {7, 7}, {1, 1}, {3, 3, 3, 3}, {1, 1}, u8, i8, true,
                        {0}, {127, -128}},
                       false, false, 1},
           Requantized{{{2, 20, 37}, 1, {5}, {2}, {2, 2}, {1}, u8, i8, true, {7}, {-128, 127, 1}},
                       true, true, 1},
           // Rows of several 16-position chunks: stride 2 on 41 columns, stride 1 on 31, and
           // on 56 (mobilenet_v2's width, its last chunk half full).
           Requantized{{{2, 20, 30, 41}, 1, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, u8, i8, true,
                        {128}, {3, -4, 127}},
                       false, true, 1},
           Requantized{{{1, 17, 9, 31}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, i8, i8, false,
                        {-1}, {5}},
                       true, false, 1},
           Requantized{{{1, 18, 6, 56}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, u8, i8, true,
                        {128}, {3, -4, 127}},
                       false, true, 1}}) {
    const DepthwiseCase &c = r.c;
    SCOPED_TRACE(::testing::Message() << "input " << ::testing::PrintToString(c.x)
                                      << (r.toInt8 ? ", to int8" : ", to uint8")
                                      << (r.dequantized ? ", dequantized" : "") << ", cpu '"
                                      << r.cpu << "'");
    auto [conv, opts] = depthwise(c);
    dim_t cout = c.x[1] * dim_t(c.multiplier);
    std::vector<double> bias{2147483647.0, -2147483648.0};
    std::mt19937 gen(4);
    while (bias.size() < cout)
      bias.push_back(double(int32_t(gen() % 200001) - 100000));
    opts.inputs.erase("b");
    opts.inputs.emplace("b", tensorOf(ElemKind::Int32, {cout}, bias));
    opts.backend.threads = r.threads;
    opts.backend.cpu = r.cpu;
    GraphBuilder build = [=, conv = conv](Module &M, Function *F) -> std::vector<NodeValue> {
      std::vector<dim_t> ones(c.x.size(), 1), perChannel = ones;
      perChannel[1] = cout;
      // To int8: a per-tensor scale and per-channel zero points; to uint8 the other way round.
      Constant *scale =
          r.toInt8 ? M.createConstant(tensorOf(ElemKind::Float32, ones, {1.0 / 1024}), "scale")
                   : M.createConstant(tensorOf(ElemKind::Float32, perChannel,
                                               {0.5, 1.0 / 4096, 3.7e-4, 1e-3, 2.5e-4, 7e-8}),
                                      "scales");
      Constant *zp = r.toInt8 ? M.createConstant(tensorOf(i8, perChannel, {-128, 0, 127, -3, 5}),
                                                 "zi")
                              : M.createConstant(tensorOf(u8, ones, {37}), "zu");
      Node *rq = node(F, NodeKind::Requantize, {conv(M, F)[0], scale, zp});
      if (!r.dequantized)
        return {rq};
      Constant *one = M.createConstant(tensorOf(ElemKind::Float32, ones, {1.0}), "one");
      return {node(F, NodeKind::DequantizeLinear, {rq, one, zp})};
    };
    // The dequantized bytes are integers as floats: exactly too.
    expectBackendsAgree(build, opts, 0, 0);
  }
}

} // namespace
