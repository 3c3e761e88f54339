// The most memory one compile may ask for at once: a model (or a value folded at compile time)
// whose regions would exceed it is refused with an error before anything is allocated, instead
// of the process being killed, or a crafted model file taking the machine down. One limit per
// process, like the tools' other flags (-max-memory); by default half of the machine's memory.
#ifndef EMBER_SUPPORT_MEMORYBUDGET_H
#define EMBER_SUPPORT_MEMORYBUDGET_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace ember {

/// The budget in bytes.
uint64_t memoryBudget();
/// Sets it (0: back to the default).
void setMemoryBudget(uint64_t bytes);
/// An error naming \p what when \p bytes exceed the budget.
llvm::Error checkMemoryBudget(uint64_t bytes, const llvm::Twine &what);

} // namespace ember

#endif
