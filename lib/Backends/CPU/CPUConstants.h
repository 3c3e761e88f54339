// The constants the CPU backend stores in a layout of its own. A float32 convolution filter that
// only the GEMM path of convolutions reads is packed, once, at compile time, into the panels of
// the target's register tile (kernels/PackedPanels.h): the micro-kernel then reads the weights
// as one sequential stream rather than MR rows a filter apart, which on resnet50's convolutions
// more than doubles their speed. An int8 filter of the int8 GEMM's flat convolutions is
// permuted to [Cout][taps][Cg] (CodeGenQuantized.h: integerConvFilterLayout), the order in
// which its tiles read k, so that they read it in place instead of packing it every call; for
// the VNNI row's tile over pixels, whose vectors are 16 output channels, it goes in panels of
// output channels instead (kernels/QuantizedLayout.h: kQcFilterCoutPanels). A
// packed constant keeps its type, size and offset, so the memory plan and the bundle ABI do not
// change; only the bytes of weights.bin do; but for a Winograd filter (winogradMark), whose
// transformed tiles take more than its bytes (WeightVar::reservedBytes). Private to
// lib/Backends/CPU.
#ifndef EMBER_LIB_BACKENDS_CPU_CPUCONSTANTS_H
#define EMBER_LIB_BACKENDS_CPU_CPUCONSTANTS_H

#include "ember/IR/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace ember {
namespace cpu {

/// packedFilters' mark for a float32 B of matrix products (FullyConnected's weights, a MatMul's
/// right operand: CodeGenNN.h productBOperand) stored in panels of the tile's NR columns, k-major
/// within a panel (kernels/PackedPanels.h with B's columns as its rows), so that the GEMM reads
/// its panels where they lie instead of packing the weights every call.
constexpr int64_t kColumnPanels = 0;

/// packedFilters' mark for a float32 filter [K][C][3][3] of convolutions that Winograd
/// F(m x m, 3x3) computes (CodeGenNN.h, convWinogradTile): -m. Stored transformed, (m + 2)^2
/// matrices [K][C] in panels of MR rows (kernels/WinogradTransforms.h), 4 (F(4x4)) or 16/9
/// (F(2x2)) times the filter's bytes, which reserveConstants keeps.
constexpr int64_t winogradMark(int64_t m) { return -m; }
constexpr bool isWinogradMark(int64_t layout) {
  return layout == winogradMark(2) || layout == winogradMark(4);
}

/// packedFilters' mark for a float32 1x1 filter [K][C] of convolutions that go by pixels
/// (kernels/Scratch.h, convByPixels): a product's B in panels of NR columns, the filter's rows
/// as B's columns (packRows of the filter with NR rows a panel).
constexpr int64_t kFilterPixelPanels = -1;
constexpr int64_t winogradTileOf(int64_t layout) { return -layout; }

/// packedFilters' marks for the W [dirs][gates * hidden][input] and R [dirs][gates * hidden]
/// [hidden] of recurrent instructions on the fast kernel (CodeGen.h, fastRecurrent): each
/// direction's W as a product's B = W^T in panels of NR columns (packRows of W with NR rows a
/// panel), as the kernel's input projection reads it; each direction's R as the kernel's
/// chunks (kernels/RecurrentLayout.h: packGateBlock of each gate), which pad hidden to whole
/// vectors (reserveConstants keeps the bytes). The kernel packed both every call, W every
/// GEMM of its input projection.
constexpr int64_t kRecurrentInputPanels = -8;
constexpr int64_t kRecurrentStateChunks = -9;

/// The filters the kernels read packed, each with its convolutions' group count: constants that
/// every reader reads directly (not through a view) as the filter of a convolution on the GEMM
/// path (a float32 one, or an int8 flat one: integerConvFilterLayout for the int8 row
/// \p integerVariant), all with one group count; or as the B of a float32 matrix product, all
/// of them (kColumnPanels).
llvm::DenseMap<const IRValue *, int64_t> packedFilters(const IRFunction &IR,
                                                       llvm::StringRef integerVariant);

/// Whether \p filter, a convolution's filter operand, was reserved the room of its Winograd
/// F(m x m) transform (reserveConstants): then packedFilters marks it winogradMark(m) and the
/// convolution runs Winograd, which its scratch can be sized for alone.
bool reservedForWinograd(const IRValue *filter, int64_t m);

/// Whether the W and R of a recurrent instruction were reserved their packed layouts
/// (reserveConstants): then packedFilters marks them kRecurrentInputPanels and
/// kRecurrentStateChunks, and the fast kernel reads them so.
bool reservedForRecurrent(const IRValue *W, const IRValue *R);

/// Writes the packedFilters of \p IR over their planned places in \p region, from their
/// payloads: float32 ones in panels of \p MR rows (the register tile of the kernel variant
/// codegen calls; a product's B in panels of \p NR columns), int8 ones permuted to [Cout][taps][Cg], or in panels of output channels
/// where the int8 row \p integerVariant reads them so (integerConvFilterLayout). The other
/// constants are written as they are by Backend::writeConstants.
void packFilters(const IRFunction &IR, int64_t MR, int64_t NR, llvm::StringRef integerVariant,
                 uint8_t *region);

/// Sets the reservedBytes of the packedFilters stored in a layout that codegen asks about
/// before the plan (winogradMark, larger than the value; kRecurrentInputPanels and
/// kRecurrentStateChunks, at least the value's bytes), before the memory plan places them.
void reserveConstants(IRFunction &IR, llvm::StringRef integerVariant);

} // namespace cpu
} // namespace ember

#endif
