// The IR passes, the memory plan and the memory verifier. Each pass is checked for the structure
// it leaves and for unchanged results: the Interpreter must compute bit-identical outputs with
// and without it (the passes only move bytes, so not even rounding may differ).
#include "passes/PassTestUtils.h"

#include "ember/Backends/Backend.h"
#include "ember/IR/IRGen.h"
#include "ember/IROptimizer/IROptimizer.h"
#include "ember/IROptimizer/MemoryPlan.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace ember;
using namespace ember::test;

namespace {

//===------------------------------------------------------------------------------------------===//
// Building models and looking at their IR
//===------------------------------------------------------------------------------------------===//

std::string tensor(const std::string &name, const std::vector<int64_t> &dims, int elemType = 1) {
  std::string s = "{ name: \"" + name + "\" type { tensor_type { elem_type: " +
                  std::to_string(elemType) + " shape {";
  for (int64_t d : dims)
    s += " dim { dim_value: " + std::to_string(d) + " }";
  return s + " } } } }";
}

std::string int64s(const std::string &name, const std::vector<int64_t> &values) {
  std::string s = "  initializer { name: \"" + name + "\" data_type: 7 dims: " +
                  std::to_string(values.size());
  for (int64_t v : values)
    s += " int64_data: " + std::to_string(v);
  return s + " }\n";
}

struct ModelText {
  std::string body;
  ModelText &node(const std::string &text) {
    body += "  node { " + text + " }\n";
    return *this;
  }
  ModelText &init(const std::string &text) {
    body += text;
    return *this;
  }
  ModelText &input(const std::string &name, const std::vector<int64_t> &dims) {
    body += "  input " + tensor(name, dims) + "\n";
    return *this;
  }
  ModelText &output(const std::string &name, const std::vector<int64_t> &dims) {
    body += "  output " + tensor(name, dims) + "\n";
    return *this;
  }
  std::string str() const {
    return "ir_version: 8\nopset_import { domain: \"\" version: 13 }\ngraph {\n  name: \"g\"\n" +
           body + "}\n";
  }
};

/// Runs \p text with no IR passes and with \p irPipeline (graph pipeline \p graphPipeline both
/// times), expects bit-identical outputs, and returns the optimized run.
llvm::Expected<PipelineRun> expectUnchanged(const std::string &text,
                                            std::vector<std::string> irPipeline,
                                            std::vector<std::string> graphPipeline = {"dce"}) {
  EMBER_ASSIGN_OR_RETURN(PipelineRun reference,
                         runPipeline(text, graphPipeline, 1, std::vector<std::string>{}));
  EMBER_ASSIGN_OR_RETURN(PipelineRun optimized,
                         runPipeline(text, graphPipeline, 1, std::move(irPipeline)));
  EXPECT_EQ(reference.outputs.size(), optimized.outputs.size());
  for (size_t i = 0; i < reference.outputs.size() && i < optimized.outputs.size(); ++i)
    EXPECT_EQ(tools::compareTensors(optimized.outputs[i], reference.outputs[i], {0, 0}), "")
        << "output " << i;
  return std::move(optimized);
}

IROptimizerOptions verifying() {
  IROptimizerOptions o;
  o.verifyEach = true;
  return o;
}

std::map<std::string, int> instrCounts(const IRFunction &IR) {
  std::map<std::string, int> counts;
  for (const auto &I : IR.getInstrs())
    counts[I->getKindName().str()]++;
  return counts;
}

const Instruction *findInstr(const IRFunction &IR, llvm::StringRef name) {
  for (const auto &I : IR.getInstrs())
    if (I->getName() == name)
      return I.get();
  return nullptr;
}

std::string dumpOf(const IRFunction &IR) {
  std::string text;
  llvm::raw_string_ostream os(text);
  IR.dump(os);
  return text;
}

//===------------------------------------------------------------------------------------------===//
// make-views
//===------------------------------------------------------------------------------------------===//

std::string viewsModel() {
  return ModelText()
      .init(int64s("shape", {4, 6}))
      .init(int64s("rows_s", {1}) + int64s("rows_e", {3}) + int64s("axis0", {0}))
      .init(int64s("cols_s", {1}) + int64s("cols_e", {3}) + int64s("axis1", {1}))
      .node(R"(name: "relu" op_type: "Relu" input: "x" output: "a")")
      .node(R"(name: "flat" op_type: "Reshape" input: "a" input: "shape" output: "b")")
      // Rows 1..2 of a [4, 6] matrix are one contiguous run; columns 1..2 are not.
      .node(R"(name: "rows" op_type: "Slice" input: "b" input: "rows_s" input: "rows_e" input: "axis0" output: "c")")
      .node(R"(name: "cols" op_type: "Slice" input: "b" input: "cols_s" input: "cols_e" input: "axis1" output: "d")")
      // [1, 4, 6] -> [4, 1, 6] moves only a unit axis; [0, 2, 1] really transposes.
      .node(R"(name: "unit_t" op_type: "Transpose" input: "a" output: "e" attribute { name: "perm" type: INTS ints: 1 ints: 0 ints: 2 })")
      .node(R"(name: "real_t" op_type: "Transpose" input: "a" output: "f" attribute { name: "perm" type: INTS ints: 0 ints: 2 ints: 1 })")
      .node(R"(name: "sig" op_type: "Sigmoid" input: "c" output: "y1")")
      .node(R"(name: "tanh" op_type: "Tanh" input: "d" output: "y2")")
      .node(R"(name: "neg" op_type: "Neg" input: "e" output: "y3")")
      .node(R"(name: "abs" op_type: "Abs" input: "f" output: "y4")")
      .input("x", {1, 4, 6})
      .output("y1", {2, 6})
      .output("y2", {4, 2})
      .output("y3", {4, 1, 6})
      .output("y4", {1, 6, 4})
      .str();
}

TEST(MakeViews, ReshapeContiguousSliceAndUnitTransposeBecomeViews) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectUnchanged(viewsModel(), {"make-views", "shrink-lifetimes"}));
  const IRFunction &IR = run.model->getIR();
  auto counts = instrCounts(IR);
  EXPECT_EQ(counts["reshape"], 0);
  EXPECT_EQ(counts["slice"], 1) << dumpOf(IR);
  EXPECT_EQ(counts["transpose"], 1) << dumpOf(IR);
  EXPECT_EQ(counts["tensorview"], 3);
  const Instruction *rows = findInstr(IR, "rows");
  ASSERT_TRUE(rows && rows->getKind() == InstrKind::TensorView);
  // Row 1 of a float [4, 6]: 6 elements in.
  EXPECT_EQ(rootOf(const_cast<Instruction *>(rows)).offset, 6 * sizeof(float));
  EXPECT_EQ(findInstr(IR, "cols")->getKind(), InstrKind::Slice);
  EXPECT_EQ(findInstr(IR, "unit_t")->getKind(), InstrKind::TensorView);
  EXPECT_EQ(findInstr(IR, "real_t")->getKind(), InstrKind::Transpose);
}

