// The CPU backend's module builder: see CodeGen.h.
#include "CodeGen.h"

#include "CPUConstants.h"
#include "CPUTarget.h"
#include "KernelLibrary.h"
#include "KernelVariants.h"
#include "kernels/Scratch.h"

#include "ember/Graph/ControlFlow.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace ember {
namespace cpu {

Error instrError(const Instruction &I, const Twine &why) {
  return makeError("instruction '" + I.getName() + "' (" + I.getKindName() + "): " + why);
}

Emitter::Emitter(llvm::Module &M, const llvm::Module &library, IRBuilder<> &B,
                 ArrayRef<Value *> regions, StringRef variant, StringRef integerVariant,
                 int64_t threads, std::vector<std::string> &runtimeErrors, const IRFunction &IR)
    : M_(M), library_(library), B_(B), variant_(variant), integerVariant_(integerVariant),
      threads_(threads), runtimeErrors_(runtimeErrors),
      packedFilters_(packedFilters(IR, integerVariant)) {
  for (unsigned i = 0; i < 3; ++i)
    regions_[i] = regions[i];
  for (const auto &I : IR.getInstrs())
    if (I->getKind() != InstrKind::DeallocActivation && I->getKind() != InstrKind::TensorView)
      for (const InstrOperand &op : I->getOperands())
        if (op.mode != OperandMode::Out)
          readStorages_.insert(rootOf(op.value).root);
}

bool Emitter::isRead(const IRValue *v) const {
  IRValue *root = rootOf(const_cast<IRValue *>(v)).root;
  return isa<WeightVar>(root) || readStorages_.count(root);
}

Value *Emitter::addr(const IRValue *v) {
  if (chunkAddrs_) {
    auto it = chunkAddrs_->find(v);
    if (it != chunkAddrs_->end())
      return it->second;
  }
  Value *base = regions_[unsigned(regionOf(v))];
  if (v->offset == 0)
    return base;
  return B_.CreateInBoundsGEP(B_.getInt8Ty(), base, B_.getInt64(v->offset), v->getName());
}

Value *Emitter::scratch(const Instruction &I) {
  if (!I.scratchSize)
    return nullPtr();
  return B_.CreateInBoundsGEP(B_.getInt8Ty(), regions_[unsigned(MemRegion::Activations)],
                              B_.getInt64(I.scratchOffset), "scratch");
}

llvm::Constant *Emitter::elementCount(const Instruction &I) {
  return i64(chunkAddrs_ ? chunkElements_ : int64_t(I.getOutput()->getType().numElements()));
}

llvm::Constant *Emitter::i64(int64_t v) { return B_.getInt64(uint64_t(v)); }
llvm::Constant *Emitter::f32(float v) { return ConstantFP::get(B_.getFloatTy(), v); }
llvm::Constant *Emitter::nullPtr() { return ConstantPointerNull::get(B_.getPtrTy()); }

/// A private, unnamed-address constant global of the elements \p values (one at least: an empty
/// list gives one \p empty), aligned to \p align bytes; its address.
template <typename Elem>
static llvm::Constant *privateArray(llvm::Module &M, ArrayRef<Elem> values, Elem empty,
                                    StringRef name, uint64_t align) {
  SmallVector<Elem, 16> v(values.begin(), values.end());
  if (v.empty())
    v.push_back(empty);
  llvm::Constant *init = ConstantDataArray::get(M.getContext(), ArrayRef<Elem>(v));
  auto *gv = new GlobalVariable(M, init->getType(), /*isConstant=*/true,
                                GlobalValue::PrivateLinkage, init, name);
  gv->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  gv->setAlignment(Align(align));
  return gv;
}

llvm::Constant *Emitter::constArray(ArrayRef<int64_t> values, StringRef name) {
  SmallVector<uint64_t, 16> raw(values.begin(), values.end());
  return privateArray<uint64_t>(M_, raw, 0, name, 8);
}

llvm::Constant *Emitter::dimsArray(ArrayRef<dim_t> dims, StringRef name) {
  SmallVector<int64_t, 8> v(dims.begin(), dims.end());
  if (v.empty())
    v.push_back(1); // a scalar: keep the array non-empty
  return constArray(v, name);
}

llvm::Constant *Emitter::floatArray(ArrayRef<float> values, StringRef name) {
  return privateArray<float>(M_, values, 0.f, name, 8);
}

llvm::Constant *Emitter::int32Array(ArrayRef<int32_t> values, StringRef name) {
  SmallVector<uint32_t, 16> raw(values.begin(), values.end());
  return privateArray<uint32_t>(M_, raw, 0, name, 64);
}

/// A call of kernel \p name, declared in \p M with the library's type (linkKernels brings in
/// the body).
static Expected<CallInst *> emitCall(llvm::Module &M, const llvm::Module &library,
                                     IRBuilder<> &B, StringRef name, ArrayRef<Value *> args) {
  const llvm::Function *LF = library.getFunction(name);
  if (!LF || (LF->isDeclaration() && !LF->isMaterializable()))
    return makeError("the CPU kernel library has no kernel '" + name + "'");
  llvm::FunctionType *FT = LF->getFunctionType();
  if (FT->getNumParams() != args.size())
    return makeError("kernel '" + name + "' takes " + Twine(FT->getNumParams()) +
                     " arguments, codegen passes " + Twine(args.size()));
  for (unsigned i = 0; i < args.size(); ++i)
    if (FT->getParamType(i) != args[i]->getType())
      return makeError("kernel '" + name + "': argument " + Twine(i) + " has the wrong type");
  return B.CreateCall(M.getOrInsertFunction(name, FT), args);
}

Error Emitter::call(StringRef name, ArrayRef<Value *> args) {
  return emitCall(M_, library_, B_, name, args).takeError();
}

Value *Emitter::team() { return team_ ? team_ : nullPtr(); }

Error Emitter::callChecked(StringRef name, ArrayRef<Value *> args, const Instruction &I,
                           const std::string &what) {
  EMBER_ASSIGN_OR_RETURN(CallInst * c, emitCall(M_, library_, B_, name, args));
  return failIf(B_.CreateICmpNE(c, ConstantInt::get(c->getType(), 0)), I, what);
}

Error Emitter::failIf(Value *failed, const Instruction &I, const std::string &what) {
  runtimeErrors_.push_back("instruction '" + I.getName().str() + "' (" + I.getKindName().str() +
                           "): " + what);
  llvm::Function *F = B_.GetInsertBlock()->getParent();
  if (!failBlock_) {
    failBlock_ = BasicBlock::Create(context(), "fail", F);
    IRBuilder<> fb(failBlock_);
    failCode_ = fb.CreatePHI(fb.getInt32Ty(), 2, "code");
    fb.CreateRet(failCode_);
  }
  BasicBlock *next = BasicBlock::Create(context(), "ok", F);
  failCode_->addIncoming(B_.getInt32(uint32_t(runtimeErrors_.size())), B_.GetInsertBlock());
  B_.CreateCondBr(failed, failBlock_, next);
  B_.SetInsertPoint(next);
  return Error::success();
}

KernelTable::KernelTable() {
  size_t count = 0;
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC) ++count;
#include "ember/Graph/Nodes.def"
  // NodeKind numbers storage kinds too; size the table by the largest value.
  entries_.resize(count + 8);
  addElementwiseKernels(*this);
  addNNKernels(*this);
  addDataMovementKernels(*this);
  addNormalizationKernels(*this);
  addReduceKernels(*this);
  addQuantizedKernels(*this);
  addRecurrentKernels(*this);
}

