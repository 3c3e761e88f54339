// A window pool's window along one spatial axis and an average pool's divisor (ONNX AveragePool,
// MaxPool and LpPool), written once for the Interpreter, the CPU kernels and the OpenCL kernels
// (ember/Semantics/Portable.h says how). A window of output coordinate o starts at input
// coordinate o * stride - begin pad and has `kernel` taps (`windowTaps` below: kernel is a
// keyword of OpenCL C), `dilation` apart. Its real cells are
// the taps inside the input; count_include_pad counts instead the taps inside the padded input
// (begin pad, input, end pad). With ceil_mode the last window may run past the end padding: taps
// out there are in neither count.
#ifndef EMBER_SEMANTICS_POOL_H
#define EMBER_SEMANTICS_POOL_H

#ifndef __OPENCL_C_VERSION__
#include "ember/Semantics/Portable.h"
#endif

/// The taps [\p lo, \p hi) of a window starting at \p start that lie inside an input axis of
/// \p size cells (\p lo == \p hi when none does). Dilation 1, nearly every pool, avoids the
/// divisions.
EMBER_PORTABLE void ember_pool_real_taps(long start, long dilation, long windowTaps,
                                         long size, long *lo, long *hi) {
  long first, end;
  if (dilation == 1) {
    first = start >= 0 ? 0 : -start;
    end = size - start;
  } else {
    first = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
    long last = size - 1 - start;
    end = last < 0 ? 0 : last / dilation + 1;
  }
  end = end < windowTaps ? end : windowTaps;
  *lo = first;
  *hi = end < first ? first : end;
}

/// How many taps of a window starting at \p start lie inside the padded input, an axis of
/// \p size cells and \p padEnd cells of end padding (the window never starts before the begin
/// padding): the taps j with start + j * dilation < size + padEnd.
EMBER_PORTABLE long ember_pool_padded_taps(long start, long dilation, long windowTaps,
                                           long size, long padEnd) {
  long room = size + padEnd - start;
  if (room <= 0)
    return 0;
  long taps = (room + dilation - 1) / dilation;
  return taps < windowTaps ? taps : windowTaps;
}

/// An average pool's divisor for a window of \p realCells real cells and \p paddedCells cells
/// inside the padded input (the products of the axes' counts). A divisor of 0 (a window of
/// padding alone, not counted) gives an average of 0: the caller divides in its accumulator
/// type only when the divisor is not 0.
EMBER_PORTABLE long ember_pool_average_divisor(long realCells, long paddedCells,
                                               int countIncludePad) {
  return countIncludePad ? paddedCells : realCells;
}

#endif