TEST(MakeViews, ShrinksTheActivations) {
  ASSERT_OK_AND_ASSIGN(PipelineRun none, runPipeline(viewsModel(), {"dce"}, 1,
                                                     std::vector<std::string>{}));
  ASSERT_OK_AND_ASSIGN(PipelineRun views, runPipeline(viewsModel(), {"dce"}, 1,
                                                      std::vector<std::string>{
                                                          "make-views", "shrink-lifetimes"}));
  EXPECT_LT(views.model->getIR().activationsSum, none.model->getIR().activationsSum);
}

//===------------------------------------------------------------------------------------------===//
// concat-in-place
//===------------------------------------------------------------------------------------------===//

std::string concatModel(int64_t batch) {
  return ModelText()
      .node(R"(name: "relu" op_type: "Relu" input: "x" output: "a")")
      .node(R"(name: "sig" op_type: "Sigmoid" input: "z" output: "b")")
      .node(R"(name: "cat" op_type: "Concat" input: "a" input: "b" output: "c" attribute { name: "axis" type: INT i: 1 })")
      .node(R"(name: "tanh" op_type: "Tanh" input: "c" output: "y")")
      .input("x", {batch, 2, 3})
      .input("z", {batch, 4, 3})
      .output("y", {batch, 6, 3})
      .str();
}

