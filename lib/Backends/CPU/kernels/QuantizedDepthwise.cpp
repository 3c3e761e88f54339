// Depthwise IntegerConv, NCHW: groups of one input channel, any channel multiplier (output
// channel oc reads input channel oc / (K / C)), 1-D (as height 1) or 2-D, strides 1 and 2, any
// padding and dilation, up to 49 taps (QuantizedDepthwise.h: takes); int8 or uint8 input and
// filter, a per-tensor input zero point, a per-tensor or per-output-channel filter zero point.
//
// It runs as the float32 depthwise convolution does (NNDepthwise.cpp), on phase planes
// (PhasePlanes.h), a band of rows at a time: the input rows a strip of output rows reads,
// shifted by the zero point, are split into their phase planes, zero where the padding is (the
// padding holds the zero point, so its shifted value is 0); an output vector is then the sum
// over the taps of (weight - filter zero point) times the 16 values at the tap's offset.
// The values are float32 holding integers: each product is at most 255 * 255 and 49 of them
// stay below 2^24, so every partial sum is exact whatever the order, and the fused
// multiply-adds run at twice the rate of 32-bit integer multiplies. The sum is then converted
// to int32 (exactly) and the bias added modulo 2^32: the Interpreter's wrapped sum bit for bit
// (a bias small enough that the sums stay below 2^24 starts the float sums instead).
// With the Requantize after it fused in (CodeGenQuantized.cpp), those sums are requantized as
// they are stored, as kernels/Quantized.cpp does (float(sum) * scale, rounded half to even,
// plus the zero point, saturated: ember::conversions::roundAndSaturate), and only the 8-bit
// result is written: the separate pass read 4 bytes and wrote 1 an element.
// mobilenet_v2's 17 depthwise convolutions took 8.0 ms on the int16 scalar kernel
// (QuantizedInteger.cpp, 2-10 GOPS), about 1.2 ms here (one core of this machine's Xeon).
// Requantized convolutions with one output channel per input channel take the channel-lanes
// kernel below instead (lanesBlock): 16 channels a vector, no per-plane setup.
#include "DepthwiseLanes.h"
#include "PhasePlanes.h"
#include "QuantizedDepthwise.h"

#include "ember/Semantics/Conversions.h"

namespace {

using namespace phased;

typedef u32 UVec __attribute__((ext_vector_type(EMBER_VW)));
typedef signed char i8;

/// The arguments one part of the work reads. With \p requant (quantlayout::QConvRequantize) the
/// result is the Requantize of the sums by \p qScale and \p qZp to \p q, and \p out unused.
struct Depthwise {
  ConvShape s;
  bool inputSigned, filterSigned, zpPerChannel;
  const u8 *in, *filter, *inZp, *filterZp;
  const i32 *bias;
  i32 *out;
  i64 requant;
  bool outScalePerChannel, outZpPerChannel;
  u8 *q;
  const float *qScale;
  const u8 *qZp;
};

/// Byte \p i of an int8 (\p isSigned) or uint8 array, as a float.
EMBER_INLINE float byteAt(const u8 *p, i64 i, bool isSigned) {
  return isSigned ? float(i8(p[i])) : float(p[i]);
}

/// The 16 bytes from \p p on, SW apart, as floats (T: u8 or i8). Stride 2 reads 32 bytes.
template <int SW, typename T> EMBER_INLINE Vec byteVector(const u8 *p) {
  typedef T V16 __attribute__((ext_vector_type(EMBER_VW)));
  typedef T V32 __attribute__((ext_vector_type(2 * EMBER_VW)));
  if constexpr (SW == 1) {
    V16 v;
    __builtin_memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, Vec);
  } else {
    static_assert(SW == 2 && EMBER_VW == 16, "the shuffle keeps the even lanes");
    V32 v;
    __builtin_memcpy(&v, p, sizeof v);
    V16 even = __builtin_shufflevector(v, v, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                       28, 30);
    return __builtin_convertvector(even, Vec);
  }
}

/// Where one phase plane's values come from (PhasePlanes.h: PhaseRuns): rows \p rows of the
/// phase plane from row \p first on hold \p n input elements each from column \p col on, the
/// first row's from input element \p src.
struct Run {
  i64 src, first, rows, col, n;
};

