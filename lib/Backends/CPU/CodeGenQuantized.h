// What the quantized family's codegen files (CodeGenQuantized*.cpp) share. Private to
// lib/Backends/CPU.
#ifndef EMBER_LIB_BACKENDS_CPU_CODEGENQUANTIZED_H
#define EMBER_LIB_BACKENDS_CPU_CODEGENQUANTIZED_H

#include "CodeGen.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ember {
namespace cpu {

/// Whether IntegerConv \p conv and Requantize \p rq, the only reader of its int32 result with
/// nothing run between them, run as one call of the int8 GEMM that requantizes as its tiles
/// finish (CodeGenFusion.cpp): the convolution runs the int8 GEMM, and the Requantize's scale
/// and zero point are per tensor or per output channel. The tiles write the 8-bit result in its
/// place when that overlaps none of the bytes the convolution still reads or writes (its
/// operands, its scratch, the Requantize's parameters), else to the start of the scratch,
/// copied to its place after the call.
bool fusesIntegerConvRequantize(const Instruction &conv, const Instruction &rq);
/// Emits such a pair (fusesIntegerConvRequantize) as one call.
llvm::Error emitIntegerConvRequantize(Emitter &E, const Instruction &conv, const Instruction &rq);

/// A depthwise IntegerConv's parameters for kernels/QuantizedDepthwise.cpp (layout:
/// kernels/QuantizedDepthwise.h), if that kernel takes it: 1-D or 2-D, one input channel a
/// group, strides of 1 or 2, at most 49 taps, a per-tensor input zero point and a per-tensor or
/// per-output-channel filter zero point.
std::optional<std::vector<int64_t>> depthwiseIntegerConvParams(const Instruction &I);
/// Bytes of scratch for depthwiseIntegerConvParams' \p params on \p threads threads.
uint64_t depthwiseIntegerConvScratch(llvm::ArrayRef<int64_t> params, int64_t threads);
/// Emits the depthwise kernel's call for \p params.
llvm::Error emitDepthwiseIntegerConv(Emitter &E, const Instruction &I,
                                     llvm::ArrayRef<int64_t> params);

} // namespace cpu
} // namespace ember

#endif