TEST(ConcatInPlace, InputsAreWrittenIntoTheResult) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectUnchanged(concatModel(1), {"concat-in-place",
                                                                         "shrink-lifetimes"}));
  const IRFunction &IR = run.model->getIR();
  EXPECT_EQ(instrCounts(IR)["concat"], 0) << dumpOf(IR);
  const Instruction *relu = findInstr(IR, "relu"), *sig = findInstr(IR, "sig");
  ASSERT_TRUE(relu && sig);
  ValueRoot a = rootOf(relu->getOutput(0)), b = rootOf(sig->getOutput(0));
  EXPECT_EQ(a.root, b.root);
  EXPECT_EQ(a.offset, 0u);
  EXPECT_EQ(b.offset, 2 * 3 * sizeof(float));
  EXPECT_EQ(a.root, rootOf(findInstr(IR, "tanh")->getInput(0)).root);
}

TEST(ConcatInPlace, PiecesThatAreNotContiguousStayACopy) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectUnchanged(concatModel(2), {"concat-in-place",
                                                                         "shrink-lifetimes"}));
  EXPECT_EQ(instrCounts(run.model->getIR())["concat"], 1);
}

// DenseNet's pattern: each concat repeats the one before and adds a piece.
std::string concatChainModel() {
  return ModelText()
      .node(R"(name: "relu" op_type: "Relu" input: "x" output: "a")")
      .node(R"(name: "sig" op_type: "Sigmoid" input: "z" output: "b")")
      .node(R"(name: "cat1" op_type: "Concat" input: "a" input: "b" output: "c1" attribute { name: "axis" type: INT i: 1 })")
      .node(R"(name: "neg" op_type: "Neg" input: "c1" output: "d")")
      .node(R"(name: "cat2" op_type: "Concat" input: "a" input: "b" input: "d" output: "c2" attribute { name: "axis" type: INT i: 1 })")
      .node(R"(name: "tanh1" op_type: "Tanh" input: "c1" output: "y1")")
      .node(R"(name: "tanh2" op_type: "Tanh" input: "c2" output: "y2")")
      .input("x", {1, 2, 3})
      .input("z", {1, 4, 3})
      .output("y1", {1, 6, 3})
      .output("y2", {1, 12, 3})
      .str();
}

TEST(ConcatInPlace, AConcatThatALaterOneRepeatsIsAViewOfIt) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectUnchanged(concatChainModel(),
                                                        {"concat-in-place", "shrink-lifetimes"}));
  const IRFunction &IR = run.model->getIR();
  EXPECT_EQ(instrCounts(IR)["concat"], 0) << dumpOf(IR);
  ValueRoot c1 = rootOf(findInstr(IR, "tanh1")->getInput(0));
  ValueRoot c2 = rootOf(findInstr(IR, "tanh2")->getInput(0));
  ValueRoot d = rootOf(findInstr(IR, "neg")->getOutput(0));
  EXPECT_EQ(c1.root, c2.root);
  EXPECT_EQ(c1.offset, 0u);
  EXPECT_EQ(d.root, c2.root);
  EXPECT_EQ(d.offset, 6 * 3 * sizeof(float));
}

//===------------------------------------------------------------------------------------------===//
// copy-elimination
//===------------------------------------------------------------------------------------------===//

TEST(CopyElimination, TheProducerWritesTheOutput) {
  std::string text = ModelText()
                         .node(R"(name: "relu" op_type: "Relu" input: "x" output: "y")")
                         .input("x", {2, 3})
                         .output("y", {2, 3})
                         .str();
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectUnchanged(text, {"copy-elimination", "shrink-lifetimes"}));
  const IRFunction &IR = run.model->getIR();
  EXPECT_EQ(instrCounts(IR), (std::map<std::string, int>{{"relu", 1}})) << dumpOf(IR);
  EXPECT_EQ(findInstr(IR, "relu")->getOutput(0)->getName(), "y");
  EXPECT_EQ(IR.activationsSize, 0u);
}

