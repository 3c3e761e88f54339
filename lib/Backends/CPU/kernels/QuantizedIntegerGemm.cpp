// The register tiles of the int8 GEMM (QuantizedIntegerGemm.h) and its entry points (the
// convolution's driver: QuantizedIntegerConv.h), once per row of QuantizedIntegerVariants.def
// for this architecture: ember_integer_conv2d_<row> and ember_integer_matmul_<row>, compiled
// with the row's target features. Every tile sums the same
// products modulo 2^32, so every row gives the Interpreter's result bit for bit.
#include "QuantizedIntegerConv.h"
#include "Variants.h"

using namespace qgemm;

namespace {

/// Where each of a tile's MR rows of A starts (QuantizedIntegerGemm.h: TileArgs); the rows past
/// t.mr read row t.mr - 1, their sums never stored.
template <int MR> EMBER_INLINE void tileRows(const TileArgs &t, const u8 *(&rows)[MR]) {
  for (int r = 0; r < MR; ++r)
    rows[r] = t.A + minI(r, t.mr - 1) * t.aRow;
}

#if defined(__x86_64__)

typedef int V16SI __attribute__((vector_size(64)));
typedef u32 V16SU __attribute__((vector_size(64)));

/// AVX-512 VNNI: 8 rows x NV vectors of 16 columns; per quad of k, NV loads of B (16 columns x
/// 4 uint8) and, per row, a broadcast of its 4 int8 weights into vpdpbusd (u8 x s8, the four
/// products summed into each int32 lane, wrapping).
template <int NV, bool Flat>
EMBER_NOINLINE EMBER_VARIANT_TARGET("avx512f,avx512bw,avx512vnni") void vnniTile(
    const TileArgs &t) {
  constexpr int MR = 8;
  V16SI acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v)
      acc[r][v] = (V16SI){};
  const u8 *rows[MR];
  tileRows(t, rows);
  const u8 *B = t.B;
  // The next tile's rows of A for this block, a line a quad (they come from memory: a layer's
  // filter is read once a call, and runs past the caches).
  i64 prefetches = t.kq * 4 * MR / 64;
  for (i64 q = 0, at = 0; q < t.kq; ++q, at += t.aQuad, B += NV * 64) {
    if (q < prefetches)
      __builtin_prefetch(t.aRow == 4 ? t.aNext + 64 * q : t.aNext + (q % MR) * t.aRow + (q / MR) * 64);
    const u8 *Bq = Flat ? t.B + t.bOffsets[q] : B;
    V16SI b[NV];
    for (int v = 0; v < NV; ++v)
      __builtin_memcpy(&b[v], Bq + 64 * v, 64);
#pragma unroll
    for (int r = 0; r < MR; ++r) {
      int w;
      __builtin_memcpy(&w, rows[r] + at, 4);
      V16SI a = (V16SI){} + w;
      for (int v = 0; v < NV; ++v)
        acc[r][v] = __builtin_ia32_vpdpbusd512(acc[r][v], b[v], a);
    }
  }
  V16SU sums[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v)
      sums[r][v] = (V16SU)acc[r][v];
  finishVectors<16>(sums, t);
}

typedef char V64QI __attribute__((vector_size(64)));

