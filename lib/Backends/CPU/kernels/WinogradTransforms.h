// The filter side of Winograd F(4x4, 3x3) and F(2x2, 3x3) (Lavin and Gray, "Fast Algorithms
// for Convolutional Neural Networks", 2016). F(4x4) is on the interpolation points 0, 1, -1,
// 2, -1/2 and infinity, which Barabasz et al. ("Error Analysis and Improving the Accuracy of
// Winograd Convolution for Deep Neural Networks", 2020) found more accurate than Lavin's 0, 1,
// -1, 2, -2: a float32 simulation of 128 channels, relative max error 1.6e-6 against 3.2e-6
// (inception_v3's output: 9.0e-4 from torch's with Lavin's points, outside bench.py's
// tolerance). A 3x3 filter g becomes the 6x6 tile U = G g G^T (4x4 for F(2x2)), stored at
// compile time (CPUConstants.cpp) as 36 (16) matrices [K][C], point (mu, nu) the matrix
// mu * 6 + nu (mu * 4 + nu), each in the GEMM's panels of MR rows (PackedPanels.h). The input
// and output transforms (B^T d B, A^T m A) are in NNWinograd.cpp. Plain C++ with no includes:
// the backend transforms with it.
#ifndef EMBER_CPU_KERNELS_WINOGRADTRANSFORMS_H
#define EMBER_CPU_KERNELS_WINOGRADTRANSFORMS_H

#include "PackedPanels.h"

namespace winograd {

typedef long long idx;

/// G (6x3) of F(4x4, 3x3), in double so that each U element is rounded to float once. Row j:
/// (1, p, p^2) / prod over the other finite points q of (p - q), p the j-th point.
constexpr double kG4[6][3] = {{1, 0, 0},
                              {-1.0 / 3, -1.0 / 3, -1.0 / 3},
                              {1.0 / 3, -1.0 / 3, 1.0 / 3},
                              {1.0 / 15, 2.0 / 15, 4.0 / 15},
                              {-16.0 / 15, 8.0 / 15, -4.0 / 15},
                              {0, 0, 1}};
/// G (4x3) of F(2x2, 3x3), on the points 0, 1, -1 (Lavin and Gray).
constexpr double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};

/// Transforms the float filters \p src [K][C][3][3] into \p dst ((m + 2)^2 * K * C floats) for
/// F(m x m, 3x3), m = 4 or 2: point (mu, nu) of filter (k, c) at mu * (m + 2) + nu's matrix,
/// element (k, c) of it packed in panels of MR rows.
inline void transformFilters(float *dst, const float *src, idx K, idx C, idx MR, idx m) {
  const idx N = m + 2;
  auto G = [&](idx row, idx col) { return m == 4 ? kG4[row][col] : kG2[row][col]; };
  for (idx k = 0; k < K; ++k)
    for (idx c = 0; c < C; ++c) {
      const float *g = src + (k * C + c) * 9;
      double gGt[3][6]; // g G^T
      for (idx a = 0; a < 3; ++a)
        for (idx nu = 0; nu < N; ++nu)
          gGt[a][nu] = g[a * 3] * G(nu, 0) + g[a * 3 + 1] * G(nu, 1) + g[a * 3 + 2] * G(nu, 2);
      for (idx mu = 0; mu < N; ++mu)
        for (idx nu = 0; nu < N; ++nu) {
          double u = G(mu, 0) * gGt[0][nu] + G(mu, 1) * gGt[1][nu] + G(mu, 2) * gGt[2][nu];
          dst[(mu * N + nu) * K * C + panels::packedIndex(k, c, K, C, MR)] = float(u);
        }
    }
}

} // namespace winograd

#endif