TEST(CopyElimination, ThroughAViewWhenTheTypesDiffer) {
  std::string text = ModelText()
                         .init(int64s("shape", {2, 3}))
                         .node(R"(name: "relu" op_type: "Relu" input: "x" output: "a")")
                         .node(R"(name: "r" op_type: "Reshape" input: "a" input: "shape" output: "y")")
                         .input("x", {6})
                         .output("y", {2, 3})
                         .str();
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectUnchanged(text, {"make-views", "copy-elimination",
                                                               "shrink-lifetimes"}));
  const IRFunction &IR = run.model->getIR();
  EXPECT_EQ(instrCounts(IR)["copy"], 0) << dumpOf(IR);
  EXPECT_EQ(rootOf(findInstr(IR, "relu")->getOutput(0)).root->getName(), "y");
  EXPECT_EQ(IR.activationsSize, 0u);
}

TEST(CopyElimination, AValueSavedTwiceKeepsOneCopy) {
  std::string text = ModelText()
                         .node(R"(name: "relu" op_type: "Relu" input: "x" output: "y")")
                         .node(R"(name: "id" op_type: "Identity" input: "y" output: "z")")
                         .input("x", {4})
                         .output("y", {4})
                         .output("z", {4})
                         .str();
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectUnchanged(text, {"copy-elimination", "shrink-lifetimes"}));
  EXPECT_EQ(instrCounts(run.model->getIR())["copy"], 1);
}

//===------------------------------------------------------------------------------------------===//
// dead-store-elimination
//===------------------------------------------------------------------------------------------===//

TEST(DeadStoreElimination, DropsResultsNobodyReads) {
  std::string text = ModelText()
                         .node(R"(name: "relu" op_type: "Relu" input: "x" output: "y")")
                         .node(R"(name: "dead1" op_type: "Sigmoid" input: "x" output: "u")")
                         .node(R"(name: "dead2" op_type: "Tanh" input: "u" output: "v")")
                         .input("x", {4})
                         .output("y", {4})
                         .str();
  // Graph pipeline without DCE, so the dead nodes reach the IR.
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectUnchanged(text, {"dead-store-elimination"},
                                                        {"cse"}));
  const IRFunction &IR = run.model->getIR();
  EXPECT_EQ(findInstr(IR, "dead1"), nullptr) << dumpOf(IR);
  EXPECT_EQ(findInstr(IR, "dead2"), nullptr);
  EXPECT_NE(findInstr(IR, "relu"), nullptr);
  EXPECT_EQ(instrCounts(IR)["allocactivation"], 1);
}

//===------------------------------------------------------------------------------------------===//
// share-buffers
//===------------------------------------------------------------------------------------------===//

TEST(ShareBuffers, AnElementwiseChainRunsInOneBuffer) {
  std::string text = ModelText()
                         .node(R"(name: "relu" op_type: "Relu" input: "x" output: "a")")
                         .node(R"(name: "sig" op_type: "Sigmoid" input: "a" output: "b")")
                         .node(R"(name: "add" op_type: "Add" input: "b" input: "x" output: "c")")
                         .node(R"(name: "tanh" op_type: "Tanh" input: "c" output: "y")")
                         .input("x", {2, 8})
                         .output("y", {2, 8})
                         .str();
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectUnchanged(text, {"share-buffers", "shrink-lifetimes"}));
  const IRFunction &IR = run.model->getIR();
  EXPECT_EQ(instrCounts(IR)["allocactivation"], 1) << dumpOf(IR);
  for (const char *name : {"sig", "add", "tanh"})
    EXPECT_EQ(findInstr(IR, name)->getOperands()[0].mode, OperandMode::InOut) << name;
  // The model input belongs to the caller: relu does not overwrite it.
  EXPECT_EQ(findInstr(IR, "relu")->getOperands()[0].mode, OperandMode::Out);
  EXPECT_EQ(IR.activationsSize, 64u);
}