/// Phase rows [from, to) of an input plane of bytes (T: u8 or i8) shifted by the zero point
/// \p zero, into a band of phase planes \p stride floats apart whose row 0 is phase row
/// \p from. With \p clear, rows in the padding are set to 0 (else they are 0 already, the band
/// always holding the same rows); in the others, the columns past the run stay 0 (they are
/// never written but with 0). Each run is written a vector at a time; the lanes past
/// it are stored as 0, on its padding or on the row after it, written later. A vector that
/// would read past the \p readable bytes from the plane's start is copied an element at a time.
template <int SW, typename T>
EMBER_INLINE void fillBand(float *set, i64 stride, const u8 *plane, const Run *runs, i64 phases,
                           i64 srcRowStep, i64 Wq, i64 readable, float zero, i64 from, i64 to,
                           bool clear) {
  static_assert(EMBER_VW == 16, "lane holds one index per float of a vector");
  const IVec lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  for (i64 k = 0; k < phases; ++k) {
    const Run &r = runs[k];
    for (i64 i = from; i < to; ++i) {
      float *d = set + k * stride + (i - from) * Wq;
      if (i < r.first || i >= r.first + r.rows) {
        if (clear)
          __builtin_memset(d, 0, (unsigned long)(Wq) * sizeof(float));
        continue;
      }
      d += r.col;
      i64 at = r.src + (i - r.first) * srcRowStep, q = 0;
      for (; q < r.n && at + (q + EMBER_VW) * SW <= readable; q += EMBER_VW)
        storev(d + q, lane < i32(r.n - q) ? byteVector<SW, T>(plane + at + q * SW) - zero
                                          : splat(0.f));
      for (; q < r.n; ++q)
        d[q] = float(T(plane[at + q * SW])) - zero;
    }
  }
}

/// Where output elements go: int32 sums (shift 2: 4 bytes an element), or their requantized
/// bytes (shift 0). A run-time choice: as a template parameter it doubled the unrolled window
/// loops, and tripled the time llc takes over this kernel (9 to 25 s here), which every model
/// with a depthwise convolution pays.
struct Out {
  u8 *p;
  i64 shift;
  Out operator+(i64 elements) const { return Out{p + (elements << shift), shift}; }
  bool requantized() const { return shift == 0; }
};

/// What one output channel's vectors start and finish with. A bias of at most kFoldedBias in
/// magnitude starts the float sums (\p accInit): every partial sum is then an integer below 2^24,
/// exact, and converted once; another is added to the int32 sum, wrapping (\p bias, else 0).
/// When the result is requantized: the Requantize's scale and zero point, and the range of its
/// kind.
struct Finish {
  float accInit;
  u32 bias;
  float scale;
  i32 zp, lo, hi;
};
constexpr i64 kFoldedBias = (i64(1) << 24) - scratch::kPhasedMaxTaps * 255 * 255;

/// U output vectors from their float sums: converted to int32 (the sums are integers), plus the
/// bias modulo 2^32 unless the sums hold it; stored as they are, or requantized to bytes by the
/// rule of kernels/Quantized.cpp and the Interpreter, whose helper it calls (LLVM vectorizes it
/// lane by lane; an int8 result is stored as its bytes). With the bias in the sums, each float
/// is float(sum) already: not converted there and back. (The result kind's bounds as constants,
/// a branch on the kind, saved a compare; LLVM then split the vectors in four.)
template <int U> EMBER_INLINE void storeSums(Out dst, const Vec *acc, const Finish &f) {
  typedef u8 BVec __attribute__((ext_vector_type(EMBER_VW)));
  auto sum = [&](int u) { return (UVec)__builtin_convertvector(acc[u], IVec) + f.bias; };
  if (!dst.requantized()) {
#pragma clang loop unroll(full)
    for (int u = 0; u < U; ++u) {
      UVec v = sum(u);
      __builtin_memcpy(dst.p + u * EMBER_VW * sizeof(i32), &v, sizeof v);
    }
    return;
  }
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u) {
    Vec x = acc[u];
    if (f.bias)
      x = __builtin_convertvector((IVec)sum(u), Vec);
    BVec b;
#pragma clang loop unroll(full)
    for (int l = 0; l < EMBER_VW; ++l)
      b[l] = u8(ember::conversions::roundAndSaturate(x[l] * f.scale, f.zp, f.lo, f.hi));
    __builtin_memcpy(dst.p + u * EMBER_VW, &b, sizeof b);
  }
}

