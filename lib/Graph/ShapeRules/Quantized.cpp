// Shape rules: quantization and recurrent ops.
#include "Common.h"

using namespace llvm;

namespace ember {

using namespace shape;

} // namespace ember