const KernelEntry *KernelTable::lookup(NodeKind k) const {
  size_t i = size_t(k);
  if (i >= entries_.size() || !entries_[i].emit)
    return nullptr;
  return &entries_[i];
}

const KernelTable &kernelTable() {
  static const KernelTable table;
  return table;
}

bool isSupportedOnCPU(const Node &n) {
  switch (n.getKind()) {
  case NodeKind::Placeholder:
  case NodeKind::Constant:
  case NodeKind::Save: // becomes a Copy
    return true;
  default:
    break;
  }
  // Control flow becomes branches around its bodies' instructions (CodeGenControlFlow.cpp);
  // the driver checks the bodies' nodes one by one.
  if (isControlFlowNode(n.getKind()))
    return true;
  const KernelEntry *e = kernelTable().lookup(n.getKind());
  return e && e->supports(n);
}

uint64_t cpuScratchBytes(const Instruction &I, int64_t threads) {
  NodeKind nk;
  if (!nodeKindFor(I.getKind(), nk))
    return 0;
  const KernelEntry *e = kernelTable().lookup(nk);
  return e && e->scratch ? e->scratch(I, threads) : 0;
}

void inheritTargetAttributes(llvm::Function &f, const llvm::Function &model) {
  for (StringRef a : {"target-cpu", "target-features"})
    if (model.hasFnAttribute(a))
      f.addFnAttr(model.getFnAttribute(a));
  f.addFnAttr(Attribute::NoUnwind);
}

