// ONNX signal operators (opset 17), built from ember's existing nodes and constants, no node kind
// of their own:
// - HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix depend only on operands known at
//   compile time (sizes, bin counts, rates, frequencies): each becomes a Constant, computed in
//   double and rounded once to 'output_datatype'.
// - DFT is a matrix product: the transformed axis and the real/imaginary axis are moved last and
//   flattened, so one MatMul by a constant matrix of cosines and sines does the whole transform
//   (dft_length, inverse and onesided are folded into that matrix).
// - STFT gathers the overlapping frames with a constant index matrix, multiplies them by the
//   window and transforms them as DFT does.
// Every backend runs them with the kernels it already has.
#include "DataMovementOps.h"

#include "ONNXTensor.h"

#include "ember/Support/Error.h"

#include <cmath>

using namespace llvm;

namespace ember {

namespace {

const double kPi = std::acos(-1.0);

/// A zero-filled tensor of \p kind and \p dims for the constant \p what, refused when it
/// exceeds the memory budget (-max-memory): a DFT matrix grows with the square of its length.
Expected<Tensor> newConstantTensor(OpContext &ctx, ElemKind kind, ArrayRef<dim_t> dims,
                                   const Twine &what) {
  auto type = Type::checkedDims(kind, dims);
  if (!type)
    return ctx.fail(what + ": " + errorToString(type.takeError()));
  return ctx.newTensor(*type, what);
}

/// Input \p i, named \p name, as a compile-time scalar (rank 0, or one element of rank 1).
Expected<const Tensor *> scalarOperand(OpContext &ctx, unsigned i, StringRef name) {
  EMBER_ASSIGN_OR_RETURN(const Tensor *t, ctx.constantInput(i));
  if (t->numElements() != 1 || t->getType().rank() > 1)
    return ctx.fail(name + " must be a scalar, got " + t->getType().str());
  return t;
}

/// Input \p i, named \p name: an integer scalar of at least \p min.
Expected<int64_t> intOperand(OpContext &ctx, unsigned i, StringRef name, int64_t min) {
  EMBER_ASSIGN_OR_RETURN(const Tensor *t, scalarOperand(ctx, i, name));
  auto values = tensorInts(*t, name);
  if (!values)
    return ctx.fail(errorToString(values.takeError()));
  int64_t v = values->front();
  if (v < min)
    return ctx.fail(name + " must be at least " + Twine(min) + ", got " + Twine(v));
  return v;
}

/// Input \p i, named \p name: a finite floating-point scalar.
Expected<double> floatOperand(OpContext &ctx, unsigned i, StringRef name) {
  EMBER_ASSIGN_OR_RETURN(const Tensor *t, scalarOperand(ctx, i, name));
  if (!isFloatKind(t->getType().kind))
    return ctx.fail(name + " must be a floating-point scalar, got " + t->getType().str());
  double v = t->elementAsDouble(0);
  if (!std::isfinite(v))
    return ctx.fail(name + " must be finite, got " + numberToString(v));
  return v;
}

/// Attribute \p name, 0 or 1.
Expected<bool> flagAttr(OpContext &ctx, StringRef name, int64_t def) {
  int64_t v = ctx.getInt(name, def);
  if (v != 0 && v != 1)
    return ctx.fail("attribute '" + name + "' must be 0 or 1, got " + Twine(v));
  return v == 1;
}

/// The 'output_datatype' attribute of the generators: an integer or floating-point kind
/// (default 1, FLOAT).
Expected<ElemKind> outputDatatype(OpContext &ctx) {
  int64_t dataType = ctx.getInt("output_datatype", onnx::TensorProto::FLOAT);
  auto kind = elemKindFromONNX(int(dataType));
  if (!kind)
    return ctx.fail("attribute 'output_datatype': " + errorToString(kind.takeError()));
  if (!isFloatKind(*kind) && !isIntegerKind(*kind))
    return ctx.fail("attribute 'output_datatype' must be an integer or floating-point type, got " +
                    elemKindName(*kind));
  return *kind;
}

// ---- Window functions -------------------------------------------------------------------------

/// A cosine-sum window w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), n in [0, size), as
/// the operators' ONNX function bodies define it: N = size for a periodic window (attribute
/// 'periodic', default 1), size - 1 for a symmetric one. (A symmetric window of size 1 divides
/// 0 by 0 there, and so here: its one value is NaN, which the body's final Cast makes 0 for an
/// integer 'output_datatype'.)
struct CosineSum {
  double a0, a1, a2;
};

Error loadCosineSumWindow(OpContext &ctx, CosineSum w) {
  EMBER_ASSIGN_OR_RETURN(int64_t size, intOperand(ctx, 0, "size", 1));
  EMBER_ASSIGN_OR_RETURN(bool periodic, flagAttr(ctx, "periodic", 1));
  EMBER_ASSIGN_OR_RETURN(ElemKind kind, outputDatatype(ctx));
  EMBER_ASSIGN_OR_RETURN(Tensor t, newConstantTensor(ctx, kind, {dim_t(size)}, "the window"));
  double increment = 2 * kPi / double(periodic ? size : size - 1);
  for (int64_t n = 0; n < size; ++n) {
    double angle = double(n) * increment;
    double value = w.a0 - w.a1 * std::cos(angle) + w.a2 * std::cos(2 * angle);
    // Other values lie in [-1e-16, 1]: converting them truncates as Cast does.
    if (std::isnan(value) && isIntegerKind(kind))
      value = 0;
    t.setElementFromDouble(size_t(n), value);
  }
  return ctx.setOutput(0, ctx.createConstant(std::move(t), "window")->getResult());
}

Error loadHannWindow(OpContext &ctx) { return loadCosineSumWindow(ctx, {0.5, 0.5, 0.0}); }
Error loadHammingWindow(OpContext &ctx) {
  return loadCosineSumWindow(ctx, {25.0 / 46.0, 21.0 / 46.0, 0.0});
}
Error loadBlackmanWindow(OpContext &ctx) { return loadCosineSumWindow(ctx, {0.42, 0.5, 0.08}); }

// ---- MelWeightMatrix --------------------------------------------------------------------------

double hertzToMel(double hertz) { return 2595 * std::log10(1 + hertz / 700); }
double melToHertz(double mel) { return 700 * (std::pow(10, mel / 2595) - 1); }

/// MelWeightMatrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz):
/// [dft_length / 2 + 1, num_mel_bins] triangular filters, as the ONNX reference computes them:
/// num_mel_bins + 2 points evenly spaced in mel from the lower to the upper edge (the step
/// divides the range by num_mel_bins + 2), each mapped to the spectrogram bin
/// floor((dft_length + 1) * hertz / sample_rate); filter i rises from point i to point i + 1 and
/// falls to point i + 2.
Error loadMelWeightMatrix(OpContext &ctx) {
  EMBER_TRY(ctx.constantInputs({0, 1, 2, 3, 4}).takeError()); // all needed ones named at once
  EMBER_ASSIGN_OR_RETURN(int64_t numMelBins, intOperand(ctx, 0, "num_mel_bins", 1));
  EMBER_ASSIGN_OR_RETURN(int64_t dftLength, intOperand(ctx, 1, "dft_length", 1));
  EMBER_ASSIGN_OR_RETURN(int64_t sampleRate, intOperand(ctx, 2, "sample_rate", 1));
  EMBER_ASSIGN_OR_RETURN(double lowerHertz, floatOperand(ctx, 3, "lower_edge_hertz"));
  EMBER_ASSIGN_OR_RETURN(double upperHertz, floatOperand(ctx, 4, "upper_edge_hertz"));
  EMBER_ASSIGN_OR_RETURN(ElemKind kind, outputDatatype(ctx));
  if (lowerHertz < 0 || upperHertz < lowerHertz)
    return ctx.fail("the band edges must satisfy 0 <= lower_edge_hertz <= upper_edge_hertz, got " +
                    numberToString(lowerHertz) + " and " + numberToString(upperHertz));
  int64_t spectrogramBins = dftLength / 2 + 1;
  EMBER_ASSIGN_OR_RETURN(Tensor t, newConstantTensor(ctx, kind,
                                                     {dim_t(spectrogramBins), dim_t(numMelBins)},
                                                     "the mel weight matrix"));

  double lowMel = hertzToMel(lowerHertz), highMel = hertzToMel(upperHertz);
  double melStep = (highMel - lowMel) / double(numMelBins + 2);
  std::vector<int64_t> points; // non-decreasing, since the edges are ordered
  for (int64_t i = 0; i < numMelBins + 2; ++i) {
    double hertz = melToHertz(double(i) * melStep + lowMel);
    points.push_back(int64_t(std::floor(double(dftLength + 1) * hertz / double(sampleRate))));
  }
  // Filters write bins up to the last center (inclusive) and below the last right edge.
  if (points[numMelBins] >= spectrogramBins || points[numMelBins + 1] > spectrogramBins)
    return ctx.fail("upper_edge_hertz " + numberToString(upperHertz) +
                    " puts the mel filters past the " + Twine(spectrogramBins) +
                    " spectrogram bins of dft_length " + Twine(dftLength) + " at sample_rate " +
                    Twine(sampleRate));

  auto set = [&](int64_t bin, int64_t filter, double v) {
    t.setElementFromDouble(size_t(bin * numMelBins + filter), v);
  };
  for (int64_t i = 0; i < numMelBins; ++i) {
    int64_t left = points[i], center = points[i + 1], right = points[i + 2];
    if (center == left)
      set(center, i, 1);
    else
      for (int64_t j = left; j <= center; ++j)
        set(j, i, double(j - left) / double(center - left));
    for (int64_t j = center; j < right; ++j)
      set(j, i, double(right - j) / double(right - center));
  }
  return ctx.setOutput(0, ctx.createConstant(std::move(t), "mel_weights")->getResult());
}

// ---- DFT and STFT -----------------------------------------------------------------------------

/// The DFT of \p signal, [..., c] with c = 1 (real) or 2 (real, imaginary), along \p axis (any
/// but the last), over \p dftLength points: the axis is cut to dftLength or, in effect, padded
/// with zeros to it. Result: \p signal's dims with the axis of length K (dftLength, or
/// dftLength / 2 + 1 when \p onesided) and the last of length 2:
///   y[k] = scale * sum over j < dftLength of x[j] * exp(sign * 2 pi i j k / dftLength),
/// sign -1 and scale 1 forward, sign +1 and scale 1 / dftLength when \p inverse.
///
/// With the axis and the component axis moved last and flattened to n * c values per row, the
/// transform is one product by a constant [n * c, K * 2] matrix whose result, read as [K, 2], is
/// already the output's layout: with A = scale cos(2 pi j k / L) and B = scale sign sin(...),
/// real(y[k]) = sum_j re(x[j]) A - im(x[j]) B and imag(y[k]) = sum_j re(x[j]) B + im(x[j]) A.
Expected<NodeValue> buildDFT(OpContext &ctx, NodeValue signal, unsigned axis, dim_t dftLength,
                             bool inverse, bool onesided) {
  Type t = signal.getType();
  unsigned rank = t.rank();
  dim_t components = t.dims[rank - 1];
  // Samples past dftLength are dropped; missing ones are zeros and contribute nothing, so the
  // matrix has rows for the samples present only.
  if (t.dims[axis] > dftLength) {
    EMBER_ASSIGN_OR_RETURN(signal, sliceAxis(ctx, signal, axis, 0, dftLength, "truncate"));
    t = signal.getType();
  }
  dim_t samples = t.dims[axis];
  dim_t bins = onesided ? dftLength / 2 + 1 : dftLength;

  // [others..., samples, components] -> [rows, samples * components].
  std::vector<int64_t> perm;
  DimsVec outDims;
  dim_t rows = 1;
  for (unsigned d = 0; d + 1 < rank; ++d)
    if (d != axis) {
      perm.push_back(d);
      outDims.push_back(t.dims[d]);
      rows *= t.dims[d];
    }
  perm.push_back(axis);
  perm.push_back(rank - 1);
  bool moved = axis != rank - 2;
  if (moved) {
    EMBER_ASSIGN_OR_RETURN(signal, ctx.transpose(signal, perm, "axis_last"));
  }
  EMBER_ASSIGN_OR_RETURN(signal, ctx.reshape(signal, {rows, samples * components}));

  EMBER_ASSIGN_OR_RETURN(Tensor w, newConstantTensor(ctx, t.kind, {samples * components, bins * 2},
                                                     "the DFT matrix"));
  double scale = inverse ? 1.0 / double(dftLength) : 1.0, sign = inverse ? 1.0 : -1.0;
  for (dim_t j = 0; j < samples; ++j)
    for (dim_t k = 0; k < bins; ++k) {
      // j * k reduced modulo the length first keeps the angle in [0, 2 pi): exact, not
      // j * k * 2 pi / L rounded at large j * k.
      double angle = 2 * kPi * double((j * k) % dftLength) / double(dftLength);
      double a = scale * std::cos(angle), b = scale * sign * std::sin(angle);
      size_t realRow = j * components * bins * 2;
      w.setElementFromDouble(realRow + 2 * k, a);
      w.setElementFromDouble(realRow + 2 * k + 1, b);
      if (components == 2) {
        size_t imagRow = realRow + bins * 2;
        w.setElementFromDouble(imagRow + 2 * k, -b);
        w.setElementFromDouble(imagRow + 2 * k + 1, a);
      }
    }
  NodeValue matrix = ctx.createConstant(std::move(w), "dft_matrix")->getResult();
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MatMul, {signal, matrix}, {}, "dft"));