TEST(ShareBuffers, NotOverAnInputReadLaterNorByANonElementwiseKind) {
  std::string text = ModelText()
                         .node(R"(name: "relu" op_type: "Relu" input: "x" output: "a")")
                         .node(R"(name: "sig" op_type: "Sigmoid" input: "a" output: "b")")
                         .node(R"(name: "mm" op_type: "MatMul" input: "a" input: "b" output: "c")")
                         .node(R"(name: "add" op_type: "Add" input: "a" input: "c" output: "y")")
                         .input("x", {4, 4})
                         .output("y", {4, 4})
                         .str();
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectUnchanged(text, {"share-buffers", "shrink-lifetimes"}));
  const IRFunction &IR = run.model->getIR();
  EXPECT_EQ(findInstr(IR, "sig")->getOperands()[0].mode, OperandMode::Out) << dumpOf(IR);
  EXPECT_EQ(findInstr(IR, "mm")->getOperands()[0].mode, OperandMode::Out);
  EXPECT_EQ(findInstr(IR, "add")->getOperands()[0].mode, OperandMode::InOut);
}

//===------------------------------------------------------------------------------------------===//
// IR built and edited by hand: peephole, shrink-lifetimes, mark-read-only, the verifiers
//===------------------------------------------------------------------------------------------===//

/// x -> relu -> sigmoid -> tanh -> y, loaded from ONNX text, with its IR (no IR passes yet).
struct HandIR : ::testing::Test {
  TempDir dir;
  std::unique_ptr<Module> M;
  std::unique_ptr<IRFunction> IR;

  void SetUp() override {
    std::string text = ModelText()
                           .node(R"(name: "relu" op_type: "Relu" input: "x" output: "a")")
                           .node(R"(name: "sig" op_type: "Sigmoid" input: "a" output: "b")")
                           .node(R"(name: "tanh" op_type: "Tanh" input: "b" output: "y")")
                           .input("x", {16})
                           .output("y", {16})
                           .str();
    auto loaded = loadModel(dir.write("m.onnxtxt", text), {});
    ASSERT_TRUE(bool(loaded)) << errorToString(loaded.takeError());
    M = std::move(*loaded);
    auto ir = generateIR(*M->getFunctions().front());
    ASSERT_TRUE(bool(ir)) << errorToString(ir.takeError());
    IR = std::move(*ir);
  }

  Instruction *instr(llvm::StringRef name) {
    return const_cast<Instruction *>(findInstr(*IR, name));
  }
  IRFunction::InstrList::iterator position(const Instruction *I) {
    auto &l = IR->getInstrs();
    return std::find_if(l.begin(), l.end(), [&](const auto &p) { return p.get() == I; });
  }

  /// Plans memory and runs the IR on the Interpreter with x = 0..15 - 8; returns y.
  std::vector<float> run() {
    EXPECT_EQ(errorOf(IR->verify()), "");
    EXPECT_EQ(errorOf(planMemory(*IR)), "");
    auto backend = llvm::cantFail(createBackend("Interpreter"));
    auto fn = llvm::cantFail(backend->compile(*IR));
    auto region = [](uint64_t size) {
      return std::unique_ptr<uint8_t, decltype(&std::free)>(
          static_cast<uint8_t *>(std::aligned_alloc(64, (size / 64 + 1) * 64)), &std::free);
    };
    auto c = region(IR->constantSize), m = region(IR->mutableSize), a = region(IR->activationsSize);
    const WeightVar *x = nullptr, *y = nullptr;
    for (const auto &w : IR->getWeights())
      (w->getName() == "x" ? x : y) = w.get();
    auto *xs = reinterpret_cast<float *>(m.get() + x->offset);
    for (int i = 0; i < 16; ++i)
      xs[i] = float(i - 8);
    EXPECT_EQ(errorOf(fn->execute(c.get(), m.get(), a.get())), "");
    auto *ys = reinterpret_cast<float *>(m.get() + y->offset);
    return std::vector<float>(ys, ys + 16);
  }
};

