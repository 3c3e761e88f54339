// Fused attention (kernels/NNAttention.cpp): the chain torch exports for scaled-dot-product
// attention, S = MatMul(Q, K^T), optionally S' = Add(S, mask) (the mask maybe a Broadcast of
// one [Sq, T] matrix to every head, read unbroadcast), P = Softmax(S' along its last axis),
// O = MatMul(P, V), all float32 over the same batches, becomes one call at the first
// MatMul, which computes O a block of query rows at a time without writing S or P (V no
// wider than Q: the scratch is sized so). The memory
// plan knows nothing of it, so the chain is fused only where that changes nothing another
// instruction sees:
//   - its computing instructions follow one another (memory markers between);
//   - S, S', P (and the broadcast mask) are activations no other instruction touches;
//   - O's bytes are disjoint from everything the call still reads after it starts writing O
//     (Q, K^T, V, the mask): the plan may have put O over Q or K^T, dead after the first
//     MatMul;
//   - the call works in the first MatMul's scratch, sized for it (attentionScratchBytes: a
//     batched product whose shapes could be attention's gets room for the fused call whether or
//     not it is), or, where the plan put O over that (dead after the first MatMul: the last
//     layer of whisper_tiny_encoder ran its attention unfused, 51 ms against 33), in the second
//     MatMul's, sized alike (attentionValuesScratchBytes) and live with O, if the plan put it
//     clear of Q, K^T, V and the mask.
// The intermediate buffers stay in the plan, unused.
#include "CodeGen.h"
#include "CodeGenUtils.h"

#include "kernels/Scratch.h"

#include <algorithm>

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// Whether \p I is a plain float32 MatMul over batches (rank 3 or more) whose operands are
/// batched alike, one matrix each a batch, one after another: [B.., M, K] x [B.., K, N].
bool batchedAlike(const Instruction &I) {
  if (I.getKind() != InstrKind::MatMul || I.getOutput()->getType().kind != ElemKind::Float32)
    return false;
  const DimsVec &a = I.getInput(ops::MatMul::LHS)->getType().dims;
  const DimsVec &b = I.getInput(ops::MatMul::RHS)->getType().dims;
  const DimsVec &r = I.getOutput()->getType().dims;
  size_t rank = r.size();
  if (rank < 3 || a.size() != rank || b.size() != rank)
    return false;
  for (size_t d = 0; d + 2 < rank; ++d)
    if (a[d] != r[d] || b[d] != r[d])
      return false;
  return dimsProduct(r, 0, rank - 2) > 1;
}

/// The byte range [begin, end) of \p v in its region.
struct Bytes {
  MemRegion region;
  uint64_t begin, end;
};
Bytes bytesOf(IRValue *v) {
  ValueRoot root = rootOf(v);
  uint64_t begin = root.root->offset + root.offset;
  return {regionOf(v), begin, begin + v->getType().sizeInBytes()};
}
bool overlap(const Bytes &x, const Bytes &y) {
  return x.region == y.region && x.begin < y.end && y.begin < x.end;
}

/// Whether an instruction of \p IR other than \p members (nulls allowed) reads or writes one
/// of the storages \p roots.
bool touchedOutside(const IRFunction &IR, ArrayRef<const IRValue *> roots,
                    std::initializer_list<const Instruction *> members) {
  for (const auto &I : IR.getInstrs()) {
    if (isMemoryMarker(I->getKind()) || llvm::is_contained(members, I.get()))
      continue;
    for (const InstrOperand &op : I->getOperands())
      if (llvm::is_contained(roots, rootOf(op.value).root))
        return true;
  }
  return false;
}

/// The fused call's working memory on \p threads for \p T keys and queries \p D deep (V as
/// wide: the call takes no wider), or 0 when the keys are too few or too many for it.
uint64_t fusedCallBytes(int64_t T, int64_t D, int64_t threads) {
  if (T < 16 || T > scratch::kAttentionMaxKeys)
    return 0;
  return uint64_t(scratch::attentionPartFloats(D, T, D) * std::max<int64_t>(1, threads)) *
         sizeof(float);
}

} // namespace

uint64_t attentionScratchBytes(const Instruction &I, int64_t threads) {
  if (!batchedAlike(I))
    return 0;
  // S = Q K^T: the keys are its columns, the depth Q's.
  return fusedCallBytes(int64_t(I.getOutput()->getType().dims.back()),
                        int64_t(I.getInput(ops::MatMul::LHS)->getType().dims.back()), threads);
}

uint64_t attentionValuesScratchBytes(const Instruction &I, int64_t threads) {
  if (!batchedAlike(I))
    return 0;
  // O = P V: the keys are P's columns, the depth taken as V's width.
  return fusedCallBytes(int64_t(I.getInput(ops::MatMul::LHS)->getType().dims.back()),
                        int64_t(I.getOutput()->getType().dims.back()), threads);
}