/// The weights of one output channel as a kernel's tap loop takes them: K x K splat vectors
/// for an unrolled window (K > 0), else the taps' floats as they are.
template <int K> struct Weights {
  Vec wv[K > 0 ? K * K : 1];
  const float *w;
  explicit Weights(const float *taps) : w(taps) {
    if constexpr (K > 0) {
#pragma clang loop unroll(full)
      for (int t = 0; t < K * K; ++t)
        wv[t] = splat(taps[t]);
    }
  }
};

/// U output vectors from flat position f of a band: their sums of the taps, finished and
/// stored to \p dst (storeSums).
template <int U, int K, int S>
EMBER_INLINE void vectorsAt(Out dst, const float *set, const Phases &p, const i64 *tapOff,
                            i64 taps, const Weights<K> &w, const Finish &fin, i64 f) {
  Vec acc[U];
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u)
    acc[u] = splat(fin.accInit);
  if constexpr (K > 0)
    windowSums<U, K, S>(acc, set, p, w.wv, f);
  else
    tapSums<U>(acc, set, tapOff, taps, w.w, f);
  storeSums<U>(dst, acc, fin);
}

/// A strip's [rows][Wq] grid computed flat into \p strip, four vectors at a time (the last ones
/// past the grid land on the strip's slack, reading the band's): small planes, whose rows are
/// shorter than a vector.
template <int K, int S>
EMBER_INLINE void computeStrip(Out strip, const float *set, const Phases &p, const i64 *tapOff,
                               i64 taps, const Weights<K> &w, const Finish &fin, i64 rows) {
  static_assert(4 * EMBER_VW <= 8 * scratch::kSlack, "a strip's slack holds the last vectors");
  for (i64 f = 0; f < rows * p.Wq; f += 4 * EMBER_VW)
    vectorsAt<4, K, S>(strip + f, set, p, tapOff, taps, w, fin, f);
}

/// Rows [r0, r0 + rows) of a plane of OW columns from a strip (rows Wq apart) to \p o:
/// phased::copyStrip for int32 sums, and the same for requantized bytes, a row's last vector
/// landing past it (on the next row, written later) but past the first \p OH rows of \p o.
EMBER_INLINE void copyStripOut(Out o, const u8 *strip, i64 OH, i64 OW, i64 Wq, i64 r0,
                               i64 rows) {
  if (!o.requantized())
    return copyStrip((float *)o.p, (const float *)strip, OH, OW, Wq, r0, rows);
  const i64 planeEnd = OH * OW;
  for (i64 r = 0; r < rows; ++r) {
    const u8 *src = strip + r * Wq;
    u8 *dst = o.p + (r0 + r) * OW;
    for (i64 ox = 0; ox < OW; ox += EMBER_VW) {
      if ((r0 + r) * OW + ox + EMBER_VW > planeEnd) {
        for (i64 j = ox; j < OW; ++j)
          dst[j] = src[j];
      } else {
        __builtin_memcpy(dst + ox, src + ox, EMBER_VW);
      }
    }
  }
}

/// A strip's rows computed straight into the output \p o (row 0 of the strip), a row of OW
/// outputs a few vectors at a time: planes with rows of a vector or more, where copying a
/// strip out cost as much as computing it. A row's last vector stores past its end, on the
/// next row (written later) or, within \p limit elements of \p o, on the part's next planes;
/// the one that would pass the limit is stored in part.
template <int K, int S>
EMBER_INLINE void computeRows(Out o, i64 limit, const float *set, const Phases &p,
                              const i64 *tapOff, i64 taps, const Weights<K> &w, const Finish &fin,
                              i64 rows, i64 OW) {
  for (i64 r = 0; r < rows; ++r)
    for (i64 ox = 0; ox < OW; ox += 4 * EMBER_VW) {
      i64 at = r * OW + ox, f = r * p.Wq + ox, n = minI(4, (OW - ox + EMBER_VW - 1) / EMBER_VW);
      i32 tail[4 * EMBER_VW];
      bool inPart = at + n * EMBER_VW <= limit;
      Out dst = inPart ? o + at : Out{(u8 *)tail, o.shift};
      switch (n) {
      case 4: vectorsAt<4, K, S>(dst, set, p, tapOff, taps, w, fin, f); break;
      case 3: vectorsAt<3, K, S>(dst, set, p, tapOff, taps, w, fin, f); break;
      case 2: vectorsAt<2, K, S>(dst, set, p, tapOff, taps, w, fin, f); break;
      default: vectorsAt<1, K, S>(dst, set, p, tapOff, taps, w, fin, f); break;
      }
      if (!inPart)
        for (i64 j = 0; j < (OW - ox) << o.shift; ++j)
          (o + at).p[j] = ((const u8 *)tail)[j];
    }
}