  // [rows, bins * 2] -> [others..., bins, 2] -> the transformed axis back in its place.
  outDims.push_back(bins);
  outDims.push_back(2);
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, outDims));
  if (moved) {
    std::vector<int64_t> back(rank);
    for (unsigned d = 0; d < rank; ++d)
      back[perm[d]] = d;
    EMBER_ASSIGN_OR_RETURN(y, ctx.transpose(y, back, "axis_back"));
  }
  return y;
}

/// \p v (input \p name) as a signal: a floating-point tensor whose last axis holds 1 (real) or
/// 2 (real, imaginary) components.
Error checkSignal(OpContext &ctx, NodeValue v, StringRef name) {
  const Type &t = v.getType();
  if (!isFloatKind(t.kind))
    return ctx.fail(name + " must be floating-point, got " + t.str());
  if (t.rank() < 2 || (t.dims.back() != 1 && t.dims.back() != 2))
    return ctx.fail(name + " must end in an axis of 1 (real) or 2 (real, imaginary) components, "
                           "after at least one signal axis; got " + t.str());
  return Error::success();
}

/// DFT(input, dft_length?, axis?): the axis (DFT-17: attribute 'axis', default 1; DFT-20: the
/// compile-time scalar input 'axis', default -2, the last signal axis) indexes the input's dims,
/// the trailing component axis included (negative values count from it, as onnxruntime and
/// DFT-20 read them), and must not name that axis. 'onesided' keeps the first
/// dft_length / 2 + 1 outputs; the spec means it for real input only, and for complex input
/// (as in onnxruntime) the same outputs are kept.
Error loadDFT(OpContext &ctx) {
  bool axisInput = ctx.opset() >= 20;
  // dft_length and axis are both needed at compile time: say so for both at once.
  SmallVector<unsigned, 2> needed;
  if (ctx.hasInput(1))
    needed.push_back(1);
  if (axisInput && ctx.hasInput(2))
    needed.push_back(2);
  if (!needed.empty())
    EMBER_TRY(ctx.constantInputs(needed).takeError());
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_TRY(checkSignal(ctx, x, "input"));
  unsigned rank = x.getType().rank();
  int64_t axisValue = axisInput ? -2 : ctx.getInt("axis", 1);
  StringRef axisName = axisInput ? "input 'axis'" : "attribute 'axis'";
  if (axisInput && ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(const Tensor *t, scalarOperand(ctx, 2, "axis"));
    auto values = tensorInts(*t, "axis");
    if (!values)
      return ctx.fail(errorToString(values.takeError()));
    axisValue = values->front();
  }
  auto axis = normalizeAxis(axisValue, rank);
  if (!axis)
    return ctx.fail(axisName + ": " + errorToString(axis.takeError()));
  if (*axis == int64_t(rank) - 1)
    return ctx.fail(axisName + " names the last axis of input " + x.getType().str() +
                    ", which holds the real and imaginary components, not signal samples");
  EMBER_ASSIGN_OR_RETURN(bool inverse, flagAttr(ctx, "inverse", 0));
  EMBER_ASSIGN_OR_RETURN(bool onesided, flagAttr(ctx, "onesided", 0));
  int64_t dftLength = int64_t(x.getType().dims[*axis]);
  if (dftLength == 0)
    return ctx.fail("axis " + Twine(*axis) + " of input " + x.getType().str() +
                    " is empty: there is no signal to transform");
  if (ctx.hasInput(1)) {
    EMBER_ASSIGN_OR_RETURN(dftLength, intOperand(ctx, 1, "dft_length", 1));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         buildDFT(ctx, x, unsigned(*axis), dim_t(dftLength), inverse, onesided));
  return ctx.setOutput(0, y);
}

