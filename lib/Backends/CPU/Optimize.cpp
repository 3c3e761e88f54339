// LLVM's pipeline for the target CPU over a generated module, at the target machine's level
// (-llvm-opt-level), and the dumps of its result (CodeGen.h).
#include "CodeGen.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "ember/Support/Error.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace ember {
namespace cpu {

void optimizeModule(llvm::Module &M, TargetMachine &TM) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PipelineTuningOptions PTO;
  PTO.LoopVectorization = true;
  PTO.SLPVectorization = true;
  PassBuilder PB(&TM, PTO);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  ModulePassManager MPM;
  switch (TM.getOptLevel()) {
  case CodeGenOptLevel::None: MPM = PB.buildO0DefaultPipeline(OptimizationLevel::O0); break;
  case CodeGenOptLevel::Less:
    MPM = PB.buildPerModuleDefaultPipeline(OptimizationLevel::O1);
    break;
  case CodeGenOptLevel::Default:
    MPM = PB.buildPerModuleDefaultPipeline(OptimizationLevel::O2);
    break;
  case CodeGenOptLevel::Aggressive:
    MPM = PB.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
    break;
  }
  MPM.run(M, MAM);
}

Error dumpModule(const llvm::Module &M, TargetMachine &TM, const BackendOptions &opts) {
  if (opts.dumpLLVMIR)
    M.print(outs(), nullptr);
  if (opts.dumpLLVMAsm) {
    std::unique_ptr<llvm::Module> copy = CloneModule(M);
    legacy::PassManager PM;
    if (TM.addPassesToEmitFile(PM, outs(), nullptr, CodeGenFileType::AssemblyFile))
      return makeError("the target cannot emit assembly");
    PM.run(*copy);
    outs().flush();
  }
  return Error::success();
}

} // namespace cpu
} // namespace ember