AttentionChains findAttentionChains(const IRFunction &IR, int64_t threads) {
  AttentionChains chains;
  std::vector<const Instruction *> computing;
  for (const auto &I : IR.getInstrs())
    if (!isMemoryMarker(I->getKind()))
      computing.push_back(I.get());
  auto at = [&](size_t k) { return k < computing.size() ? computing[k] : nullptr; };
  for (size_t i = 0; i + 2 < computing.size(); ++i) {
    const Instruction *first = computing[i];
    // Its scratch must hold every part's working memory (none when its shapes are not
    // attention's: too few or too many keys).
    uint64_t work = attentionScratchBytes(*first, threads);
    if (!batchedAlike(*first) || work == 0 || first->scratchSize < work)
      continue;
    AttentionChain c;
    c.scores = first;
    size_t next = i + 1;
    IRValue *scores = first->getOutput();
    const DimsVec &sd = scores->getType().dims;
    size_t rank = sd.size();
    int64_t Sq = int64_t(sd[rank - 2]), T = int64_t(sd.back());
    // The mask's Broadcast (of a [.., Sq, T] mask to every head) may sit before the Add.
    const Instruction *broadcast = at(next);
    if (broadcast && broadcast->getKind() == InstrKind::Broadcast)
      ++next;
    else
      broadcast = nullptr;
    if (at(next) && at(next)->getKind() == InstrKind::Add) {
      const Instruction *add = at(next);
      unsigned side = add->getInput(0) == scores ? 0 : add->getInput(1) == scores ? 1 : 2;
      if (side == 2 || add->getInput(1 - side)->getType() != scores->getType() ||
          add->getOutput()->getType() != scores->getType())
        continue;
      c.mask = add;
      c.maskValue = add->getInput(1 - side);
      c.maskBatchStride = Sq * T;
      if (broadcast && c.maskValue == broadcast->getOutput()) {
        // Read the Broadcast's input instead: one [Sq, T] matrix for every batch.
        IRValue *src = broadcast->getInput(0);
        const DimsVec &md = src->getType().dims;
        if (md.size() < 2 || int64_t(md[md.size() - 2]) != Sq || int64_t(md.back()) != T ||
            dimsProduct(md, 0, md.size() - 2) != 1 || src->getType().kind != ElemKind::Float32)
          continue;
        c.maskBroadcast = broadcast;
        c.maskValue = src;
        c.maskBatchStride = 0;
      } else if (broadcast) {
        continue; // something else between the members
      }
      scores = add->getOutput();
      ++next;
    } else if (broadcast) {
      continue;
    }
    const Instruction *softmax = at(next), *second = at(next + 1);
    if (!softmax || !second || softmax->getKind() != InstrKind::Softmax ||
        softmax->getInput(0) != scores || size_t(softmax->attr<AttrKind::Axis>()) != rank - 1 ||
        !batchedAlike(*second) || second->getInput(ops::MatMul::LHS) != softmax->getOutput())
      continue;
    c.softmax = softmax;
    c.values = second;
    if (second->getOutput()->getType().dims.back() >
        first->getInput(ops::MatMul::LHS)->getType().dims.back())
      continue; // V wider than the scratch was sized for

    // The scores (masked or not), the probabilities and the broadcast mask: activations no
    // instruction but the chain's touches (an in-place Add reads and writes the scores).
    SmallVector<const IRValue *, 4> privateRoots;
    bool allActivations = true;
    for (const Instruction *member : {first, c.mask, softmax, c.maskBroadcast})
      if (member) {
        IRValue *root = rootOf(member->getOutput()).root;
        allActivations &= isAllocation(root);
        privateRoots.push_back(root);
      }
    if (!allActivations ||
        touchedOutside(IR, privateRoots, {first, c.mask, softmax, second, c.maskBroadcast}))
      continue;
    // O must not lie over what the call reads; where it works must lie over neither.
    Bytes out = bytesOf(second->getOutput());
    SmallVector<Bytes, 4> reads;
    for (IRValue *in : {first->getInput(ops::MatMul::LHS), first->getInput(ops::MatMul::RHS),
                        second->getInput(ops::MatMul::RHS), c.maskValue})
      if (in)
        reads.push_back(bytesOf(in));
    if (llvm::any_of(reads, [&](const Bytes &in) { return overlap(out, in); }))
      continue;
    auto scratchOf = [](const Instruction *I) {
      return Bytes{MemRegion::Activations, I->scratchOffset, I->scratchOffset + I->scratchSize};
    };
    Bytes firstWork = scratchOf(first), secondWork = scratchOf(second);
    if (!overlap(out, firstWork))
      c.work = first;
    else if (second->scratchSize >= work && !overlap(out, secondWork) &&
             llvm::none_of(reads, [&](const Bytes &in) { return overlap(secondWork, in); }))
      c.work = second;
    else
      continue;
    chains[first] = c;
  }
  return chains;
}

Error emitAttentionChain(Emitter &E, const AttentionChain &c) {
  const DimsVec &q = c.scores->getInput(ops::MatMul::LHS)->getType().dims;
  const DimsVec &s = c.scores->getOutput()->getType().dims;
  const DimsVec &o = c.values->getOutput()->getType().dims;
  size_t rank = s.size();
  int64_t batches = dimsProduct(s, 0, rank - 2), Sq = int64_t(s[rank - 2]),
          T = int64_t(s.back()), D = int64_t(q.back()), Dv = int64_t(o.back());
  return E.call(E.variant("ember_attention_f32"),
                {E.addr(c.values->getOutput()), E.addr(c.scores->getInput(ops::MatMul::LHS)),
                 E.addr(c.scores->getInput(ops::MatMul::RHS)),
                 E.addr(c.values->getInput(ops::MatMul::RHS)),
                 c.maskValue ? E.addr(c.maskValue) : E.nullPtr(), E.i64(c.maskBatchStride),
                 E.i64(batches), E.i64(Sq), E.i64(D), E.i64(T), E.i64(Dv), E.scratch(*c.work),
                 E.team()});
}

} // namespace cpu
} // namespace ember