/// One strip of output rows: rows [r0, r0 + rows) of output plane bk, channel oc of image b.
struct Strip {
  i64 bk, b, oc, r0, rows;
};

/// Output planes [begin, end) of the N x K, a strip of rows at a time: the band of phase rows
/// the strip reads filled from the input plane, the strip computed, and copied out. A band is
/// a few KB where a whole phase set of a 112 x 112 plane is 55 KB: the rows a strip reads were
/// just converted, still in L1 (a band's last rows are filled again as the next band's first).
/// The three steps run as a pipeline over two bands and two strips: the band of strip i + 1 is
/// filled, then strip i computed, then strip i - 1 copied out. A load that straddles stores
/// still in the store buffer waits for them to reach the cache; reading a band or a strip
/// right after writing it (unaligned, at other offsets) did that on most of a small plane's
/// loads, and took a third of the time of mobilenet_v2's 7 x 7 and 14 x 14 planes.
template <int K, int S, int SW, typename T>
EMBER_INLINE void depthwisePlanes(const Depthwise &a, float *mem, i64 begin, i64 end) {
  const ConvShape &s = a.s;
  if (begin >= end)
    return;
  const Out out = a.requant ? Out{a.q, 0} : Out{(u8 *)a.out, 2};
  const Window win{s.H, s.W, s.OH, s.OW, s.KH, s.KW, s.SH, s.SW, s.PH, s.PW, s.DH, s.DW};
  const Phases whole = phasesFor(win);
  const i64 R = qdepthwise::stripRows(s.OH, s.SH, s.SW, whole.Wq);
  const i64 planeSize = s.H * s.W, taps = s.KH * s.KW, outPlane = s.OH * s.OW;
  const i64 reach = qdepthwise::reach(s.KH, s.SH, s.DH);
  const i64 bandStride = qdepthwise::bandStride(s.OH, s.KH, s.SH, s.SW, s.DH, whole.Wq);
  const Phases p{R + reach, whole.Wq, bandStride, s.SH * s.SW * bandStride};
  // Two bands, then two strips of results (copyStrip moves int32 sums as 4-byte lanes, bits
  // unchanged).
  float *bands[2] = {mem, mem + qdepthwise::bandFloats(p.set)};
  Out strips[2] = {Out{(u8 *)(mem + 2 * qdepthwise::bandFloats(p.set)), out.shift},
                   Out{(u8 *)(mem + 2 * qdepthwise::bandFloats(p.set) +
                              qdepthwise::stripFloats(R, p.Wq)),
                       out.shift}};
  padPhases(bands[0], p, 0.f);
  padPhases(bands[1], p, 0.f);
  PhaseRuns wholeRuns[4];
  phaseRuns(wholeRuns, win, whole);
  Run runs[4];
  for (i64 k = 0; k < s.SH * SW; ++k) {
    const PhaseRuns &r = wholeRuns[k];
    i64 at = r.dst - k * whole.stride;
    runs[k] = Run{r.src, at / whole.Wq, r.rows, at % whole.Wq, r.n};
  }
  i64 tapOff[scratch::kPhasedMaxTaps];
  tapOffsets(tapOff, win, p);
  const float zx = byteAt(a.inZp, 0, a.inputSigned);
  const i64 perGroup = s.K / s.G;
  // Padding rows of a band hold data from other rows when a plane takes several bands.
  const bool clear = R < s.OH;
  auto fill = [&](const Strip &t, float *band) {
    const i64 inPlane = t.b * s.C + t.oc / perGroup;
    // Vectors may read on past the plane, up to the end of the input.
    fillBand<SW, T>(band, bandStride, a.in + inPlane * planeSize, runs, s.SH * SW, s.SH * s.W,
                    p.Wq, (s.N * s.C - inPlane) * planeSize, zx, t.r0, t.r0 + t.rows + reach,
                    clear);
  };
  // A vector past the plane lands on this part's next planes, written later: only the part's
  // last plane stores its last row in part.
  auto copy = [&](const Strip &t, Out strip) {
    copyStripOut(out + t.bk * outPlane, strip.p, (end - t.bk) * s.OH, s.OW, p.Wq, t.r0, t.rows);
  };
  // The strip after \p t, if any: plane bk is output channel bk % K of image bk / K.
  auto next = [&](Strip t) {
    t.r0 += R;
    if (t.r0 >= s.OH) {
      t.r0 = 0;
      ++t.bk;
      t.oc = t.oc + 1 == s.K ? (++t.b, 0) : t.oc + 1;
    }
    t.rows = minI(R, s.OH - t.r0);
    return t;
  };
  // Rows of a vector or more go straight to the output; the grid of shorter ones is computed
  // flat, most of its vectors full, and copied out. (On one core of this machine's Xeon,
  // mobilenet_v2's [1,32,112,112] 3x3: 160 to 128 us; [1,144,56,56] 3x3: 207 to 172 us.)
  const bool direct = s.OW >= EMBER_VW;
  float wf[scratch::kPhasedMaxTaps];
  i64 weightsOf = -1; // the output channel wf holds
  Strip cur{begin, begin / s.K, begin % s.K, 0, minI(R, s.OH)}, prev{};
  fill(cur, bands[0]);
  for (i64 i = 0; cur.bk < end; ++i, prev = cur, cur = next(cur)) {
    Strip after = next(cur);
    if (after.bk < end)
      fill(after, bands[(i + 1) & 1]);
    if (cur.oc != weightsOf) {
      weightsOf = cur.oc;
      float zw = byteAt(a.filterZp, a.zpPerChannel ? cur.oc : 0, a.filterSigned);
      for (i64 t = 0; t < taps; ++t)
        wf[t] = byteAt(a.filter, cur.oc * taps + t, a.filterSigned) - zw;
    }
    const Weights<K> w(wf);
    i32 bias = a.bias[cur.oc];
    bool folded = bias >= -kFoldedBias && bias <= kFoldedBias;
    Finish fin{folded ? float(bias) : 0.f, folded ? 0u : u32(bias), 0.f, 0, 0, 0};
    if (a.requant) {
      bool outSigned = a.requant == quantlayout::kQcRequantizeInt8;
      u8 z = a.qZp[a.outZpPerChannel ? cur.oc : 0];
      fin.scale = a.qScale[a.outScalePerChannel ? cur.oc : 0];
      fin.zp = outSigned ? i32(i8(z)) : i32(z);
      fin.lo = outSigned ? -128 : 0;
      fin.hi = outSigned ? 127 : 255;
    }
    if (direct) {
      i64 at = cur.bk * outPlane + cur.r0 * s.OW;
      computeRows<K, S>(out + at, end * outPlane - at, bands[i & 1], p, tapOff, taps, w, fin,
                        cur.rows, s.OW);
      continue;
    }
    computeStrip<K, S>(strips[i & 1], bands[i & 1], p, tapOff, taps, w, fin, cur.rows);
    if (i > 0)
      copy(prev, strips[(i - 1) & 1]);
    if (after.bk >= end)
      copy(cur, strips[i & 1]);
  }
}

