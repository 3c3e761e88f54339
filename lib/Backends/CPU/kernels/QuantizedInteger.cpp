// IntegerMatMul and IntegerConv on operands already shifted by their zero points into int16
// scratch (ember_shift_zero_point_*, kernels/Quantized.cpp). Products of two shifted values fit
// in int32 (|v| <= 255); the sums accumulate in uint32, i.e. modulo 2^32, which is exactly the
// Interpreter's int64 sum truncated to 32 bits (the wrap-around ONNX allows), without signed
// overflow. Inner loops run along a contiguous output row so LLVM vectorizes them.
#include "QuantizedLayout.h"
#include "Types.h"

using namespace quantlayout;

/// out[b] = a[aOffsets[b]] (M x K) x b[bOffsets[b]] (K x N) for each of \p batches result
/// matrices (codegen computes the offsets, 0 strides for broadcast batch dims).
EMBER_KERNEL void ember_integer_matmul_i16(i32 *out, const i16 *a, const i16 *b, i64 M, i64 N,
                                           i64 K, i64 batches, const i64 *aOffsets,
                                           const i64 *bOffsets) {
  for (i64 bi = 0; bi < batches; ++bi) {
    const i16 *am = a + aOffsets[bi], *bm = b + bOffsets[bi];
    u32 *ym = (u32 *)(out + bi * M * N);
    for (i64 m = 0; m < M; ++m) {
      u32 *row = ym + m * N;
      for (i64 n = 0; n < N; ++n)
        row[n] = 0;
      for (i64 k = 0; k < K; ++k) {
        i32 av = am[m * K + k];
        const i16 *brow = bm + k * N;
        for (i64 n = 0; n < N; ++n)
          row[n] += u32(av * i32(brow[n]));
      }
    }
  }
}

/// N-D grouped convolution, int32 result: out[n, oc, o...] = bias[oc] + sum over the input
/// channels of oc's group and the kernel offsets k of in[n, ic, o * stride - pad + k * dilation]
/// * w[oc, ic, k], positions outside the input skipped. Parameters: QuantizedLayout.h.
EMBER_KERNEL void ember_integer_conv_i16(i32 *out, const i16 *in, const i16 *w, const i32 *bias,
                                        const i64 *p) {
  i64 nsp = p[kConvNsp], N = p[kConvN], C = p[kConvC], Cout = p[kConvCout], G = p[kConvGroup];
  const i64 *inSp = p + convArray(nsp, 0), *kSp = p + convArray(nsp, 1),
            *outSp = p + convArray(nsp, 2), *strides = p + convArray(nsp, 3),
            *pads = p + convArray(nsp, 4), *dil = p + convArray(nsp, 5);
  i64 inSize = 1, kSize = 1, outSize = 1;
  for (i64 d = 0; d < nsp; ++d) {
    inSize *= inSp[d];
    kSize *= kSp[d];
    outSize *= outSp[d];
  }
  // The innermost spatial dim is the vectorized row; the outer ones are walked by index.
  i64 last = nsp - 1, IW = inSp[last], OW = outSp[last], KW = kSp[last];
  i64 SW = strides[last], PW = pads[last], DW = dil[last];
  i64 outRows = OW ? outSize / OW : 0, kRows = KW ? kSize / KW : 0;
  i64 cinPerGroup = C / G, coutPerGroup = Cout / G;

  for (i64 n = 0; n < N; ++n)
    for (i64 oc = 0; oc < Cout; ++oc) {
      u32 *acc = (u32 *)(out + (n * Cout + oc) * outSize);
      for (i64 o = 0; o < outSize; ++o)
        acc[o] = u32(bias[oc]);
      i64 icBegin = (oc / coutPerGroup) * cinPerGroup;
      for (i64 ic = 0; ic < cinPerGroup; ++ic) {
        const i16 *inC = in + (n * C + icBegin + ic) * inSize;
        const i16 *wC = w + (oc * cinPerGroup + ic) * kSize;
        for (i64 kr = 0; kr < kRows; ++kr)
          for (i64 orow = 0; orow < outRows; ++orow) {
            // The input row under output row orow and kernel row kr (multi-indices over the
            // outer spatial dims, taken innermost first), unless it lies in the padding.
            i64 inRow = 0, scale = 1, kRest = kr, oRest = orow;
            bool inside = true;
            for (i64 d = last; d-- > 0 && inside;) {
              i64 kp = kRest % kSp[d], op = oRest % outSp[d];
              kRest /= kSp[d];
              oRest /= outSp[d];
              i64 i = op * strides[d] - pads[d] + kp * dil[d];
              inside = i >= 0 && i < inSp[d];
              inRow += i * scale;
              scale *= inSp[d];
            }
            if (!inside)
              continue;
            const i16 *x = inC + inRow * IW;
            u32 *y = acc + orow * OW;
            for (i64 kw = 0; kw < KW; ++kw) {
              i32 wv = wC[kr * KW + kw];
              // Input column of output column o: o * SW + off; keep those in [0, IW).
              i64 off = kw * DW - PW;
              i64 oLo = off >= 0 ? 0 : (-off + SW - 1) / SW;
              i64 oHi = IW - 1 - off < 0 ? 0 : (IW - 1 - off) / SW + 1;
              oHi = oHi < OW ? oHi : OW;
              if (SW == 1) {
                for (i64 o = oLo; o < oHi; ++o)
                  y[o] += u32(wv * i32(x[o + off]));
              } else {
                for (i64 o = oLo; o < oHi; ++o)
                  y[o] += u32(wv * i32(x[o * SW + off]));
              }
            }
          }
      }
    }
}
