// GridSample's sampling and padding (ONNX GridSample-16 and -20, as onnxruntime computes it),
// written once for the Interpreter, the CPU kernels and the OpenCL kernels
// (ember/Semantics/Portable.h says how). For one grid point, ember_grid_sample_taps gives the
// input cells it reads and their weights; a backend's kernel only loads them and sums
// weight * value in tap order, in double.
//
// Each coordinate of the point ((x, y) on a 4-D input, (x, y, z) on a 5-D one) in [-1, 1] maps
// to an input coordinate on its axis: with align_corners, -1 and 1 are the centres of the corner
// cells (0 and W - 1); without, their outer edges (-0.5 and W - 0.5). Nearest rounds half to
// even. When any coordinate lies outside those bounds, border clamps all of them to [0, W - 1]
// and reflection mirrors all of them back inside, as often as it takes; zeros leaves them. Then
// nearest reads one cell, linear the 2 cells around the point on each axis (2 x 2 on a 4-D input,
// 2 x 2 x 2 on a 5-D one), cubic the 4 on each axis (the cubic convolution with A = -0.75); a
// cell outside the input reads 0 (zeros), the nearest border cell (border) or its mirror image
// (reflection).
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
/// The most spatial axes a GridSample samples (ONNX GridSample-20 allows any; ember, like
/// onnxruntime, takes 4-D and 5-D inputs, and 3-D ones too), and the most taps a point reads
/// (cubic's 4 per axis).
#define EMBER_GRID_MAX_RANK 3
#define EMBER_GRID_MAX_TAPS 64

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

/// Cell \p i of an axis of \p n cells as \p padding reads it, or -1 for a zero (zeros padding,
/// outside). [lo, hi] are the axis's reflection borders.
EMBER_PORTABLE long ember_grid_axis_cell(long i, long n, int padding, double lo, double hi) {
  if (padding == EMBER_GRID_ZEROS)
    return i >= 0 && i < n ? i : -1;
  if (padding == EMBER_GRID_BORDER)
    return ember_clamp_long(i, 0, n - 1);
  // The mirror of a whole cell index is inside [lo, hi]: truncation keeps it on the axis.
  return (long)ember_grid_reflect((double)i, lo, hi);
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

/// The taps of a grid point on an input of \p rank spatial axes (1 to EMBER_GRID_MAX_RANK) of
/// \p dims cells each (all > 0) for \p mode, \p padding (the codes above) and \p alignCorners.
/// \p point holds the point's normalized coordinates in the order of \p dims, outermost axis
/// first (the reverse of ONNX's grid vector: x, the innermost, is the last). Writes up to
/// EMBER_GRID_MAX_TAPS pairs of \p offsets (the row-major offset in the input volume, or -1 for a
/// zero) and \p weights, the outermost axis slowest, and returns how many. The result is the sum
/// of weight * value over them in that order; a tap's weight is the product of its axes'
/// weights, outermost first.
EMBER_PORTABLE int ember_grid_sample_taps(const double *point, const long *dims, int rank,
                                          int mode, int padding, int alignCorners, long *offsets,
                                          double *weights) {
  EMBER_PORTABLE_NO_FMA
  double c[EMBER_GRID_MAX_RANK], lo[EMBER_GRID_MAX_RANK], hi[EMBER_GRID_MAX_RANK];
  int outside = 0, a;
  for (a = 0; a < rank; ++a) {
    c[a] = ember_grid_denormalize(point[a], dims[a], alignCorners);
    lo[a] = alignCorners ? 0 : -0.5;
    hi[a] = alignCorners ? (double)(dims[a] - 1) : (double)dims[a] - 0.5;
    if (mode == EMBER_GRID_NEAREST)
      c[a] = EMBER_RINT(c[a]);
    if (c[a] < lo[a] || c[a] > hi[a])
      outside = 1;
  }
  // A point outside on any axis is clamped or mirrored on every axis (as onnxruntime does).
  int undefined = 0;
  for (a = 0; a < rank; ++a) {
    if (outside && padding == EMBER_GRID_BORDER)
      c[a] = ember_clamp_double(c[a], 0, (double)(dims[a] - 1));
    else if (outside && padding == EMBER_GRID_REFLECTION)
      c[a] = ember_grid_reflect(c[a], lo[a], hi[a]);
    if (c[a] != c[a])
      undefined = 1;
    // Zeros padding leaves far points far: a few cells out, every tap reads 0 all the same, and
    // cell indices stay small.
    c[a] = ember_clamp_double(c[a], -4, (double)(dims[a] + 3));
  }
  if (undefined) {
    offsets[0] = -1;
    weights[0] = EMBER_NAN;
    return 1;
  }
  // Per axis: the first cell the point reads and the weights of the n cells from there.
  long first[EMBER_GRID_MAX_RANK];
  double w[EMBER_GRID_MAX_RANK][4];
  int n = mode == EMBER_GRID_NEAREST ? 1 : mode == EMBER_GRID_LINEAR ? 2 : 4;
  for (a = 0; a < rank; ++a) {
    if (mode == EMBER_GRID_NEAREST) {
      first[a] = (long)c[a];
      w[a][0] = 1;
      continue;
    }
    double c0 = EMBER_FLOOR(c[a]);
    first[a] = (long)c0;
    if (mode == EMBER_GRID_LINEAR) {
      w[a][0] = c0 + 1 - c[a];
      w[a][1] = c[a] - c0;
    } else {
      ember_grid_cubic_weights(c[a] - c0, w[a]);
      first[a] -= 1;
    }
  }
  int taps = 1;
  for (a = 0; a < rank; ++a)
    taps *= n;
  for (int t = 0; t < taps; ++t) {
    long offset = 0;
    double weight = 1;
    // Tap t's position along each axis: its base-n digits, the outermost axis the slowest.
    int rest = t, span = taps;
    for (a = 0; a < rank; ++a) {
      span /= n;
      int k = rest / span;
      rest -= k * span;
      long cell = ember_grid_axis_cell(first[a] + k, dims[a], padding, lo[a], hi[a]);
      offset = offset < 0 || cell < 0 ? -1 : offset * dims[a] + cell;
      weight *= w[a][k];
    }
    offsets[t] = offset;
    weights[t] = weight;
  }
  return taps;
}

#endif
