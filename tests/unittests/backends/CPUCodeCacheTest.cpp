// The CPU backend's machine-code cache (lib/Backends/CPU/CodeCache.h, CachedCompile.h): a model
// compiled again in the process takes every part from the cache and computes what it did; a
// part's key covers its IR and the target machine, so a changed kernel, CPU or optimization
// level misses; a variable the code writes is never copied into a part.
#include "BackendTestUtils.h"

#include "../../../lib/Backends/CPU/CPUTarget.h"
#include "../../../lib/Backends/CPU/CachedCompile.h"
#include "../../../lib/Backends/CPU/CodeCache.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/SourceMgr.h"

using namespace ember;
using namespace ember::test;

namespace {

std::vector<NodeValue> convProductAndSoftmax(Module &M, Function *F) {
  Placeholder *x = input(M, {1, 5, 9, 11});
  AttrList c = convAttrs({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1);
  c.set<AttrKind::FusedActivation>("relu").set<AttrKind::FusedActivationArgs>({});
  Node *conv = node(F, NodeKind::FusedConv,
                    {x, constant(M, {6, 5, 3, 3}, 2), constant(M, {6}, 3)}, c);
  Node *mm = node(F, NodeKind::MatMul, {input(M, {13, 21}, ElemKind::Float32, "a"),
                                        input(M, {21, 17}, ElemKind::Float32, "b")});
  AttrList axis;
  axis.set<AttrKind::Axis>(1);
  Node *sm = node(F, NodeKind::Softmax, {mm}, axis);
  return {conv, sm};
}

TEST(CPUCodeCache, SecondCompileTakesEveryPartFromTheCacheAndAgrees) {
  // The default O3 (kernels inlined where LLVM chose to, the rest called) and O0 (every kernel
  // called: the fuzzer's level).
  for (int level : {3, 0}) {
    SCOPED_TRACE("-llvm-opt-level=" + std::to_string(level));
    cpu::CodeCache &cache = cpu::CodeCache::process();
    cache.clear();
    RunOptions opts = dceOnly();
    opts.backend.llvmOptLevel = level;
    Outputs first = runOn("CPU", convProductAndSoftmax, opts);
    ASSERT_EQ(first.error, "");
    cpu::CodeCacheStats s1 = cache.stats();
    EXPECT_EQ(s1.hits, 0u);
    EXPECT_GE(s1.misses, 2u) << "the model's part and at least one kernel's";
    EXPECT_EQ(s1.entries, s1.misses);
    Outputs second = runOn("CPU", convProductAndSoftmax, opts);
    ASSERT_EQ(second.error, "");
    cpu::CodeCacheStats s2 = cache.stats();
    EXPECT_EQ(s2.misses, s1.misses);
    EXPECT_EQ(s2.hits, s1.misses);
    ASSERT_EQ(second.tensors.size(), first.tensors.size());
    for (size_t i = 0; i < first.tensors.size(); ++i)
      EXPECT_TRUE(second.tensors[i].bitwiseEqual(first.tensors[i])) << "output " << i;
    // And what it computes is right.
    expectBackendsAgree(convProductAndSoftmax, opts, 1e-4, 1e-4);
  }
}

/// A module like a generated one: a kernel reading a constant table (and, with \p writes, a
/// variable it writes), called by the model's entry.
std::unique_ptr<llvm::Module> moduleWith(llvm::LLVMContext &ctx, const llvm::TargetMachine &TM,
                                         int factor, bool writes = false) {
  std::string ir = "@table = internal constant [4 x i32] [i32 1, i32 2, i32 3, i32 4]\n"
                   "@state = internal global i32 0\n"
                   "define internal i32 @kernel(i32 %x) {\n"
                   "  %i = and i32 %x, 3\n"
                   "  %p = getelementptr [4 x i32], ptr @table, i32 0, i32 %i\n"
                   "  %t = load i32, ptr %p\n"
                   "  %y = mul i32 %t, " +
                   std::to_string(factor) + "\n" +
                   (writes ? "  store i32 %y, ptr @state\n" : "") +
                   "  ret i32 %y\n"
                   "}\n"
                   "define i32 @entry(i32 %x) {\n"
                   "  %y = call i32 @kernel(i32 %x)\n"
                   "  ret i32 %y\n"
                   "}\n";
  llvm::SMDiagnostic err;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(ir, err, ctx);
  EXPECT_TRUE(M) << err.getMessage().str();
  if (M) {
    M->setTargetTriple(TM.getTargetTriple().str());
    M->setDataLayout(TM.createDataLayout());
  }
  return M;
}

std::unique_ptr<llvm::TargetMachine> targetMachine(llvm::CodeGenOptLevel level,
                                                   const std::string &cpu = "") {
  cpu::CPUTargetOptions opts = cpu::CPUTargetOptions::host();
  opts.optLevel = level;
  if (!cpu.empty()) {
    opts.cpu = cpu;
    opts.features.clear();
  }
  auto TM = cpu::createTargetMachine(opts);
  EXPECT_TRUE(bool(TM)) << llvm::toString(TM.takeError());
  return TM ? std::move(*TM) : nullptr;
}

using Objects = std::vector<std::shared_ptr<const std::string>>;

Objects compileParts(cpu::CodeCache &cache, llvm::TargetMachine &TM, int factor,
                     bool writes = false) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> M = moduleWith(ctx, TM, factor, writes);
  if (!M)
    return {};
  auto objects = cpu::compileInParts(*M, TM, "entry", cache);
  EXPECT_TRUE(bool(objects)) << llvm::toString(objects.takeError());
  return objects ? std::move(*objects) : Objects();
}

TEST(CPUCodeCache, KeyCoversTheIRAndTheTargetMachine) {
  auto O0 = targetMachine(llvm::CodeGenOptLevel::None);
  auto O2 = targetMachine(llvm::CodeGenOptLevel::Default);
  ASSERT_TRUE(O0 && O2);
  cpu::CodeCache cache;
  // Two parts: the kernel (with its copy of the table) and the entry.
  Objects first = compileParts(cache, *O0, 3);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(cache.stats().misses, 2u);
  // The same IR again: both parts from the cache, the same bytes.
  Objects again = compileParts(cache, *O0, 3);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(cache.stats().hits, 2u);
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(*again[i], *first[i]);
  // Another kernel of the same name: its part misses; the entry's IR is unchanged and hits.
  Objects other = compileParts(cache, *O0, 5);
  cpu::CodeCacheStats s = cache.stats();
  EXPECT_EQ(s.misses, 3u);
  EXPECT_EQ(s.hits, 3u);
  ASSERT_EQ(other.size(), 2u);
  EXPECT_NE(*other[0], *first[0]);
  // The same IR for another optimization level, or another CPU: every part misses.
  compileParts(cache, *O2, 3);
  EXPECT_EQ(cache.stats().misses, 5u);
  auto host = cpu::CPUTargetOptions::host();
  const std::string otherCPU = host.cpu == "generic" ? "" : "generic";
  if (!otherCPU.empty()) {
    auto generic = targetMachine(llvm::CodeGenOptLevel::None, otherCPU);
    ASSERT_TRUE(generic);
    compileParts(cache, *generic, 3);
    EXPECT_EQ(cache.stats().misses, 7u);
  }
  EXPECT_EQ(cache.stats().hits, 3u);
}

TEST(CPUCodeCache, AKernelThatWritesAVariableStaysInTheModelsPart) {
  // Copied into a part of its own, the variable would be two variables.
  auto O0 = targetMachine(llvm::CodeGenOptLevel::None);
  ASSERT_TRUE(O0);
  cpu::CodeCache cache;
  EXPECT_EQ(compileParts(cache, *O0, 3, /*writes=*/true).size(), 1u);
  EXPECT_EQ(compileParts(cache, *O0, 3).size(), 2u);
}

TEST(CPUCodeCache, StaysWithinItsBudget) {
  auto O0 = targetMachine(llvm::CodeGenOptLevel::None);
  ASSERT_TRUE(O0);
  cpu::CodeCache cache;
  Objects first = compileParts(cache, *O0, 3);
  ASSERT_EQ(first.size(), 2u);
  const uint64_t both = first[0]->size() + first[1]->size();
  EXPECT_EQ(cache.stats().bytes, both);
  // Room for one object: the least recently used goes (the kernel's, compiled first).
  cache.setBudget(std::max(first[0]->size(), first[1]->size()));
  cpu::CodeCacheStats s = cache.stats();
  EXPECT_EQ(s.entries, 1u);
  EXPECT_LE(s.bytes, s.budget);
  // What was handed out lives on.
  EXPECT_EQ(first[0]->size() + first[1]->size(), both);
  cache.setBudget(0);
  EXPECT_EQ(cache.stats().entries, 0u);
  compileParts(cache, *O0, 3);
  EXPECT_EQ(cache.stats().entries, 0u);
}

} // namespace
