// Codegen for the CPU backend: a planned IRFunction becomes one LLVM function
//   i32 <entry>(ptr constantWeights, ptr mutableWeights, ptr activations)
// in a copy of the kernel library, calling one kernel per instruction with constant shapes and
// addresses (region base + the planner's offset). It returns 0, or the 1-based number of a
// run-time error (an index out of range) whose message GeneratedModule::runtimeErrors holds.
//
// Each node kind the backend runs has a KernelEntry: whether it supports a node (kinds, element
// types, attributes) and how to emit the call for an instruction. The families register their
// entries in CodeGen<Family>.cpp; isOpSupported and codegen both read the one table, so they
// cannot disagree.
#ifndef EMBER_LIB_BACKENDS_CPU_CODEGEN_H
#define EMBER_LIB_BACKENDS_CPU_CODEGEN_H

#include "ember/Backends/Backend.h"
#include "ember/IR/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ember {
namespace cpu {

/// What one instruction's emitter works with.
class Emitter {
  llvm::Module &M_;
  const llvm::Module &library_; ///< lazily read: declarations give the kernels' types
  llvm::IRBuilder<> &B_;
  llvm::Value *regions_[3];
  llvm::StringRef variant_; ///< the kernels/Variants.def row this target runs
  llvm::StringRef integerVariant_; ///< the kernels/QuantizedIntegerVariants.def row
  int64_t threads_;
  llvm::Value *team_ = nullptr;
  std::vector<std::string> &runtimeErrors_;
  llvm::BasicBlock *failBlock_ = nullptr;
  llvm::PHINode *failCode_ = nullptr;
  /// Inside a fused element-wise loop (CodeGenFusion.cpp): where each value's current chunk
  /// is, and the number of elements in the chunk.
  const llvm::DenseMap<const IRValue *, llvm::Value *> *chunkAddrs_ = nullptr;
  int64_t chunkElements_ = 0;
  /// Storages some instruction reads (its root WeightVar or allocation).
  llvm::DenseSet<const IRValue *> readStorages_;
  /// The constants stored packed for the GEMM (CPUConstants.h), with their group counts.
  llvm::DenseMap<const IRValue *, int64_t> packedFilters_;

public:
  /// \p variant and \p integerVariant: the rows of kernels/Variants.def and
  /// kernels/QuantizedIntegerVariants.def the target runs.
  Emitter(llvm::Module &M, const llvm::Module &library, llvm::IRBuilder<> &B,
          llvm::ArrayRef<llvm::Value *> regions, llvm::StringRef variant,
          llvm::StringRef integerVariant, int64_t threads,
          std::vector<std::string> &runtimeErrors, const IRFunction &IR);

  /// The int8 GEMM's row (kernels/QuantizedIntegerVariants.def) the target runs.
  llvm::StringRef integerVariant() const { return integerVariant_; }

  /// Threads the heavy kernels split their work over (BackendOptions::threads).
  int64_t threads() const { return threads_; }
  /// The team the parallel kernels take (kernels/Parallel.h): the model function's team
  /// argument with threads above 1, else a null pointer.
  void setTeam(llvm::Value *team) { team_ = threads_ > 1 ? team : nullptr; }
  llvm::Value *team();

  /// Parts worth splitting a memory-bound step that reads and writes \p floats floats into on
  /// the team (scratch::kFloatMoveFlops: 64K floats a part), at most threads(); 1 without one.
  int64_t partsMoving(int64_t floats) const;
  /// Runs \p body(part) for each part in [0, \p parts) on the team (CodeGenTeam.cpp): the code
  /// \p body emits goes into a part function, which addresses values as the model function does,
  /// called through ember_team_run; \p part is the function's i64 argument. With one part,
  /// body(0) here. \p body must not emit failIf (its block is the model function's).
  llvm::Error onTeam(int64_t parts, llvm::function_ref<llvm::Error(llvm::Value *part)> body);
  /// onTeam with each part's code emitted for its constant index (a switch on the part), for
  /// steps whose parts' arguments the host computes: body(p) for p in [0, \p parts).
  llvm::Error onTeamParts(int64_t parts, llvm::function_ref<llvm::Error(int64_t part)> body);
  /// \p p advanced by \p bytes.
  llvm::Value *advance(llvm::Value *p, int64_t bytes) {
    return B_.CreateInBoundsGEP(B_.getInt8Ty(), p, B_.getInt64(uint64_t(bytes)));
  }

  /// Whether \p v is a filter the constant region holds packed (CPUConstants.h).
  bool isPackedFilter(const IRValue *v) const { return packedFilters_.count(v); }
  /// The layout of a packed filter (packedFilters: a group count, kColumnPanels or
  /// a winogradMark), or none.
  std::optional<int64_t> packedLayout(const IRValue *v) const {
    auto it = packedFilters_.find(v);
    return it == packedFilters_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }

  /// Whether anything reads \p v's storage: a model output, or an input of some instruction.
  /// A kernel may skip computing a result nobody reads (MaxPool's indices).
  bool isRead(const IRValue *v) const;

  llvm::IRBuilder<> &builder() { return B_; }
  llvm::LLVMContext &context() { return M_.getContext(); }

  /// The address of \p v: its region's base plus the planner's offset (in a fused loop, its
  /// current chunk's).
  llvm::Value *addr(const IRValue *v);
  /// The elements an element-wise instruction's kernel call covers: all of its result, or the
  /// current chunk in a fused loop.
  llvm::Constant *elementCount(const Instruction &I);
  /// Inside a fused loop: the current chunk's element count; 0 outside one.
  int64_t chunkElements() const { return chunkAddrs_ ? chunkElements_ : 0; }
  /// Enters (\p addrs non-null) or leaves a fused loop's chunk.
  void setChunk(const llvm::DenseMap<const IRValue *, llvm::Value *> *addrs, int64_t elements) {
    chunkAddrs_ = addrs;
    chunkElements_ = elements;
  }
  /// The region base pointer of \p r (the model function's argument).
  llvm::Value *regionBase(MemRegion r) const { return regions_[unsigned(r)]; }
  /// The three region base pointers code emitted from now on reads (a part function's, which
  /// the team runs: CodeGenFusion.cpp); returns the ones they replace.
  std::array<llvm::Value *, 3> swapRegions(std::array<llvm::Value *, 3> regions) {
    std::array<llvm::Value *, 3> old = {regions_[0], regions_[1], regions_[2]};
    for (unsigned i = 0; i < 3; ++i)
      regions_[i] = regions[i];
    return old;
  }
  llvm::Module &module() { return M_; }
  llvm::Value *out(const Instruction &I, unsigned r = 0) { return addr(I.getOutput(r)); }
  llvm::Value *in(const Instruction &I, unsigned i) { return addr(I.getInput(i)); }
  /// The instruction's scratch (Backend::getScratchBytes), or null when it has none.
  llvm::Value *scratch(const Instruction &I);

  llvm::Constant *i64(int64_t v);
  llvm::Constant *f32(float v);
  llvm::Constant *nullPtr();
  /// A private constant array of \p values; its address.
  llvm::Constant *constArray(llvm::ArrayRef<int64_t> values, llvm::StringRef name = "params");
  /// constArray of \p dims.
  llvm::Constant *dimsArray(llvm::ArrayRef<dim_t> dims, llvm::StringRef name = "dims");
  /// A private constant array of floats; its address.
  llvm::Constant *floatArray(llvm::ArrayRef<float> values, llvm::StringRef name = "fparams");
  /// A private constant array of int32; its address.
  llvm::Constant *int32Array(llvm::ArrayRef<int32_t> values, llvm::StringRef name = "iparams");

  /// Calls kernel \p name with \p args (checked against its signature).
  llvm::Error call(llvm::StringRef name, llvm::ArrayRef<llvm::Value *> args);
  /// Calls a kernel that returns i64: 0 for success, else the entry function returns the error
  /// whose message is \p what, with the instruction named.
  llvm::Error callChecked(llvm::StringRef name, llvm::ArrayRef<llvm::Value *> args,
                          const Instruction &I, const std::string &what);
  /// Where the i1 \p failed is true, the entry function returns the error whose message is
  /// \p what, with the instruction named; code emission goes on in the block where it is false.
  llvm::Error failIf(llvm::Value *failed, const Instruction &I, const std::string &what);
  /// The entry \p base of the kernels/Variants.def row this target runs (`<base>_<row>`).
  std::string variant(llvm::StringRef base) const { return (base + "_" + variant_).str(); }