TEST_F(HandIR, PeepholeForwardsACopyIntoAnActivation) {
  std::vector<float> want = run();
  // relu -> a; copy a -> b; sigmoid reads b.
  Instruction *relu = instr("relu"), *sig = instr("sig");
  IRValue *a = relu->getOutput(0);
  Type ty = a->getType();
  auto bAlloc = std::make_unique<Instruction>(InstrKind::AllocActivation, "b.alloc",
                                              llvm::ArrayRef<InstrOperand>{}, AttrList(), 0, ty);
  Instruction *b = IR->insert(position(sig), std::move(bAlloc));
  IR->insert(position(sig), std::make_unique<Instruction>(
                                InstrKind::Copy, "copy",
                                llvm::ArrayRef<InstrOperand>{{b, OperandMode::Out},
                                                             {a, OperandMode::In}},
                                AttrList(), 1));
  sig->setOperand(1, b);
  IR->insert(std::next(position(sig)),
             std::make_unique<Instruction>(InstrKind::DeallocActivation, "b.dealloc",
                                           InstrOperand{b, OperandMode::Out}, AttrList(), 0));
  ASSERT_EQ(errorOf(IR->verify()), "");
  ASSERT_EQ(errorOf(optimizeIR(*IR, {"peephole"}, verifying())), "");
  EXPECT_EQ(instrCounts(*IR)["copy"], 1) << dumpOf(*IR); // only the output's
  EXPECT_EQ(sig->getInput(0), a);
  EXPECT_EQ(run(), want);
}

TEST_F(HandIR, PeepholeDropsACopyOntoItself) {
  Instruction *relu = instr("relu");
  IRValue *a = relu->getOutput(0);
  IR->insert(std::next(position(relu)),
             std::make_unique<Instruction>(
                 InstrKind::Copy, "self",
                 llvm::ArrayRef<InstrOperand>{{a, OperandMode::Out}, {a, OperandMode::In}},
                 AttrList(), 1));
  ASSERT_EQ(errorOf(optimizeIR(*IR, {"peephole"}, verifying())), "");
  EXPECT_EQ(findInstr(*IR, "self"), nullptr);
}

TEST_F(HandIR, ShrinkLifetimesUndoesStretchedLifetimes) {
  std::vector<float> want = run();
  uint64_t tight = IR->activationsSize;
  // Allocate everything first and free everything last: every buffer is live throughout.
  auto &l = IR->getInstrs();
  std::vector<Instruction *> allocs, frees;
  for (auto &I : l)
    if (I->getKind() == InstrKind::AllocActivation)
      allocs.push_back(I.get());
    else if (I->getKind() == InstrKind::DeallocActivation)
      frees.push_back(I.get());
  for (Instruction *A : allocs)
    l.splice(l.begin(), l, position(A));
  for (Instruction *D : frees)
    l.splice(l.end(), l, position(D));
  ASSERT_EQ(errorOf(IR->verify()), "");
  ASSERT_EQ(errorOf(planMemory(*IR)), "");
  EXPECT_GT(IR->activationsSize, tight);
  ASSERT_EQ(errorOf(optimizeIR(*IR, {"shrink-lifetimes"}, verifying())), "");
  EXPECT_EQ(run(), want);
  EXPECT_EQ(IR->activationsSize, tight);
}

TEST_F(HandIR, MarkReadOnlyMarksInputsNotOutputs) {
  ASSERT_EQ(errorOf(optimizeIR(*IR, {"mark-read-only"}, verifying())), "");
  for (const auto &w : IR->getWeights())
    EXPECT_EQ(w->readOnly, w->getName() == "x") << w->getName().str();
  EXPECT_NE(dumpOf(*IR).find("%x : float32<16> (mutable, read-only, 64 bytes"), std::string::npos)
      << dumpOf(*IR);
  // A write to a read-only weight is now an error.
  instr("relu")->setOperand(0, IR->getWeights().front().get()->getName() == "x"
                                   ? IR->getWeights().front().get()
                                   : IR->getWeights().back().get());
  EXPECT_NE(errorOf(IR->verify()).find("writes read-only weight 'x'"), std::string::npos);
}

