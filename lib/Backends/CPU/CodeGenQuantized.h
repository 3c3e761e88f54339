// What the quantized family's codegen files (CodeGenQuantized*.cpp) share. Private to
// lib/Backends/CPU.
#ifndef EMBER_LIB_BACKENDS_CPU_CODEGENQUANTIZED_H
#define EMBER_LIB_BACKENDS_CPU_CODEGENQUANTIZED_H

#include "CodeGen.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ember {
namespace cpu {

/// Whether IntegerConv \p conv and Requantize \p rq, the only reader of its int32 result with
/// nothing run between them, run as one call that requantizes as it finishes the sums
/// (CodeGenFusion.cpp): the convolution runs the int8 GEMM (whose tiles requantize) or the
/// depthwise kernel (which requantizes each vector it stores), and the Requantize's scale and
/// zero point are per tensor or per output channel. The kernel writes the 8-bit result in its
/// place when that overlaps none of the bytes the convolution still reads or writes (its
/// operands, its scratch, the Requantize's parameters), else to the start of the scratch
/// (requantStagingBytes), copied to its place after the call.
bool fusesIntegerConvRequantize(const Instruction &conv, const Instruction &rq);
/// Emits such a pair (fusesIntegerConvRequantize) as one call.
llvm::Error emitIntegerConvRequantize(Emitter &E, const Instruction &conv, const Instruction &rq);

/// How the constant region holds \p I's filter when \p I is an IntegerConv on the int8
/// GEMM's flat path (kernels/QuantizedLayout.h: qconvIsFlat, QConvFilterLayout) with an int8
/// filter of input channels a multiple of four a group and more than one tap, for the int8 row
/// \p integerVariant (kernels/QuantizedIntegerVariants.def): in panels of output channels for
/// the VNNI row's tile over pixels (groups of a multiple of 16 filters; flat on that account
/// too), else permuted to [Cout][taps][Cg] (k as (tap, four channels), the order of the flat
/// path's quads), which the tiles read in place. Either spares packing the filter every call
/// (CPUConstants.h); kQcFilterAsImported: not packed.
int64_t integerConvFilterLayout(const Instruction &I, llvm::StringRef integerVariant);

/// A depthwise IntegerConv's parameters for kernels/QuantizedDepthwise.cpp (layout:
/// kernels/QuantizedDepthwise.h), if that kernel takes it: 1-D or 2-D, one input channel a
/// group, strides of 1 or 2, at most 49 taps, a per-tensor input zero point and a per-tensor or
/// per-output-channel filter zero point.
std::optional<std::vector<int64_t>> depthwiseIntegerConvParams(const Instruction &I);
/// Bytes of the depthwise kernel's working memory for depthwiseIntegerConvParams' \p params on
/// \p threads threads (its scratch holds requantStagingBytes before them).
uint64_t depthwiseIntegerConvScratch(llvm::ArrayRef<int64_t> params, int64_t threads);
/// Emits the depthwise kernel's call for \p params, and with \p rq its Requantize (params'
/// requantization set by the caller) to \p q.
llvm::Error emitDepthwiseIntegerConv(Emitter &E, const Instruction &I,
                                     llvm::ArrayRef<int64_t> params,
                                     const Instruction *rq = nullptr, llvm::Value *q = nullptr);

/// Bytes at the start of the scratch of IntegerConv \p I on the int8 GEMM or the depthwise
/// kernel where a requantized result is written when the Requantize's own place is still in use
/// while the convolution runs (the memory plan does not know that the two are one call), then
/// copied there: one byte an element.
uint64_t requantStagingBytes(const Instruction &I);
/// The arguments those kernels' entries take alike for \p I: its result and operands, their
/// parameters \p params (a constant named \p name), their working memory (the scratch past the
/// staging bytes), the team, and for the Requantize \p rq fused in its result's place \p q,
/// its scale and zero point (null pointers without \p rq).
llvm::SmallVector<llvm::Value *, 12> integerConvArgs(Emitter &E, const Instruction &I,
                                                     llvm::ArrayRef<int64_t> params,
                                                     llvm::StringRef name,
                                                     const Instruction *rq, llvm::Value *q);

} // namespace cpu
} // namespace ember

#endif
