// Det's determinant (ONNX Det-11), written once for the Interpreter, the CPU kernels and the
// OpenCL kernels (ember/Semantics/Portable.h says how): LU factorization with partial pivoting
// in double, as LAPACK's getrf, which numpy.linalg.det (the ONNX reference) calls; the
// determinant is the product of the pivots, negated once per row exchange. A zero pivot (a
// singular matrix) leaves its column as it is and the determinant 0; NaN and infinities
// propagate through the arithmetic.
#ifndef EMBER_SEMANTICS_DETERMINANT_H
#define EMBER_SEMANTICS_DETERMINANT_H

#ifndef __OPENCL_C_VERSION__
#include "ember/Semantics/Portable.h"
#endif

/// The determinant of the \p m x \p m row-major matrix \p a (a working copy in double, which the
/// factorization overwrites); 1 for m = 0.
EMBER_PORTABLE double ember_determinant(EMBER_GLOBAL double *a, long m) {
  EMBER_PORTABLE_NO_FMA
  double det = 1;
  for (long k = 0; k < m; ++k) {
    // The pivot: the largest magnitude in column k on or below the diagonal, the first on ties.
    long pivotRow = k;
    double largest = EMBER_FABS(a[k * m + k]);
    for (long i = k + 1; i < m; ++i) {
      double v = EMBER_FABS(a[i * m + k]);
      if (v > largest) {
        largest = v;
        pivotRow = i;
      }
    }
    if (pivotRow != k) {
      // Columns before k hold multipliers the determinant no longer needs.
      for (long j = k; j < m; ++j) {
        double t = a[k * m + j];
        a[k * m + j] = a[pivotRow * m + j];
        a[pivotRow * m + j] = t;
      }
      det = -det;
    }
    double pivot = a[k * m + k];
    det *= pivot;
    if (pivot == 0)
      continue; // the column is zero from the diagonal down: nothing to eliminate
    for (long i = k + 1; i < m; ++i) {
      double factor = a[i * m + k] / pivot;
      for (long j = k + 1; j < m; ++j)
        a[i * m + j] -= factor * a[k * m + j];
    }
  }
  return det;
}

#endif