/// AVX-512 VNNI, NC (at most kQGemmStripCols) strip columns of B (QuantizedIntegerGemm.h:
/// stripColumns) against 8 rows of A read in place: per 64 bytes of k, a load of each row and
/// of each column and a vpdpbusd of every pair, 16 lanes of partial sums reduced at the end.
/// The strip is zero past the block; a row's last partial vector is a masked load, reading
/// nothing past it.
template <int NC>
EMBER_NOINLINE EMBER_VARIANT_TARGET("avx512f,avx512bw,avx512vnni") void vnniStrip(
    const TileArgs &t) {
  constexpr int MR = 8;
  // Rows in groups whose accumulators stay in registers: 8 x 4 of them are all 32 registers,
  // and were kept on the stack (a 2 KB memset and a store a product, every call). A group's
  // second pass reads the strip again, from L1.
  constexpr int RG = NC > 2 ? 4 : MR;
  const u8 *rows[MR];
  tileRows(t, rows);
  i64 bytes = 4 * t.kq;
  u32 sums[MR][kQGemmStripCols];
  for (int g = 0; g < MR; g += RG) {
    V16SI acc[RG][NC];
    for (int r = 0; r < RG; ++r)
      for (int c = 0; c < NC; ++c)
        acc[r][c] = (V16SI){};
    for (i64 k = 0; k < bytes; k += 64) {
      V16SI b[NC];
      for (int c = 0; c < NC; ++c)
        __builtin_memcpy(&b[c], t.B + c * qgemmStripBytes() + k, 64);
      unsigned long long mask = bytes - k >= 64 ? ~0ull : (1ull << (bytes - k)) - 1;
#pragma unroll
      for (int r = 0; r < RG; ++r) {
        V16SI a = (V16SI)__builtin_ia32_loaddquqi512_mask((const V64QI *)(rows[g + r] + k),
                                                           (V64QI){}, mask);
        for (int c = 0; c < NC; ++c)
          acc[r][c] = __builtin_ia32_vpdpbusd512(acc[r][c], b[c], a);
      }
    }
    for (int r = 0; r < RG; ++r)
      for (int c = 0; c < NC; ++c)
        sums[g + r][c] = u32(__builtin_reduce_add(acc[r][c]));
  }
  finishRows<MR, kQGemmStripCols>(sums, t, NC);
}

typedef u8 U8x16 __attribute__((ext_vector_type(16)));
typedef u16 U16x8 __attribute__((ext_vector_type(8)));
typedef u32 U32x4v __attribute__((ext_vector_type(4)));
typedef u64 U64x2 __attribute__((ext_vector_type(2)));

/// The columns of the 8 x 16 bytes \p x (row r in x[r]) as 16 words of 8 bytes, row r in
/// byte r: three rounds of interleaving, pairs of rows' bytes, then of their halves' pairs.
EMBER_INLINE void columnsOf8Rows(const U8x16 (&x)[8], u64 (&cols)[16]) {
  U16x8 lo[4], hi[4]; // lanes: columns 0-7 (lo) or 8-15 (hi), rows 2i and 2i + 1
  for (int i = 0; i < 4; ++i) {
    lo[i] = (U16x8)__builtin_shufflevector(x[2 * i], x[2 * i + 1], 0, 16, 1, 17, 2, 18, 3, 19,
                                           4, 20, 5, 21, 6, 22, 7, 23);
    hi[i] = (U16x8)__builtin_shufflevector(x[2 * i], x[2 * i + 1], 8, 24, 9, 25, 10, 26, 11, 27,
                                           12, 28, 13, 29, 14, 30, 15, 31);
  }
  for (int h = 0; h < 2; ++h) {
    const U16x8 *y = h ? hi : lo;
    // Lanes: columns 0-3 or 4-7 of the half, rows 0-3 (a) or 4-7 (b).
    U32x4v a0 = (U32x4v)__builtin_shufflevector(y[0], y[1], 0, 8, 1, 9, 2, 10, 3, 11),
           a1 = (U32x4v)__builtin_shufflevector(y[0], y[1], 4, 12, 5, 13, 6, 14, 7, 15),
           b0 = (U32x4v)__builtin_shufflevector(y[2], y[3], 0, 8, 1, 9, 2, 10, 3, 11),
           b1 = (U32x4v)__builtin_shufflevector(y[2], y[3], 4, 12, 5, 13, 6, 14, 7, 15);
    U64x2 c[4] = {(U64x2)__builtin_shufflevector(a0, b0, 0, 4, 1, 5),
                  (U64x2)__builtin_shufflevector(a0, b0, 2, 6, 3, 7),
                  (U64x2)__builtin_shufflevector(a1, b1, 0, 4, 1, 5),
                  (U64x2)__builtin_shufflevector(a1, b1, 2, 6, 3, 7)};
    for (int i = 0; i < 4; ++i) {
      cols[8 * h + 2 * i] = c[i][0];
      cols[8 * h + 2 * i + 1] = c[i][1];
    }
  }
}

typedef float V16SF __attribute__((ext_vector_type(16)));

