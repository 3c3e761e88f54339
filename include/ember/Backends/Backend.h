// The backend interface: which nodes a backend runs, which it wants lowered, and compiling a
// planned IRFunction into something that runs on the three memory regions of the bundle ABI.
#ifndef EMBER_BACKENDS_BACKEND_H
#define EMBER_BACKENDS_BACKEND_H

#include "ember/IR/IR.h"
#include "ember/Support/PhaseClock.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ember {

/// How a backend is created: target, inspection and profiling options. A backend refuses an
/// option it cannot honour (createBackend fails) rather than ignoring it.
struct BackendOptions {
  std::string target;     ///< target triple, e.g. aarch64-linux-gnu; empty: this machine
  std::string cpu;        ///< target CPU, e.g. skylake-avx512; empty: the host's (generic when
                          ///< cross-compiling)
  std::string features;   ///< target features, e.g. +avx2,-avx512f; empty: the CPU's
  std::string codeModel;  ///< small, medium, large or kernel; empty: the target's default
  std::string relocModel; ///< pic or static; empty: pic
  /// How hard LLVM optimizes the generated code, as clang's -O0..-O3: its IR pipeline and its
  /// instruction selection. The kernels are optimized bitcode whatever the level, so a low
  /// level mostly costs the fused loops and the inlining of kernels into the entry; it compiles
  /// several times faster (the CPU fuzz harness uses 0, tests/fuzz).
  int llvmOptLevel = 3;
  bool dumpLLVMIR = false;  ///< print the optimized LLVM module to stdout when compiling
  bool dumpLLVMAsm = false; ///< print the generated assembly to stdout when compiling
  bool profile = false;     ///< compiled functions time every instruction (getProfile)
  /// Compiled functions record when each computing instruction and each thread's part of a
  /// threaded step ran (takeTrace; model-runner -trace); a bundle then also has ENTRY_traced,
  /// which records into its caller's buffer (model-compiler -instrument).
  bool instrument = false;
  /// Threads the heavy kernels (convolutions, matrix products) split their work over: each
  /// creates them for its call and joins them before returning. 1: none, and no pthreads.
  unsigned threads = 1;
  /// CPU bundles, for testing (model-compiler -sanitize-bundle=thread): the code, kernels
  /// included, instrumented with ThreadSanitizer, for a program built with -fsanitize=thread.
  /// The JIT instruments its code whenever ember itself is built with TSan.
  bool threadSanitizer = false;
  /// OpenCL: the platform and the device on it, by index (clGetPlatformIDs order).
  unsigned openclPlatform = 0, openclDevice = 0;
};

/// One instruction's share of the time spent in a compiled function (-profile).
struct InstructionTime {
  const Instruction *instr;
  double millis; ///< over every run so far
};

/// One span an instrumented function recorded (BackendOptions::instrument).
struct TraceSpan {
  const Instruction *instr;
  uint64_t startNanos, endNanos; ///< std::chrono::steady_clock's, since its epoch
  int32_t thread; ///< 0: the thread that called execute(); k: the k-th worker of its team
  int32_t part;   ///< -1: the instruction; p: the part p of its threaded step that thread ran
};

/// A compiled function. It reads and writes only the three regions it is given: constant weights
/// (read-only), mutable weights (inputs and outputs) and activations (scratch), each aligned to
/// kTensorAlignment and as large as the IRFunction's plan says.
class CompiledFunction {
public:
  virtual ~CompiledFunction() = default;
  virtual llvm::Error execute(uint8_t *constantWeights, uint8_t *mutableWeights,
                              uint8_t *activations) = 0;
  /// With BackendOptions::profile: time per computing instruction over every execute() so far,
  /// in instruction order. Empty otherwise.
  virtual std::vector<InstructionTime> getProfile() const { return {}; }
  /// With BackendOptions::instrument: the spans recorded since the last call, in the order
  /// recorded, and in \p dropped how many did not fit the function's buffer. Empty otherwise.
  virtual std::vector<TraceSpan> takeTrace(uint64_t &dropped) {
    dropped = 0;
    return {};
  }
};

/// A placeholder's place in the mutable region, as a bundle's symbol table lists it.
struct BundleSymbol {
  std::string name; ///< the placeholder's name in the model
  uint64_t offset, size;
  bool isInput; ///< else an output
};

