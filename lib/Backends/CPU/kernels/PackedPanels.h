// The layout in which the CPU backend stores a convolution's filters in the constant region
// (and the weights of matrix products, by columns: packColumns),
// packed at compile time for the GEMM's register tile, so that the micro-kernel reads A as one
// sequential stream instead of MR rows a filter apart (NNGemm.h). Plain C++ with no includes:
// the backend packs with it (CPUConstants.cpp) and the kernels read with the same arithmetic.
//
// An M x K row-major matrix becomes panels of MR rows (the last one of M % MR rows if M is not a
// multiple of MR); a panel of `rows` rows is K groups of `rows` values, one per row:
//   element (row, k) -> (row / MR) * MR * K + k * rows + row % MR
// The packed matrix has exactly the M * K elements of the original, so a packed constant keeps
// its type, size and place in the memory plan. A convolution's filter [Cout, Cin/G, KH, KW] is
// G such matrices of Cout/G rows and Cin/G * KH * KW columns, one after the other.
#ifndef EMBER_CPU_KERNELS_PACKEDPANELS_H
#define EMBER_CPU_KERNELS_PACKEDPANELS_H

namespace panels {

typedef long long idx;

/// Where element (row, k) of an M x K matrix lies in its MR-row panels.
constexpr idx packedIndex(idx row, idx k, idx M, idx K, idx MR) {
  idx first = row / MR * MR, rows = M - first < MR ? M - first : MR;
  return first * K + k * rows + (row - first);
}

/// Packs the row-major M x K matrix \p src into \p dst (M * K elements, not overlapping src).
template <typename T> void packRows(T *dst, const T *src, idx M, idx K, idx MR) {
  for (idx row = 0; row < M; ++row)
    for (idx k = 0; k < K; ++k)
      dst[packedIndex(row, k, M, K, MR)] = src[row * K + k];
}

/// Packs the row-major K x N matrix \p src (the B of a product) into \p dst (K * N elements,
/// not overlapping src) as the panels of its N columns: the layout above with B's columns as the
/// rows, element (k, n) at packedIndex(n, k, N, K, NR), each panel's rows of k contiguous copies
/// of B's. The GEMM reads such panels in place (NNGemm.h, gemmPackedB).
template <typename T> void packColumns(T *dst, const T *src, idx K, idx N, idx NR) {
  for (idx n0 = 0; n0 < N; n0 += NR) {
    idx w = N - n0 < NR ? N - n0 : NR; // the panel's columns (the last may be narrow)
    for (idx k = 0; k < K; ++k)
      for (idx c = 0; c < w; ++c)
        dst[n0 * K + k * w + c] = src[k * N + n0 + c];
  }
}

} // namespace panels

#endif
