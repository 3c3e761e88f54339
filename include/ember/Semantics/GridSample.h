// GridSample's sampling and padding (ONNX GridSample-16, as onnxruntime computes it), written
// once for the Interpreter, the CPU kernels and the OpenCL kernels (ember/Semantics/Portable.h
// says how). For one grid point, ember_grid_sample_taps gives the input cells it reads and their
// weights; a backend's kernel only loads them and sums weight * value in tap order, in double.
//
// The point (x, y) in [-1, 1] maps to input coordinates: with align_corners, -1 and 1 are the
// centres of the corner cells (0 and W - 1); without, their outer edges (-0.5 and W - 0.5).
// Nearest rounds half to even. When either coordinate lies outside those bounds, border clamps
// both to [0, W - 1] and reflection mirrors both back inside, as often as it takes; zeros leaves
// them. Then nearest reads one cell, linear the 2 x 2 cells around the point, cubic the 4 x 4
// (the cubic convolution with A = -0.75); a cell outside the input reads 0 (zeros), the nearest
// border cell (border) or its mirror image (reflection).
//
// Beyond onnxruntime (whose results there are undefined behaviour): a NaN coordinate gives NaN;
// an infinite one reads 0 with zeros, the border with border, and NaN with reflection (no
// mirror image); far coordinates are reflected without overflow.
#ifndef EMBER_SEMANTICS_GRIDSAMPLE_H
#define EMBER_SEMANTICS_GRIDSAMPLE_H

#ifndef __OPENCL_C_VERSION__
#include "ember/Semantics/Portable.h"
#endif

// The Mode and PaddingMode attributes as codes, in the order of their names.
#define EMBER_GRID_NEAREST 0    // "nearest"
#define EMBER_GRID_LINEAR 1     // "linear" (ONNX's bilinear)
#define EMBER_GRID_CUBIC 2      // "cubic" (ONNX's bicubic)
#define EMBER_GRID_ZEROS 0      // "zeros"
#define EMBER_GRID_BORDER 1     // "border"
#define EMBER_GRID_REFLECTION 2 // "reflection"
/// The most taps a point reads (cubic's 4 x 4).
#define EMBER_GRID_MAX_TAPS 16

#ifndef __OPENCL_C_VERSION__
/// The code of a Mode attribute ("nearest", "linear", "cubic"), or -1.
EMBER_PORTABLE int ember_grid_mode_code(const char *mode) {
  static const char *const names[] = {"nearest", "linear", "cubic"};
  return ember_name_code(mode, names, 3);
}
/// The code of a PaddingMode attribute ("zeros", "border", "reflection"), or -1.
EMBER_PORTABLE int ember_grid_padding_code(const char *padding) {
  static const char *const names[] = {"zeros", "border", "reflection"};
  return ember_name_code(padding, names, 3);
}
#endif

/// A normalized coordinate \p n (-1 .. 1) as an input coordinate on an axis of \p length cells.
EMBER_PORTABLE double ember_grid_denormalize(double n, long length, int alignCorners) {
  EMBER_PORTABLE_NO_FMA
  if (alignCorners)
    return (n + 1) / 2 * (double)(length - 1);
  return ((n + 1) * (double)length - 1) / 2;
}

/// \p x mirrored into [lo, hi] by those borders, as often as it takes (onnxruntime's GsReflect:
/// past a border by d, the point is d inside it, or past the other border again). The parity of
/// the crossings comes from the remainder modulo 2 (hi - lo), so no far value overflows; an
/// infinite or NaN \p x gives NaN.
EMBER_PORTABLE double ember_grid_reflect(double x, double lo, double hi) {
  EMBER_PORTABLE_NO_FMA
  if (!(x < lo) && !(x > hi))
    return x; // inside, or NaN
  double range = hi - lo;
  if (!(range > 0))
    return lo; // one cell with align_corners: every point mirrors onto it
  double past = x < lo ? lo - x : x - hi;
  double period = 2 * range;
  double r = ember_clamp_double(past - EMBER_FLOOR(past / period) * period, 0, period);
  // An even number of crossings (r < range) leaves the point r inside the near border.
  if (x < lo)
    return r < range ? lo + r : hi - (r - range);
  return r < range ? hi - r : lo + (r - range);
}