std::string onTeamName(StringRef entry) { return (entry + "_on_team").str(); }
std::string teamStartName(StringRef entry) { return (entry + "_team_start").str(); }
std::string teamOfPoolName(StringRef entry) { return (entry + "_team_of_pool").str(); }
std::string teamStopName(StringRef entry) { return (entry + "_team_stop").str(); }
std::string tracedName(StringRef entry) { return (entry + "_traced").str(); }

/// The public functions around the model function \p model(constants, mutable, activations,
/// team[, trace]): the entry and the team functions of GeneratedModule, for a model split over
/// \p threads (1: they pass no team and start none), and with \p instrument, ENTRY_traced.
static Error emitTeamFunctions(llvm::Module &M, const llvm::Module &library, llvm::Function *model,
                               StringRef entry, int64_t threads,
                               const Instrumentation *instrument,
                               SmallVectorImpl<llvm::Function *> &publics) {
  LLVMContext &ctx = M.getContext();
  IRBuilder<> B(ctx);
  llvm::Type *ptr = B.getPtrTy(), *i32 = B.getInt32Ty(), *i64 = B.getInt64Ty();
  llvm::Constant *null = ConstantPointerNull::get(B.getPtrTy());
  const bool split = threads > 1;
  auto define = [&](StringRef name, llvm::Type *result, ArrayRef<llvm::Type *> params) {
    llvm::Function *f = llvm::Function::Create(FunctionType::get(result, params, false),
                                               GlobalValue::ExternalLinkage, name, M);
    inheritTargetAttributes(*f, *model);
    publics.push_back(f);
    B.SetInsertPoint(BasicBlock::Create(ctx, "entry", f));
    return f;
  };
  // The buffer ENTRY and ENTRY_on_team record into: the JIT's, or none.
  Value *ownTrace = null;
  if (instrument && instrument->jitBuffer)
    ownTrace = B.CreateIntToPtr(
        ConstantInt::get(i64, reinterpret_cast<uint64_t>(instrument->jitBuffer)), ptr);
  // The model's call, between the start and the finish of its trace when instrumented (the
  // finish sees every return, an error's included: kernels/Parallel.cpp).
  auto runModel = [&](llvm::Function *f, unsigned firstRegion, Value *team,
                      Value *trace) -> Expected<Value *> {
    SmallVector<Value *, 5> args = {f->getArg(firstRegion), f->getArg(firstRegion + 1),
                                    f->getArg(firstRegion + 2), team};
    if (!instrument)
      return B.CreateCall(model, args);
    EMBER_TRY(emitCall(M, library, B, "ember_trace_start", {team, trace}).takeError());
    args.push_back(trace);
    Value *status = B.CreateCall(model, args);
    EMBER_TRY(emitCall(M, library, B, "ember_trace_finish", {team, trace}).takeError());
    return status;
  };
  // The model on a team of its own for this call, on the stack.
  auto runOnOwnTeam = [&](llvm::Function *f, unsigned firstRegion, Value *trace) -> Error {
    AllocaInst *storage =
        B.CreateAlloca(ArrayType::get(B.getInt8Ty(), scratch::kTeamBytes), nullptr, "team");
    storage->setAlignment(Align(64));
    EMBER_ASSIGN_OR_RETURN(CallInst * team,
                           emitCall(M, library, B, "ember_team_start",
                                    {storage, ConstantInt::get(i64, threads)}));
    EMBER_ASSIGN_OR_RETURN(Value * status, runModel(f, firstRegion, team, trace));
    EMBER_TRY(emitCall(M, library, B, "ember_team_stop", {team}).takeError());
    B.CreateRet(status);
    return Error::success();
  };
  // ENTRY: a team for this call alone.
  llvm::Function *E = define(entry, i32, {ptr, ptr, ptr});
  if (split) {
    EMBER_TRY(runOnOwnTeam(E, 0, ownTrace));
  } else {
    EMBER_ASSIGN_OR_RETURN(Value * status, runModel(E, 0, null, ownTrace));
    B.CreateRet(status);
  }
  // ENTRY_on_team: the caller's team, or one of its own when that is null.
  llvm::Function *onTeam = define(onTeamName(entry), i32, {ptr, ptr, ptr, ptr});
  if (split) {
    BasicBlock *given = BasicBlock::Create(ctx, "given", onTeam);
    BasicBlock *none = BasicBlock::Create(ctx, "none", onTeam);
    B.CreateCondBr(B.CreateIsNull(onTeam->getArg(0)), none, given);
    B.SetInsertPoint(none);
    B.CreateRet(B.CreateCall(E, {onTeam->getArg(1), onTeam->getArg(2), onTeam->getArg(3)}));
    B.SetInsertPoint(given);
    EMBER_ASSIGN_OR_RETURN(Value * status, runModel(onTeam, 1, onTeam->getArg(0), ownTrace));
    B.CreateRet(status);
  } else {
    EMBER_ASSIGN_OR_RETURN(Value * status, runModel(onTeam, 1, null, ownTrace));
    B.CreateRet(status);
  }
  // ENTRY_traced(team, ..., trace): a bundle's ENTRY_on_team recording into the caller's buffer.
  if (instrument && !instrument->jitBuffer) {
    llvm::Function *traced = define(tracedName(entry), i32, {ptr, ptr, ptr, ptr, ptr});
    Value *trace = traced->getArg(4);
    if (split) {
      BasicBlock *given = BasicBlock::Create(ctx, "given", traced);
      BasicBlock *none = BasicBlock::Create(ctx, "none", traced);
      B.CreateCondBr(B.CreateIsNull(traced->getArg(0)), none, given);
      B.SetInsertPoint(none);
      EMBER_TRY(runOnOwnTeam(traced, 1, trace));
      B.SetInsertPoint(given);
      EMBER_ASSIGN_OR_RETURN(Value * status, runModel(traced, 1, traced->getArg(0), trace));
      B.CreateRet(status);
    } else {
      EMBER_ASSIGN_OR_RETURN(Value * status, runModel(traced, 1, null, trace));
      B.CreateRet(status);
    }
  }
  // ENTRY_team_start, ENTRY_team_of_pool, ENTRY_team_stop.
  llvm::Function *start = define(teamStartName(entry), ptr, {ptr});
  if (split) {
    EMBER_ASSIGN_OR_RETURN(CallInst * team,
                           emitCall(M, library, B, "ember_team_start",
                                    {start->getArg(0), ConstantInt::get(i64, threads)}));
    B.CreateRet(team);
  } else {
    B.CreateRet(start->getArg(0));
  }
  llvm::Function *ofPool = define(teamOfPoolName(entry), ptr, {ptr, ptr, ptr, i64});
  if (split) {
    // At most the threads the scratch was planned for.
    Value *width = ofPool->getArg(3);
    Value *bound = ConstantInt::get(i64, threads);
    width = B.CreateSelect(B.CreateICmpSGT(width, bound), bound, width);
    EMBER_ASSIGN_OR_RETURN(CallInst * team,
                           emitCall(M, library, B, "ember_team_of_pool",
                                    {ofPool->getArg(0), ofPool->getArg(1), ofPool->getArg(2),
                                     width}));
    B.CreateRet(team);
  } else {
    B.CreateRet(ofPool->getArg(0));
  }
  llvm::Function *stop = define(teamStopName(entry), B.getVoidTy(), {ptr});
  if (split)
    EMBER_TRY(emitCall(M, library, B, "ember_team_stop", {stop->getArg(0)}).takeError());
  B.CreateRetVoid();
  return Error::success();
}

