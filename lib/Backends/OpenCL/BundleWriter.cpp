// See BundleWriter.h. The runtime (runtime/Runtime.c and runtime/BundleEntry.c) is compiled to
// bitcode for the host when ember is built and embedded in the library (CMakeLists.txt); each
// bundle links a copy with internal linkage, so several bundles live in one program.
#include "BundleWriter.h"

#include "Common/BundleObject.h"
#include "Program.h"
#include "runtime/Runtime.h"

#include "ember/Support/Error.h"
#include "ember/Support/PhaseClock.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"

using namespace llvm;

extern "C" const char ember_opencl_runtime_start[], ember_opencl_runtime_end[];

namespace ember {
namespace opencl {

namespace {

constexpr const char *kRunFunction = "ember_ocl_bundle_run";

/// A private constant holding \p init.
GlobalVariable *constant(llvm::Module &M, llvm::Constant *init, const Twine &name) {
  auto *g = new GlobalVariable(M, init->getType(), true, GlobalValue::PrivateLinkage, init, name);
  g->setAlignment(Align(8));
  return g;
}

/// The run-time errors: the runtime's statuses in order, then each distinct launch failure;
/// \p codes gets each launch's code.
std::vector<std::string> errorList(const LaunchPlan &plan, std::vector<uint64_t> &codes) {
  std::vector<std::string> errors;
  for (int s = 1; s < EMBER_OCL_STATUS_COUNT; ++s)
    errors.push_back(ember_ocl_status_message(ember_ocl_status(s)));
  StringMap<uint64_t> codeOf;
  for (const Launch &l : plan.launches) {
    if (l.failure.empty()) { // its kernel (or control step) never fails
      codes.push_back(EMBER_OCL_KERNEL_FAILED);
      continue;
    }
    std::string msg = "instruction '" + l.instr->getName().str() + "' (" +
                      l.instr->getKindName().str() + "): " + l.failure;
    auto [it, added] = codeOf.try_emplace(msg, errors.size() + 1);
    if (added)
      errors.push_back(msg);
    codes.push_back(it->second);
  }
  return errors;
}

/// The model as ember_ocl_bundle (runtime/BundleEntry.c) wants it.
GlobalVariable *addModel(llvm::Module &M, const IRFunction &IR, const LaunchPlan &plan,
                         const std::vector<uint64_t> &codes) {
  LLVMContext &ctx = M.getContext();
  llvm::Type *i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type *ptr = PointerType::get(ctx, 0);
  std::vector<uint64_t> params(plan.params.begin(), plan.params.end());
  params.push_back(0); // never an empty buffer
  GlobalVariable *paramArray =
      constant(M, ConstantDataArray::get(ctx, ArrayRef<uint64_t>(params)), "ember.params");

  StructType *launchTy = StructType::get(ctx, {ptr, i64, i64, i64, i64, i64});
  StringMap<GlobalVariable *> names;
  std::vector<llvm::Constant *> launches;
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const Launch &l = plan.launches[i];
    llvm::Constant *kernel = ConstantPointerNull::get(PointerType::get(ctx, 0));
    if (!l.control) {
      GlobalVariable *&name = names[l.kernel];
      if (!name) {
        name = constant(M, ConstantDataArray::getString(ctx, l.kernel), "ember.kernel");
        name->setAlignment(Align(1));
      }
      kernel = name;
    }
    launches.push_back(ConstantStruct::get(
        launchTy, {kernel, ConstantInt::get(i64, l.count), ConstantInt::get(i64, l.paramOffset),
                   ConstantInt::get(i64, l.group), ConstantInt::get(i64, codes[i]),
                   ConstantInt::get(i64, l.control)}));
  }
  auto *launchArrayTy = ArrayType::get(launchTy, launches.size());
  GlobalVariable *launchArray =
      constant(M, ConstantArray::get(launchArrayTy, launches), "ember.launches");