/// vnniPixelTile's finish (without the tile's target features: the vectors it passes by value
/// to the requantization must not change ABI between caller and callee).
template <int NV>
EMBER_INLINE void finishPixels(const V16SI (&acc)[8][NV], const PixelArgs &a, i64 c0, i64 p0,
                               i64 npx, const i64 (&cells)[8]) {
  constexpr int NR = 8;
  const Finish &f = a.f;
  for (int v = 0; v < NV; ++v) {
    i64 m = c0 + 16 * v;
    V16SU rc, sums[NR];
    __builtin_memcpy(&rc, f.rowConst + m, 64);
    for (int r = 0; r < NR; ++r)
      sums[r] = (V16SU)acc[r][v] + rc;
    if (a.colSum) {
      V16SU rz;
      __builtin_memcpy(&rz, f.rowZp + m, 64);
      for (int r = 0; r < NR; ++r)
        sums[r] -= rz * a.colSum[cells[r]];
    }
    if (!f.rowScale) {
      for (int l = 0; l < 16; ++l)
        for (i64 r = 0; r < npx; ++r)
          a.out[(m + l) * a.P + p0 + r] = sums[r][l];
      continue;
    }
    V16SF scale, zp;
    __builtin_memcpy(&scale, f.rowScale + m, 64);
    __builtin_memcpy(&zp, f.rowOutZp + m, 64);
    U8x16 bytes[NR];
    for (int r = 0; r < NR; ++r)
      storeRequantized<16>(sums[r], scale, zp, f.lo, f.hi, (u8 *)&bytes[r]);
    u64 cols[16];
    columnsOf8Rows(bytes, cols);
    u8 *Q = f.Q + m * a.P + p0;
    if (npx == NR)
      for (int l = 0; l < 16; ++l)
        __builtin_memcpy(Q + l * a.P, &cols[l], 8);
    else
      for (int l = 0; l < 16; ++l)
        for (i64 r = 0; r < npx; ++r)
          Q[l * a.P + r] = u8(cols[l] >> (8 * r));
  }
}

/// AVX-512 VNNI over pixels (PixelArgs): 8 pixels x NV vectors of 16 output channels; per quad
/// of k, NV loads of the filter's panel (16 channels x 4 int8) and, per pixel, a broadcast of
/// its 4 uint8 inputs into vpdpbusd. All of k in one pass; the sums finish as the row tiles'
/// (finishVectors) do, transposed: each channel's 8 pixels are 8 bytes of its result row.
/// Pixels past \p npx read pixel npx - 1, their sums never stored.
template <int NV>
EMBER_NOINLINE EMBER_VARIANT_TARGET("avx512f,avx512bw,avx512vnni") void vnniPixelTile(
    const PixelArgs &a, i64 c0, i64 p0, i64 npx) {
  constexpr int NR = 8;
  i64 cells[NR], oh = p0 / a.OW, ow = p0 % a.OW;
  const u8 *rows[NR];
  for (int r = 0; r < NR; ++r) {
    cells[r] = oh * a.Wq + ow;
    rows[r] = a.planes + 4 * cells[r];
    if (r + 1 < npx && ++ow == a.OW) {
      ow = 0;
      ++oh;
    }
  }
  V16SI acc[NR][NV];
  for (int r = 0; r < NR; ++r)
    for (int v = 0; v < NV; ++v)
      acc[r][v] = (V16SI){};
  const u8 *w = a.filter + c0 * a.kq * 4; // the block's panel: blocks before it are whole
  // Not unrolled: two steps' broadcasts at once outgrew the registers.
#pragma clang loop unroll(disable)
  for (i64 q = 0; q < a.kq; ++q, w += NV * 64) {
    i64 at = a.offsets[q];
    V16SI b[NV];
    for (int v = 0; v < NV; ++v)
      __builtin_memcpy(&b[v], w + 64 * v, 64);
#pragma unroll
    for (int r = 0; r < NR; ++r) {
      int x;
      __builtin_memcpy(&x, rows[r] + at, 4);
      V16SI xs = (V16SI){} + x;
      for (int v = 0; v < NV; ++v)
        acc[r][v] = __builtin_ia32_vpdpbusd512(acc[r][v], xs, b[v]);
    }
  }
  finishPixels<NV>(acc, a, c0, p0, npx, cells);
}

