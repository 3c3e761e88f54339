// The window arguments Caffe2's convolutions and pools share (ConvPoolOpBase in
// caffe2/operators/conv_pool_op_base.h): every spelling of kernel, stride, pad and dilation,
// `order`, `global_pooling` and `legacy_pad`, resolved into explicit per-dim values.
#ifndef EMBER_LIB_IMPORTER_CAFFE2_CONVPOOLARGS_H
#define EMBER_LIB_IMPORTER_CAFFE2_CONVPOOLARGS_H

#include "OpContext.h"

namespace ember {
namespace c2 {

/// caffe2_legacy.proto's LegacyPadding.
enum class LegacyPad { NotSet = 0, Valid = 1, Same = 2, CaffeLegacyPooling = 3 };

struct ConvPoolArgs {
  std::vector<int64_t> kernels, strides, pads, dilations; ///< pads: all begins, then all ends
  int64_t group = 1;
  bool nhwc = false;
  bool global = false;
  LegacyPad legacyPad = LegacyPad::NotSet;
};

/// Reads the arguments as ConvPoolOpBase's constructor does; \p defaultKernels (a filter's
/// spatial dims) stands in for a kernel the operator does not give.
llvm::Expected<ConvPoolArgs> readConvPoolArgs(OpContext &ctx,
                                              llvm::ArrayRef<int64_t> defaultKernels = {});

/// Resolves global pooling and legacy padding for spatial input dims \p spatial, as
/// ConvPoolOpBase::InferOutputSize and ComputeSizeAndPad do, into explicit pads that give the
/// same output size with floor rounding (CAFFE_LEGACY_POOLING's extra tail cells included).
llvm::Error resolvePads(OpContext &ctx, ConvPoolArgs &args, llvm::ArrayRef<dim_t> spatial);

/// NHWC <-> NCHW permutations for rank \p rank.
std::vector<int64_t> toChannelsFirst(size_t rank);
std::vector<int64_t> toChannelsLast(size_t rank);

} // namespace c2
} // namespace ember

#endif
