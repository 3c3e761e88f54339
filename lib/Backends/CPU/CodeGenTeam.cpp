// Splitting a step of the generated code over the team (CodeGen.h, Emitter::onTeam): the code
// of one part goes into a function of its own, part(regions, p), which the team's threads call
// through ember_team_run (kernels/Parallel.cpp) with the model function's region pointers.
// Kernels that take the team split themselves; this serves the steps that call a kernel with
// constant arguments per part (a concatenation's copies, a batch normalization's channels) and
// the fused element-wise loops (CodeGenFusion.cpp).
#include "CodeGen.h"

#include "kernels/Scratch.h"
#include "ember/Support/Error.h"

#include "llvm/IR/Constants.h"

using namespace llvm;

namespace ember {
namespace cpu {

int64_t Emitter::partsMoving(int64_t floats) const {
  if (!team_)
    return 1;
  int64_t perPart = scratch::kMinFlopsPerPart / scratch::kFloatMoveFlops;
  return std::max<int64_t>(1, std::min(threads_, floats / perPart));
}

Error Emitter::onTeam(int64_t parts, function_ref<Error(Value *part)> body) {
  if (parts <= 1 || !team_)
    return body(B_.getInt64(0));
  LLVMContext &ctx = context();
  llvm::Function *model = B_.GetInsertBlock()->getParent();
  llvm::Type *ptr = B_.getPtrTy();
  auto *regionsTy = ArrayType::get(ptr, 3);
  // The model function's region pointers, for the part function to read.
  Value *regions;
  {
    IRBuilder<> entry(&model->getEntryBlock(), model->getEntryBlock().begin());
    regions = entry.CreateAlloca(regionsTy, nullptr, "regions");
  }
  for (unsigned r = 0; r < 3; ++r)
    B_.CreateStore(regionBase(MemRegion(r)),
                   B_.CreateConstInBoundsGEP2_32(regionsTy, regions, 0, r));
  auto *partTy = FunctionType::get(B_.getVoidTy(), {ptr, B_.getInt64Ty()}, false);
  llvm::Function *part = llvm::Function::Create(partTy, GlobalValue::InternalLinkage,
                                                model->getName() + ".part", M_);
  inheritTargetAttributes(*part, *model);

  BasicBlock *resume = B_.GetInsertBlock();
  B_.SetInsertPoint(BasicBlock::Create(ctx, "entry", part));
  std::array<Value *, 3> own;
  for (unsigned r = 0; r < 3; ++r)
    own[r] = B_.CreateLoad(ptr, B_.CreateConstInBoundsGEP2_32(regionsTy, part->getArg(0), 0, r));
  std::array<Value *, 3> saved = swapRegions(own);
  Error err = body(part->getArg(1));
  if (!err)
    B_.CreateRetVoid();
  swapRegions(saved);
  B_.SetInsertPoint(resume);
  if (err)
    return err;
  return call("ember_team_run", {team(), i64(parts), part, regions});
}

Error Emitter::onTeamParts(int64_t parts, function_ref<Error(int64_t part)> body) {
  if (parts <= 1 || !team_)
    return body(0);
  return onTeam(parts, [&](Value *part) -> Error {
    llvm::Function *f = B_.GetInsertBlock()->getParent();
    BasicBlock *done = BasicBlock::Create(context(), "done", f);
    SwitchInst *sw = B_.CreateSwitch(part, done, unsigned(parts));
    for (int64_t p = 0; p < parts; ++p) {
      BasicBlock *bb = BasicBlock::Create(context(), "part", f);
      sw->addCase(B_.getInt64(uint64_t(p)), bb);
      B_.SetInsertPoint(bb);
      EMBER_TRY(body(p));
      B_.CreateBr(done);
    }
    B_.SetInsertPoint(done);
    return Error::success();
  });
}

} // namespace cpu
} // namespace ember