/// depthwisePlanes for a uint8 or an int8 input.
template <int K, int S, int SW>
EMBER_INLINE void depthwisePlanes(const Depthwise &a, float *mem, i64 begin, i64 end) {
  if (a.inputSigned)
    depthwisePlanes<K, S, SW, i8>(a, mem, begin, end);
  else
    depthwisePlanes<K, S, SW, u8>(a, mem, begin, end);
}

/// The channel-lanes kernel, for requantized convolutions with one output channel per input
/// channel (mobilenet's): 16 channels at a time, each output position one vector of 16 lanes,
/// one a channel. Small planes are where the phase-plane kernel above is slow: a 7 x 7 plane is
/// 4 vectors of outputs and paid its band, strip and weight setup for each (about 5 cycles an
/// output here). With channels in lanes a tap's weights are one vector for every position,
/// and there are no phase planes: output (oy, ox) reads the vector at position
/// (oy SH + ky DH, ox SW + kx DW) of the padded input. The price is two transposes: each input
/// row's 16 planes' bytes into positions of 16 lanes (16 x 16 bytes at a time), and the
/// requantized bytes back into the 16 output planes, both in byte shuffles.

typedef u8 Bytes16 __attribute__((ext_vector_type(16)));
using qdepthwise::kLanes;

/// 16 bytes of kind T (u8 or i8) as floats.
template <typename T> EMBER_INLINE Vec bytesToFloats(Bytes16 b) {
  typedef T T16 __attribute__((ext_vector_type(16)));
  return __builtin_convertvector((T16)b, Vec);
}

