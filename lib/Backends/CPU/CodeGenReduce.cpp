// Codegen for the reduce family (kernels/Reduce.cpp).
#include "CodeGenUtils.h"

using namespace llvm;

namespace ember {
namespace cpu {

void addReduceKernels(KernelTable &t) {}

} // namespace cpu
} // namespace ember
