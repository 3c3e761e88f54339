// What the quantized kernels (kernels/Quantized*.cpp) and their codegen (CodeGenQuantized.cpp)
// agree on: the scratch layout of IntegerMatMul / IntegerConv and the parameter array of
// IntegerConv. Plain C++ with no includes: compiled into the freestanding kernel library and
// into the backend.
#ifndef EMBER_CPU_KERNELS_QUANTIZEDLAYOUT_H
#define EMBER_CPU_KERNELS_QUANTIZEDLAYOUT_H

namespace quantlayout {

typedef long long idx;

/// Bytes of the int16 copy of an n-element 8-bit operand minus its zero point (values in
/// [-255, 255]), rounded up so the next copy starts 64-byte aligned. IntegerMatMul and
/// IntegerConv shift both operands into scratch first (as the Interpreter does), so their
/// loops need no zero-point indexing and the padding of IntegerConv is simply skipped (it holds
/// the zero point, i.e. 0 after the shift).
constexpr idx shiftedBytes(idx n) { return (2 * n + 63) / 64 * 64; }

/// IntegerConv's parameter array: kConvHeader values, then six arrays of nsp values each.
enum ConvParam : idx {
  kConvNsp = 0, // spatial dims (>= 1)
  kConvN,
  kConvC,
  kConvCout,
  kConvGroup,
  kConvHeader
};
/// Where array \p which (0 input spatial dims, 1 kernel dims, 2 output spatial dims, 3 strides,
/// 4 begin pads, 5 dilations) starts in the parameter array.
constexpr idx convArray(idx nsp, idx which) { return kConvHeader + which * nsp; }
constexpr idx convParamCount(idx nsp) { return kConvHeader + 6 * nsp; }

} // namespace quantlayout

#endif
