// Spatial window attributes (kernel_shape, strides, pads, dilations, auto_pad) as ONNX's
// convolutions and pools spell them: read, checked and resolved once for every loader.
#ifndef EMBER_LIB_IMPORTER_ONNX_WINDOWATTRS_H
#define EMBER_LIB_IMPORTER_ONNX_WINDOWATTRS_H

#include "OpContext.h"

#include <string>
#include <vector>

namespace ember {

/// Largest kernel, stride, dilation or pad the loaders accept; the shape rules check the same
/// bound, this keeps the auto_pad arithmetic far from overflow.
constexpr int64_t kMaxWindowValue = int64_t(1) << 31;

/// Spatial window attributes of Conv, ConvTranspose, the pools and the integer convolutions.
struct WindowAttrs {
  size_t n; ///< spatial rank
  std::vector<int64_t> kernels, strides, pads, dilations;
  std::string autoPad;
};

/// numpy's floor division (ConvTranspose's pads may come out negative).
int64_t floorDiv(int64_t a, int64_t b);

/// The window attributes for \p input ([N, C, D1..Dn]), defaults filled in and checked; pads are
/// as written (auto_pad is resolved by the caller, which knows how its op sizes outputs).
llvm::Expected<WindowAttrs> readWindowAttrs(OpContext &ctx, const Type &input,
                                            std::vector<int64_t> kernels);
/// (kernel - 1) * dilation + 1 on axis \p i.
int64_t effectiveKernel(const WindowAttrs &w, size_t i);
/// Splits \p total padding cells between an axis' begin and end: SAME_UPPER puts the odd one at
/// the end, everything else at the begin (ONNX's rule for both Conv and ConvTranspose).
void splitPadding(WindowAttrs &w, size_t i, int64_t total);
/// Resolves auto_pad for a forward window (Conv, pools): VALID drops the pads, SAME_* pads so
/// that output = ceil(input / stride).
void resolveForwardAutoPad(WindowAttrs &w, const Type &input);
/// Kernels, Strides and Pads as node attributes.
AttrList windowAttrList(const WindowAttrs &w);
/// The filter's kernel_shape: the attribute when given, else the filter's spatial dims.
std::vector<int64_t> filterKernels(OpContext &ctx, const Type &filter);

} // namespace ember

#endif