/// What to write for a bundle (model-compiler -emit-bundle): a relocatable object with
/// `int <entryName>(uint8_t *constantWeight, uint8_t *mutableWeight, uint8_t *activations)`.
struct ObjectOptions {
  std::string path;      ///< the object file to write
  std::string entryName; ///< the entry point's C symbol
  /// With a name: also a constant C struct of that name (the dynamic bundle API): the three
  /// region sizes, the alignment, the number of symbols and a pointer to them, each
  /// {const char *name; uint64_t offset; uint64_t size; char kind ('i' input, 'o' output)}.
  std::string configName;
  std::vector<BundleSymbol> symbols;
};

/// What a program linking the object needs to know.
struct ObjectInfo {
  std::string triple;                 ///< the target the object is for
  std::vector<std::string> linkFlags; ///< beyond the C library, e.g. -lm
  /// The entry returns 0, or k > 0 for the run-time error errors[k - 1].
  std::vector<std::string> errors;
  /// The entry keeps state between calls (an OpenCL bundle: the device, its program and
  /// buffers, set up at the first call), so calls take turns; else it keeps none and threads
  /// may call it at once with their own regions.
  bool keepsState = false;
  /// A CPU bundle's team (docs/bundles.md: threads): the threads its kernels split over (1: no
  /// kernel worth splitting, or -threads=1); 0 for a backend without team functions.
  int64_t teamThreads = 0;
  int64_t teamBytes = 0; ///< the storage a team takes (64-byte aligned)
  /// BackendOptions::instrument, for a backend that honours it: each computing instruction, by
  /// the index its events carry (docs/bundles.md: instrumented bundles).
  bool instrumented = false;
  struct TracedInstruction {
    std::string name, kind;
    /// Empty, or the instruction whose event also times this one (fused into its call): this
    /// one has none of its own.
    std::string timedWith;
  };
  std::vector<TracedInstruction> tracedInstructions;
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual llvm::StringRef getName() const = 0;
  /// Whether the backend can run \p n (kind and element types) after lowering.
  virtual bool isOpSupported(const Node &n) const = 0;
  /// Whether the graph optimizer should replace \p n by the simpler nodes of its lowering
  /// (include/ember/Optimizer/Lowerings.def; the `lower` pass). Asked for every node of a kind
  /// with a lowering, which may still decline the node; a backend asks for what it has no
  /// kernel for, or only a slower one. None by default.
  virtual bool shouldLower(const Node &n) const { return false; }
  /// Bytes of working memory the backend's kernel for \p I needs while it runs; the memory plan
  /// places them in the activations region (no kernel allocates or keeps global state).
  virtual uint64_t getScratchBytes(const Instruction &I) const { return 0; }
  /// Before the memory plan: sets WeightVar::reservedBytes of the constants the backend will
  /// write (writeConstants) in a layout larger than their value. None by default.
  virtual llvm::Error reserveConstants(IRFunction &IR) const { return llvm::Error::success(); }
  /// Compiles \p IR, which must outlive the result and have a memory plan; appends the time of
  /// each of its phases to \p phases when given.
  virtual llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(const IRFunction &IR, PhaseTimes *phases = nullptr) const = 0;
  /// Writes every constant of \p IR (planned) at its offset in \p region (IR.constantSize
  /// bytes), in the layout the backend's code reads: by default each payload as it is. A
  /// backend may store a constant rearranged for its kernels, in the same bytes (the CPU backend
  /// packs convolution filters for its GEMM); code it compiled for \p IR reads only a region
  /// written by this. Bundles ship the region as written here.
  virtual llvm::Error writeConstants(const IRFunction &IR, uint8_t *region) const;
  /// Writes \p IR (planned) as a relocatable object for a bundle; backends that cannot say so.
  virtual llvm::Expected<ObjectInfo> emitObject(const IRFunction &IR, const ObjectOptions &opts,
                                                PhaseTimes *phases = nullptr) const;
  /// Writes \p region (the constant region as writeConstants wrote it) to \p path as a
  /// relocatable object for the target emitObject writes for, holding nothing but the read-only
  /// array \p symbol of those bytes, aligned to kTensorAlignment (-bundle-weights=object: a
  /// program links the weights instead of reading them). Backends that cannot say so.
  virtual llvm::Error emitConstantsObject(llvm::ArrayRef<uint8_t> region,
                                          const std::string &symbol,
                                          const std::string &path) const;
};

/// Names accepted by createBackend().
std::vector<std::string> getBackendNames();
llvm::Expected<std::unique_ptr<Backend>> createBackend(llvm::StringRef name,
                                                       const BackendOptions &opts = {});

} // namespace ember

#endif