/// One block of channels: its weights, bias and requantization a vector each, lane l for
/// channel c0 + l (lanes past the channels repeat the last one, and are not stored). The
/// zero points and bounds as floats: roundAndSaturateLanes's operands. When every lane's bias
/// is at most kFoldedBias (as Finish's), the sums start from it in float (\p foldedBias),
/// exact, and skip the round trip through int32 (a third of the requantization's
/// instructions, which weigh against a 3x3's 9 multiply-adds).
struct LaneBlock {
  Vec w[scratch::kPhasedMaxTaps];
  IVec bias;
  Vec foldedBias;
  bool folded;
  Vec scale, zp, lo, hi;
};

/// U output positions from \p ox on of an output row (its window's rows in the ring at
/// \p rowOff, a ky each), staged at \p stage: the taps' sums in float (exact, as the
/// phase-plane kernel's), plus the bias as int32 modulo 2^32, requantized by the rule of
/// kernels/Quantized.cpp and the Interpreter (roundAndSaturateLanes) to 16 bytes each.
template <int U, int K, int S>
EMBER_INLINE void lanePositions(u8 *stage, const float *ring, const i64 *rowOff,
                                const LaneBlock &blk, const ConvShape &s, i64 ox) {
  Vec acc[U];
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u)
    acc[u] = blk.foldedBias;
  lanes::tapSums<U, K, S>(acc, ring, rowOff, blk.w, s, ox);
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u) {
    Vec x = acc[u];
    if (!blk.folded)
      x = __builtin_convertvector(
          (IVec)((UVec)__builtin_convertvector(acc[u], IVec) + (UVec)blk.bias), Vec);
    Bytes16 q = __builtin_convertvector(
        __builtin_convertvector(roundAndSaturateLanes(x * blk.scale, blk.zp, blk.lo, blk.hi),
                                IVec),
        Bytes16);
    __builtin_memcpy(stage + (ox + u) * kLanes, &q, sizeof q);
  }
}