struct VnniTile {
  static constexpr i64 MR = 8, U = 16, NR = 48, KQ = 1, kStripCols = kQGemmStripCols;
  static constexpr u32 kBShift = 0; // B as it is
  static constexpr bool kRowMajorA = false, kPixelTile = true;
  static void begin() {}
  static void end() {}
  /// A part's pixels, a block of output channels (two vectors, or one for the last 16) at a
  /// time, its panel of the filter staying in the caches over the pixels. (Prefetching the
  /// next block's panel, a share in each tile, measured no faster.)
  static void pixels(const PixelArgs &a) {
    for (i64 c0 = 0; c0 < a.Mg; c0 += kQcPanelCout)
      for (i64 p0 = a.begin; p0 < a.end; p0 += 8) {
        i64 npx = minI(8, a.end - p0);
        if (a.Mg - c0 >= 32)
          vnniPixelTile<2>(a, c0, p0, npx);
        else
          vnniPixelTile<1>(a, c0, p0, npx);
      }
  }
  static void strip(const TileArgs &t) {
    if (t.ncols == 1)
      vnniStrip<1>(t);
    else if (t.ncols == 2)
      vnniStrip<2>(t);
    else if (t.ncols == 3)
      vnniStrip<3>(t);
    else
      vnniStrip<4>(t);
  }
  EMBER_INLINE void run(i64 nv, const TileArgs &t) {
    byLayout(t, [&](auto flat) {
      constexpr bool Flat = decltype(flat)::value;
      if (nv == 3)
        vnniTile<3, Flat>(t);
      else if (nv == 2)
        vnniTile<2, Flat>(t);
      else
        vnniTile<1, Flat>(t);
    });
  }
};

// AMX-INT8: tdpbsud sums, for each of a 16 x 16 tile of int32, 64 products of an int8 row of
// A (16 quads of k) with a uint8 column of B, wrapping like vpdpbusd. A tile register holds 16
// rows of 64 bytes: A's rows in place (16 quads of k of 16 filters), a panel of B as packed
// ([quad][16 columns][4]: 16 quads of 16 columns). 32 rows x 32 columns: tiles 0-3 the sums,
// 4-5 A's two halves, 6-7 B's. Linux hands out the tile registers' state only on request
// (arch_prctl ARCH_REQ_XCOMP_PERM for XTILEDATA); a kernel asks on every call (the grant lasts
// for the process; a bundle keeps no state) and runs the VNNI tile when refused. It asks with
// the syscall instruction itself, not libc's syscall(): a bundle links nothing but libc's
// memory functions and libm (ObjectWriter.cpp), and a Linux x86-64 system call is the same
// instruction whatever the libc.

/// Whether this process may use AMX's tile registers (asked for if not yet).
EMBER_INLINE bool amxPermitted() {
  const long archPrctl = 158, reqXcompPerm = 0x1023, xtiledata = 18;
  long result;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"(archPrctl), "D"(reqXcompPerm), "S"(xtiledata)
                   : "rcx", "r11", "memory");
  return result == 0;
}

struct AmxTileConfig {
  u8 palette, startRow, reserved[14];
  u16 colsb[16];
  u8 rows[16];
};

/// Configures the eight tile registers as 16 rows of 64 bytes: once a part, before its tiles
/// (configuring and releasing them around every tile took a tenth of a 1x1 convolution's time).
EMBER_NOINLINE EMBER_VARIANT_TARGET("amx-tile") void amxConfigure() {
  AmxTileConfig cfg{};
  cfg.palette = 1;
  for (int i = 0; i < 8; ++i) {
    cfg.colsb[i] = 64;
    cfg.rows[i] = 16;
  }
  __builtin_ia32_tile_loadconfig(&cfg);
}
/// Releases the tile registers (back to their initial state, which the OS saves cheaply).
EMBER_NOINLINE EMBER_VARIANT_TARGET("amx-tile") void amxRelease() {
  __builtin_ia32_tilerelease();
}

