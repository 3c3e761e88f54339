// Codegen for the quantized family (kernels/Quantized.cpp).
#include "CodeGenUtils.h"

using namespace llvm;

namespace ember {
namespace cpu {

void addQuantizedKernels(KernelTable &t) {}

} // namespace cpu
} // namespace ember