/// Output planes of channels [c0, c0 + 16) of image \p b (or up to the last channel): padded
/// input rows transposed into \p ring as the windows reach them, each output row computed into
/// \p stage, and the staged positions transposed out to the planes 16 at a time.
template <int K, int S, typename T>
EMBER_INLINE void lanesBlock(const Depthwise &a, float *ring, u8 *stage, i64 b, i64 c0) {
  using namespace qdepthwise;
  const ConvShape &s = a.s;
  const i64 n = minI(kLanes, s.C - c0), taps = s.KH * s.KW, HW = s.H * s.W, OHW = s.OH * s.OW;
  const i64 R = lanesRingRows(s.KH, s.DH), cols = lanesRingCols(s.OW, s.KW, s.SW, s.DW);
  const i64 rowFloats = cols * kLanes;
  LaneBlock blk;
  const u8 *planes[kLanes];
  const bool outSigned = a.requant == quantlayout::kQcRequantizeInt8;
  blk.lo = splat(outSigned ? -128.f : 0.f);
  blk.hi = splat(outSigned ? 127.f : 255.f);
  Vec zw;
  blk.folded = true;
  for (i64 l = 0; l < kLanes; ++l) {
    const i64 c = c0 + minI(l, n - 1);
    planes[l] = a.in + (b * s.C + c) * HW;
    zw[l] = byteAt(a.filterZp, a.zpPerChannel ? c : 0, a.filterSigned);
    blk.bias[l] = a.bias[c];
    blk.folded &= a.bias[c] >= -kFoldedBias && a.bias[c] <= kFoldedBias;
    u8 z = a.qZp[a.outZpPerChannel ? c : 0];
    blk.zp[l] = outSigned ? float(i8(z)) : float(z);
    blk.scale[l] = a.qScale[a.outScalePerChannel ? c : 0];
  }
  blk.foldedBias = blk.folded ? __builtin_convertvector(blk.bias, Vec) : splat(0.f);
  // The filters' [channel][tap] bytes, 16 taps of 16 channels at a time, transposed to a vector
  // a tap (element by element, the weights took a tenth of a 7 x 7 plane's time).
  const i64 filterBytes = s.K * taps;
  for (i64 t0 = 0; t0 < taps; t0 += kLanes) {
    Bytes16 r[kLanes];
    for (i64 l = 0; l < kLanes; ++l) {
      const i64 at = (c0 + minI(l, n - 1)) * taps + t0;
      if (at + kLanes <= filterBytes)
        __builtin_memcpy(&r[l], a.filter + at, sizeof(Bytes16));
      else
        for (i64 j = 0; j < kLanes; ++j)
          r[l][j] = at + j < filterBytes ? a.filter[at + j] : 0;
    }
    transpose16x16(r);
    for (i64 t = t0; t < minI(taps, t0 + kLanes); ++t)
      blk.w[t] = (a.filterSigned ? bytesToFloats<i8>(r[t - t0]) : bytesToFloats<u8>(r[t - t0])) -
                 zw;
  }
  // Bytes that 16-byte loads may read from the last lane's plane on: up to the input's end.
  const i64 readable = (s.N * s.C - (b * s.C + c0 + n - 1)) * HW;
  const float zx = byteAt(a.inZp, 0, a.inputSigned);
  // Padded row pr into ring slot pr % R: zero in the padding (which holds the zero point).
  auto fill = [&](i64 pr) {
    lanes::fillRingRow(ring, R, cols, s, pr, [&](float *dst, i64 at, i64 m) {
      Bytes16 r[kLanes];
      if (at + kLanes <= readable) {
#pragma clang loop unroll(full)
        for (int l = 0; l < kLanes; ++l)
          __builtin_memcpy(&r[l], planes[l] + at, sizeof(Bytes16));
      } else {
        for (int l = 0; l < kLanes; ++l)
          for (int j = 0; j < kLanes; ++j)
            r[l][j] = j < m ? planes[l][at + j] : 0;
      }
      transpose16x16(r);
      for (i64 j = 0; j < m; ++j)
        storev(dst + j * kLanes, bytesToFloats<T>(r[j]) - zx);
    });
  };
  auto computeRow = [&](u8 *rowStage, const i64 *rowOff) {
    i64 ox = 0;
    for (; ox + 4 <= s.OW; ox += 4)
      lanePositions<4, K, S>(rowStage, ring, rowOff, blk, s, ox);
    for (; ox < s.OW; ++ox)
      lanePositions<1, K, S>(rowStage, ring, rowOff, blk, s, ox);
  };
  // The first \p m staged positions (at most 16) out to output positions [done, done + m).
  i64 done = 0;
  auto flush = [&](const u8 *from, i64 m) {
    Bytes16 r[kLanes];
#pragma clang loop unroll(full)
    for (int j = 0; j < kLanes; ++j)
      __builtin_memcpy(&r[j], from + j * kLanes, sizeof(Bytes16));
    transpose16x16(r);
    for (i64 l = 0; l < n; ++l) {
      u8 *dst = a.q + (b * s.C + c0 + l) * OHW + done;
      if (m == kLanes)
        __builtin_memcpy(dst, &r[l], sizeof(Bytes16));
      else
        for (i64 j = 0; j < m; ++j)
          dst[j] = r[l][j];
    }
    done += m;
  };
  lanes::blockRows(s, R, rowFloats, stage, fill, computeRow, flush);
}

/// lanesBlock over the blocks [begin, end) of 16 channels of the N images.
template <int K, int S>
EMBER_INLINE void lanesBlocks(const Depthwise &a, float *mem, i64 begin, i64 end) {
  using namespace qdepthwise;
  const ConvShape &s = a.s;
  const i64 blocks = (s.C + kLanes - 1) / kLanes;
  float *ring = mem;
  u8 *stage = (u8 *)(mem + scratch::roundUp16(lanesRingRows(s.KH, s.DH) *
                                              lanesRingCols(s.OW, s.KW, s.SW, s.DW) * kLanes));
  for (i64 i = begin; i < end; ++i) {
    if (a.inputSigned)
      lanesBlock<K, S, i8>(a, ring, stage, i / blocks, i % blocks * kLanes);
    else
      lanesBlock<K, S, u8>(a, ring, stage, i / blocks, i % blocks * kLanes);
  }
}

