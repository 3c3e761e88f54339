// The reductions ScatterElements and ScatterND combine an update with, stated once for the shape
// rule and every backend: the Reduction attribute's names and the code each backend's kernels
// switch on (the CPU kernels' How, the OpenCL kernel's reduction operand).
//
// What each computes on the element a an update u lands on (updates apply in index order):
//   none: u; add: a + u; mul: a * u; max: numpy's maximum(a, u); min: numpy's minimum(a, u).
// Integers wrap in add and mul (two's complement); bool adds as 'or' and multiplies as 'and', and
// so takes 'or' as max and 'and' as min (numpy's rules); 16-bit floats compute in float and round
// once. In max and min a NaN operand wins, a's first (numpy's maximum and minimum, as ember's
// Max and Min), and the result is the winning element itself, bits unchanged.
#ifndef EMBER_GRAPH_SCATTERREDUCTION_H
#define EMBER_GRAPH_SCATTERREDUCTION_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace ember {

/// The codes are the kernels' ABI: the CPU kernels' template argument and name part, the OpenCL
/// kernel's operand.
enum class ScatterReduction : int { None = 0, Add = 1, Mul = 2, Max = 3, Min = 4 };

/// The reduction the Reduction attribute \p how names, or none for an unknown name.
inline std::optional<ScatterReduction> scatterReductionNamed(llvm::StringRef how) {
  if (how == "none")
    return ScatterReduction::None;
  if (how == "add")
    return ScatterReduction::Add;
  if (how == "mul")
    return ScatterReduction::Mul;
  if (how == "max")
    return ScatterReduction::Max;
  if (how == "min")
    return ScatterReduction::Min;
  return std::nullopt;
}

/// The names scatterReductionNamed knows, for error messages.
inline const char *scatterReductionNames() { return "none, add, mul, max or min"; }

} // namespace ember

#endif
