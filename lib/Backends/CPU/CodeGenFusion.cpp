// Element-wise fusion (CodeGen.h): a run of float32 element-wise instructions, such as the
// add + relu after a residual convolution or sigmoid + mul of a swish, becomes one loop over
// chunks of EMBER_VW elements. In each chunk every member calls its ordinary kernel with the
// chunk's addresses and a constant count (forced inline, so the loop body is a few vector
// instructions); a value read only inside the run lives in a chunk-sized temporary that LLVM
// keeps in registers, so it never goes to memory. Values read after the run (or model outputs)
// are stored as before. Per-tensor QuantizeLinear and DequantizeLinear join such runs (their
// 8-bit operands addressed by their own element size): a QDQ model's residual add is
// dequantize, add, quantize, dequantize, four passes over memory made one.
//
// Correctness rests on two facts. Each member is element-wise: element i of its result reads
// only element i of its inputs, so running every member on chunk c before any member on chunk
// c + 1 computes what running them one after the other does, provided no member writes bytes
// another member reads at a different element index. The memory plan may place a member's
// result over a buffer that died earlier in the run; a run is therefore fused only if any two
// of its operands in memory are either disjoint or exactly the same bytes.
//
// A run may also be an IntegerConv and the Requantize right after it, the only reader of its
// int32 result: one call of the int8 GEMM that requantizes as its tiles finish
// (CodeGenQuantized.h says when).
#include "CodeGenQuantized.h"
#include "CodeGenUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/Constants.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// Must match EMBER_VW in kernels/KernelCommon.h: a chunk is one vector of the kernels.
constexpr int64_t kChunk = 16;

/// Elements of a run's loop worth a part of their own on a team: a pass over 32768 floats
/// takes some 10-30 microseconds, a job's hand-over one or two.
constexpr int64_t kSplitElements = 32768;

/// Parts the loop of a run over \p n elements splits into on \p threads threads.
int64_t partsOf(int64_t n, int64_t threads) {
  return std::max<int64_t>(1, std::min(threads, n / kSplitElements));
}

/// An 8-bit kind QuantizeLinear produces and DequantizeLinear reads.
bool isByte(ElemKind k) { return k == ElemKind::UInt8 || k == ElemKind::Int8; }

/// A float32 element-wise instruction whose operands all have its result's element count, but
/// Clip's bounds (one element each, read whole by every chunk); or a per-tensor QuantizeLinear
/// (float32 to 8 bits) or DequantizeLinear (8 bits to float32), whose one-element scale and
/// zero point every chunk reads whole too: the residual adds of a QDQ model (dequantize, add,
/// quantize, dequantize) become one pass.
bool isFusable(const Instruction &I) {
  bool quantize = I.getKind() == InstrKind::QuantizeLinear,
       dequantize = I.getKind() == InstrKind::DequantizeLinear;
  NodeKind nk;
  if (!nodeKindFor(I.getKind(), nk) || I.getNumOutputs() != 1 ||
      !(isElementwise(nk) || quantize || dequantize))
    return false;
  const ember::Type &out = I.getOutput()->getType();
  if (!(quantize ? isByte(out.kind) : out.kind == ElemKind::Float32) || out.numElements() == 0)
    return false;
  for (unsigned i = 0; i < I.getNumInputs(); ++i) {
    const ember::Type &t = I.getInput(i)->getType();
    bool parameter = (quantize || dequantize) && i != ops::QuantizeLinear::Input;
    static_assert(unsigned(ops::QuantizeLinear::Input) == unsigned(ops::DequantizeLinear::Input),
                  "both read their input first");
    if (parameter) {
      if (t.numElements() != 1)
        return false;
      continue;
    }
    if (!(dequantize ? isByte(t.kind) : t.kind == ElemKind::Float32))
      return false;
    bool bound = I.getKind() == InstrKind::Clip && i != ops::Clip::Input;
    if (bound ? t.numElements() != 1 : t.numElements() != out.numElements())
      return false;
  }
  return true;
}

bool readsResultOf(const Instruction &I, ArrayRef<const Instruction *> run) {
  for (unsigned i = 0; i < I.getNumInputs(); ++i)
    for (const Instruction *m : run)
      if (I.getInput(i) == m->getOutput())
        return true;
  return false;
}