/// The output planes split over \p team (null: one thread), each part with its own phase band
/// and strip in scratch.
EMBER_INLINE void integerDepthwise(const Depthwise &a, const i64 *params, float *scratchMem,
                                   parallel::Team *team) {
  const ConvShape &s = a.s;
  i64 perPart = qdepthwise::partFloats(params);
  bool plain = s.SH == s.SW && s.DH == 1 && s.DW == 1;
  // Channel lanes for every requantized convolution of one channel a group. On mobilenet_v2's
  // 56 x 56 and 112 x 112 planes of stride 1 the machines disagree by under 10%, in the model:
  // the phase planes ran faster on a Xeon (0.175 against 0.19 ms, 0.215 against 0.23), the
  // lanes on a Zen 5 (0.145 against 0.175, 0.124 against 0.138); one kernel serves both.
  if (a.requant && s.K == s.C && s.G == s.C) {
    const i64 blocks = s.N * ((s.C + qdepthwise::kLanes - 1) / qdepthwise::kLanes);
    i64 parts = depthwiseParts(team, s, blocks);
    parallel::forEachPart(team, parts, [&](i64 part) {
      i64 begin, end;
      parallel::partRange(blocks, parts, 1, part, begin, end);
      float *mem = scratchMem + part * perPart;
      if (plain && s.KH == 3 && s.KW == 3 && s.SW == 1)
        lanesBlocks<3, 1>(a, mem, begin, end);
      else if (plain && s.KH == 3 && s.KW == 3 && s.SW == 2)
        lanesBlocks<3, 2>(a, mem, begin, end);
      else
        lanesBlocks<0, 0>(a, mem, begin, end);
    });
    return;
  }
  i64 parts = depthwiseParts(team, s, s.N * s.K);
  parallel::forEachPart(team, parts, [&](i64 part) {
    i64 begin, end;
    parallel::partRange(s.N * s.K, parts, 1, part, begin, end);
    float *mem = scratchMem + part * perPart;
    // The common windows unrolled, any other from the taps' offsets.
    if (plain && s.KH == 3 && s.KW == 3 && s.SW == 1)
      depthwisePlanes<3, 1, 1>(a, mem, begin, end);
    else if (plain && s.KH == 3 && s.KW == 3 && s.SW == 2)
      depthwisePlanes<3, 2, 2>(a, mem, begin, end);
    else if (plain && s.KH == 5 && s.KW == 5 && s.SW == 1)
      depthwisePlanes<5, 1, 1>(a, mem, begin, end);
    else if (plain && s.KH == 5 && s.KW == 5 && s.SW == 2)
      depthwisePlanes<5, 2, 2>(a, mem, begin, end);
    else if (s.SW == 1)
      depthwisePlanes<0, 0, 1>(a, mem, begin, end);
    else
      depthwisePlanes<0, 0, 2>(a, mem, begin, end);
  });
}

} // namespace

/// ember_integer_depthwise_<row> for each row of Variants.def (the float32 kernels' rows: the
/// arithmetic is float32). Parameters: QuantizedDepthwise.h; the zero points are of their
/// operands' kinds, the filter's one or one per output channel. With params[kQdwRequantize],
/// the result is the Requantize of the sums by \p qScale and \p qZp (per tensor or per output
/// channel) to \p q, and \p out is not written.
#define INTEGER_DEPTHWISE_ENTRY(SUFFIX, FEATURES)                                                  \
  EMBER_KERNEL EMBER_NOINLINE EMBER_VARIANT_TARGET(FEATURES) void                                 \
      ember_integer_depthwise_##SUFFIX(i32 *out, const u8 *in, const u8 *filter, const i32 *bias, \
                                       const u8 *inZp, const u8 *filterZp, const i64 *params,    \
                                       float *scratchMem, parallel::Team *team, u8 *q,            \
                                       const float *qScale, const u8 *qZp) {                      \
    using namespace qdepthwise;                                                                    \
    Depthwise a{readShape(params + kQdwShape),                                                     \
                params[kQdwInputSigned] != 0,                                                      \
                params[kQdwFilterSigned] != 0,                                                     \
                params[kQdwFilterZpPerChannel] != 0,                                               \
                in,                                                                                \
                filter,                                                                            \
                inZp,                                                                              \
                filterZp,                                                                          \
                bias,                                                                              \
                out,                                                                               \
                params[kQdwRequantize],                                                            \
                params[kQdwOutScalePerChannel] != 0,                                               \
                params[kQdwOutZpPerChannel] != 0,                                                  \
                q,                                                                                 \
                qScale,                                                                            \
                qZp};                                                                              \
    integerDepthwise(a, params, scratchMem, team);                                                 \
  }

#define KERNEL_VARIANT(NAME, ARCH, FEATURES, MR, NV, DOC)                                         \
  EMBER_ON_ARCH_##ARCH(INTEGER_DEPTHWISE_ENTRY(NAME, FEATURES))
#include "Variants.def"
#undef INTEGER_DEPTHWISE_ENTRY
