// Shape rules: reductions, normalizations and selections.
#include "Common.h"

using namespace llvm;

namespace ember {

using namespace shape;

} // namespace ember