TEST_F(HandIR, DefaultPipelineLeavesNoActivations) {
  std::vector<float> want = run();
  ASSERT_EQ(errorOf(optimizeIR(*IR, defaultIRPipeline(), verifying())), "");
  // relu writes y, sigmoid and tanh overwrite it in place: no activations are left.
  EXPECT_EQ(run(), want);
  EXPECT_EQ(IR->activationsSize, 0u) << dumpOf(*IR);
}

TEST_F(HandIR, MemoryVerifierRejectsAnOverlapThatIsNotInPlace) {
  ASSERT_EQ(errorOf(planMemory(*IR)), "");
  // Sigmoid writing over the bytes it reads is legal only as @inout; here it stays @out.
  Instruction *sig = instr("sig");
  sig->setOperand(0, sig->getInput(0));
  std::string err = errorOf(verifyMemoryPlan(*IR));
  EXPECT_NE(err.find("writes 'relu.alloc' over 'relu.alloc', which it also reads"), std::string::npos)
      << err;
}

TEST_F(HandIR, MemoryVerifierRejectsAReadOfUnwrittenBytes) {
  ASSERT_EQ(errorOf(planMemory(*IR)), "");
  IR->getInstrs().erase(position(instr("relu")));
  std::string err = errorOf(verifyMemoryPlan(*IR));
  EXPECT_NE(err.find("instruction 2 'sig' (sigmoid): reads 'relu.alloc' (activations ["),
            std::string::npos)
      << err;
}

TEST_F(HandIR, MemoryVerifierRejectsAnOutputNotWritten) {
  ASSERT_EQ(errorOf(planMemory(*IR)), "");
  IR->getInstrs().erase(position(instr("save_y")));
  std::string err = errorOf(verifyMemoryPlan(*IR));
  EXPECT_NE(err.find("output 'y' is not written in full"), std::string::npos) << err;
}

TEST_F(HandIR, MemoryVerifierRejectsAWriteToAModelInput) {
  ASSERT_EQ(errorOf(planMemory(*IR)), "");
  instr("sig")->setOperand(0, instr("relu")->getInput(0));
  std::string err = errorOf(verifyMemoryPlan(*IR));
  EXPECT_NE(err.find("writes model input 'x'"), std::string::npos) << err;
}

TEST_F(HandIR, MemoryVerifierRejectsOverlappingLiveActivations) {
  ASSERT_EQ(errorOf(optimizeIR(*IR, {"copy-elimination"}, verifying())), "");
  ASSERT_EQ(errorOf(planMemory(*IR)), "");
  // Two activations live at once: a second buffer at the same offset as a.
  auto extra = std::make_unique<Instruction>(InstrKind::AllocActivation, "extra.alloc",
                                             llvm::ArrayRef<InstrOperand>{}, AttrList(), 0,
                                             instr("sig")->getInput(0)->getType());
  Instruction *e = IR->insert(position(instr("sig")), std::move(extra));
  e->offset = instr("sig")->getInput(0)->offset;
  std::string err = errorOf(verifyMemoryPlan(*IR));
  EXPECT_NE(err.find("live activations 'extra.alloc' ["), std::string::npos) << err;
  EXPECT_NE(err.find("and 'relu.alloc' ["), std::string::npos) << err;
}

TEST_F(HandIR, DumpShowsOffsetsSizesAndTheRegions) {
  ASSERT_EQ(errorOf(planMemory(*IR)), "");
  std::string text = dumpOf(*IR);
  // Two of the three buffers are live at once (each instruction's input and output).
  EXPECT_NE(text.find("activations: 128 bytes (0.000 MiB); peak live 128 (100.0% of the region), "
                      "sum of all 192 (1.50x the region)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("{ type: float32<16>, bytes: 64, at: activations+0 }"), std::string::npos)
      << text;
}

} // namespace