/// The offset in an \p h x \p w plane of cell (\p r, \p c) as \p padding reads it, or -1 for a
/// zero (zeros padding, outside). [xlo, xhi] and [ylo, yhi] are the reflection borders.
EMBER_PORTABLE long ember_grid_cell(long r, long c, long h, long w, int padding, double xlo,
                                    double xhi, double ylo, double yhi) {
  if (padding == EMBER_GRID_ZEROS)
    return r >= 0 && r < h && c >= 0 && c < w ? r * w + c : -1;
  if (padding == EMBER_GRID_BORDER) {
    r = ember_clamp_long(r, 0, h - 1);
    c = ember_clamp_long(c, 0, w - 1);
  } else {
    // The mirror of a whole cell index is inside [lo, hi]: truncation keeps it in the plane.
    r = (long)ember_grid_reflect((double)r, ylo, yhi);
    c = (long)ember_grid_reflect((double)c, xlo, xhi);
  }
  return r * w + c;
}

/// The 4 weights of the cubic convolution (A = -0.75) of the cells at -1, 0, 1, 2 from the one
/// below the point, whose fraction past it is \p t (0 <= t < 1).
EMBER_PORTABLE void ember_grid_cubic_weights(double t, double *weights) {
  EMBER_PORTABLE_NO_FMA
  double a = -0.75;
  double near0 = t, near1 = 1 - t, far0 = t + 1, far1 = 2 - t;
  weights[0] = ((a * far0 - 5 * a) * far0 + 8 * a) * far0 - 4 * a;
  weights[1] = ((a + 2) * near0 - (a + 3)) * near0 * near0 + 1;
  weights[2] = ((a + 2) * near1 - (a + 3)) * near1 * near1 + 1;
  weights[3] = ((a * far1 - 5 * a) * far1 + 8 * a) * far1 - 4 * a;
}

/// The taps of grid point (\p gx, \p gy) on an \p h x \p w input plane (h, w > 0) for \p mode,
/// \p padding (the codes above) and \p alignCorners: writes up to EMBER_GRID_MAX_TAPS pairs of
/// \p offsets (row * w + column, or -1 for a zero) and \p weights, row by row, and returns how
/// many. The result is the sum of weight * value over them in that order.
EMBER_PORTABLE int ember_grid_sample_taps(double gx, double gy, long h, long w, int mode,
                                          int padding, int alignCorners, long *offsets,
                                          double *weights) {
  EMBER_PORTABLE_NO_FMA
  double x = ember_grid_denormalize(gx, w, alignCorners);
  double y = ember_grid_denormalize(gy, h, alignCorners);
  double xlo = alignCorners ? 0 : -0.5, xhi = alignCorners ? (double)(w - 1) : (double)w - 0.5;
  double ylo = alignCorners ? 0 : -0.5, yhi = alignCorners ? (double)(h - 1) : (double)h - 0.5;
  if (mode == EMBER_GRID_NEAREST) {
    x = EMBER_RINT(x);
    y = EMBER_RINT(y);
  }
  if (x < xlo || x > xhi || y < ylo || y > yhi) {
    if (padding == EMBER_GRID_BORDER) {
      x = ember_clamp_double(x, 0, (double)(w - 1));
      y = ember_clamp_double(y, 0, (double)(h - 1));
    } else if (padding == EMBER_GRID_REFLECTION) {
      x = ember_grid_reflect(x, xlo, xhi);
      y = ember_grid_reflect(y, ylo, yhi);
    }
  }
  if (x != x || y != y) {
    offsets[0] = -1;
    weights[0] = EMBER_NAN;
    return 1;
  }
  // Zeros padding leaves far points far: a few cells out, every tap reads 0 all the same, and
  // cell indices stay small.
  x = ember_clamp_double(x, -4, (double)(w + 3));
  y = ember_clamp_double(y, -4, (double)(h + 3));
  if (mode == EMBER_GRID_NEAREST) {
    offsets[0] = ember_grid_cell((long)y, (long)x, h, w, padding, xlo, xhi, ylo, yhi);
    weights[0] = 1;
    return 1;
  }
  double x0 = EMBER_FLOOR(x), y0 = EMBER_FLOOR(y);
  double wx[4], wy[4];
  int n = 2;
  if (mode == EMBER_GRID_LINEAR) {
    wx[0] = x0 + 1 - x;
    wx[1] = x - x0;
    wy[0] = y0 + 1 - y;
    wy[1] = y - y0;
  } else {
    n = 4;
    ember_grid_cubic_weights(x - x0, wx);
    ember_grid_cubic_weights(y - y0, wy);
    x0 -= 1;
    y0 -= 1;
  }
  int taps = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      offsets[taps] =
          ember_grid_cell((long)y0 + i, (long)x0 + j, h, w, padding, xlo, xhi, ylo, yhi);
      weights[taps] = wy[i] * wx[j];
      ++taps;
    }
  return taps;
}

#endif
