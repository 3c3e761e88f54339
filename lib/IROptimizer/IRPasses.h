// The IR passes (declared in IRPasses.def) and the analysis they share: which instructions read
// and write each storage, through any view of it.
#ifndef EMBER_LIB_IROPTIMIZER_IRPASSES_H
#define EMBER_LIB_IROPTIMIZER_IRPASSES_H

#include "ember/IR/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace ember {

#define IR_PASS(FN, NAME, DEFAULT, DOC) bool FN(IRFunction &IR);
#include "ember/IROptimizer/IRPasses.def"

/// One operand of a computing instruction, seen from the storage it lands in.
struct Access {
  unsigned pos;       ///< the instruction's position in the list when the map was built
  Instruction *instr;
  IRValue *value;     ///< the operand as written (the storage itself or a view of it)
  OperandMode mode;
  bool reads() const { return mode != OperandMode::Out; }
  bool writes() const { return mode != OperandMode::In; }
};

/// For every storage (WeightVar or allocation), the accesses of the computing instructions
/// (everything but allocations, deallocations and views), in list order. A snapshot: passes that
/// rewrite the list rebuild it, or keep it valid by only ever moving accesses between storages
/// in ways they account for.
class AccessMap {
  llvm::DenseMap<const IRValue *, llvm::SmallVector<Access, 4>> byRoot_;
  llvm::DenseMap<const Instruction *, unsigned> pos_;

public:
  explicit AccessMap(IRFunction &IR);
  llvm::ArrayRef<Access> of(const IRValue *root) const;
  unsigned position(const Instruction *I) const { return pos_.lookup(I); }
  unsigned numWrites(const IRValue *root) const;
  /// Whether anything writes (reads, accesses) \p root after position \p pos.
  bool writtenAfter(const IRValue *root, unsigned pos) const;
  bool readAfter(const IRValue *root, unsigned pos) const;
  /// The last position that accesses \p root; 0 if none.
  unsigned lastAccess(const IRValue *root) const;
};

/// A TensorView of \p base with \p ty at \p offset bytes, named \p name.
std::unique_ptr<Instruction> makeView(llvm::StringRef name, IRValue *base, const Type &ty,
                                      uint64_t offset);

/// Before \p gone's storage is replaced by \p keep's (both allocations), stretches keep's
/// lifetime over gone's: keep's allocation moves up to gone's, its deallocation down to gone's.
/// Nothing for weights, which live throughout.
void absorbLifetime(IRFunction &IR, IRValue *keep, IRValue *gone);

/// Erases allocations that no computing instruction or view uses, with their deallocations.
bool eraseUnusedAllocations(IRFunction &IR);

} // namespace ember

#endif
