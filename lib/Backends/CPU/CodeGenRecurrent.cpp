// Codegen for the recurrent family (kernels/Recurrent.cpp).
#include "CodeGenUtils.h"

using namespace llvm;

namespace ember {
namespace cpu {

void addRecurrentKernels(KernelTable &t) {}

} // namespace cpu
} // namespace ember