template <int NV, bool Flat>
EMBER_NOINLINE EMBER_VARIANT_TARGET("avx512f,avx512bw,avx512vnni,amx-tile,amx-int8") void amxTile(
    const TileArgs &t) {
  __builtin_ia32_tilezero(0);
  __builtin_ia32_tilezero(1);
  __builtin_ia32_tilezero(2);
  __builtin_ia32_tilezero(3);
  for (i64 q = 0; q < t.kq; q += 16) {
    // B's 16 quads: a packed panel's, or (flat) 16 planes of four channels at one tap.
    const u8 *a = t.A + q * t.aQuad, *b = Flat ? t.B + t.bOffsets[q] : t.B + q * NV * 64;
    const i64 bStride = Flat ? t.bOffsets[q + 1] - t.bOffsets[q] : NV * 64;
    __builtin_ia32_tileloadd64(4, a, t.aRow);
    __builtin_ia32_tileloadd64(5, a + 16 * t.aRow, t.aRow);
    __builtin_ia32_tileloadd64(6, b, bStride);
    __builtin_ia32_tdpbsud(0, 4, 6);
    __builtin_ia32_tdpbsud(2, 5, 6);
    if (NV == 2) {
      __builtin_ia32_tileloadd64(7, b + 64, bStride);
      __builtin_ia32_tdpbsud(1, 4, 7);
      __builtin_ia32_tdpbsud(3, 5, 7);
    }
  }
  V16SU sums[32][NV];
  __builtin_ia32_tilestored64(0, &sums[0][0], NV * 64);
  __builtin_ia32_tilestored64(2, &sums[16][0], NV * 64);
  if (NV == 2) {
    __builtin_ia32_tilestored64(1, &sums[0][1], NV * 64);
    __builtin_ia32_tilestored64(3, &sums[16][1], NV * 64);
  }
  finishVectors<16>(sums, t);
}

/// The AMX tile (32 x 32), for A's rows whole (a multiple of 32 of them, K one of 64).
struct AmxTile {
  static constexpr i64 MR = 32, U = 16, NR = 32, KQ = 16, kStripCols = 0;
  static constexpr u32 kBShift = 0; // B as it is
  static void strip(const TileArgs &) {}
  static constexpr bool kRowMajorA = true, kPixelTile = false;
  static void begin() { amxConfigure(); }
  static void end() { amxRelease(); }
  EMBER_INLINE void run(i64 nv, const TileArgs &t) {
    byLayout(t, [&](auto flat) {
      constexpr bool Flat = decltype(flat)::value;
      if (nv == 2)
        amxTile<2, Flat>(t);
      else
        amxTile<1, Flat>(t);
    });
  }
};

/// Whether IntegerConv \p p runs the AMX tile: groups of filters a multiple of 32 and, flat, a
/// multiple of 64 input channels (a tile's 16 quads of k are 16 planes of four at one tap),
/// else K (read in place when a multiple of 64 of an int8 filter, else copied with k padded to
/// one) padded by at most half (resnet50's first convolution, K = 147, pads to 192 and runs
/// faster than on the VNNI tile; K = 16 would be three quarters zeros); and the tile registers
/// granted.
EMBER_INLINE bool amxConv(const i64 *p) {
  i64 Cg = p[kQcC] / p[kQcGroup], Mg = p[kQcCout] / p[kQcGroup];
  i64 K = Cg * p[kQcKH] * p[kQcKW], padded = (K + 63) / 64 * 64;
  bool fits = qconvIsFlat(p) ? Cg % 64 == 0 : 2 * padded <= 3 * K;
  return fits && Mg % 32 == 0 && amxPermitted();
}

typedef short V16HI __attribute__((vector_size(32)));
typedef i8 V16SB __attribute__((vector_size(16)));
typedef u8 V16UB __attribute__((vector_size(16)));
typedef u16 V16UH __attribute__((vector_size(32)));
typedef int V4SI __attribute__((vector_size(16)));
typedef u32 V8SU __attribute__((vector_size(32)));