/// STFT(signal [batch, length, 1|2], frame_step, window?, frame_length?): frames of
/// frame_length samples every frame_step samples (1 + (length - frame_length) / frame_step of
/// them), each multiplied by the window and transformed as by DFT: [batch, frames, bins, 2].
/// The frame length is the window's or frame_length; given both, they must agree.
Error loadSTFT(OpContext &ctx) {
  // The frame step and length are both needed at compile time: say so for both at once.
  SmallVector<unsigned, 2> needed{1};
  if (ctx.hasInput(3))
    needed.push_back(3);
  EMBER_TRY(ctx.constantInputs(needed).takeError());
  EMBER_ASSIGN_OR_RETURN(NodeValue signal, ctx.input(0));
  EMBER_TRY(checkSignal(ctx, signal, "signal"));
  const Type &st = signal.getType();
  if (st.rank() != 3)
    return ctx.fail("signal must be [batch, length, 1 or 2], got " + st.str());
  EMBER_ASSIGN_OR_RETURN(int64_t step, intOperand(ctx, 1, "frame_step", 1));
  EMBER_ASSIGN_OR_RETURN(bool onesided, flagAttr(ctx, "onesided", 1));

  std::optional<NodeValue> window;
  int64_t frameLength = 0;
  if (ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(window, ctx.input(2));
    const Type &wt = window->getType();
    if (wt.rank() != 1 || wt.kind != st.kind)
      return ctx.fail("window must be a vector of the signal's type " +
                      std::string(elemKindName(st.kind)) + ", got " + wt.str());
    frameLength = int64_t(wt.dims[0]);
  }
  if (ctx.hasInput(3)) {
    EMBER_ASSIGN_OR_RETURN(int64_t length, intOperand(ctx, 3, "frame_length", 1));
    if (window && length != frameLength)
      return ctx.fail("frame_length " + Twine(length) + " differs from the window's length " +
                      Twine(frameLength));
    frameLength = length;
  } else if (!window) {
    return ctx.fail("the frame length is unknown: give a window or frame_length");
  }
  int64_t length = int64_t(st.dims[1]);
  if (frameLength < 1 || frameLength > length)
    return ctx.fail("the frame length " + Twine(frameLength) + " must be between 1 and the "
                    "signal's length " + Twine(length));
  int64_t frames = 1 + (length - frameLength) / step;

  // indices[f][j] = f * step + j: a Gather on the length axis makes [batch, frames, frame, c].
  EMBER_ASSIGN_OR_RETURN(Tensor indices,
                         newConstantTensor(ctx, ElemKind::Int64,
                                           {dim_t(frames), dim_t(frameLength)}, "the frame indices"));
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < frameLength; ++j)
      indices.dataAs<int64_t>()[f * frameLength + j] = f * step + j;
  NodeValue index = ctx.createConstant(std::move(indices), "frame_indices")->getResult();
  EMBER_ASSIGN_OR_RETURN(NodeValue framed,
                         ctx.create(NodeKind::Gather, {signal, index},
                                    AttrList().set<AttrKind::Axis>(int64_t(1)), "frames"));
  if (window) {
    // The window scales the real and the imaginary component alike.
    EMBER_ASSIGN_OR_RETURN(NodeValue w, ctx.reshape(*window, {dim_t(frameLength), 1}));
    EMBER_ASSIGN_OR_RETURN(w, ctx.broadcastTo(w, framed.getType().dims));
    EMBER_ASSIGN_OR_RETURN(framed, ctx.create(NodeKind::Mul, {framed, w}, {}, "windowed"));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, buildDFT(ctx, framed, 2, dim_t(frameLength),
                                               /*inverse=*/false, onesided));
  return ctx.setOutput(0, y);
}

} // namespace

void registerSignalOps(OpRegistry &r) {
  r.add("HannWindow", 17, loadHannWindow);
  r.add("HammingWindow", 17, loadHammingWindow);
  r.add("BlackmanWindow", 17, loadBlackmanWindow);
  r.add("MelWeightMatrix", 17, loadMelWeightMatrix);
  r.add("DFT", 17, loadDFT);
  r.add("DFT", 20, loadDFT);
  r.add("STFT", 17, loadSTFT);
}

} // namespace ember