/// Where each instruction of a function is, and the last computing instruction (deallocations
/// aside) to access each storage.
struct Positions {
  DenseMap<const Instruction *, size_t> of;
  DenseMap<const IRValue *, size_t> lastAccess;
};
Positions positionsIn(const IRFunction &IR) {
  Positions p;
  size_t pos = 0;
  for (const auto &P : IR.getInstrs()) {
    p.of[P.get()] = pos;
    if (P->getKind() != InstrKind::DeallocActivation && !isMemoryMarker(P->getKind()))
      for (const InstrOperand &op : P->getOperands())
        p.lastAccess[rootOf(op.value).root] = pos;
    ++pos;
  }
  return p;
}

/// Whether each member's result goes to memory: when it is a model output or a view, or when
/// its storage is accessed after the run and no later member writes that storage again.
std::vector<bool> storedResults(ArrayRef<const Instruction *> run, const Positions &p) {
  size_t end = p.of.lookup(run.back());
  std::vector<bool> store(run.size());
  for (size_t m = 0; m < run.size(); ++m) {
    const IRValue *out = run[m]->getOutput();
    ValueRoot root = rootOf(const_cast<IRValue *>(out));
    bool rewritten = false;
    for (size_t later = m + 1; later < run.size(); ++later)
      rewritten |= rootOf(run[later]->getOutput()).root == root.root;
    store[m] = !isAllocation(out) || (!rewritten && p.lastAccess.lookup(root.root) > end);
  }
  return store;
}

/// The values that live only in the run's chunk temporaries: results no member stores, first
/// touched in the run by a member that writes them without reading them. The loop never reads
/// or writes their memory.
DenseSet<const IRValue *> chunkOnlyValues(ArrayRef<const Instruction *> run,
                                          const Positions &p) {
  std::vector<bool> store = storedResults(run, p);
  DenseSet<const IRValue *> stored, touched, chunkOnly;
  for (size_t m = 0; m < run.size(); ++m)
    if (store[m])
      stored.insert(run[m]->getOutput());
  for (size_t m = 0; m < run.size(); ++m) {
    const Instruction &I = *run[m];
    for (unsigned i = 0; i < I.getNumInputs(); ++i)
      touched.insert(I.getInput(i)); // read from memory unless an earlier member wrote it
    const IRValue *out = I.getOutput();
    if (touched.insert(out).second && !stored.count(out))
      chunkOnly.insert(out);
  }
  return chunkOnly;
}

struct Span {
  MemRegion region;
  uint64_t begin, end;
};

/// Any two operands of the run's members that the loop accesses in memory are disjoint or the
/// same bytes. Values that live only in chunk temporaries do not count: the memory plan may
/// well put a QDQ residual's dequantized input, read only by the Add after it, over the 8-bit
/// buffer the loop reads (it knows nothing of fusion), and it is never stored.
bool operandsDoNotPartlyOverlap(ArrayRef<const Instruction *> run, const Positions &p) {
  DenseSet<const IRValue *> chunkOnly = chunkOnlyValues(run, p);
  std::vector<Span> spans;
  for (const Instruction *m : run)
    for (const InstrOperand &op : m->getOperands())
      if (!chunkOnly.count(op.value))
        spans.push_back({regionOf(op.value), op.value->offset,
                         op.value->offset + op.value->sizeInBytes()});
  for (size_t a = 0; a < spans.size(); ++a)
    for (size_t b = a + 1; b < spans.size(); ++b) {
      const Span &x = spans[a], &y = spans[b];
      bool overlap = x.region == y.region && x.begin < y.end && y.begin < x.end;
      bool same = x.region == y.region && x.begin == y.begin && x.end == y.end;
      if (overlap && !same)
        return false;
    }
  return true;
}

} // namespace

bool splitsElementwise(const Instruction &I, int64_t threads) {
  return isFusable(I) && partsOf(int64_t(I.getOutput()->getType().numElements()), threads) > 1;
}