/// AVX2: 6 rows x 8 columns. vpmaddubsw would saturate (255 * 127 * 2 > 32767), so B's bytes
/// are widened to int16 and A's quads too, and vpmaddwd sums pairs of products exactly into
/// int32: lanes hold (column, pair of k), added in pairs at the end.
template <bool Flat>
EMBER_NOINLINE EMBER_VARIANT_TARGET("avx2") void avx2Tile(const TileArgs &t) {
  constexpr int MR = 6;
  V8SU acc[MR][2];
  for (int r = 0; r < MR; ++r)
    acc[r][0] = acc[r][1] = (V8SU){};
  const u8 *rows[MR];
  tileRows(t, rows);
  const u8 *B = t.B;
  for (i64 q = 0, at = 0; q < t.kq; ++q, at += t.aQuad, B += 32) {
    const u8 *Bq = Flat ? t.B + t.bOffsets[q] : B;
    V16UB lo, hi;
    __builtin_memcpy(&lo, Bq, 16);
    __builtin_memcpy(&hi, Bq + 16, 16);
    V16HI b0 = (V16HI)__builtin_convertvector(lo, V16UH),
          b1 = (V16HI)__builtin_convertvector(hi, V16UH);
#pragma unroll
    for (int r = 0; r < MR; ++r) {
      int w;
      __builtin_memcpy(&w, rows[r] + at, 4);
      V16HI a = __builtin_convertvector((V16SB)((V4SI){} + w), V16HI);
      acc[r][0] += (V8SU)__builtin_ia32_pmaddwd256(b0, a);
      acc[r][1] += (V8SU)__builtin_ia32_pmaddwd256(b1, a);
    }
  }
  V8SU sums[MR][1];
  for (int r = 0; r < MR; ++r) {
    V8SU even = __builtin_shufflevector(acc[r][0], acc[r][1], 0, 2, 4, 6, 8, 10, 12, 14);
    V8SU odd = __builtin_shufflevector(acc[r][0], acc[r][1], 1, 3, 5, 7, 9, 11, 13, 15);
    sums[r][0] = even + odd;
  }
  finishVectors<8>(sums, t);
}

struct Avx2Tile {
  static constexpr i64 MR = 6, U = 8, NR = 8, KQ = 1, kStripCols = 0;
  static constexpr u32 kBShift = 0; // B as it is
  static void strip(const TileArgs &) {}
  static constexpr bool kRowMajorA = false, kPixelTile = false;
  static void begin() {}
  static void end() {}
  EMBER_INLINE void run(i64, const TileArgs &t) {
    byLayout(t, [&](auto flat) { avx2Tile<decltype(flat)::value>(t); });
  }
};

#endif

typedef i16 I16x8 __attribute__((ext_vector_type(8)));
typedef i32 I32x8 __attribute__((ext_vector_type(8)));
typedef u32 U32x4 __attribute__((ext_vector_type(4)));
typedef u8 U8x8v __attribute__((ext_vector_type(8)));
typedef i8 I8x8v __attribute__((ext_vector_type(8)));

/// Sums of adjacent pairs of the int16 products of \p x and \p y, exact in int32: the pattern
/// of x86's pmaddwd, which LLVM recognizes (on NEON: smull and pairwise adds).
EMBER_INLINE U32x4 maddPairs(I16x8 x, I16x8 y) {
  I32x8 p = __builtin_convertvector(x, I32x8) * __builtin_convertvector(y, I32x8);
  return (U32x4)(__builtin_shufflevector(p, p, 0, 2, 4, 6) + __builtin_shufflevector(p, p, 1, 3, 5, 7));
}

