// Interpreter kernels: Reduce.
#include "KernelUtils.h"

using namespace llvm;

namespace ember {
namespace interp {

} // namespace interp
} // namespace ember