FusionRuns findFusionRuns(const IRFunction &IR, int64_t threads) {
  FusionRuns runs;
  Positions positions = positionsIn(IR);
  // Per storage, the computing instructions that access it.
  DenseMap<const IRValue *, unsigned> accesses;
  for (const auto &P : IR.getInstrs())
    if (!isMemoryMarker(P->getKind()))
      for (const InstrOperand &op : P->getOperands())
        ++accesses[rootOf(op.value).root];
  const Instruction *previous = nullptr; // the last computing instruction
  std::vector<const Instruction *> run;
  // A run whose operands partly overlap is split into the longest runs from its start that do
  // not (the memory plan knows nothing of fusion: a QDQ residual's 8-bit result may lie over
  // part of a float32 buffer the same chunk loop still reads further on). Longest, not grown
  // while they do not: a longer run may keep in its temporaries a value that a shorter one
  // must store over bytes the loop reads.
  // A run of one is kept when its loop splits over the team, and its operands do not partly
  // overlap either (parts would read what another part writes).
  auto close = [&] {
    for (size_t begin = 0; begin < run.size();) {
      size_t end = run.size();
      while (end > begin + 1 &&
             !operandsDoNotPartlyOverlap(
                 ArrayRef<const Instruction *>(run).slice(begin, end - begin), positions))
        --end;
      bool split =
          partsOf(int64_t(run[begin]->getOutput()->getType().numElements()), threads) > 1;
      if (end - begin > 1 ||
          (split && operandsDoNotPartlyOverlap(
                        ArrayRef<const Instruction *>(run).slice(begin, 1), positions)))
        runs[run[begin]].assign(run.begin() + begin, run.begin() + end);
      begin = end;
    }
    run.clear();
  };
  for (const auto &P : IR.getInstrs()) {
    const Instruction &I = *P;
    if (isMemoryMarker(I.getKind()))
      continue; // allocations, deallocations and views compute nothing
    const Instruction *before = previous;
    previous = &I;
    if (before && before->getKind() == InstrKind::IntegerConv &&
        I.getKind() == InstrKind::Requantize && isAllocation(before->getOutput()) &&
        accesses.lookup(before->getOutput()) == 2 &&
        fusesIntegerConvRequantize(*before, I)) {
      close();
      runs[before] = {before, &I};
      continue;
    }
    if (!isFusable(I)) {
      close();
      continue;
    }
    // A member reads an earlier member's result; but a DequantizeLinear joins anyway: IRGen
    // puts each right before its first reader, so a residual Add's two come one after the
    // other, and the second reads nothing of the first.
    bool joins = !run.empty() &&
                 I.getOutput()->getType().numElements() ==
                     run.front()->getOutput()->getType().numElements() &&
                 (readsResultOf(I, run) || I.getKind() == InstrKind::DequantizeLinear);
    if (!joins)
      close();
    run.push_back(&I);
  }
  close();
  return runs;
}