/// Any CPU: 4 rows x 8 columns in generic vector code. Each row's lanes hold (column, pair of
/// k), as the AVX2 tile's, added in pairs at the end.
template <bool Flat> EMBER_NOINLINE void plainTile(const TileArgs &t) {
  constexpr int MR = 4;
  U32x4 acc[MR][4];
  for (int r = 0; r < MR; ++r)
    for (int g = 0; g < 4; ++g)
      acc[r][g] = (U32x4){};
  const u8 *rows[MR];
  tileRows(t, rows);
  const u8 *B = t.B;
  for (i64 q = 0, at = 0; q < t.kq; ++q, at += t.aQuad, B += 32) {
    const u8 *Bq = Flat ? t.B + t.bOffsets[q] : B;
    I16x8 b[4];
    for (int g = 0; g < 4; ++g) {
      U8x8v v;
      __builtin_memcpy(&v, Bq + 8 * g, 8);
      b[g] = __builtin_convertvector(v, I16x8);
    }
    for (int r = 0; r < MR; ++r) {
      I8x8v w;
      __builtin_memcpy(&w, rows[r] + at, 4);
      __builtin_memcpy((u8 *)&w + 4, rows[r] + at, 4);
      I16x8 a = __builtin_convertvector(w, I16x8);
      for (int g = 0; g < 4; ++g)
        acc[r][g] += maddPairs(b[g], a);
    }
  }
  u32 sums[MR][8];
  for (int r = 0; r < MR; ++r)
    for (int g = 0; g < 4; ++g) {
      sums[r][2 * g] = acc[r][g][0] + acc[r][g][1];
      sums[r][2 * g + 1] = acc[r][g][2] + acc[r][g][3];
    }
  finishTile<MR, 8>(sums, t);
}

struct PlainTile {
  static constexpr i64 MR = 4, U = 8, NR = 8, KQ = 1, kStripCols = 0;
  static constexpr u32 kBShift = 0; // B as it is
  static void strip(const TileArgs &) {}
  static constexpr bool kRowMajorA = false, kPixelTile = false;
  static void begin() {}
  static void end() {}
  EMBER_INLINE void run(i64, const TileArgs &t) {
    byLayout(t, [&](auto flat) { plainTile<decltype(flat)::value>(t); });
  }
};

#if defined(__aarch64__)

typedef __attribute__((neon_vector_type(16))) signed char NI8x16;
typedef __attribute__((neon_vector_type(4))) int NI32x4;

/// Arm's dot product (ARMv8.2's dotprod, arm_neon.h's vdotq_laneq_s32, which the freestanding
/// library cannot include): lane j of \p acc plus the four int8 products of \p b's quad j with
/// the quad in lane Lane of \p a.
template <int Lane>
EMBER_INLINE EMBER_VARIANT_TARGET("neon,dotprod") NI32x4 sdotLane(NI32x4 acc, NI8x16 b,
                                                                   NI32x4 a) {
  NI32x4 s = __builtin_shufflevector(a, a, Lane, Lane, Lane, Lane);
  return (NI32x4)__builtin_neon_vdotq_s32((NI8x16)acc, b, (NI8x16)s, 34);
}

/// Row R of dotTile's accumulators for one quad: its weights are lane R % 4 of a[R / 4].
template <int R, int NV>
EMBER_INLINE EMBER_VARIANT_TARGET("neon,dotprod") void dotRow(NI32x4 (&acc)[8][NV],
                                                              const NI8x16 (&b)[NV],
                                                              const NI32x4 (&a)[2]) {
  for (int v = 0; v < NV; ++v)
    acc[R][v] = sdotLane<R % 4>(acc[R][v], b[v], a[R / 4]);
}

/// Arm dot product: 8 rows x NV vectors of 4 columns. sdot multiplies int8 by int8 (a uint8 by
/// int8 form needs i8mm), so each quad of B is loaded flipped, b ^ 0x80 = b - 128 as int8: the
/// sums lack 128 * sum_k a, which the row terms add back (kBShift). Per quad of k, NV loads of
/// B (4 columns x 4 bytes), the quads of the 8 rows as two vectors, and an sdot by element for
/// each row and vector.
template <int NV, bool Flat>
EMBER_NOINLINE EMBER_VARIANT_TARGET("neon,dotprod") void dotTile(const TileArgs &t) {
  constexpr int MR = 8;
  NI32x4 acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v)
      acc[r][v] = (NI32x4){0, 0, 0, 0};
  const u8 *rows[MR];
  tileRows(t, rows);
  const u8 *B = t.B;
  NI8x16 flip;
  __builtin_memset(&flip, 0x80, sizeof flip);
  for (i64 q = 0, at = 0; q < t.kq; ++q, at += t.aQuad, B += NV * 16) {
    const u8 *Bq = Flat ? t.B + t.bOffsets[q] : B;
    NI8x16 b[NV];
    for (int v = 0; v < NV; ++v) {
      __builtin_memcpy(&b[v], Bq + 16 * v, 16);
      b[v] ^= flip;
    }
    NI32x4 a[2];
    for (int h = 0; h < 2; ++h) {
      int w[4];
      for (int l = 0; l < 4; ++l)
        __builtin_memcpy(&w[l], rows[4 * h + l] + at, 4);
      a[h] = (NI32x4){w[0], w[1], w[2], w[3]};
    }
    dotRow<0>(acc, b, a);
    dotRow<1>(acc, b, a);
    dotRow<2>(acc, b, a);
    dotRow<3>(acc, b, a);
    dotRow<4>(acc, b, a);
    dotRow<5>(acc, b, a);
    dotRow<6>(acc, b, a);
    dotRow<7>(acc, b, a);
  }
  U32x4 sums[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v)
      __builtin_memcpy(&sums[r][v], &acc[r][v], sizeof sums[r][v]);
  finishVectors<4>(sums, t);
}

