// See BundleObject.h.
#include "BundleObject.h"

#include "ember/Support/Error.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ember {

Error addBundleConfig(llvm::Module &M, const IRFunction &IR, const ObjectOptions &opts) {
  if (M.getNamedValue(opts.configName))
    return makeError("the config name '" + opts.configName + "' clashes with a symbol");
  LLVMContext &ctx = M.getContext();
  llvm::Type *i64 = llvm::Type::getInt64Ty(ctx), *i8 = llvm::Type::getInt8Ty(ctx);
  llvm::Type *ptr = PointerType::get(ctx, 0);
  StructType *entryTy = StructType::get(ctx, {ptr, i64, i64, i8});
  std::vector<llvm::Constant *> entries;
  for (const BundleSymbol &s : opts.symbols) {
    llvm::Constant *str = ConstantDataArray::getString(ctx, s.name);
    auto *name = new GlobalVariable(M, str->getType(), true, GlobalValue::PrivateLinkage, str,
                                    opts.configName + ".name");
    name->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    entries.push_back(ConstantStruct::get(
        entryTy, {name, ConstantInt::get(i64, s.offset), ConstantInt::get(i64, s.size),
                  ConstantInt::get(i8, s.isInput ? 'i' : 'o')}));
  }
  auto *tableTy = ArrayType::get(entryTy, entries.size());
  auto *table = new GlobalVariable(M, tableTy, true, GlobalValue::PrivateLinkage,
                                   ConstantArray::get(tableTy, entries),
                                   opts.configName + ".symbols");
  table->setAlignment(Align(8));
  StructType *configTy = StructType::get(ctx, {i64, i64, i64, i64, i64, ptr});
  auto *config = new GlobalVariable(
      M, configTy, true, GlobalValue::ExternalLinkage,
      ConstantStruct::get(configTy,
                          {ConstantInt::get(i64, IR.constantSize),
                           ConstantInt::get(i64, IR.mutableSize),
                           ConstantInt::get(i64, IR.activationsSize),
                           ConstantInt::get(i64, kTensorAlignment),
                           ConstantInt::get(i64, opts.symbols.size()), table}),
      opts.configName);
  config->setAlignment(Align(8));
  return Error::success();
}

namespace {

/// \p M as a relocatable object for \p TM's target, into \p os.
Error emitObjectCode(llvm::Module &M, TargetMachine &TM, raw_pwrite_stream &os) {
  legacy::PassManager PM;
  if (TM.addPassesToEmitFile(PM, os, nullptr, CodeGenFileType::ObjectFile))
    return makeError("the target cannot emit an object file");
  PM.run(M);
  return Error::success();
}

} // namespace

Expected<SmallVector<char, 0>> emitObjectCode(llvm::Module &M, TargetMachine &TM) {
  SmallVector<char, 0> object;
  raw_svector_ostream objectStream(object);
  EMBER_TRY(emitObjectCode(M, TM, objectStream));
  return std::move(object);
}

Error writeObjectFile(const std::string &path, ArrayRef<char> bytes) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return makeError("cannot write '" + path + "': " + ec.message());
  os.write(bytes.data(), bytes.size());
  os.close();
  if (os.has_error())
    return makeError("cannot write '" + path + "': " + os.error().message());
  return Error::success();
}

Error writeConstantsObject(TargetMachine &TM, ArrayRef<uint8_t> region, StringRef symbol,
                           const std::string &path) {
  LLVMContext ctx;
  // No source file name: the object records no path (nor anything else but the bytes).
  llvm::Module M("", ctx);
  M.setSourceFileName("");
  M.setTargetTriple(TM.getTargetTriple().str());
  M.setDataLayout(TM.createDataLayout());
  // One raw constant, not a constant per byte: cheap to build and to emit at any size.
  llvm::Constant *bytes = ConstantDataArray::getRaw(
      StringRef(reinterpret_cast<const char *>(region.data()), region.size()), region.size(),
      llvm::Type::getInt8Ty(ctx));
  // Constant, with a named address: read-only data of its own, never merged with other data.
  auto *weights = new GlobalVariable(M, bytes->getType(), /*isConstant=*/true,
                                     GlobalValue::ExternalLinkage, bytes, symbol);
  weights->setAlignment(Align(kTensorAlignment));
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return makeError("cannot write '" + path + "': " + ec.message());
  EMBER_TRY(emitObjectCode(M, TM, os));
  os.close();
  if (os.has_error())
    return makeError("cannot write '" + path + "': " + os.error().message());
  return Error::success();
}

} // namespace ember