namespace {

/// The chunk loop of \p run over elements [begin, end) (multiples of kChunk; none when both
/// are the same constant), in the function the builder is in; then, with \p tail, the tail of
/// that many elements from \p end on.
Error emitChunkLoop(Emitter &E, ArrayRef<const Instruction *> run, const std::vector<bool> &store,
                    Value *begin, Value *end, int64_t tail) {
  IRBuilder<> &B = E.builder();
  LLVMContext &ctx = E.context();
  // One chunk-sized temporary per member, in the entry block so that they become registers.
  llvm::Function *F = B.GetInsertBlock()->getParent();
  IRBuilder<> entry(&F->getEntryBlock(), F->getEntryBlock().begin());
  auto *chunkTy = ArrayType::get(B.getFloatTy(), kChunk);
  std::vector<Value *> temps;
  for (size_t m = 0; m < run.size(); ++m) {
    AllocaInst *a = entry.CreateAlloca(chunkTy, nullptr, "chunk");
    a->setAlignment(Align(64));
    temps.push_back(a);
  }

  // Element \p first of \p v (float32 or, around the quantizing members, 8 bits) in memory.
  auto memChunk = [&](const IRValue *v, Value *first) -> Value * {
    Value *base = B.CreateInBoundsGEP(B.getInt8Ty(), E.regionBase(regionOf(v)),
                                      B.getInt64(v->offset));
    Value *bytes = B.CreateMul(first, B.getInt64(v->getType().elementSize()));
    return B.CreateInBoundsGEP(B.getInt8Ty(), base, bytes, v->getName() + ".chunk");
  };
  // Emits every member on the \p elements elements starting at element \p first.
  auto emitChunk = [&](Value *first, int64_t elements) -> Error {
    DenseMap<const IRValue *, Value *> where; // each value's current place in this chunk
    for (size_t m = 0; m < run.size(); ++m) {
      const Instruction &I = *run[m];
      DenseMap<const IRValue *, Value *> addrs;
      for (unsigned i = 0; i < I.getNumInputs(); ++i) {
        const IRValue *v = I.getInput(i);
        if (v->getType().numElements() != I.getOutput()->getType().numElements())
          continue; // Clip's bounds, a scale or zero point: the whole one-element tensor
        auto it = where.find(v);
        addrs[v] = it != where.end() ? it->second : memChunk(v, first);
      }
      const IRValue *out = I.getOutput();
      Value *target;
      if (addrs.count(out)) // in place over an input: the same place
        target = addrs[out];
      else
        target = store[m] ? memChunk(out, first) : temps[m];
      addrs[out] = target;
      NodeKind nk;
      nodeKindFor(I.getKind(), nk);
      E.setChunk(&addrs, elements);
      Error err = kernelTable().lookup(nk)->emit(E, I);
      E.setChunk(nullptr, 0);
      EMBER_TRY(std::move(err));
      if (auto *call = dyn_cast<CallInst>(&B.GetInsertBlock()->back()))
        call->addFnAttr(Attribute::AlwaysInline);
      where[out] = target;
      // In place over a value kept in a temporary, but needed in memory after the run.
      if (store[m] && isa<AllocaInst>(target))
        EMBER_TRY(E.call("ember_copy", {memChunk(out, first), target,
                                        E.i64(elements * int64_t(out->getType().elementSize()))}));
    }
    return Error::success();
  };

  auto *b = dyn_cast<ConstantInt>(begin), *e = dyn_cast<ConstantInt>(end);
  if (!(b && e && b->getSExtValue() >= e->getSExtValue())) {
    BasicBlock *pre = B.GetInsertBlock();
    BasicBlock *loop = BasicBlock::Create(ctx, "fused", F);
    BasicBlock *after = BasicBlock::Create(ctx, "fused.end", F);
    B.CreateCondBr(B.CreateICmpULT(begin, end), loop, after);
    B.SetInsertPoint(loop);
    PHINode *first = B.CreatePHI(B.getInt64Ty(), 2, "first");
    first->addIncoming(begin, pre);
    EMBER_TRY(emitChunk(first, kChunk));
    Value *next = B.CreateAdd(first, B.getInt64(kChunk), "next", /*HasNUW=*/true);
    first->addIncoming(next, B.GetInsertBlock());
    B.CreateCondBr(B.CreateICmpULT(next, end), loop, after);
    B.SetInsertPoint(after);
  }
  if (tail > 0)
    EMBER_TRY(emitChunk(end, tail));
  return Error::success();
}

/// The chunk loop of \p run over its first \p full elements split into \p parts on the team
/// (Emitter::onTeam): part p runs chunks [p per, (p + 1) per).
Error emitSplitChunkLoop(Emitter &E, ArrayRef<const Instruction *> run,
                         const std::vector<bool> &store, int64_t full, int64_t parts) {
  return E.onTeam(parts, [&](Value *part) -> Error {
    IRBuilder<> &B = E.builder();
    const int64_t per = (full / kChunk + parts - 1) / parts * kChunk;
    Value *begin = B.CreateMul(part, B.getInt64(per));
    Value *end = B.CreateAdd(begin, B.getInt64(per));
    end = B.CreateSelect(B.CreateICmpULT(end, B.getInt64(full)), end, B.getInt64(full));
    return emitChunkLoop(E, run, store, begin, end, 0);
  });
}

} // namespace

Error emitFusedRun(Emitter &E, const IRFunction &IR, ArrayRef<const Instruction *> run) {
  if (run.front()->getKind() == InstrKind::IntegerConv)
    return emitIntegerConvRequantize(E, *run[0], *run[1]);
  std::vector<bool> store = storedResults(run, positionsIn(IR));
  int64_t n = int64_t(run.front()->getOutput()->getType().numElements());
  int64_t full = n / kChunk * kChunk, parts = partsOf(n, E.threads());
  if (parts > 1 && full > 0) {
    EMBER_TRY(emitSplitChunkLoop(E, run, store, full, parts));
    if (n > full)
      EMBER_TRY(emitChunkLoop(E, run, store, E.i64(full), E.i64(full), n - full));
    return Error::success();
  }
  IRBuilder<> &B = E.builder();
  return emitChunkLoop(E, run, store, B.getInt64(0), B.getInt64(full), n - full);
}

} // namespace cpu
} // namespace ember