struct DotTile {
  static constexpr i64 MR = 8, U = 4, NR = 12, KQ = 1, kStripCols = 0;
  static constexpr u32 kBShift = 128; // B's bytes less 128 (dotTile)
  static void strip(const TileArgs &) {}
  static constexpr bool kRowMajorA = false, kPixelTile = false;
  static void begin() {}
  static void end() {}
  EMBER_INLINE void run(i64 nv, const TileArgs &t) {
    byLayout(t, [&](auto flat) {
      constexpr bool Flat = decltype(flat)::value;
      if (nv == 3)
        dotTile<3, Flat>(t);
      else if (nv == 2)
        dotTile<2, Flat>(t);
      else
        dotTile<1, Flat>(t);
    });
  }
};

#endif

} // namespace

#define dotprod_TILE DotTile
#define vnni_TILE VnniTile
#define amx_TILE VnniTile
#define avx2_TILE Avx2Tile
#define sse2_TILE PlainTile
#define neon_TILE PlainTile

#define INTEGER_GEMM_ENTRIES(NAME, FEATURES)                                                      \
  EMBER_KERNEL EMBER_NOINLINE EMBER_VARIANT_TARGET(FEATURES) void ember_integer_conv2d_##NAME(   \
      i32 *out, const u8 *in, const u8 *w, const i32 *bias, const u8 *zx, const u8 *zw,          \
      const i64 *p, u8 *scratch, parallel::Team *team, u8 *q, const float *qScale,               \
      const u8 *qZp, const i32 *wSums) {                                                           \
    AMX_CONV_##NAME(out, in, w, bias, zx, zw, p, scratch, team, q, qScale, qZp, wSums)            \
    integerConv2d<NAME##_TILE>(out, in, w, bias, zx, zw, p, scratch, team, q, qScale, qZp,        \
                               wSums);                                                             \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE EMBER_VARIANT_TARGET(FEATURES) void ember_integer_matmul_##NAME(   \
      i32 *out, const u8 *a, const u8 *b, const u8 *za, const u8 *zb, const i64 *p,             \
      const i64 *aOffsets, const i64 *bOffsets, u8 *scratch, parallel::Team *team) {             \
    integerMatMul<NAME##_TILE>(out, a, b, za, zb, p, aOffsets, bOffsets, scratch, team);         \
  }

// The AMX row's convolutions run the AMX tile where it fits (amxConv), the VNNI one elsewhere.
#define AMX_CONV_amx(...)                                                                          \
  if (amxConv(p))                                                                                  \
    return integerConv2d<AmxTile>(__VA_ARGS__);
#define AMX_CONV_vnni(...)
#define AMX_CONV_avx2(...)
#define AMX_CONV_sse2(...)
#define AMX_CONV_neon(...)
#define AMX_CONV_dotprod(...)
#define INTEGER_VARIANT(NAME, ARCH, FEATURES, DOC)                                                \
  EMBER_ON_ARCH_##ARCH(INTEGER_GEMM_ENTRIES(NAME, FEATURES))
#include "QuantizedIntegerVariants.def"
#undef INTEGER_GEMM_ENTRIES