  GlobalVariable *source =
      constant(M, ConstantDataArray::getString(ctx, programSource()), "ember.source");
  source->setAlignment(Align(1));
  auto *sizesTy = ArrayType::get(i64, 3);
  StructType *modelTy = StructType::get(ctx, {ptr, i64, ptr, i64, sizesTy});
  StructType *bundleTy = StructType::get(ctx, {ptr, modelTy});
  llvm::Constant *sizes = ConstantArray::get(
      sizesTy, {ConstantInt::get(i64, IR.constantSize), ConstantInt::get(i64, IR.mutableSize),
                ConstantInt::get(i64, IR.activationsSize)});
  llvm::Constant *model = ConstantStruct::get(
      modelTy, {paramArray, ConstantInt::get(i64, params.size()), launchArray,
                ConstantInt::get(i64, launches.size()), sizes});
  return constant(M, ConstantStruct::get(bundleTy, {source, model}), "ember.bundle");
}

/// The embedded runtime's bitcode.
MemoryBufferRef runtimeBitcode() {
  return MemoryBufferRef(
      StringRef(ember_opencl_runtime_start, ember_opencl_runtime_end - ember_opencl_runtime_start),
      "OpenCL bundle runtime");
}

/// A TargetMachine for the triple the runtime's bitcode was compiled for (this machine's).
Expected<std::unique_ptr<TargetMachine>> hostTargetMachine(const std::string &triple) {
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return makeError("OpenCL bundles: no LLVM target for '" + triple + "': " + error);
  std::unique_ptr<TargetMachine> TM(
      target->createTargetMachine(triple, "generic", "", TargetOptions(), Reloc::PIC_));
  if (!TM)
    return makeError("OpenCL bundles: cannot create a target machine for '" + triple + "'");
  return std::move(TM);
}

} // namespace

Expected<ObjectInfo> writeBundleObject(const IRFunction &IR, const LaunchPlan &plan,
                                       const ObjectOptions &opts, PhaseTimes *phases) {
  PhaseClock clock(phases);
  LLVMContext ctx;
  Expected<std::unique_ptr<llvm::Module>> parsed = parseBitcodeFile(runtimeBitcode(), ctx);
  if (!parsed)
    return makeError("OpenCL bundles: the embedded runtime cannot be read: " +
                     toString(parsed.takeError()));
  llvm::Module &M = **parsed;
  llvm::Function *run = M.getFunction(kRunFunction);
  if (!run || run->isDeclaration())
    return makeError("OpenCL bundles: the embedded runtime has no " + Twine(kRunFunction));
  // Only the entry (and the config) are visible: every bundle has its own runtime and state.
  for (llvm::Function &F : M)
    if (!F.isDeclaration())
      F.setLinkage(GlobalValue::InternalLinkage);
  for (GlobalVariable &g : M.globals())
    if (!g.isDeclaration())
      g.setLinkage(GlobalValue::InternalLinkage);
  if (M.getNamedValue(opts.entryName))
    return makeError("the entry name '" + opts.entryName + "' clashes with a runtime symbol");

  ObjectInfo info;
  std::vector<uint64_t> codes;
  info.errors = errorList(plan, codes);
  GlobalVariable *bundle = addModel(M, IR, plan, codes);
  llvm::Type *ptr = PointerType::get(ctx, 0);
  auto *entryTy = FunctionType::get(llvm::Type::getInt32Ty(ctx), {ptr, ptr, ptr}, false);
  auto *entry = llvm::Function::Create(entryTy, GlobalValue::ExternalLinkage, opts.entryName, M);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", entry));
  b.CreateRet(b.CreateCall(run, {bundle, entry->getArg(0), entry->getArg(1), entry->getArg(2)}));
  if (!opts.configName.empty())
    EMBER_TRY(addBundleConfig(M, IR, opts));
  clock.lap("OpenCL bundle module");

  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<TargetMachine> TM,
                         hostTargetMachine(M.getTargetTriple()));
  M.setDataLayout(TM->createDataLayout());
  using ObjectBytes = SmallVector<char, 0>;
  EMBER_ASSIGN_OR_RETURN(ObjectBytes object, emitObjectCode(M, *TM));
  EMBER_TRY(writeObjectFile(opts.path, object));
  clock.lap("object file");
  info.triple = TM->getTargetTriple().str();
  info.linkFlags = {"-lOpenCL", "-pthread"};
  info.keepsState = true;
  return info;
}

Error writeBundleConstants(ArrayRef<uint8_t> region, const std::string &symbol,
                           const std::string &path) {
  Expected<std::string> triple = getBitcodeTargetTriple(runtimeBitcode());
  if (!triple)
    return makeError("OpenCL bundles: the embedded runtime cannot be read: " +
                     toString(triple.takeError()));
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<TargetMachine> TM, hostTargetMachine(*triple));
  return writeConstantsObject(*TM, region, symbol, path);
}

} // namespace opencl
} // namespace ember