  /// The block the entry function returns an error code from (created on first use).
  llvm::BasicBlock *failBlock() const { return failBlock_; }
  llvm::PHINode *failCode() const { return failCode_; }
};

/// An error naming instruction \p I.
llvm::Error instrError(const Instruction &I, const llvm::Twine &why);

using SupportsFn = bool (*)(const Node &);
using EmitFn = llvm::Error (*)(Emitter &, const Instruction &);
/// Bytes of scratch the kernel needs for an instruction run on \p threads threads
/// (kernels/Scratch.h).
using ScratchFn = uint64_t (*)(const Instruction &, int64_t threads);
struct KernelEntry {
  SupportsFn supports = nullptr;
  EmitFn emit = nullptr;
  ScratchFn scratch = nullptr;
};

/// The table of every node kind's entry, indexed by NodeKind.
class KernelTable {
  std::vector<KernelEntry> entries_;

public:
  KernelTable();
  void add(NodeKind k, SupportsFn s, EmitFn e, ScratchFn scratch = nullptr) {
    entries_[size_t(k)] = KernelEntry{s, e, scratch};
  }
  /// Null when the backend has no kernel for \p k.
  const KernelEntry *lookup(NodeKind k) const;
};
const KernelTable &kernelTable();

// The families' registrations (CodeGen<Family>.cpp).
void addElementwiseKernels(KernelTable &t);
void addNNKernels(KernelTable &t);
void addDataMovementKernels(KernelTable &t);
void addNormalizationKernels(KernelTable &t);
void addReduceKernels(KernelTable &t);
void addQuantizedKernels(KernelTable &t);
void addRecurrentKernels(KernelTable &t);

/// Whether \p next, the computing instruction after the float32 batch norm \p bn, is a relu that
/// overwrites its result in place (densenet121's norm + relu before each convolution): then
/// emitBatchNormRelu does both in one pass, and \p next is not emitted.
bool batchNormTakesRelu(const Instruction &bn, const Instruction &next);
llvm::Error emitBatchNormRelu(Emitter &E, const Instruction &bn);

/// The floating-point operations of \p I if its kernel can split them over threads (the float32
/// convolutions and matrix products, CodeGenNN.cpp; the steps that split by the floats they move
/// count scratch::kFloatMoveFlops a float), else 0.
int64_t splittableFlops(const Instruction &I);
/// The floating-point operations of a recurrent instruction on the fast kernel, which splits
/// its input projection and each step's gate products over threads (CodeGenRecurrent.cpp); else 0.
int64_t recurrentSplittableFlops(const Instruction &I);
/// Whether a recurrent instruction runs the fast float32 kernel (kernels/RecurrentFast.cpp):
/// float32, activations it vectorizes, no cell clip, and no LSTM input_forget.
bool fastRecurrent(const Instruction &I);

/// Whether the CPU backend runs \p n.
bool isSupportedOnCPU(const Node &n);
/// Bytes of scratch the CPU kernel for \p I needs on \p threads threads.
uint64_t cpuScratchBytes(const Instruction &I, int64_t threads);

/// The generated module's functions (besides the kernels, all internal), named after the entry
/// ENTRY; a team is kernels/Parallel.h's, in storage of scratch::kTeamBytes:
///   int ENTRY(constants, mutable, activations): one call, on a team of its own (threads > 1);
///   int ENTRY_on_team(team, constants, mutable, activations): on \p team (null: as ENTRY);
///   team *ENTRY_team_start(storage): the model's threads - 1 workers, kept until
///   ENTRY_team_stop(team);
///   team *ENTRY_team_of_pool(storage, parallelFor, pool, threads): jobs to the caller's pool.
/// With one thread the team functions do nothing but return \p storage.
struct GeneratedModule {
  std::unique_ptr<llvm::Module> module;
  std::string entryName;
  std::vector<std::string> runtimeErrors; ///< code k is runtimeErrors[k - 1]
  int64_t threads = 1; ///< the team's size the code splits for (1: no kernel worth splitting)
  /// For each computing instruction (hasProfileSlot), the one whose mark times it: itself, or
  /// for an instruction fused into another's call, the first of that call (no mark of its own).
  std::vector<int32_t> timedWith;
};

/// Gives \p f, a function codegen adds beside the model function \p model, the model's target
/// CPU and features and no unwinding.
void inheritTargetAttributes(llvm::Function &f, const llvm::Function &model);

/// The names of the team functions beside entry \p entry (GeneratedModule).
std::string onTeamName(llvm::StringRef entry);
std::string teamStartName(llvm::StringRef entry);
std::string teamOfPoolName(llvm::StringRef entry);
std::string teamStopName(llvm::StringRef entry);

/// A function the generated code calls as fn(ctx, k) before the k-th computing instruction
/// (counting, in list order, every instruction hasProfileSlot accepts) and as fn(ctx, -1) at
/// the end. An instruction in a loop's body calls it on every iteration. JIT only: both
/// addresses are baked into the code.
struct ProfileHook {
  void (*fn)(void *ctx, int32_t slot);
  void *ctx;
};
/// Instrumentation (model-runner -trace, model-compiler -instrument; kernels/TraceBuffer.h): the
/// model marks each computing instruction's start (its -profile slot) in a trace buffer, and its
/// team records each thread's part of a threaded step. The JIT bakes its buffer (jitBuffer) into
/// ENTRY and ENTRY_on_team; a bundle's record nothing, and ENTRY_traced(team, constants,
/// mutable, activations, buffer) takes the caller's.
struct Instrumentation {
  void *jitBuffer = nullptr;
};
std::string tracedName(llvm::StringRef entry);

/// Whether -profile times instructions of kind \p k: every kind but those that only manage
/// memory (allocations, deallocations, views) and the control-flow markers, as the Interpreter.
inline bool hasProfileSlot(InstrKind k) { return !isMemoryMarker(k) && !isControlMarker(k); }

/// Control flow (CodeGenControlFlow.cpp): the IR's markers (IR.h: IfBegin, IfElse, IfEnd,
/// LoopBegin, LoopEnd) become blocks and branches of the entry function, with the semantics
/// the Interpreter's walk gives them. Regions nest: the emitter keeps the open ones.
class ControlFlowEmitter {
  struct Region {
    const Instruction *opener; ///< the IfBegin or LoopBegin
    /// If: the else-branch's block until IfElse enters it, then null. Loop: the test before
    /// each iteration, where LoopEnd branches back to.
    llvm::BasicBlock *next;
    llvm::BasicBlock *end; ///< where control goes after the region
  };
  llvm::SmallVector<Region, 4> open_;

public:
  /// Emits marker \p I (isControlMarker) and leaves the builder where the instruction after
  /// it goes.
  llvm::Error emitMarker(Emitter &E, const Instruction &I);
  /// An error unless every region was closed.
  llvm::Error finish() const;
};
/// A Loop's scan output slice (StoreIteration): value's bytes to dest + iter * size(value).
llvm::Error emitStoreIteration(Emitter &E, const Instruction &I);

/// Element-wise fusion (CodeGenFusion.cpp): runs of consecutive float32 element-wise
/// instructions over the same number of elements, each reading a result of the run, become one
/// loop over chunks of a vector's length; values read only inside the run stay in registers.
/// With \p threads above 1 the loop of a large run splits over the team, and a large
/// element-wise instruction alone is a run of one. Maps the first instruction of each run to
/// the run.
using FusionRuns = llvm::DenseMap<const Instruction *, std::vector<const Instruction *>>;
FusionRuns findFusionRuns(const IRFunction &IR, int64_t threads);
/// Whether the loop of \p I (in a run or alone) splits over a team of \p threads.
bool splitsElementwise(const Instruction &I, int64_t threads);
/// Emits the loop of \p run.
llvm::Error emitFusedRun(Emitter &E, const IRFunction &IR,
                         llvm::ArrayRef<const Instruction *> run);

/// Fused attention (CodeGenAttention.cpp): MatMul, optionally Add (a mask), Softmax along the
/// last axis, MatMul, as one call at the first MatMul when the memory plan allows it.
struct AttentionChain {
  const Instruction *scores = nullptr, *mask = nullptr, *softmax = nullptr, *values = nullptr;
  const Instruction *maskBroadcast = nullptr; ///< the Broadcast the mask comes from, if fused in
  IRValue *maskValue = nullptr; ///< the mask the kernel reads
  int64_t maskBatchStride = 0;  ///< elements from one batch's mask to the next (0: shared)
  const Instruction *work = nullptr; ///< the MatMul whose scratch the call works in
};
/// Maps each chain's first MatMul to the chain, for a model compiled for \p threads.
using AttentionChains = llvm::DenseMap<const Instruction *, AttentionChain>;
AttentionChains findAttentionChains(const IRFunction &IR, int64_t threads);
llvm::Error emitAttentionChain(Emitter &E, const AttentionChain &chain);
/// The scratch a batched MatMul whose shapes could be the first of an attention chain needs for
/// the fused call (0 for others); matmulScratch gives it the larger of this and its own.
uint64_t attentionScratchBytes(const Instruction &I, int64_t threads);
/// The same for a batched MatMul whose shapes could be a chain's second (P x V, queries as deep
/// as V is wide): the call works there when the plan put O over the first's scratch.
uint64_t attentionValuesScratchBytes(const Instruction &I, int64_t threads);

/// Builds (does not optimize) the module for \p IR, targeting \p TM.
llvm::Expected<GeneratedModule> generateModule(const IRFunction &IR, llvm::LLVMContext &ctx,
                                               const llvm::TargetMachine &TM,
                                               llvm::StringRef entryName, int64_t threads,
                                               const ProfileHook *profile = nullptr,
                                               const Instrumentation *instrument = nullptr);

/// Runs LLVM's pipeline for \p TM on \p M, at \p TM's optimization level (O3 by default).
void optimizeModule(llvm::Module &M, llvm::TargetMachine &TM);

/// Instruments the optimized \p M, kernels included, with LLVM's ThreadSanitizer pass
/// (Sanitize.cpp): its code then calls the TSan runtime of the program it runs in.
llvm::Error instrumentForThreadSanitizer(llvm::Module &M);

/// Prints what -dump-llvm-ir and -dump-llvm-asm ask for of the optimized \p M to stdout (the
/// assembly from a copy: emitting runs codegen passes over the module).
llvm::Error dumpModule(const llvm::Module &M, llvm::TargetMachine &TM,
                       const BackendOptions &opts);

} // namespace cpu
} // namespace ember

#endif