Expected<GeneratedModule> generateModule(const IRFunction &IR, LLVMContext &ctx,
                                         const TargetMachine &TM, StringRef entryName,
                                         int64_t threads, const ProfileHook *profile,
                                         const Instrumentation *instrument) {
  for (const auto &w : IR.getWeights())
    if (w->offset == kUnplanned)
      return makeError("IR has no memory plan");
  GeneratedModule G;
  G.entryName = entryName.str();
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> library, loadKernelLibrary(ctx, TM));
  if (library->getNamedValue(entryName))
    return makeError("entry name '" + entryName + "' clashes with a kernel");
  G.module = std::make_unique<llvm::Module>(entryName, ctx);
  llvm::Module &M = *G.module;
  M.setTargetTriple(library->getTargetTriple());
  M.setDataLayout(library->getDataLayout());

  IRBuilder<> B(ctx);
  llvm::Type *ptr = B.getPtrTy();
  // The model, taking its team as an argument; the entry and the team functions call it (kept
  // out of line: one copy of the model's code).
  SmallVector<llvm::Type *, 5> params = {ptr, ptr, ptr, ptr};
  if (instrument)
    params.push_back(ptr); // the trace buffer, or null
  auto *FT = llvm::FunctionType::get(B.getInt32Ty(), params, false);
  llvm::Function *F =
      llvm::Function::Create(FT, GlobalValue::InternalLinkage, entryName + ".model", M);
  const char *argNames[] = {"constantWeights", "mutableWeights", "activations"};
  Value *regions[3];
  for (unsigned i = 0; i < 3; ++i) {
    Argument *a = F->getArg(i);
    a->setName(argNames[i]);
    a->addAttr(Attribute::NoAlias); // three distinct buffers
    regions[i] = a;
  }
  F->getArg(3)->setName("team");
  if (instrument)
    F->getArg(4)->setName("trace");
  F->addFnAttr("target-cpu", TM.getTargetCPU());
  if (!TM.getTargetFeatureString().empty())
    F->addFnAttr("target-features", TM.getTargetFeatureString());
  F->addFnAttr(Attribute::NoUnwind);
  F->addFnAttr(Attribute::NoInline);
  B.SetInsertPoint(BasicBlock::Create(ctx, "entry", F));

  // A team is worth its threads' start only if some kernel will split (kernels/Parallel.h:
  // 1 MFLOP a part) or some element-wise loop (CodeGenFusion.cpp); a small model runs faster on
  // one thread than it starts a second.
  int64_t largest = 0;
  bool elementwise = false;
  for (const auto &I : IR.getInstrs()) {
    largest = std::max(largest, splittableFlops(*I));
    elementwise = elementwise || splitsElementwise(*I, threads);
  }
  if (largest < 2 * scratch::kMinFlopsPerPart && !elementwise)
    threads = 1;
  EMBER_ASSIGN_OR_RETURN(const KernelVariant *variant, selectKernelVariant(TM));
  EMBER_ASSIGN_OR_RETURN(const IntegerKernelVariant *integerRow, selectIntegerKernelVariant(TM));
  Emitter E(M, *library, B, regions, variant->name, integerRow->name, threads, G.runtimeErrors,
            IR);
  E.setTeam(F->getArg(3));
  G.threads = threads;
  // Profiling: hook(ctx, k) before the k-th computing instruction, hook(ctx, -1) at the end.
  auto mark = [&](int32_t slot) -> Error {
    // An instruction's event ends where the next one starts; ember_trace_finish ends the last.
    if (instrument && slot >= 0)
      EMBER_TRY(E.call("ember_trace_mark", {F->getArg(4), B.getInt32(uint32_t(slot))}));
    if (!profile)
      return Error::success();
    auto *hookTy = llvm::FunctionType::get(B.getVoidTy(), {ptr, B.getInt32Ty()}, false);
    Value *fn = B.CreateIntToPtr(B.getInt64(reinterpret_cast<uint64_t>(profile->fn)), ptr);
    Value *ctxArg = B.CreateIntToPtr(B.getInt64(reinterpret_cast<uint64_t>(profile->ctx)), ptr);
    B.CreateCall(hookTy, fn, {ctxArg, B.getInt32(uint32_t(slot))});
    return Error::success();
  };
  // A run never spans a control-flow marker: markers are not fusable, so they close runs.
  FusionRuns runs = findFusionRuns(IR, E.threads());
  AttentionChains attention = findAttentionChains(IR, E.threads());
  DenseSet<const Instruction *> fused; // emitted as part of a run or an attention chain
  // A batch norm and the relu after it that overwrites its result (a run of that relu alone,
  // split over the team, or none), as one pass: the relu read and wrote the whole map again.
  DenseMap<const Instruction *, const Instruction *> normRelu;
  {
    const Instruction *previous = nullptr;
    for (const auto &P : IR.getInstrs()) {
      if (isMemoryMarker(P->getKind()))
        continue;
      auto run = runs.find(P.get());
      if (previous && batchNormTakesRelu(*previous, *P) &&
          (run == runs.end() || run->second.size() == 1))
        normRelu[previous] = P.get();
      previous = P.get();
    }
  }
  ControlFlowEmitter controlFlow;
  int32_t slot = 0;
  for (const auto &I : IR.getInstrs()) {
    InstrKind ik = I->getKind();
    if (fused.count(I.get())) {
      // Its time is charged to the run's first instruction, the last one marked.
      G.timedWith.push_back(G.timedWith.empty() ? slot : G.timedWith.back());
      ++slot;
      continue;
    }
    if (isControlMarker(ik)) {
      EMBER_TRY(controlFlow.emitMarker(E, *I));
      continue;
    }
    if (hasProfileSlot(ik)) {
      G.timedWith.push_back(slot);
      EMBER_TRY(mark(slot++));
    }
    auto chain = attention.find(I.get());
    if (chain != attention.end()) {
      EMBER_TRY(emitAttentionChain(E, chain->second));
      for (const Instruction *member : {chain->second.maskBroadcast, chain->second.mask,
                                         chain->second.softmax, chain->second.values})
        if (member)
          fused.insert(member);
      continue;
    }
    auto norm = normRelu.find(I.get());
    if (norm != normRelu.end()) {
      EMBER_TRY(emitBatchNormRelu(E, *I));
      fused.insert(norm->second);
      continue;
    }
    auto run = runs.find(I.get());
    if (run != runs.end()) {
      EMBER_TRY(emitFusedRun(E, IR, run->second));
      fused.insert(run->second.begin(), run->second.end());
      continue;
    }
    if (ik == InstrKind::Copy) {
      const IRValue *dst = I->getOperand(0), *src = I->getOperand(1);
      EMBER_TRY(E.call("ember_copy", {E.addr(dst), E.addr(src), E.i64(int64_t(dst->sizeInBytes()))}));
      continue;
    }
    if (ik == InstrKind::StoreIteration) {
      EMBER_TRY(emitStoreIteration(E, *I));
      continue;
    }
    NodeKind nk;
    if (!nodeKindFor(ik, nk))
      continue; // allocations, deallocations and views: the memory plan did their work
    const KernelEntry *entry = kernelTable().lookup(nk);
    if (!entry)
      return instrError(*I, "the CPU backend has no kernel for this kind");
    EMBER_TRY(entry->emit(E, *I));
  }
  EMBER_TRY(controlFlow.finish());
  EMBER_TRY(mark(-1));
  B.CreateRet(B.getInt32(0));
  SmallVector<llvm::Function *, 6> publics;
  EMBER_TRY(emitTeamFunctions(M, *library, F, entryName, threads, instrument, publics));
  // The constant the kernels test before recording (kernels/Trace.h): 0 folds their tests away.
  new GlobalVariable(M, B.getInt32Ty(), /*isConstant=*/true, GlobalValue::ExternalLinkage,
                     B.getInt32(instrument ? 1 : 0), "ember_tracing");
  EMBER_TRY(linkKernels(M, std::move(library), TM));
  // ember_tracing = 0 lets the optimizer drop the kernels' clock reads, but -llvm-opt-level=0
  // keeps them in their untaken branches: there they call a stub that returns 0, so an
  // uninstrumented bundle never refers to clock_gettime at any level.
  if (llvm::Function *clock = M.getFunction("clock_gettime");
      !instrument && clock && clock->isDeclaration() && !clock->use_empty()) {
    auto *stub = llvm::Function::Create(clock->getFunctionType(), GlobalValue::InternalLinkage,
                                        "ember_no_clock", M);
    IRBuilder<> SB(BasicBlock::Create(M.getContext(), "entry", stub));
    SB.CreateRet(ConstantInt::get(clock->getReturnType(), 0));
    clock->replaceAllUsesWith(stub);
    clock->eraseFromParent();
  }

  // Only the entry and its team functions are visible: unused kernels disappear and the rest
  // may be inlined.
  for (llvm::Function &f : M)
    if (!llvm::is_contained(publics, &f) && !f.isDeclaration())
      f.setLinkage(GlobalValue::InternalLinkage);
  for (GlobalVariable &g : M.globals())
    if (!g.isDeclaration() && !g.getName().starts_with("llvm."))
      g.setLinkage(GlobalValue::InternalLinkage);

  std::string msg;
  raw_string_ostream os(msg);
  if (verifyModule(M, &os))
    return makeError("CPU codegen produced an invalid module: " + os.str());
  return std::move(G);
}

} // namespace cpu
} // namespace ember
