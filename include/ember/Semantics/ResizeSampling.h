// Resize's semantics that depend only on its attributes (ONNX Resize-13; the loader also maps
// Resize-10/11 and Upsample to it), stated once for every backend: where each result coordinate
// reads on each axis and with what weight, and the extrapolation value as an element. Unlike the
// headers beside it this one is host C++ (implemented in lib/Graph/ResizeSampling.cpp): the
// taps depend only on attributes and dims, so the Interpreter computes them per run and the CPU
// codegen and the OpenCL planner at compile time, passing them to their kernels as tables.
#ifndef EMBER_SEMANTICS_RESIZESAMPLING_H
#define EMBER_SEMANTICS_RESIZESAMPLING_H

#include "ember/Base/Tensor.h"
#include "ember/Graph/Attribute.h"

#include "llvm/ADT/SmallVector.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace ember {

/// One input element a result coordinate reads on one axis, and its weight.
struct ResizeTap {
  int64_t offset; ///< index * the axis' input stride, in elements
  double weight;
};

/// The taps of one result coordinate on one axis; `outside` when tf_crop_and_resize maps it
/// outside the input (the result is then the extrapolation value).
struct ResizeSample {
  llvm::SmallVector<ResizeTap, 4> taps;
  bool outside = false;
};

/// The samples of every result coordinate of axis \p axis (of \p rank) of a Resize with
/// \p attrs, from \p in to \p out elements; input stride \p stride. Every coordinate
/// transformation and mode of the ONNX reference: nearest picks one neighbour, linear and cubic
/// weigh 2 and 4 (a zero weight is dropped), neighbours past the border repeat the border, and
/// exclude_outside renormalizes the weights inside.
std::vector<ResizeSample> resizeAxisSamples(const AttrList &attrs, unsigned rank, unsigned axis,
                                            dim_t in, dim_t out, int64_t stride);

/// An interpolated value \p v as element type T: integers round to nearest and saturate (NaN
/// gives 0); floats round to T.
template <typename T> T resizeValueAs(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v))
      return T(0);
    v = std::round(v);
    if (v <= double(std::numeric_limits<T>::lowest()))
      return std::numeric_limits<T>::lowest();
    if (v >= double(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    return T(v);
  } else {
    return T(float(v));
  }
}

/// The extrapolation value \p value as one element of \p t's kind: integers round to nearest and
/// saturate (NaN gives 0), floats round, quantized kinds use their scale and offset.
Tensor resizeExtrapolationElement(const Type &t, double value);

} // namespace ember

#endif
