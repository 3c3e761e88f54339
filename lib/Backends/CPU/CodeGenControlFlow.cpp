// Control flow in the CPU backend's entry function: the IR's markers (IR.h) become blocks and
// branches, and StoreIteration an inline copy. The semantics are the ones the Interpreter's walk
// gives the markers (Interpreter.cpp, InterpreterFunction::execute); see ControlFlowEmitter in
// CodeGen.h.
//
// The code between the markers needs nothing special: every instruction's emitter computes its
// addresses from the region bases (arguments of the entry function) and constants, and keeps no
// LLVM value from one instruction to the next but those made in the entry block (the thread
// team, the fused runs' chunk temporaries, Einsum's operand array), so a body may run many times
// or not at all. A fused run (CodeGenFusion.cpp) leaves a result in registers only when nothing
// after the run in the list reads its storage; in a loop that still holds, since a body's values
// are allocated in the body (IRGen: only Copies write the loop's state) and the IR passes that
// could redirect a write into a buffer outside skip functions with control flow.
#include "CodeGen.h"

#include "ember/Support/Error.h"

#include "llvm/IR/Constants.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// Places \p bb at the end of the function being built and continues there, so the blocks
/// follow the instruction list's order.
void enter(IRBuilder<> &B, BasicBlock *bb) {
  bb->insertInto(B.GetInsertBlock()->getParent());
  B.SetInsertPoint(bb);
}

/// Whether the bool \p v is true (any nonzero byte, as the Interpreter reads it).
Value *loadBool(Emitter &E, const IRValue *v, const Twine &name) {
  IRBuilder<> &B = E.builder();
  return B.CreateICmpNE(B.CreateLoad(B.getInt8Ty(), E.addr(v), name), B.getInt8(0), name);
}

} // namespace

Error ControlFlowEmitter::emitMarker(Emitter &E, const Instruction &I) {
  IRBuilder<> &B = E.builder();
  LLVMContext &ctx = E.context();
  std::string name = I.getName().str();
  // The IR verifier checks the nesting; this keeps a broken list from crashing codegen.
  auto innermost = [&](InstrKind opener) -> Expected<Region *> {
    if (open_.empty() || open_.back().opener->getKind() != opener)
      return instrError(I, "does not close the innermost open " + instrKindName(opener));
    return &open_.back();
  };
  switch (I.getKind()) {
  case InstrKind::IfBegin: {
    auto *then = BasicBlock::Create(ctx, name + ".then");
    auto *els = BasicBlock::Create(ctx, name + ".else");
    auto *end = BasicBlock::Create(ctx, name + ".end");
    B.CreateCondBr(loadBool(E, I.getOperand(0), name + ".cond"), then, els);
    enter(B, then);
    open_.push_back({&I, els, end});
    return Error::success();
  }
  case InstrKind::IfElse: {
    EMBER_ASSIGN_OR_RETURN(Region * r, innermost(InstrKind::IfBegin));
    if (!r->next)
      return instrError(I, "is the second else of its if");
    B.CreateBr(r->end); // the then-branch ran: skip the else-branch
    enter(B, r->next);
    r->next = nullptr;
    return Error::success();
  }
  case InstrKind::IfEnd: {
    EMBER_ASSIGN_OR_RETURN(Region * r, innermost(InstrKind::IfBegin));
    B.CreateBr(r->end);
    if (r->next) { // no IfElse: an empty else-branch
      enter(B, r->next);
      B.CreateBr(r->end);
    }
    enter(B, r->end);
    open_.pop_back();
    return Error::success();
  }
  case InstrKind::LoopBegin: {
    // iter := 0; the test before each iteration re-reads iter, the trip count and the
    // condition (which the body writes) from memory.
    const IRValue *iter = I.getOperand(0), *tripCount = I.getOperand(1), *cond = I.getOperand(2);
    B.CreateStore(B.getInt64(0), E.addr(iter));
    auto *test = BasicBlock::Create(ctx, name + ".test");
    auto *end = BasicBlock::Create(ctx, name + ".end");
    B.CreateBr(test);
    enter(B, test);
    Value *i = B.CreateLoad(B.getInt64Ty(), E.addr(iter), name + ".iter");
    Value *trip = B.CreateLoad(B.getInt64Ty(), E.addr(tripCount), name + ".trip");
    Value *goOn = B.CreateAnd(B.CreateICmpSLT(i, trip), loadBool(E, cond, name + ".cond"));
    auto *bound = BasicBlock::Create(ctx, name + ".bound");
    B.CreateCondBr(goOn, bound, end);
    enter(B, bound);
    int64_t maxTrips = I.attr<AttrKind::MaxTripCount>();
    EMBER_TRY(E.failIf(B.CreateICmpSGE(i, E.i64(maxTrips)), I,
                       "the loop would run more than its bound of " + std::to_string(maxTrips) +
                           " iterations (-max-loop-iterations)"));
    open_.push_back({&I, test, end});
    return Error::success();
  }
  case InstrKind::LoopEnd: {
    EMBER_ASSIGN_OR_RETURN(Region * r, innermost(InstrKind::LoopBegin));
    Value *iter = E.addr(I.getOperand(0));
    Value *i = B.CreateLoad(B.getInt64Ty(), iter, name + ".iter");
    B.CreateStore(B.CreateAdd(i, B.getInt64(1), name + ".next", /*HasNUW=*/true, /*HasNSW=*/true),
                  iter);
    B.CreateBr(r->next);
    enter(B, r->end);
    open_.pop_back();
    return Error::success();
  }
  default:
    return instrError(I, "is not a control-flow marker");
  }
}

Error ControlFlowEmitter::finish() const {
  if (open_.empty())
    return Error::success();
  return instrError(*open_.back().opener, "opens a region that never ends");
}

Error emitStoreIteration(Emitter &E, const Instruction &I) {
  // No bounds check: the IR verifier makes dest's first dimension at least the loop's
  // MaxTripCount, and the loop's test fails before an iteration at or past that bound, so
  // iter * size(value) stays inside dest.
  IRBuilder<> &B = E.builder();
  const IRValue *dest = I.getOperand(0), *value = I.getOperand(1), *iter = I.getOperand(2);
  uint64_t bytes = value->sizeInBytes();
  Value *i = B.CreateLoad(B.getInt64Ty(), E.addr(iter), I.getName() + ".iter");
  Value *offset = B.CreateMul(i, E.i64(int64_t(bytes)), I.getName() + ".offset",
                              /*HasNUW=*/true, /*HasNSW=*/true);
  Value *slice = B.CreateInBoundsGEP(B.getInt8Ty(), E.addr(dest), offset, I.getName() + ".slice");
  B.CreateMemCpy(slice, MaybeAlign(1), E.addr(value), MaybeAlign(1), bytes);
  return Error::success();
}

} // namespace cpu
} // namespace ember
